// SPDX-License-Identifier: GPL-3.0-or-later
#include "trace_view.h"

#include <sys/stat.h>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QFile>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

#include "flow_layout.h"
#include "qcp.h"
#include "theme.h"
#include "throttlelab/host/trace_host_facts.h"
#include "throttlelab/host/vmstat_sampler.h"
#include "trace_comparison_model.h"
#include "trace_import_job.h"
#include "trace_plot.h"
#include "trace_task_model.h"

namespace throttlelab::ui {

namespace {
/// The shortest simulated span, so a trace excerpt of a few events still gets a run.
constexpr double kMinSpanS = 1;

QTableView* makeTable(QAbstractItemModel* model, const QString& name) {
  auto* view = new QTableView;
  view->setObjectName(name);
  view->setModel(model);
  view->verticalHeader()->hide();
  view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 4);
  view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  view->setSelectionMode(QAbstractItemView::SingleSelection);
  view->setSelectionBehavior(QAbstractItemView::SelectRows);
  view->setAlternatingRowColors(true);
  view->setWordWrap(false);
  return view;
}

double spanOf(const ImportedTrace& t) {
  const double span =
      t.measured.spanS > 0 ? t.measured.spanS : t.stats.lastTimeS - t.stats.firstTimeS;
  return std::max(span, kMinSpanS);
}

}  // namespace

TraceView::TraceView(QWidget* parent)
    : QWidget(parent),
      m_importJob(new TraceImportJob(this)),
      m_simulationJob(new TraceSimulationJob(this)),
      m_measuredHistory(SampleHistory::kDefaultCap),
      m_simulatedHistory(SampleHistory::kDefaultCap),
      m_tasks(new TraceTaskModel(this)),
      m_comparison(new TraceComparisonModel(this)) {
  setObjectName(QStringLiteral("traceView"));
  m_measuredHistory.setWindow(HistoryWindow::Everything);
  m_simulatedHistory.setWindow(HistoryWindow::Everything);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(buildBar());
  auto* columns = new QSplitter(Qt::Horizontal);
  columns->addWidget(buildPlots());
  columns->addWidget(buildSide());
  columns->setStretchFactor(0, 3);
  columns->setStretchFactor(1, 2);
  columns->setSizes({960, 640});
  layout->addWidget(columns, 1);
  connectControls();
  applyTheme();
  updateButtons();
}

/// The bar above the plots: import, the source, progress and Cancel, the cgroup, simulate.
FlowLayout* TraceView::buildBar() {
  m_importButton = new QPushButton(tr("Import trace…"));
  m_sourceLabel = new QLabel(tr("No trace yet: File ▸ Import kernel trace…"));
  m_sourceLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_progress = new QProgressBar;
  m_progress->setObjectName(QStringLiteral("traceProgress"));
  m_progress->setMaximumWidth(260);
  m_progress->setTextVisible(true);
  m_progress->hide();
  m_cancelButton = new QPushButton(tr("Cancel"));
  m_cancelButton->setObjectName(QStringLiteral("traceCancel"));
  m_cancelButton->hide();
  m_takenHere = new QCheckBox(tr("Taken on this machine"));
  m_takenHere->setToolTip(
      tr("Use this machine's CPUs, memory and HZ in the derived scenario (from /proc)"));
  m_simulateButton = new QPushButton(tr("Simulate this trace"));
  m_simulateButton->setObjectName(QStringLiteral("simulateTrace"));
  m_simulateButton->setToolTip(
      tr("Derive a scenario from the trace (thresholds, write_bw, writers), run it for the "
         "trace's span and lay it over the trace"));
  m_openButton = new QPushButton(tr("Open in dashboard"));
  m_openButton->setToolTip(tr("Run the derived scenario live in the dashboard"));

  m_cgroupChoice = new QComboBox;
  m_cgroupChoice->setObjectName(QStringLiteral("traceCgroup"));
  m_cgroupChoice->setToolTip(
      tr("Draw only the balance_dirty_pages and bdi_dirty_ratelimit records of one memory "
         "cgroup, by the cgroup_ino they carry (the file is read again)"));
  m_cgroupChoice->addItem(tr("All cgroups"), QVariant::fromValue<qulonglong>(0));
  m_cgroupChoice->setEnabled(false);
  // Named, and never an empty box: with no trace it says what it would show.
  auto* cgroupBox = new QWidget;  // the label wraps with its box
  auto* cgroupLayout = new QHBoxLayout(cgroupBox);
  cgroupLayout->setContentsMargins(0, 0, 0, 0);
  auto* cgroupLabel = new QLabel(tr("Cgroup:"));
  cgroupLabel->setBuddy(m_cgroupChoice);
  cgroupLayout->addWidget(cgroupLabel);
  cgroupLayout->addWidget(m_cgroupChoice);
  connect(m_cgroupChoice, &QComboBox::activated, this, [this](int index) {
    if (!m_trace || m_trace->recordedHere) return;
    const auto ino = m_cgroupChoice->itemData(index).toULongLong();
    importFile(m_trace->source, ino > 0 ? std::optional<std::uint64_t>(ino) : std::nullopt);
  });

  auto* bar = new FlowLayout;  // wraps on a narrow screen rather than widening the window
  bar->addWidget(m_importButton);
  // A long path is cut, not a reason for the window to grow.
  m_sourceLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  bar->addStretchWidget(m_sourceLabel);
  bar->addWidget(m_progress);
  bar->addWidget(m_cancelButton);
  bar->addGap(12);
  bar->addWidget(cgroupBox);
  bar->addWidget(m_takenHere);
  bar->addWidget(m_simulateButton);
  bar->addWidget(m_openButton);
  return bar;
}

/// The run's plots, stacked, with a shared cursor and time range.
QSplitter* TraceView::buildPlots() {
  const auto makePlot = [this](PlotId id, QWidget* parent) {
    return m_plots.emplace_back(new TracePlot(id, parent));
  };
  const auto zoomed = [this](TimePlot* plot, double lo, double hi) {
    onUserRange(static_cast<TracePlot*>(plot), lo, hi);
  };
  return stackRunPlots(this,
                       {makePlot, [this](std::optional<double> t) { setCursorTime(t); }, zoomed});
}

/// Beside the plots: the trace's summary, measured against simulated, how the scenario was
/// derived, and the writers in the trace.
QSplitter* TraceView::buildSide() {
  m_summary = new QLabel;
  m_summary->setObjectName(QStringLiteral("traceSummary"));
  m_summary->setWordWrap(true);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_summary->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  auto* comparisonView = makeTable(m_comparison, QStringLiteral("traceComparison"));
  comparisonView->horizontalHeader()->setSectionResizeMode(TraceComparisonModel::Metric,
                                                           QHeaderView::Stretch);
  comparisonView->setSelectionMode(QAbstractItemView::NoSelection);
  m_notes = new QPlainTextEdit;
  m_notes->setObjectName(QStringLiteral("traceNotes"));
  m_notes->setReadOnly(true);
  m_notes->setPlaceholderText(
      tr("How the scenario was derived appears here after "
         "“Simulate this trace”."));
  auto* proxy = new QSortFilterProxyModel(this);
  proxy->setSourceModel(m_tasks);
  proxy->setSortRole(TraceTaskModel::kSortRole);
  auto* taskView = makeTable(proxy, QStringLiteral("traceTasks"));
  taskView->setSortingEnabled(true);
  taskView->sortByColumn(TraceTaskModel::Pid, Qt::AscendingOrder);
  taskView->horizontalHeader()->setSectionResizeMode(TraceTaskModel::Comm, QHeaderView::Stretch);
  m_taskTitle = new QLabel(tr("<b>Writers in the trace</b>"));

  auto* side = new QSplitter(Qt::Vertical);
  auto addBox = [side](QWidget* title, QWidget* body) {
    auto* box = new QWidget;
    auto* l = new QVBoxLayout(box);
    l->setContentsMargins(0, 0, 0, 0);
    l->setSpacing(2);
    if (title) l->addWidget(title);
    l->addWidget(body, 1);
    side->addWidget(box);
  };
  // The summary grows with what the import had to say (problems, segments, gaps): it
  // scrolls rather than being cut off at the box's height.
  auto* summaryScroll = new QScrollArea;
  summaryScroll->setWidget(m_summary);
  summaryScroll->setWidgetResizable(true);
  summaryScroll->setFrameShape(QFrame::NoFrame);
  summaryScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  const auto boxTitle = [](const QString& text) {
    auto* title = new QLabel(text);
    title->setWordWrap(true);
    return title;
  };
  addBox(boxTitle(tr("<b>The trace</b>")), summaryScroll);
  addBox(boxTitle(tr("<b>Measured against simulated</b> (same statistics on both)")),
         comparisonView);
  addBox(boxTitle(tr("<b>How the scenario was derived</b>")), m_notes);
  m_taskTitle->setWordWrap(true);
  addBox(m_taskTitle, taskView);
  side->setStretchFactor(0, 1);
  side->setStretchFactor(1, 3);
  side->setStretchFactor(2, 2);
  side->setStretchFactor(3, 2);
  side->setSizes({80, 370, 190, 260});
  summaryScroll->setMinimumHeight(m_summary->fontMetrics().lineSpacing() * 3);
  return side;
}

void TraceView::connectControls() {
  connect(m_importButton, &QPushButton::clicked, this, &TraceView::importRequested);
  connect(m_cancelButton, &QPushButton::clicked, this, [this] {
    cancelImport();
    cancelSimulation();
  });
  connect(m_simulateButton, &QPushButton::clicked, this, [this] { simulate(); });
  connect(m_openButton, &QPushButton::clicked, this, [this] {
    try {
      if (auto scenario = derivedScenario()) Q_EMIT openScenarioRequested(*scenario);
    } catch (const std::exception& e) {
      Q_EMIT simulationFailed(QString::fromUtf8(e.what()));
    }
  });
  connectImportJob();
  connect(m_simulationJob, &TraceSimulationJob::progress, this, [this](double done, double total) {
    m_progress->setRange(0, 1000);
    m_progress->setValue(total > 0 ? static_cast<int>(done / total * 1000) : 0);
  });
  connect(m_simulationJob, &TraceSimulationJob::finished, this, &TraceView::onSimulated);
  connect(m_simulationJob, &TraceSimulationJob::cancelled, this, [this] {
    if (isImporting()) return;  // cancelled by a new import, whose progress stays up
    clearBusy();
    Q_EMIT statusMessage(tr("Simulation cancelled"));
  });
  connect(m_simulationJob, &TraceSimulationJob::failed, this, [this](const QString& message) {
    clearBusy();
    Q_EMIT simulationFailed(message);
  });
}

TraceView::~TraceView() {
  // The jobs join their threads in their destructors (children, destroyed after this body).
  m_importJob->cancel();
  m_simulationJob->cancel();
}

bool TraceView::importFile(const QString& path, std::optional<std::uint64_t> cgroupIno) {
  struct stat st {};
  if (::stat(QFile::encodeName(path).constData(), &st) == 0 &&
      (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))) {
    Q_EMIT importFailed(tr("%1 is a device, not a trace file").arg(path));
    return false;
  }
  if (m_importJob->isRunning()) {
    // A new file replaces the one being read: deleting the job cancels it, joins its thread
    // and drops its late results with it.
    delete m_importJob;
    m_importJob = new TraceImportJob(this);
    connectImportJob();
  }
  setBusy(tr("Reading %1…").arg(QFileInfo(path).fileName()));
  m_importJob->start(path, cgroupIno);
  return true;
}

std::optional<std::uint64_t> TraceView::cgroupFilter() const {
  return m_trace ? m_trace->stats.cgroupFilter : std::nullopt;
}

void TraceView::updateCgroupChoice() {
  const QSignalBlocker block(m_cgroupChoice);
  m_cgroupChoice->clear();
  m_cgroupChoice->addItem(tr("All cgroups"), QVariant::fromValue<qulonglong>(0));
  if (!m_trace) return;
  const auto& counts = m_trace->stats.cgroupRecords;
  for (const auto& [ino, records] : counts)
    m_cgroupChoice->addItem(
        tr("cgroup_ino %1 (%n record(s))", nullptr, static_cast<int>(records)).arg(ino),
        QVariant::fromValue<qulonglong>(ino));
  if (const auto filter = m_trace->stats.cgroupFilter)
    m_cgroupChoice->setCurrentIndex(
        std::max(0, m_cgroupChoice->findData(QVariant::fromValue<qulonglong>(*filter))));
  updateButtons();  // a recording has no file to read again; one cgroup alone needs no choice
}

void TraceView::connectImportJob() {
  connect(m_importJob, &TraceImportJob::progress, this, [this](qint64 done, qint64 total) {
    if (total > 0) {
      m_progress->setRange(0, 1000);
      m_progress->setValue(static_cast<int>(std::min<qint64>(1000, done * 1000 / total)));
    } else {
      m_progress->setRange(0, 0);  // a pipe: size unknown
    }
  });
  connect(m_importJob, &TraceImportJob::finished, this, &TraceView::onImported);
  connect(m_importJob, &TraceImportJob::cancelled, this, [this] {
    clearBusy();
    Q_EMIT statusMessage(tr("Import cancelled; nothing was changed"));
    Q_EMIT importCancelled();
  });
  connect(m_importJob, &TraceImportJob::failed, this, [this](const QString& message) {
    clearBusy();
    Q_EMIT importFailed(message);
  });
}

void TraceView::cancelImport() {
  m_importJob->cancel();
}

bool TraceView::isImporting() const {
  return m_importJob->isRunning();
}

bool TraceView::isSimulating() const {
  return m_simulationJob->isRunning();
}

void TraceView::cancelSimulation() {
  m_simulationJob->cancel();
}

void TraceView::setBusy(const QString& what) {
  m_progress->setRange(0, 1000);
  m_progress->setValue(0);
  m_progress->setFormat(what + QStringLiteral(" %p %"));
  m_progress->show();
  m_cancelButton->show();
  updateButtons();
}

void TraceView::clearBusy() {
  m_progress->hide();
  m_cancelButton->hide();
  updateButtons();
}

void TraceView::updateButtons() {
  const bool busy = isImporting() || isSimulating();
  // Simulating derives every traced cgroup: it needs all of the trace's records.
  const bool filtered = m_trace && m_trace->stats.cgroupFilter.has_value();
  m_simulateButton->setEnabled(m_trace && !busy && !filtered);
  m_cgroupChoice->setEnabled(m_trace && !busy && !m_trace->recordedHere &&
                             (m_trace->stats.cgroupRecords.size() > 1 || filtered));
  m_openButton->setEnabled(m_trace != nullptr);
  m_takenHere->setEnabled(m_trace != nullptr);
}

void TraceView::onImported(std::shared_ptr<const ImportedTrace> trace) {
  clearBusy();
  showTrace(std::move(trace));
  Q_EMIT importFinished();
}

void TraceView::showTrace(std::shared_ptr<const ImportedTrace> trace) {
  if (!trace) return;
  m_trace = std::move(trace);
  clearSimulation();
  m_measuredHistory.clear();
  for (engine::Sample s : m_trace->samples) m_measuredHistory.append(std::move(s));
  for (TracePlot* p : m_plots) {
    p->rebuildSource(TracePlot::kMeasured, m_measuredHistory);
    p->setEvents(&m_trace->events);
  }
  m_tasks->setRows(m_trace->tasks);
  m_taskTitle->setText(tr("<b>Writers in the trace</b>: %n pid(s) called balance_dirty_pages",
                          nullptr, static_cast<int>(m_trace->tasks.size())) +
                       (m_trace->otherPids > 0
                            ? tr("; %n other pid(s) traced only global state or bdi estimates",
                                 nullptr, m_trace->otherPids)
                            : QString()));
  m_sourceLabel->setText(m_trace->recordedHere
                             ? tr("<b>Recorded on this machine</b>")
                             : tr("<b>%1</b>").arg(QFileInfo(m_trace->source).fileName()));
  m_sourceLabel->setToolTip(m_trace->source);
  if (const auto filter = m_trace->stats.cgroupFilter)
    m_taskTitle->setText(m_taskTitle->text() + tr(" (only cgroup_ino %1)").arg(*filter));
  updateCgroupChoice();
  m_summary->setText(QString::fromStdString(traceio::describe(m_trace->stats)));
  setTakenHere(m_trace->recordedHere);
  fitTime();
  updateButtons();
  Q_EMIT statusMessage(tr("Imported %1: %2 events, %3 lines skipped")
                           .arg(QFileInfo(m_trace->source).fileName())
                           .arg(m_trace->stats.events)
                           .arg(m_trace->stats.skipped()));
}

void TraceView::clearSimulation() {
  m_simulationJob->cancel();
  m_simulation.reset();
  m_simulatedHistory.clear();
  for (TracePlot* p : m_plots) p->clearSource(TracePlot::kSimulated);
  m_comparison->clear();
  m_notes->clear();
}

void TraceView::setTakenHere(bool here) {
  m_takenHere->setChecked(here);
}

bool TraceView::takenHere() const {
  return m_takenHere->isChecked();
}

std::optional<engine::Scenario> TraceView::derivedScenario(std::vector<std::string>* notes) const {
  if (!m_trace) return std::nullopt;
  traceio::HostFacts facts;
  if (takenHere()) facts = host::hostFactsFor(m_trace->measured, m_procRoot.toStdString());
  engine::Scenario scenario = traceio::deriveScenario(m_trace->measured, facts, notes);
  const QString base = m_trace->recordedHere ? QStringLiteral("this machine")
                                             : QFileInfo(m_trace->source).completeBaseName();
  scenario.name = QStringLiteral("trace: %1").arg(base).toStdString();
  return scenario;
}

bool TraceView::simulate() {
  if (!m_trace || isImporting()) return false;
  if (m_trace->tasks.empty()) {
    // Without a throttled writer the derived run has no task to pause: its column would be
    // all zeros, which reads as a result.
    clearSimulation();
    const QString why =
        tr("Nothing to simulate: no writer in this recording was throttled (it has no "
           "balance_dirty_pages record), so there are no pauses or rates to compare. Record "
           "while something writes faster than the disk can take, e.g. dd to a file.");
    m_notes->setPlainText(why);
    Q_EMIT statusMessage(tr("Nothing to simulate: no throttled writer in the recording"));
    return false;
  }
  std::vector<std::string> notes;
  std::optional<engine::Scenario> scenario;
  try {
    scenario = derivedScenario(&notes);
    if (scenario) engine::validateScenario(*scenario);
  } catch (const std::exception& e) {
    Q_EMIT simulationFailed(QString::fromUtf8(e.what()));
    return false;
  }
  if (!scenario) return false;
  clearSimulation();
  const double warmupS = traceio::simulationWarmupS(m_trace->measured);
  const double spanS = spanOf(*m_trace);
  QStringList lines;
  for (const std::string& n : notes) lines << QString::fromStdString(n);
  if (warmupS > 0)
    lines << tr("The trace begins with dirty pages above bg_thresh, with the writers already "
                "running: the simulation ran %1 s before t = 0 so its own start-up is left out.")
                 .arg(warmupS);
  lines << tr("Simulated span: %1 s (the trace's).").arg(spanS, 0, 'f', 2);
  m_notes->setPlainText(lines.join(QLatin1Char('\n')));
  setBusy(tr("Simulating…"));
  m_simulationJob->start(*scenario, warmupS, spanS);
  updateButtons();
  return true;
}

void TraceView::onSimulated(std::shared_ptr<const SimulatedTrace> result) {
  clearBusy();
  if (!m_trace || !result) return;
  m_simulation = std::move(result);
  m_simulatedHistory.clear();
  for (engine::Sample s : m_simulation->samples) m_simulatedHistory.append(std::move(s));
  for (TracePlot* p : m_plots) p->rebuildSource(TracePlot::kSimulated, m_simulatedHistory);
  m_comparison->setRows(traceio::compare(m_trace->measured, m_simulation->simulated));
  fitTime();
  Q_EMIT statusMessage(tr("Simulated %1").arg(QString::fromStdString(m_simulation->scenario.name)));
  Q_EMIT simulationFinished();
}

QString TraceView::summaryText() const {
  return m_summary->text();
}

QString TraceView::notesText() const {
  return m_notes->toPlainText();
}

void TraceView::fitTime() {
  double last = 0;
  if (!m_measuredHistory.empty()) last = std::max(last, m_measuredHistory.lastTimeS());
  if (!m_simulatedHistory.empty()) last = std::max(last, m_simulatedHistory.lastTimeS());
  m_syncing = true;
  for (TracePlot* p : m_plots) p->setTimeRange(0, std::max(last, 0.1));
  m_syncing = false;
  replotAll();
}

void TraceView::replotAll() {
  for (TracePlot* p : m_plots) {
    p->autoscaleValues();
    p->replot(false);
  }
}

void TraceView::onUserRange(TracePlot* source, double lower, double upper) {
  if (m_syncing) return;
  m_syncing = true;
  for (TracePlot* p : m_plots)
    if (p != source) p->setTimeRange(lower, upper);
  m_syncing = false;
  replotAll();
}

void TraceView::setCursorTime(std::optional<double> timeS) {
  std::vector<const engine::Sample*> nearest;
  for (const SampleHistory* h : {&m_measuredHistory, &m_simulatedHistory}) {
    const auto i = timeS ? h->indexNear(*timeS) : std::nullopt;
    nearest.push_back(i ? &(*h)[*i] : nullptr);
  }
  for (TracePlot* p : m_plots) {
    p->setCursor(timeS, nearest);
    if (p->isShown()) p->replotOverlay();
  }
}

void TraceView::applyTheme() {
  const Theme theme = Theme::fromPalette(palette(), QApplication::font(), false);
  for (TracePlot* p : m_plots) p->applyTheme(theme);
}

void TraceView::changeEvent(QEvent* event) {
  if (event->type() == QEvent::PaletteChange || event->type() == QEvent::ApplicationPaletteChange)
    applyTheme();
  QWidget::changeEvent(event);
}

}  // namespace throttlelab::ui
