// SPDX-License-Identifier: GPL-3.0-or-later
#include "host_view.h"

#include <unistd.h>
#include <QApplication>
#include <QComboBox>
#include <QEvent>
#include <QFile>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>

#include "flow_layout.h"
#include "host_monitor.h"
#include "host_plot.h"
#include "host_readout.h"
#include "interrupt_guard.h"
#include "memory_plot.h"
#include "qcp.h"
#include "save_file.h"
#include "theme.h"
#include "trace_plot.h"
#include "trace_record_job.h"

namespace throttlelab::ui {

namespace {
constexpr double kFollowSpanS = 120;  ///< seconds shown while following
constexpr double kMinSpanS = 10;

SampleBuffer oneSample(const engine::Sample& s) {
  SampleBuffer buffer(1);
  buffer.push_back(s);
  return buffer;
}
}  // namespace

HostView::HostView(QWidget* parent)
    : QWidget(parent),
      m_monitor(new HostMonitor(this)),
      m_recorder(new TraceRecordJob(this)),
      m_recorded(SampleHistory::kDefaultCap) {
  setObjectName(QStringLiteral("hostView"));
  m_recorded.setWindow(HistoryWindow::Last10min);

  buildControls();
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  addBars(layout);
  layout->addWidget(buildPlots(), 1);
  connectPlots();
  connectControls();

  m_frameTimer = new QTimer(this);
  m_frameTimer->setInterval(HostMonitor::kIntervalMs);
  connect(m_frameTimer, &QTimer::timeout, this, &HostView::frame);

  const bool root = ::geteuid() == 0;
  setRecordingAllowed(root, root ? QString()
                                 : tr("Recording tracepoints needs root (it mounts tracefs and "
                                      "enables the writeback events); run ThrottleLab as root, "
                                      "or watch without tracepoints."));
  applyTheme();
  m_readout->setText(tr("Not watching"));
}

/// The readout, the recording buttons and the cgroup chooser.
void HostView::buildControls() {
  m_readout = new QLabel;
  m_readout->setObjectName(QStringLiteral("hostReadout"));
  QFont big = m_readout->font();
  big.setPointSizeF(big.pointSizeF() * 1.3);
  big.setBold(true);
  m_readout->setFont(big);
  m_readout->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_info = new QLabel;
  m_info->setObjectName(QStringLiteral("hostInfo"));
  m_recordButton = new QPushButton(tr("● Record tracepoints"));
  m_recordButton->setObjectName(QStringLiteral("recordTracepoints"));
  m_recordButton->setCheckable(true);
  m_saveButton = new QPushButton(tr("Save recording…"));
  m_saveButton->setEnabled(false);
  m_simulateButton = new QPushButton(tr("Simulate the recording"));
  m_simulateButton->setToolTip(
      tr("Open what was recorded in the real-kernel view, with this "
         "machine's CPUs and memory, to lay a simulation over it"));
  m_simulateButton->setEnabled(false);
  m_recordInfo = new QLabel;
  m_cgroupChoice = new QComboBox;
  m_cgroupChoice->setObjectName(QStringLiteral("hostCgroup"));
  m_cgroupChoice->setEditable(true);
  m_cgroupChoice->setInsertPolicy(QComboBox::NoInsert);
  m_cgroupChoice->setMinimumContentsLength(28);
  m_cgroupChoice->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_cgroupChoice->lineEdit()->setPlaceholderText(tr("a cgroup path, e.g. memory/NAME"));
  m_cgroupChoice->setToolTip(
      tr("A memory cgroup to watch beside the machine: a directory with memory.stat, or its "
         "path below the cgroup mount (cgroup v1 mounts the memory controller at memory/)"));
  m_cgroupButton = new QPushButton(tr("Watch cgroup"));
  m_cgroupButton->setObjectName(QStringLiteral("hostCgroupWatch"));
  m_cgroupInfo = new QLabel(tr("No memory cgroup watched"));
  m_cgroupInfo->setObjectName(QStringLiteral("hostCgroupInfo"));
  m_cgroupInfo->setWordWrap(true);
  m_cgroupInfo->setTextInteractionFlags(Qt::TextSelectableByMouse);
}

/// The readout's row, the recording bar and the cgroup bar, above the plots.
void HostView::addBars(QVBoxLayout* layout) {
  auto* top = new QHBoxLayout;
  top->addWidget(m_readout, 1);
  // The bars wrap on a narrow screen rather than widening the window.
  m_readout->setWordWrap(true);
  m_info->setWordWrap(true);
  auto* bar = new FlowLayout;
  bar->addStretchWidget(m_info);
  bar->addWidget(m_recordInfo);
  bar->addWidget(m_recordButton);
  bar->addWidget(m_saveButton);
  bar->addWidget(m_simulateButton);
  auto* cgroupBar = new FlowLayout;
  cgroupBar->addWidget(new QLabel(tr("Memory cgroup:")));
  cgroupBar->addWidget(m_cgroupChoice);
  cgroupBar->addWidget(m_cgroupButton);
  cgroupBar->addStretchWidget(m_cgroupInfo);
  layout->addLayout(top);
  layout->addLayout(bar);
  layout->addLayout(cgroupBar);
}

QSplitter* HostView::buildPlots() {
  // Left: the dirty pages (and, while recording, what the tracepoints say); right: memory and
  // reclaim, which stay flat on a machine with room to spare.
  auto* left = new QSplitter(Qt::Vertical);
  auto* right = new QSplitter(Qt::Vertical);
  auto* dirty = new HostPlot(HostPlot::Kind::Dirty, left);
  auto* memory = new MemoryPlot(right);
  memory->setTitle(tr("This machine: memory and the watermarks"));
  memory->widget()->setObjectName(QStringLiteral("host-memory"));
  memory->widget()->xAxis->setLabel(tr("time since watching began (s)"));
  auto* reclaim = new HostPlot(HostPlot::Kind::Reclaim, right);
  left->addWidget(dirty->widget());
  m_cgroupPlot = new HostPlot(HostPlot::Kind::Cgroup, left);
  left->addWidget(m_cgroupPlot->widget());
  m_cgroupPlot->widget()->hide();  // shown while a cgroup is watched
  right->addWidget(memory->widget());
  right->addWidget(reclaim->widget());
  m_plots = {dirty, memory, reclaim, m_cgroupPlot};
  m_dirtyPlot = dirty;
  for (PlotId id : {PlotId::Pauses, PlotId::Bandwidth}) {
    auto* plot = new TracePlot(id, left);
    plot->setTitle(id == PlotId::Pauses ? tr("Recorded: pauses per interval")
                                        : tr("Recorded: the bdi's estimates"));
    plot->widget()->xAxis->setLabel(tr("time since watching began (s)"));
    plot->widget()->setObjectName(QStringLiteral("host-recorded-") + plotKey(id));
    plot->setSourceShown(TracePlot::kSimulated, false);  // a recording has no simulation
    left->addWidget(plot->widget());
    plot->widget()->hide();  // shown once a recording has something for it
    m_tracePlots.push_back(plot);
    m_plots.push_back(plot);
  }
  left->setStretchFactor(0, 3);
  left->setStretchFactor(1, 3);
  left->setStretchFactor(2, 2);
  left->setStretchFactor(3, 2);
  right->setStretchFactor(0, 3);
  right->setStretchFactor(1, 2);
  auto* columns = new QSplitter(Qt::Horizontal);
  columns->addWidget(left);
  columns->addWidget(right);
  columns->setStretchFactor(0, 3);
  columns->setStretchFactor(1, 2);
  columns->setSizes({900, 600});
  return columns;
}

/// The hover cursor in every plot at once, and the plots' shared time range.
void HostView::connectPlots() {
  for (TimePlot* plot : m_plots) {
    plot->setUnits(m_units);
    connect(plot, &TimePlot::hovered, this, [this](double t) {
      const SampleHistory& h = m_monitor->history();
      const auto i = h.indexNear(t);
      const auto j = m_recorded.indexNear(t);
      const engine::Sample* polled = i ? &h[*i] : nullptr;
      const engine::Sample* traced = j ? &m_recorded[*j] : nullptr;
      for (TimePlot* p : m_plots) {
        if (isTracePlot(p))
          p->setCursor(t, std::vector<const engine::Sample*>{traced});
        else
          p->setCursor(t, std::vector<const engine::Sample*>{polled, traced});
        if (p->isShown()) p->replotOverlay();
      }
    });
    connect(plot, &TimePlot::hoverLeft, this, [this] {
      for (TimePlot* p : m_plots) {
        p->setCursor(std::nullopt, std::vector<const engine::Sample*>{});
        if (p->isShown()) p->replotOverlay();
      }
    });
    connect(plot, &TimePlot::userRangeChanged, this,
            [this, plot](double lo, double hi) { onUserRange(plot, lo, hi); });
  }
}

/// The monitor's samples and failures, the cgroup chooser, the recorder and its buttons.
void HostView::connectControls() {
  connect(m_monitor, &HostMonitor::sampled, this, &HostView::onSample);
  connect(m_monitor, &HostMonitor::pollFailed, this, [this](const QString& message) {
    m_readout->setText(tr("Cannot read this machine's state: %1").arg(message));
    Q_EMIT statusMessage(message);
  });
  connect(m_monitor, &HostMonitor::cgroupFailed, this, [this](const QString& message, bool gone) {
    m_cgroupInfo->setText(gone ? tr("%1. Pick another cgroup to watch it.").arg(message)
                               : tr("Cannot read the cgroup: %1").arg(message));
    Q_EMIT statusMessage(message);
  });
  const auto watchChosen = [this] {
    const QString error = watchCgroup(m_cgroupChoice->currentText().trimmed());
    if (!error.isEmpty()) Q_EMIT errorMessage(tr("Cannot watch this cgroup"), error);
  };
  connect(m_cgroupButton, &QPushButton::clicked, this, watchChosen);
  connect(m_cgroupChoice->lineEdit(), &QLineEdit::returnPressed, this, watchChosen);
  connect(m_recordButton, &QPushButton::toggled, this, &HostView::setRecording);
  connect(m_saveButton, &QPushButton::clicked, this, &HostView::saveRecordingRequested);
  connect(m_simulateButton, &QPushButton::clicked, this, [this] {
    if (auto trace = recording()) Q_EMIT simulateRecordingRequested(std::move(trace));
  });
  connect(m_recorder, &TraceRecordJob::started, this,
          [this] { Q_EMIT statusMessage(tr("Recording the writeback tracepoints")); });
  connect(m_recorder, &TraceRecordJob::failed, this, [this](const QString& message) {
    setRecording(false);
    Q_EMIT errorMessage(tr("Cannot record tracepoints"), message);
  });
  connect(m_recorder, &TraceRecordJob::stopped, this, [this](const QString& restoreProblem) {
    if (!restoreProblem.isEmpty())
      Q_EMIT errorMessage(tr("Tracing not fully restored"), restoreProblem);
    else
      Q_EMIT statusMessage(tr("Recording stopped; tracing is as it was found"));
    updateRecordControls();
  });
}

HostView::~HostView() {
  stop();
}

void HostView::setProcRoot(const QString& root) {
  m_monitor->setProcRoot(root);
}

QString HostView::watchCgroup(const QString& path) {
  if (path.isEmpty()) {
    m_monitor->setCgroup(std::nullopt);
    m_cgroupPlot->widget()->hide();
    m_cgroupInfo->setText(tr("No memory cgroup watched"));
    return {};
  }
  host::CgroupLocation where = host::locateCgroup(path.toStdString(), m_cgroupRoot.toStdString());
  if (!where.ok()) return QString::fromStdString(where.error);
  const QString name = QString::fromStdString(where.name);
  m_cgroupPlot->setDomainShown(where.version == host::CgroupVersion::V2);
  m_monitor->setCgroup(std::move(where));
  m_cgroupPlot->clearData();
  // The title names the cgroup by its last component, shortened (container cgroups are often
  // long hashes) so that the legend keeps its room beside it; the line above has the path.
  QString shortName = name.section(QLatin1Char('/'), -1);
  if (shortName.size() > 20)
    shortName = shortName.left(8) + QStringLiteral("…") + shortName.right(8);
  m_cgroupPlot->setTitle(tr("Cgroup %1: dirty pages, its limits").arg(shortName));
  m_cgroupPlot->widget()->show();
  if (m_cgroupChoice->currentText() != path) m_cgroupChoice->setEditText(path);
  m_cgroupInfo->setText(tr("Watching the cgroup %1").arg(name));
  Q_EMIT statusMessage(tr("Watching the memory cgroup %1").arg(name));
  return {};
}

void HostView::setCgroupRoot(const QString& root) {
  m_cgroupRoot = root;
  refreshCgroupList();
}

void HostView::refreshCgroupList() {
  const QString typed = m_cgroupChoice->currentText();
  const QSignalBlocker block(m_cgroupChoice);
  m_cgroupChoice->clear();
  for (const std::string& c : host::listMemoryCgroups(m_cgroupRoot.toStdString()))
    m_cgroupChoice->addItem(QString::fromStdString(c));
  m_cgroupChoice->setEditText(typed);
}

QString HostView::cgroupInfoText() const {
  return m_cgroupInfo->text();
}

void HostView::updateCgroupInfo(const engine::Sample& sample) {
  const host::CgroupLocation* where = m_monitor->cgroup();
  if (where == nullptr || sample.cgroups.empty()) return;
  m_cgroupInfo->setText(cgroupReadout(sample.cgroups.front(), QString::fromStdString(where->name),
                                      where->version == host::CgroupVersion::V1, m_units));
}

void HostView::setRecordingAllowed(bool allowed, const QString& whyNot) {
  m_recordAllowed = allowed;
  m_recordButton->setToolTip(
      allowed ? tr("Record writeback:global_dirty_state, bdi_dirty_ratelimit and "
                   "balance_dirty_pages live; tracing is put back as it was found when you stop")
              : whyNot);
  updateRecordControls();
}

void HostView::setRecorderOptions(host::TraceRecorder::Options options) {
  m_recorderOptions = std::move(options);
}

void HostView::start() {
  for (TimePlot* p : m_plots) p->clearData();
  if (m_cgroupChoice->count() == 0) refreshCgroupList();
  m_recorded.clear();
  m_recordOffsetS.reset();
  m_follow = true;
  m_monitor->start();
  m_frameTimer->start();
  updateInfo();
  frame();
}

void HostView::stop() {
  setRecording(false);
  m_monitor->stop();
  m_frameTimer->stop();
}

bool HostView::isActive() const {
  return m_monitor->isActive();
}

bool HostView::pollNow() {
  const bool ok = m_monitor->poll();
  frame();
  return ok;
}

std::size_t HostView::polledSamples() const {
  return m_monitor->history().size();
}

void HostView::updateInfo() {
  const host::HostInfo& info = m_monitor->info();
  QStringList parts;
  if (!info.kernelRelease.empty())
    parts << tr("Linux %1").arg(QString::fromStdString(info.kernelRelease));
  if (info.cpus > 0) parts << tr("%n CPU(s)", nullptr, info.cpus);
  if (info.memTotalKiB > 0)
    parts << tr("%1 MiB RAM").arg(static_cast<double>(info.memTotalKiB) / 1024, 0, 'f', 0);
  parts
      << tr("polled from %1 every %2 ms").arg(m_monitor->procRoot()).arg(HostMonitor::kIntervalMs);
  m_info->setText(parts.join(QStringLiteral(" · ")));
}

void HostView::onSample(const engine::Sample& sample) {
  const SampleBuffer buffer = oneSample(sample);
  for (TimePlot* p : m_plots)
    if (!isTracePlot(p)) p->appendSourceSamples(HostPlot::kPolled, buffer);
  m_readout->setText(hostReadout(sample, m_units));
  updateCgroupInfo(sample);
  m_dirty = true;
}

void HostView::frame() {
  if (m_interruptGuard && InterruptGuard::requested()) {
    m_interruptGuard.reset();
    setRecording(false);
    Q_EMIT interruptRequested();
  }
  {
    // Also after a stop: the last intervals arrive with the recorder's finish().
    std::vector<engine::Sample> fresh = m_recorder->takeSamples();
    if (!fresh.empty()) {
      if (!m_recordOffsetS) m_recordOffsetS = recordOffset(fresh.back());
      SampleBuffer buffer(fresh.size());
      for (engine::Sample& s : fresh) {
        s.time = engine::atSeconds(engine::toSeconds(s.time) + *m_recordOffsetS);
        if (!m_recorded.empty() && engine::toSeconds(s.time) < m_recorded.lastTimeS()) continue;
        buffer.push_back(s);
        m_recorded.append(std::move(s));
      }
      for (TracePlot* p : m_tracePlots) p->appendSourceSamples(TracePlot::kMeasured, buffer);
      m_dirtyPlot->appendSourceSamples(HostPlot::kTraced, buffer);
      // balance_dirty_pages and bdi_dirty_ratelimit fire only above freerun: their plots
      // appear once there is something to show.
      for (TracePlot* p : m_tracePlots)
        if (p->pointCount(TracePlot::kMeasured) > 0) p->widget()->show();
      m_dirty = true;
    }
    if (isRecording())
      m_recordInfo->setText(tr("%1 KiB recorded").arg(m_recorder->bytesRecorded() / 1024));
  }
  if (!m_dirty) return;
  m_dirty = false;
  const SampleHistory& h = m_monitor->history();
  if (!h.empty()) {
    for (TimePlot* p : m_plots) p->trimBefore(h.firstTimeS());
    if (m_follow) {
      const double last = h.lastTimeS();
      const double lo = std::max(h.firstTimeS(), last - kFollowSpanS);
      const double hi = std::max(last, lo + kMinSpanS);
      m_syncing = true;
      for (TimePlot* p : m_plots) p->setTimeRange(lo, hi);
      m_syncing = false;
    }
  }
  for (TimePlot* p : m_plots) {
    if (!p->isShown()) continue;
    p->autoscaleValues();
    p->replot(false);
  }
}

void HostView::onUserRange(TimePlot* source, double lower, double upper) {
  if (m_syncing) return;
  m_syncing = true;
  m_follow = false;
  for (TimePlot* p : m_plots)
    if (p != source) p->setTimeRange(lower, upper);
  m_syncing = false;
  m_dirty = true;
  frame();
}

void HostView::setRecording(bool on) {
  if (on && !m_recordAllowed) on = false;
  if (on != m_recordButton->isChecked()) {
    const QSignalBlocker block(m_recordButton);
    m_recordButton->setChecked(on);
  }
  if (on == isRecording()) {
    updateRecordControls();
    return;
  }
  if (on) {
    for (TracePlot* p : m_tracePlots) {
      p->clearData();
      p->widget()->hide();  // until the kernel throttles: see frame()
    }
    m_dirtyPlot->clearSource(HostPlot::kTraced);
    m_dirtyPlot->setTracedShown(true);
    m_recorded.clear();
    m_recordOffsetS.reset();
    m_interruptGuard = std::make_unique<InterruptGuard>();
    if (!m_recorder->start(m_recorderOptions)) {
      m_interruptGuard.reset();
      const QSignalBlocker block(m_recordButton);
      m_recordButton->setChecked(false);
      Q_EMIT errorMessage(tr("Cannot record tracepoints"),
                          tr("No temporary file for the recording could be created."));
    }
  } else {
    m_recorder->stop();  // joins: tracefs is restored when this returns
    m_interruptGuard.reset();
    frame();
  }
  updateRecordControls();
}

double HostView::recordOffset(const engine::Sample& newest) const {
  // Trace timestamps count from boot (ftrace's local clock), /proc/uptime too: the recording's
  // t = 0 is its first event, at (first event − uptime at start) on the monitor's clock.
  const double now = m_monitor->elapsedS();
  const auto first = m_recorder->firstEventTimeS();
  const auto uptime = m_monitor->uptimeAtStartS();
  if (first && uptime) {
    const double offset = *first - *uptime;
    const double newestAt = offset + engine::toSeconds(newest.time);
    if (newestAt > now - 5 && newestAt < now + 1) return offset;  // plausibly the same clock
  }
  // Otherwise: its newest interval (stamped at its end) ended about now.
  return now - engine::toSeconds(newest.time);
}

bool HostView::isTracePlot(const TimePlot* plot) const {
  return std::find(m_tracePlots.begin(), m_tracePlots.end(), plot) != m_tracePlots.end();
}

bool HostView::isRecording() const {
  return m_recorder->isRunning();
}

bool HostView::hasRecording() const {
  return !isRecording() && m_recorder->bytesRecorded() > 0;
}

std::shared_ptr<const ImportedTrace> HostView::recording() const {
  return m_recorder->snapshot();
}

void HostView::updateRecordControls() {
  m_recordButton->setEnabled(m_recordAllowed);
  m_saveButton->setEnabled(hasRecording());
  m_simulateButton->setEnabled(hasRecording());
}

QString HostView::saveRecording(const QString& path) const {
  QFile in(m_recorder->textPath());
  if (!in.open(QIODevice::ReadOnly))
    return tr("Nothing was recorded yet (%1).").arg(in.errorString());
  SaveFile out(path);
  if (!out.open(QIODevice::WriteOnly))
    return tr("Cannot write %1: %2.").arg(path, out.errorString());
  while (!in.atEnd()) {
    const QByteArray block = in.read(1 << 20);
    if (out.write(block) != block.size()) {
      out.cancelWriting();
      return tr("Cannot write %1: %2.").arg(path, out.errorString());
    }
  }
  if (!out.commit()) return tr("Cannot write %1: %2.").arg(path, out.errorString());
  return {};
}

QString HostView::readoutText() const {
  return m_readout->text();
}

void HostView::applyTheme() {
  const Theme theme = Theme::fromPalette(palette(), QApplication::font(), false);
  for (TimePlot* p : m_plots) p->applyTheme(theme);
}

void HostView::changeEvent(QEvent* event) {
  if (event->type() == QEvent::PaletteChange || event->type() == QEvent::ApplicationPaletteChange)
    applyTheme();
  QWidget::changeEvent(event);
}

}  // namespace throttlelab::ui
