// SPDX-License-Identifier: GPL-3.0-or-later
#include "parameter_panel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStackedWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "log_slider.h"
#include "throttlelab/engine/simulator.h"

namespace throttlelab::ui {

namespace {
constexpr std::int64_t kMiB = 1024 * 1024;

QSpinBox* spin(int lo, int hi, const QString& suffix, QWidget* parent) {
  auto* s = new QSpinBox(parent);
  s->setRange(lo, hi);
  s->setSuffix(suffix);
  s->setKeyboardTracking(false);
  s->setAccelerated(true);
  return s;
}

QGroupBox* group(const QString& title, QWidget* parent, QFormLayout*& form) {
  auto* box = new QGroupBox(title, parent);
  form = new QFormLayout(box);
  form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  form->setRowWrapPolicy(QFormLayout::WrapLongRows);
  return box;
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
  QFormLayout* form = nullptr;

  // Writers
  auto* writersBox = group(tr("Writers (dd)"), this, form);
  m_writers = new LogSlider(1, 10000, 0, tr("writers"), true, writersBox);
  m_writers->setSingularUnit(tr("writer"));
  m_writers->setToolTip(tr("Count of the first normal writer group (0 to 10,000)"));
  form->addRow(tr("Writers"), m_writers);
  m_blockKiB = new LogSlider(4, 65536, 0, tr("KiB"), false, writersBox);
  m_blockKiB->setToolTip(tr("dd bs=: bytes written per write() call"));
  form->addRow(tr("Block size"), m_blockKiB);
  m_thinkMs = new LogSlider(0.1, 10000, 1, tr("ms"), true, writersBox);
  m_thinkMs->setToolTip(tr("Time between two blocks, not using a CPU"));
  form->addRow(tr("Think time"), m_thinkMs);
  layout->addWidget(writersBox);

  // Real-time writers
  auto* rtBox = group(tr("Real-time writers"), this, form);
  m_rtCount = spin(0, 64, tr(" writers"), rtBox);
  connect(m_rtCount, &QSpinBox::valueChanged, m_rtCount,
          [this](int n) { m_rtCount->setSuffix(n == 1 ? tr(" writer") : tr(" writers")); });
  form->addRow(tr("RT writers"), m_rtCount);
  m_rtClass = new QComboBox(rtBox);
  m_rtClass->addItem(QStringLiteral("SCHED_FIFO"), static_cast<int>(engine::SchedClass::Fifo));
  m_rtClass->addItem(QStringLiteral("SCHED_RR"), static_cast<int>(engine::SchedClass::RoundRobin));
  form->addRow(tr("Class"), m_rtClass);
  m_rtPriority = spin(1, 99, QString(), rtBox);
  m_rtPriority->setPrefix(tr("prio "));
  form->addRow(tr("RT priority"), m_rtPriority);
  layout->addWidget(rtBox);

  // vm.* sysctls
  auto* vmBox = group(tr("Limits (vm.*)"), this, form);
  m_dirtyMode = new QComboBox(vmBox);
  m_dirtyMode->addItems({tr("dirty_ratio"), tr("dirty_bytes")});
  m_dirtyStack = new QStackedWidget(vmBox);
  m_dirtyRatio = spin(1, 100, tr(" %"), m_dirtyStack);
  m_dirtyBytes = spin(1, 1 << 20, tr(" MiB"), m_dirtyStack);
  m_dirtyStack->addWidget(m_dirtyRatio);
  m_dirtyStack->addWidget(m_dirtyBytes);
  form->addRow(m_dirtyMode, m_dirtyStack);
  m_bgMode = new QComboBox(vmBox);
  m_bgMode->addItems({tr("dirty_background_ratio"), tr("dirty_background_bytes")});
  m_bgStack = new QStackedWidget(vmBox);
  m_bgRatio = spin(0, 100, tr(" %"), m_bgStack);
  m_bgBytes = spin(1, 1 << 20, tr(" MiB"), m_bgStack);
  m_bgStack->addWidget(m_bgRatio);
  m_bgStack->addWidget(m_bgBytes);
  form->addRow(m_bgMode, m_bgStack);
  m_expire = spin(0, 360000, tr(" cs"), vmBox);
  m_expire->setSingleStep(100);
  m_expire->setToolTip(tr("vm.dirty_expire_centisecs: age after which dirty data is written"));
  form->addRow(tr("dirty_expire"), m_expire);
  m_writeback = spin(0, 360000, tr(" cs"), vmBox);
  m_writeback->setSingleStep(100);
  m_writeback->setToolTip(tr("vm.dirty_writeback_centisecs: flusher period; 0 disables it"));
  form->addRow(tr("dirty_writeback"), m_writeback);
  layout->addWidget(vmBox);

  // Machine
  auto* machineBox = group(tr("Machine and device"), this, form);
  m_memory = new LogSlider(256, 262144, 0, tr("MiB"), false, machineBox);
  form->addRow(tr("Memory"), m_memory);
  m_cpus = spin(1, 256, tr(" CPUs"), machineBox);
  form->addRow(tr("CPUs"), m_cpus);
  m_bandwidth = new LogSlider(1, 10000, 1, tr("MB/s"), false, machineBox);
  form->addRow(tr("Device write"), m_bandwidth);
  m_seek = new QDoubleSpinBox(machineBox);
  m_seek->setRange(0, 100);
  m_seek->setDecimals(1);
  m_seek->setSingleStep(0.5);
  m_seek->setSuffix(tr(" ms"));
  m_seek->setKeyboardTracking(false);
  form->addRow(tr("Seek time"), m_seek);
  m_policy = new QComboBox(machineBox);
  for (const auto& name : engine::Simulator::policyNames())
    m_policy->addItem(QString::fromStdString(name));
  form->addRow(tr("Policy"), m_policy);
  layout->addWidget(machineBox);
  layout->addStretch(1);

  // Wiring: every control edits the scenario and emits it.
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
    showModes();
    edit([this, mode](auto& s) {
      if (mode == 1) {
        // Start from what the ratio gave on this machine, so the switch changes nothing yet.
        const auto mib = std::max<std::int64_t>(1, s.machine.memoryMiB * s.vm.dirtyRatio / 100);
        s.vm.dirtyBytes = mib * kMiB;
        const QSignalBlocker block(m_dirtyBytes);
        m_dirtyBytes->setValue(toInt(mib));
      } else {
        s.vm.dirtyBytes = 0;
      }
    });
  });
  connect(m_dirtyRatio, &QSpinBox::valueChanged, this,
          [this](int v) { edit([v](auto& s) { s.vm.dirtyRatio = v; }); });
  connect(m_dirtyBytes, &QSpinBox::valueChanged, this,
          [this](int v) { edit([v](auto& s) { s.vm.dirtyBytes = std::int64_t{v} * kMiB; }); });
  connect(m_bgMode, &QComboBox::currentIndexChanged, this, [this](int mode) {
    showModes();
    edit([this, mode](auto& s) {
      if (mode == 1) {
        const auto mib =
            std::max<std::int64_t>(1, s.machine.memoryMiB * s.vm.dirtyBackgroundRatio / 100);
        s.vm.dirtyBackgroundBytes = mib * kMiB;
        const QSignalBlocker block(m_bgBytes);
        m_bgBytes->setValue(toInt(mib));
      } else {
        s.vm.dirtyBackgroundBytes = 0;
      }
    });
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
  setScenario(m_scenario);
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
  }
  if (!scenario.devices.empty()) m_bandwidth->setValue(scenario.devices.front().writeMBps);
  m_updating = false;
}

}  // namespace throttlelab::ui
