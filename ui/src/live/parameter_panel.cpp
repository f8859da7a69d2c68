// SPDX-License-Identifier: GPL-3.0-or-later
#include "parameter_panel.h"

#include <QAbstractSpinBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLocale>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStackedWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>

#include "log_slider.h"
#include "throttlelab/engine/scenario_keys.h"
#include "throttlelab/engine/simulator.h"
#include "wheel_guard.h"

namespace throttlelab::ui {

namespace {
constexpr std::int64_t kMiB = 1024 * 1024;

/// A key's meaning from the scenario key table as plain text: `code`, **bold** and
/// [text](link) of the table's Markdown become their text.
QString plainText(std::string_view markdown) {
  std::string out;
  for (std::size_t i = 0; i < markdown.size(); ++i) {
    const char c = markdown[i];
    if (c == '`' || (c == '*' && i + 1 < markdown.size() && markdown[i + 1] == '*')) {
      if (c == '*') ++i;
      continue;
    }
    if (c == ']' && i + 1 < markdown.size() && markdown[i + 1] == '(') {
      const std::size_t close = markdown.find(')', i);
      if (close != std::string_view::npos) {
        i = close;
        continue;
      }
    }
    if (c == '[') continue;
    out += c;
  }
  return QString::fromStdString(out);
}

QString number(double v) {
  return QLocale::system().toString(v, 'g', 12);
}

/// What a control shows of the key it edits, in the control's unit, from the scenario key table
/// (schema::kControlSpans and the key's row): range, unit, step, and a tooltip that says what
/// raising it does (`effect`, the panel's), the key and its meaning, and what the format allows
/// when the control offers less.
struct ControlSpec {
  double lo = 0;
  double hi = 0;
  bool zeroToo = false;
  QString unit;
  double step = 1;
  QString tip;
};

ControlSpec controlSpec(std::string_view control, const QString& effect) {
  const engine::schema::ControlSpan* span = engine::schema::findControl(control);
  const auto facts = span ? engine::schema::keyFacts(span->table, span->key) : std::nullopt;
  Q_ASSERT(facts);  // tests/engine/control_span_test.cpp: every row names a key
  if (!facts) return {};
  const double per = span->keyPerUnit;
  const bool whole = span->range.lo == 0 && span->range.hi == 0;
  ControlSpec c{.lo = whole ? std::ceil(facts->range.lo / per) : span->range.lo,
                .hi = whole ? std::floor(facts->range.hi / per) : span->range.hi,
                .zeroToo = span->zeroToo,
                .unit = QString::fromUtf8(span->unit.empty() ? facts->unit : span->unit),
                .step = span->step};
  const QString key = QString::fromUtf8(span->table) + u'.' + QString::fromUtf8(span->key);
  const QString unit = QString::fromUtf8(facts->unit);
  c.tip = effect + QStringLiteral("\n\n") + key + QStringLiteral(": ") + plainText(facts->meaning) +
          u'.';
  const QString offered = (c.zeroToo ? QStringLiteral("0, ") : QString()) + number(c.lo) +
                          QStringLiteral(" … ") + number(c.hi) +
                          (c.unit.isEmpty() ? QString() : u' ' + c.unit);
  if (span->why.empty()) {
    c.tip += ParameterPanel::tr(" %1, all the format allows.").arg(offered);
  } else {
    const QString allowed = facts->allowed.empty()
                                ? number(facts->range.lo) + QStringLiteral(" … ") +
                                      number(facts->range.hi) +
                                      (unit.isEmpty() ? QString() : u' ' + unit)
                                : plainText(facts->allowed);
    c.tip += ParameterPanel::tr(
                 " The format allows %1; here %2, because %3. A scenario file or "
                 "--set reaches the rest.")
                 .arg(allowed, offered, plainText(span->why));
  }
  return c;
}

QString suffixOf(const ControlSpec& c, const QString& noun) {
  const QString unit = c.unit.isEmpty() ? noun : c.unit;
  return unit.isEmpty() ? QString() : u' ' + unit;
}

QSpinBox* spin(const ControlSpec& c, const QString& noun, QWidget* parent) {
  auto* s = new QSpinBox(parent);
  s->setRange(static_cast<int>(c.lo), static_cast<int>(c.hi));
  s->setSingleStep(static_cast<int>(c.step));
  s->setSuffix(suffixOf(c, noun));
  s->setKeyboardTracking(false);
  s->setAccelerated(true);
  s->setToolTip(c.tip);
  return s;
}

/// `widget` on a new row of `form` with `label`; returns it.
template <class Widget>
Widget* addRow(QFormLayout& form, const QString& label, Widget* widget) {
  form.addRow(label, widget);
  return widget;
}

/// A limit set as a share of memory or in bytes (vm.dirty_ratio or vm.dirty_bytes, and the
/// background pair): a choice between the two `names` in `mode` and a spin box for each, the
/// chosen one shown in the returned stack, on a new row of `form`.
QStackedWidget* ratioOrBytes(const QStringList& names, const char* ratioKey, const char* bytesKey,
                             const QString& tip, QComboBox*& mode, QSpinBox*& ratio,
                             QSpinBox*& bytes, QFormLayout& form) {
  QWidget* parent = form.parentWidget();
  mode = new QComboBox(parent);
  mode->addItems(names);
  mode->setToolTip(tip);
  auto* stack = new QStackedWidget(parent);
  ratio = spin(controlSpec(ratioKey, tip), QString(), stack);
  bytes = spin(controlSpec(bytesKey, tip), QString(), stack);
  stack->addWidget(ratio);
  stack->addWidget(bytes);
  form.addRow(mode, stack);
  return stack;
}

LogSlider* slider(const ControlSpec& c, int decimals, const QString& noun, QWidget* parent) {
  auto* s =
      new LogSlider(c.lo, c.hi, decimals, c.unit.isEmpty() ? noun : c.unit, c.zeroToo, parent);
  s->setToolTip(c.tip);
  return s;
}

/// A titled box of the panel and the form its controls go in.
struct Group {
  QGroupBox* box;
  QFormLayout* form;
};

Group group(const QString& title, QWidget* parent) {
  auto* box = new QGroupBox(title, parent);
  auto* form = new QFormLayout(box);
  form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  form->setRowWrapPolicy(QFormLayout::WrapLongRows);
  return {box, form};
}

int toInt(std::int64_t v) {
  return static_cast<int>(std::clamp<std::int64_t>(v, 0, 1 << 30));
}
}  // namespace

engine::TaskSpec& ParameterPanel::normalGroup(engine::Scenario& s) {
  auto it = std::find_if(s.tasks.begin(), s.tasks.end(), [](const auto& t) {
    return t.kind == engine::TaskKind::Writer && t.sched == engine::SchedClass::Other;
  });
  if (it != s.tasks.end()) return *it;
  s.tasks.push_back(engine::TaskSpec{.name = "dd", .count = 0});
  return s.tasks.back();
}

engine::TaskSpec* ParameterPanel::rtGroup(engine::Scenario& s) {
  auto it = std::find_if(s.tasks.begin(), s.tasks.end(), [](const auto& t) {
    return t.kind == engine::TaskKind::Writer && t.sched != engine::SchedClass::Other;
  });
  return it == s.tasks.end() ? nullptr : &*it;
}

ParameterPanel::ParameterPanel(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("parameterPanel"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);

  // What the scenario is: its own description, as the file gives it.
  m_description = new QLabel(this);
  m_description->setObjectName(QStringLiteral("scenarioDescription"));
  m_description->setWordWrap(true);
  m_description->setFrameShape(QFrame::StyledPanel);
  m_description->setMargin(4);
  m_description->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_description);

  layout->addWidget(buildWriters());
  layout->addWidget(buildRealTime());
  layout->addWidget(buildLimits());
  layout->addWidget(buildMachine());
  layout->addStretch(1);

  wheelOnlyWhenFocused(this);

  // A spin box keeps the keyboard after Enter and takes Space and "." as text, so Run/Pause
  // and Step stop answering: once a typed value is entered, the box lets go of the focus.
  for (QAbstractSpinBox* box : findChildren<QAbstractSpinBox*>()) {
    connect(box, &QAbstractSpinBox::editingFinished, box, [box] {
      if (box->hasFocus()) box->clearFocus();
    });
  }

  connectControls();
  setScenario(m_scenario);
}

/// The normal dd writers: how many, their block size, their think time.
QGroupBox* ParameterPanel::buildWriters() {
  const auto [writersBox, form] = group(tr("Writers (dd)"), this);
  m_writers =
      slider(controlSpec("writers", tr("Writers: the first normal dd group. More writers share the "
                                       "same disk: each one's dirty rate falls to write_bw / N and "
                                       "its pause grows.")),
             0, tr("writers"), writersBox);
  m_writers->setSingularUnit(tr("writer"));
  // Classes go 1, 2, 3, 5, 10 writers far more often than 7,000: room for them on the slider.
  m_writers->setLowEndPower(2);
  form->addRow(tr("Writers"), m_writers);
  m_blockKiB = addRow(
      *form, tr("Block size"),
      slider(controlSpec("blockSize", tr("Block size: dd bs=, KiB written per write() call. Larger "
                                         "blocks dirty more pages per call, so "
                                         "balance_dirty_pages() is entered with more at once.")),
             0, QString(), writersBox));
  m_thinkMs = addRow(
      *form, tr("Think time"),
      slider(controlSpec("thinkTime", tr("Think time: between two blocks, without using a CPU. "
                                         "Raising it lowers the writer's own dirty rate; ioless "
                                         "subtracts it from the next pause.")),
             1, QString(), writersBox));
  return writersBox;
}

/// The real-time writers: how many, their class and priority.
QGroupBox* ParameterPanel::buildRealTime() {
  const auto [rtBox, form] = group(tr("Real-time writers"), this);
  m_rtCount = spin(
      controlSpec("rtWriters", tr("Real-time writers: the SCHED_FIFO/RR group. The kernel lifts "
                                  "their dirty limits by a quarter (domain_dirty_limits()), which "
                                  "lifts dirty_limit for all.")),
      tr("writers"), rtBox);
  connect(m_rtCount, &QSpinBox::valueChanged, m_rtCount,
          [this](int n) { m_rtCount->setSuffix(n == 1 ? tr(" writer") : tr(" writers")); });
  form->addRow(tr("RT writers"), m_rtCount);
  m_rtClass = new QComboBox(rtBox);
  m_rtClass->addItem(QStringLiteral("SCHED_FIFO"), static_cast<int>(engine::SchedClass::Fifo));
  m_rtClass->addItem(QStringLiteral("SCHED_RR"), static_cast<int>(engine::SchedClass::RoundRobin));
  m_rtClass->setToolTip(
      tr("Scheduling class (tasks.sched): SCHED_FIFO runs until it blocks; SCHED_RR takes "
         "turns with tasks of its own priority"));
  form->addRow(tr("Class"), m_rtClass);
  m_rtPriority = spin(controlSpec("rtPriority", tr("Real-time priority: a higher one preempts "
                                                   "lower ones and every normal task.")),
                      QString(), rtBox);
  m_rtPriority->setPrefix(tr("prio "));
  form->addRow(tr("RT priority"), m_rtPriority);
  return rtBox;
}

/// The vm.* sysctls: the dirty limits (ratio or bytes) and the flusher's periods.
QGroupBox* ParameterPanel::buildLimits() {
  const auto [vmBox, form] = group(tr("Limits (vm.*)"), this);
  const QString dirtyTip =
      tr("The dirty threshold, thresh, as a share of dirtyable memory or in bytes; setting one "
         "clears the other. Raising it lets more dirty pages build up before writers are "
         "throttled (freerun and setpoint rise too).");
  m_dirtyStack = ratioOrBytes({tr("dirty_ratio"), tr("dirty_bytes")}, "dirtyRatio", "dirtyBytesMiB",
                              dirtyTip, m_dirtyMode, m_dirtyRatio, m_dirtyBytes, *form);
  const QString bgTip =
      tr("bg_thresh, where the flusher starts writing in the background. Raising it starts "
         "writeback later; freerun, (thresh + bg_thresh) / 2, rises with it.");
  m_bgStack =
      ratioOrBytes({tr("dirty_background_ratio"), tr("dirty_background_bytes")}, "backgroundRatio",
                   "backgroundBytesMiB", bgTip, m_bgMode, m_bgRatio, m_bgBytes, *form);
  m_expire = addRow(*form, tr("dirty_expire"),
                    spin(controlSpec("expireCentisecs",
                                     tr("Dirty data older than this is written by the flusher even "
                                        "below bg_thresh. Raising it keeps dirty pages in memory "
                                        "longer.")),
                         QString(), vmBox));
  m_writeback = addRow(
      *form, tr("dirty_writeback"),
      spin(controlSpec("writebackCentisecs", tr("How often the flusher wakes to write old data "
                                                "(wb_workfn). Raising it writes old data later.")),
           QString(), vmBox));
  return vmBox;
}

/// The machine and its first device, and the throttling policy.
QGroupBox* ParameterPanel::buildMachine() {
  const auto [machineBox, form] = group(tr("Machine and device"), this);
  m_memory = addRow(
      *form, tr("Memory"),
      slider(
          controlSpec("memoryMiB", tr("Memory. The ratio thresholds are shares of the dirtyable "
                                      "part of it, so raising it raises them (vm.dirty_bytes does "
                                      "not change).")),
          0, QString(), machineBox));
  m_cpus =
      addRow(*form, tr("CPUs"),
             spin(controlSpec("cpus", tr("Writers copy on CPUs; with fewer CPUs than writers "
                                         "they also wait for a CPU, and %system is a share of all "
                                         "of them.")),
                  tr("CPUs"), machineBox));
  m_bandwidth = addRow(
      *form, tr("Device write"),
      slider(
          controlSpec("deviceMBps", tr("Device write speed of the first device. Raising it raises "
                                       "write_bw, and with it dirty_ratelimit and every writer's "
                                       "rate.")),
          1, QString(), machineBox));
  const ControlSpec seek =
      controlSpec("seekMs", tr("Seek time: to position the head between two files or regions "
                               "(drawn between 0.5 and 1.5 times it). Raising it costs many "
                               "interleaved writers throughput."));
  m_seek = new QDoubleSpinBox(machineBox);
  m_seek->setRange(seek.lo, seek.hi);
  m_seek->setDecimals(1);
  m_seek->setSingleStep(seek.step);
  m_seek->setSuffix(suffixOf(seek, QString()));
  m_seek->setKeyboardTracking(false);
  m_seek->setToolTip(seek.tip);
  form->addRow(tr("Seek time"), m_seek);
  m_policy = new QComboBox(machineBox);
  for (const auto& p : engine::Simulator::policyDescriptions()) {
    m_policy->addItem(QString::fromStdString(p.name));
    m_policy->setItemData(
        m_policy->count() - 1,
        QStringLiteral("<p><b>%1</b> (%2)</p><p>%3</p>")
            .arg(QString::fromStdString(p.name), QString::fromStdString(p.kernels).toHtmlEscaped(),
                 QString::fromStdString(p.details).toHtmlEscaped()),
        Qt::ToolTipRole);
  }
  const auto updatePolicyTip = [this] {
    m_policy->setToolTip(m_policy->currentData(Qt::ToolTipRole).toString());
  };
  connect(m_policy, &QComboBox::currentIndexChanged, this, updatePolicyTip);
  form->addRow(tr("Policy"), m_policy);
  return machineBox;
}

/// Wiring: every control edits the scenario and emits it.
void ParameterPanel::connectControls() {
  connect(m_writers, &LogSlider::valueChanged, this, [this](double v) {
    edit([v](auto& s) { normalGroup(s).count = static_cast<int>(std::lround(v)); });
  });
  connect(m_blockKiB, &LogSlider::valueChanged, this,
          [this](double v) { edit([v](auto& s) { normalGroup(s).blockKiB = std::llround(v); }); });
  connect(m_thinkMs, &LogSlider::valueChanged, this,
          [this](double v) { edit([v](auto& s) { normalGroup(s).thinkMs = v; }); });
  connect(m_rtCount, &QSpinBox::valueChanged, this, &ParameterPanel::setRtWriters);
  connect(m_rtClass, &QComboBox::currentIndexChanged, this, [this] {
    const auto c = static_cast<engine::SchedClass>(m_rtClass->currentData().toInt());
    edit([c](auto& s) {
      if (auto* g = rtGroup(s)) g->sched = c;
    });
  });
  connect(m_rtPriority, &QSpinBox::valueChanged, this, [this](int v) {
    edit([v](auto& s) {
      if (auto* g = rtGroup(s)) g->rtPriority = v;
    });
  });
  connect(m_dirtyMode, &QComboBox::currentIndexChanged, this, [this](int mode) {
    setLimitMode(mode == 1, &engine::VmConfig::dirtyRatio, &engine::VmConfig::dirtyBytes,
                 m_dirtyBytes);
  });
  connect(m_dirtyRatio, &QSpinBox::valueChanged, this,
          [this](int v) { edit([v](auto& s) { s.vm.dirtyRatio = v; }); });
  connect(m_dirtyBytes, &QSpinBox::valueChanged, this,
          [this](int v) { edit([v](auto& s) { s.vm.dirtyBytes = std::int64_t{v} * kMiB; }); });
  connect(m_bgMode, &QComboBox::currentIndexChanged, this, [this](int mode) {
    setLimitMode(mode == 1, &engine::VmConfig::dirtyBackgroundRatio,
                 &engine::VmConfig::dirtyBackgroundBytes, m_bgBytes);
  });
  connect(m_bgRatio, &QSpinBox::valueChanged, this,
          [this](int v) { edit([v](auto& s) { s.vm.dirtyBackgroundRatio = v; }); });
  connect(m_bgBytes, &QSpinBox::valueChanged, this, [this](int v) {
    edit([v](auto& s) { s.vm.dirtyBackgroundBytes = std::int64_t{v} * kMiB; });
  });
  connect(m_expire, &QSpinBox::valueChanged, this,
          [this](int v) { edit([v](auto& s) { s.vm.dirtyExpireCentisecs = v; }); });
  connect(m_writeback, &QSpinBox::valueChanged, this,
          [this](int v) { edit([v](auto& s) { s.vm.dirtyWritebackCentisecs = v; }); });
  connect(m_memory, &LogSlider::valueChanged, this,
          [this](double v) { edit([v](auto& s) { s.machine.memoryMiB = std::llround(v); }); });
  connect(m_cpus, &QSpinBox::valueChanged, this,
          [this](int v) { edit([v](auto& s) { s.machine.cpus = v; }); });
  connect(m_bandwidth, &LogSlider::valueChanged, this, [this](double v) {
    edit([v](auto& s) {
      if (!s.devices.empty()) s.devices.front().writeMBps = v;
    });
  });
  connect(m_seek, &QDoubleSpinBox::valueChanged, this, [this](double v) {
    edit([v](auto& s) {
      if (!s.devices.empty()) s.devices.front().seekMs = v;
    });
  });
  connect(m_policy, &QComboBox::currentTextChanged, this, [this](const QString& name) {
    edit([name](auto& s) { s.policy = name.toStdString(); });
  });
}

void ParameterPanel::setLimitMode(bool bytes, int engine::VmConfig::*ratioKey,
                                  std::int64_t engine::VmConfig::*bytesKey, QSpinBox* bytesBox) {
  showModes();
  edit([=](engine::Scenario& s) {
    if (!bytes) {
      s.vm.*bytesKey = 0;
      return;
    }
    // Start from what the ratio gave on this machine, so the switch changes nothing yet.
    const auto mib = std::max<std::int64_t>(1, s.machine.memoryMiB * (s.vm.*ratioKey) / 100);
    s.vm.*bytesKey = mib * kMiB;
    const QSignalBlocker block(bytesBox);
    bytesBox->setValue(toInt(mib));
  });
}

void ParameterPanel::setRtWriters(int count) {
  edit([this, count](engine::Scenario& s) {
    if (auto* g = rtGroup(s)) {
      g->count = count;  // kept at 0 rather than removed, so group indices stay stable
      return;
    }
    if (count == 0) return;
    engine::TaskSpec rt{.name = "rt-dd", .count = count};
    rt.sched = static_cast<engine::SchedClass>(m_rtClass->currentData().toInt());
    rt.rtPriority = m_rtPriority->value();
    rt.blockKiB = normalGroup(s).blockKiB;
    s.tasks.push_back(rt);
  });
}

void ParameterPanel::edit(const std::function<void(engine::Scenario&)>& change) {
  if (m_updating) return;
  change(m_scenario);
  Q_EMIT scenarioEdited(m_scenario);
}

void ParameterPanel::showModes() {
  m_dirtyStack->setCurrentIndex(m_dirtyMode->currentIndex());
  m_bgStack->setCurrentIndex(m_bgMode->currentIndex());
}

void ParameterPanel::setScenario(const engine::Scenario& scenario) {
  m_updating = true;
  m_scenario = scenario;
  engine::Scenario probe = scenario;  // normalGroup() may add a group; keep that off the value
  const engine::TaskSpec& normal = normalGroup(probe);
  m_writers->setValue(normal.count);
  m_blockKiB->setValue(static_cast<double>(normal.blockKiB));
  m_thinkMs->setValue(normal.thinkMs);
  const engine::TaskSpec* rt = rtGroup(probe);
  {
    const QSignalBlocker b1(m_rtCount), b2(m_rtClass), b3(m_rtPriority);
    m_rtCount->setValue(rt ? rt->count : 0);
    m_rtClass->setCurrentIndex(rt && rt->sched == engine::SchedClass::RoundRobin ? 1 : 0);
    m_rtPriority->setValue(rt ? std::clamp(rt->rtPriority, 1, 99) : 50);
  }
  m_rtCount->setSuffix(m_rtCount->value() == 1 ? tr(" writer") : tr(" writers"));
  const auto& vm = scenario.vm;
  {
    const QSignalBlocker b1(m_dirtyMode), b2(m_dirtyRatio), b3(m_dirtyBytes), b4(m_bgMode),
        b5(m_bgRatio), b6(m_bgBytes), b7(m_expire), b8(m_writeback);
    m_dirtyMode->setCurrentIndex(vm.dirtyBytes > 0 ? 1 : 0);
    m_dirtyRatio->setValue(vm.dirtyRatio);
    m_dirtyBytes->setValue(toInt(std::max<std::int64_t>(1, vm.dirtyBytes / kMiB)));
    m_bgMode->setCurrentIndex(vm.dirtyBackgroundBytes > 0 ? 1 : 0);
    m_bgRatio->setValue(vm.dirtyBackgroundRatio);
    m_bgBytes->setValue(toInt(std::max<std::int64_t>(1, vm.dirtyBackgroundBytes / kMiB)));
    m_expire->setValue(vm.dirtyExpireCentisecs);
    m_writeback->setValue(vm.dirtyWritebackCentisecs);
  }
  showModes();
  m_memory->setValue(static_cast<double>(scenario.machine.memoryMiB));
  {
    const QSignalBlocker b1(m_cpus), b2(m_seek), b3(m_policy);
    m_cpus->setValue(scenario.machine.cpus);
    if (!scenario.devices.empty()) m_seek->setValue(scenario.devices.front().seekMs);
    const int policy = m_policy->findText(QString::fromStdString(scenario.policy));
    if (policy < 0) m_policy->addItem(QString::fromStdString(scenario.policy));
    m_policy->setCurrentText(QString::fromStdString(scenario.policy));
    m_policy->setToolTip(m_policy->currentData(Qt::ToolTipRole).toString());
  }
  m_description->setText(QString::fromStdString(scenario.description));
  m_description->setToolTip(QString::fromStdString(scenario.name));
  m_description->setVisible(!scenario.description.empty());
  if (!scenario.devices.empty()) m_bandwidth->setValue(scenario.devices.front().writeMBps);
  m_updating = false;
}

}  // namespace throttlelab::ui
