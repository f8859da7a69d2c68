// SPDX-License-Identifier: GPL-3.0-or-later
#include "compare_view.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QResizeEvent>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "compare_plot.h"
#include "compare_table_model.h"
#include "event_text.h"
#include "flow_layout.h"
#include "live_controller.h"
#include "qcp.h"
#include "theme.h"
#include "throttlelab/engine/simulator.h"

namespace throttlelab::ui {

namespace {
constexpr double kFollowSpanS = 120;  ///< seconds shown while following
constexpr double kMinSpanS = 10;

LiveController::Options runOptions() {
  LiveController::Options o;
  o.startRunning = false;  // start() says
  o.publishSummary = true;
  o.keepSnapshots = false;  // a branch is made from the live run
  return o;
}
}  // namespace

CompareView::CompareView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("compareView"));
  for (auto& run : m_runs) run = new LiveController(runOptions(), this);

  m_policyA = new QComboBox;
  m_policyA->setObjectName(QStringLiteral("comparePolicyA"));
  m_policyB = new QComboBox;
  m_policyB->setObjectName(QStringLiteral("comparePolicyB"));
  for (const auto& name : engine::Simulator::policyNames()) {
    m_policyA->addItem(QString::fromStdString(name));
    m_policyB->addItem(QString::fromStdString(name));
  }
  m_policyB->setCurrentText(defaultOther(m_policyA->currentText()));
  m_followBox = new QCheckBox(tr("Follow live"));
  m_followBox->setChecked(true);
  m_scenarioLabel = new QLabel;
  auto* restartButton = new QPushButton(tr("Restart both"));

  auto* bar = new FlowLayout;  // wraps on a narrow screen rather than widening the window
  auto* labelA = new QLabel(tr("<b>A</b> (blue):"));
  auto* labelB = new QLabel(tr("<b>B</b> (vermillion):"));
  bar->addWidget(labelA);
  bar->addWidget(m_policyA);
  bar->addGap(12);
  bar->addWidget(labelB);
  bar->addWidget(m_policyB);
  bar->addGap(12);
  bar->addWidget(restartButton);
  bar->addWidget(m_followBox);
  bar->addGap(12);
  bar->addStretchWidget(m_scenarioLabel);
  m_policyControls = {labelA, m_policyA, labelB, m_policyB, restartButton};
  m_scenarioLabel->setWordWrap(true);

  const auto makePlot = [this](PlotId id, QWidget* parent) {
    return m_plots.emplace_back(new ComparePlot(id, parent));
  };
  const auto zoomed = [this](TimePlot* plot, double lo, double hi) {
    onUserRange(static_cast<ComparePlot*>(plot), lo, hi);
  };
  auto* plotSplitter = stackRunPlots(
      this, {makePlot, [this](std::optional<double> t) { setCursorTime(t); }, zoomed});

  m_table = new CompareTableModel(this);
  m_tableView = new QTableView;
  m_tableView->setObjectName(QStringLiteral("compareTable"));
  m_tableView->setModel(m_table);
  m_tableView->verticalHeader()->hide();
  // Beside the plots on a 1024 px screen the metric column is narrow: its names wrap.
  m_tableView->setWordWrap(true);
  m_tableView->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_tableView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_tableView->horizontalHeader()->setSectionResizeMode(CompareTableModel::Metric,
                                                        QHeaderView::Stretch);
  m_tableView->horizontalHeader()->setStretchLastSection(false);
  m_tableView->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  m_tableView->setSelectionMode(QAbstractItemView::NoSelection);
  m_tableView->setAlternatingRowColors(true);
  auto* tableBox = new QWidget;
  auto* tableLayout = new QVBoxLayout(tableBox);
  tableLayout->setContentsMargins(0, 0, 0, 0);
  auto* tableTitle = new QLabel(tr("<b>Whole run so far</b> (updated twice a second)"));
  tableTitle->setWordWrap(true);
  tableLayout->addWidget(tableTitle);
  tableLayout->addWidget(m_tableView, 1);

  m_columns = new QSplitter(Qt::Horizontal);
  auto* columns = m_columns;
  columns->addWidget(plotSplitter);
  columns->addWidget(tableBox);
  columns->setStretchFactor(0, 3);
  columns->setStretchFactor(1, 1);
  columns->setSizes({900, 520});

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(bar);
  layout->addWidget(columns, 1);

  for (std::size_t i = 0; i < m_runs.size(); ++i) {
    LiveController* run = m_runs[i];
    const int source = static_cast<int>(i);
    connect(run, &LiveController::dataReset, this, [this, source] {
      for (ComparePlot* p : m_plots) p->clearSource(source);
      m_table->clear();
    });
    connect(run, &LiveController::samplesArrived, this,
            [this, source](const SampleBuffer& samples) {
              for (ComparePlot* p : m_plots) p->appendSourceSamples(source, samples);
            });
    connect(run, &LiveController::historyRebuilt, this, [this, source, run] {
      for (ComparePlot* p : m_plots) p->rebuildSource(source, run->history());
    });
    connect(run, &LiveController::snapshotArrived, this, [this] { updateTable(); });
    connect(run, &LiveController::timelineChanged, this, &CompareView::updateEvents);
  }
  // The marks go through every plot; their labels above the top one only.
  for (std::size_t i = 1; i < m_plots.size(); ++i) m_plots[i]->setEventLabelsShown(false);
  connect(m_runs[1], &LiveController::runForFinished, this, [this] {
    if (m_branch && m_running) catchUp();
  });

  connect(m_policyA, &QComboBox::currentTextChanged, this, [this] { restart(); });
  connect(m_policyB, &QComboBox::currentTextChanged, this, [this] { restart(); });
  connect(restartButton, &QPushButton::clicked, this, [this] { reset(); });
  connect(m_followBox, &QCheckBox::toggled, this, &CompareView::setFollowLive);

  m_frameTimer = new QTimer(this);
  m_frameTimer->setInterval(33);
  connect(m_frameTimer, &QTimer::timeout, this, &CompareView::refresh);
  applyTheme();
  applyNames();
}

CompareView::~CompareView() {
  for (LiveController* run : m_runs) run->stop();
}

QString CompareView::defaultOther(const QString& a) {
  return a == QLatin1String("ioless") ? QStringLiteral("perbdi-2.6.24") : QStringLiteral("ioless");
}

QString CompareView::policyA() const {
  return m_policyA->currentText();
}
QString CompareView::policyB() const {
  return m_policyB->currentText();
}

void CompareView::start(const engine::Scenario& scenario, bool running) {
  m_scenario = scenario;
  m_active = true;
  {
    const QSignalBlocker blockA(m_policyA);
    const QSignalBlocker blockB(m_policyB);
    m_policyA->setCurrentText(QString::fromStdString(scenario.policy));
    if (m_policyB->currentText() == m_policyA->currentText())
      m_policyB->setCurrentText(defaultOther(m_policyA->currentText()));
  }
  m_scenarioLabel->setText(tr("Scenario <b>%1</b>, seed %2: both runs start from the same state")
                               .arg(QString::fromStdString(scenario.name))
                               .arg(scenario.seed));
  m_running = running;
  restart();
  for (LiveController* run : m_runs) run->start();
  m_frameTimer->start();
}

void CompareView::startBranch(BranchRuns runs, bool running) {
  m_branch = std::move(runs);
  m_scenario = m_branch->original;
  m_active = true;
  m_running = running;
  showBranchControls();
  m_table->clear();
  // The branch first: its worker restores and runs while the original is still being copied.
  adoptBranch();
  m_runs[0]->adopt(m_branch->originalFrom.get(), m_branch->original, m_branch->before);
  m_runs[0]->setRunning(running);
  for (LiveController* run : m_runs) run->start();
  setFollowLive(true);
  m_frameTimer->start();
}

void CompareView::rebranch(const engine::SimulatorSnapshot& branchFrom,
                           const engine::Scenario& branch, const QString& branchName,
                           const QString& markLabel) {
  if (!m_branch) return;
  m_branch->branchFrom = branchFrom;
  m_branch->branch = branch;
  m_branch->branchName = branchName;
  m_branch->markLabel = markLabel;
  showBranchControls();
  m_table->clear();
  adoptBranch();
}

void CompareView::adoptBranch() {
  std::vector<engine::Sample> shared;
  for (const auto& s : m_branch->before)
    if (engine::toSeconds(s.time) <= m_branch->atS + 1e-9) shared.push_back(s);
  m_runs[1]->adopt(m_branch->branchFrom, m_branch->branch, std::move(shared));
  m_runs[1]->setRunning(false);
  // Its status is the old run's until the worker reports: go by the original's time.
  if (m_running) m_runs[1]->runFor(originalTimeS());
}

double CompareView::originalTimeS() const {
  // Its status once its worker has reported, else where it went on from.
  return std::max(m_runs[0]->status().simTimeS, m_branch->originalS);
}

void CompareView::catchUp() {
  const double original = originalTimeS();
  if (m_runs[1]->status().simTimeS < original - 0.5)
    m_runs[1]->runFor(original);
  else
    m_runs[1]->setRunning(true);
}

void CompareView::showBranchControls() {
  const bool branching = m_branch.has_value();
  for (QWidget* w : m_policyControls) w->setVisible(!branching);
  if (!branching) {
    applyNames();
    return;
  }
  m_scenarioLabel->setText(
      tr("<b>%1</b> (blue) and <b>%2</b> (vermillion) of scenario <b>%3</b>, seed %4: the same "
         "run up to %5 s. Change a control to change the branch.")
          .arg(m_branch->originalName.toHtmlEscaped(), m_branch->branchName.toHtmlEscaped(),
               QString::fromStdString(m_branch->original.name).toHtmlEscaped())
          .arg(m_branch->original.seed)
          .arg(m_branch->atS));
  // The legends say which run a curve is; the mark on every plot says what the branch is.
  for (ComparePlot* p : m_plots) {
    p->setRunNames(m_branch->originalName, tr("branch"));
    p->setBranchMark(m_branch->atS, m_branch->markLabel);
  }
  m_table->setRunNames(tr("original"), tr("branch"));
  sizeBranchColumns();
}

void CompareView::sizeBranchColumns() {
  // The table's two short run names need less room than two policies': the plots get it, so
  // that the legends of both runs fit beside the titles on a 1280 px screen.
  const int total = m_columns->width();
  const int table = std::clamp(total * 3 / 10, 280, 400);
  if (total > 2 * table) m_columns->setSizes({total - table, table});
}

void CompareView::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  if (m_branch) sizeBranchColumns();
}

void CompareView::stop() {
  if (m_branch) {
    m_branch.reset();
    for (ComparePlot* p : m_plots) p->setBranchMark(std::nullopt, {});
    showBranchControls();
  }
  m_active = false;
  m_frameTimer->stop();
  for (LiveController* run : m_runs) {
    run->setRunning(false);
    run->stop();
  }
}

void CompareView::setPolicies(const QString& a, const QString& b) {
  {
    const QSignalBlocker blockA(m_policyA);
    const QSignalBlocker blockB(m_policyB);
    m_policyA->setCurrentText(a);
    m_policyB->setCurrentText(b);
  }
  restart();
}

void CompareView::restart() {
  if (m_branch) return;  // the policies are the run's own
  applyNames();
  if (!m_active) return;
  m_table->clear();
  for (std::size_t i = 0; i < m_runs.size(); ++i) {
    engine::Scenario s = m_scenario;
    s.policy = (i == 0 ? policyA() : policyB()).toStdString();
    m_runs[i]->load(s);
    m_runs[i]->setRunning(m_running);
  }
  setFollowLive(true);
}

void CompareView::applyNames() {
  for (ComparePlot* p : m_plots) p->setRunNames(policyA(), policyB());
  m_table->setRunNames(policyA(), policyB());
}

void CompareView::setRunning(bool running) {
  m_running = running;
  if (m_branch) {
    m_runs[0]->setRunning(running);
    running ? catchUp() : m_runs[1]->setRunning(false);
  } else {
    for (LiveController* run : m_runs) run->setRunning(running);
  }
  Q_EMIT runningChanged(running);
}

void CompareView::setSpeed(double factor) {
  for (LiveController* run : m_runs) run->setSpeed(factor);
}

void CompareView::setDecimation(bool on) {
  for (LiveController* run : m_runs) run->setDecimation(on);
}

void CompareView::step() {
  m_running = false;
  for (LiveController* run : m_runs) run->step();
  Q_EMIT runningChanged(false);
}

void CompareView::reset() {
  if (m_branch) {
    // Both futures again from where they went on: the original from the moment the branch
    // was made, the branch from its branch point.
    adoptBranch();
    m_runs[0]->adopt(m_branch->originalFrom.get(), m_branch->original, m_branch->before);
    m_runs[0]->setRunning(m_running);
  } else {
    for (LiveController* run : m_runs) run->reset();
  }
  setFollowLive(true);
}

void CompareView::setFollowLive(bool follow) {
  m_follow = follow;
  const QSignalBlocker block(m_followBox);
  m_followBox->setChecked(follow);
  if (follow) refresh();
}

void CompareView::onUserRange(ComparePlot* source, double lower, double upper) {
  if (m_syncing) return;
  m_syncing = true;
  for (ComparePlot* p : m_plots)
    if (p != source) p->setTimeRange(lower, upper);
  source->markDirty();
  m_syncing = false;
  setFollowLive(false);
}

void CompareView::setCursorTime(std::optional<double> timeS) {
  m_cursor = timeS;
  std::vector<const engine::Sample*> nearest;
  for (LiveController* run : m_runs) {
    const SampleHistory& h = run->history();
    const auto i = timeS ? h.indexNear(*timeS) : std::nullopt;
    nearest.push_back(i ? &h[*i] : nullptr);
  }
  for (ComparePlot* p : m_plots) {
    p->setCursor(timeS, nearest);
    if (p->isShown()) p->replotOverlay();
  }
}

void CompareView::refresh() {
  if (m_follow) {
    double first = 0;
    double last = 0;
    bool any = false;
    for (LiveController* run : m_runs) {
      if (run->history().empty()) continue;
      first = any ? std::min(first, run->history().firstTimeS()) : run->history().firstTimeS();
      last = std::max(last, run->history().lastTimeS());
      any = true;
    }
    const double lo = std::max(first, last - kFollowSpanS);
    const double hi = std::max(last, lo + kMinSpanS);
    m_syncing = true;
    for (ComparePlot* p : m_plots) p->setTimeRange(lo, hi);
    m_syncing = false;
  }
  for (ComparePlot* p : m_plots) {
    if (!p->isShown() || !p->isDirty()) continue;
    p->autoscaleValues();
    p->replot(false);
  }
}

bool CompareView::updateTable() {
  const auto a = m_runs[0]->snapshot();
  const auto b = m_runs[1]->snapshot();
  if (!a || !b || !a->summary || !b->summary) return false;
  m_table->setSummaries(*a->summary, *b->summary);
  return true;
}

void CompareView::applyTheme() {
  const Theme theme = Theme::fromPalette(palette(), QApplication::font(), false);
  for (ComparePlot* p : m_plots) p->applyTheme(theme);
}

void CompareView::updateEvents() {
  // What happened in both runs (a group starting) is one mark; what happened in one only (the
  // branch's change, a policy change, an OOM kill) says which.
  const auto a = m_runs[0]->timeline();
  const auto b = m_runs[1]->timeline();
  // Both lists are in time order: only the events within a microsecond are compared (every
  // event with every other is quadratic, and a run of many task groups has many).
  const auto in = [](const std::vector<engine::RunEvent>& list, const engine::RunEvent& e) {
    auto x = std::lower_bound(list.begin(), list.end(), e.timeS - 1e-6,
                              [](const engine::RunEvent& ev, double t) { return ev.timeS <= t; });
    for (; x != list.end() && x->timeS < e.timeS + 1e-6; ++x)
      if (x->kind == e.kind && x->text == e.text) return true;
    return false;
  };
  std::vector<EventMark> marks;
  const auto add = [&](const engine::RunEvent& e, const engine::Scenario& names,
                       const QString& run) {
    const EventText text = describeEvent(e, &names);
    marks.push_back({e.timeS, run + text.label, run + text.full});
  };
  for (const auto& e : a)
    add(e, m_runs[0]->scenario(), in(b, e) ? QString() : QStringLiteral("A: "));
  for (const auto& e : b)
    if (!in(a, e)) add(e, m_runs[1]->scenario(), QStringLiteral("B: "));
  for (ComparePlot* p : m_plots) p->setEventMarks(marks);
}

void CompareView::changeEvent(QEvent* event) {
  if (event->type() == QEvent::PaletteChange || event->type() == QEvent::ApplicationPaletteChange)
    applyTheme();
  QWidget::changeEvent(event);
}

}  // namespace throttlelab::ui
