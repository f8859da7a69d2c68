// SPDX-License-Identifier: GPL-3.0-or-later
#include "main_window.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <utility>

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QPalette>
#include <QScreen>
#include <QScrollArea>
#include <QShortcut>
#include <QSignalBlocker>
#include <QStackedWidget>
#include <QStatusBar>
#include <QStyle>
#include <QTimer>

#include "branch_controller.h"
#include "central_view.h"
#include "compare_view.h"
#include "dashboard.h"
#include "experiment_panel.h"
#include "experiment_report_model.h"
#include "explain_panel.h"
#include "exporter.h"
#include "host_monitor.h"
#include "host_view.h"
#include "input_filters.h"
#include "lesson_panel.h"
#include "live_controller.h"
#include "parameter_panel.h"
#include "run_controls.h"
#include "save_file.h"
#include "scripted_figures.h"
#include "session_file.h"
#include "settings_store.h"
#include "status_readout.h"
#include "task_table.h"
#include "task_table_model.h"
#include "throttlelab/engine/lesson.h"
#include "timeline_panel.h"
#include "trace_view.h"
#include "user_notifier.h"
#include "window_session.h"

namespace throttlelab::ui {

namespace {
QString scenarioErrorText(const QString& source, const engine::ScenarioError& e) {
  QString text = QObject::tr("%1 cannot be used.").arg(source);
  if (!e.key().empty()) text += QObject::tr("\n\nKey: %1").arg(QString::fromStdString(e.key()));
  text += QObject::tr("\nReason: %1").arg(QString::fromUtf8(e.what()));
  return text;
}

/// A dark palette for rooms where the projector washes out white (View ▸ Dark palette).
QPalette darkPalette() {
  QPalette p;
  const QColor window(0x2b, 0x2b, 0x2b), base(0x1e, 0x1e, 0x1e), text(0xe6, 0xe6, 0xe6);
  p.setColor(QPalette::Window, window);
  p.setColor(QPalette::WindowText, text);
  p.setColor(QPalette::Base, base);
  p.setColor(QPalette::AlternateBase, window);
  p.setColor(QPalette::ToolTipBase, base);
  p.setColor(QPalette::ToolTipText, text);
  p.setColor(QPalette::Text, text);
  p.setColor(QPalette::Button, window);
  p.setColor(QPalette::ButtonText, text);
  p.setColor(QPalette::BrightText, Qt::white);
  p.setColor(QPalette::Highlight, QColor(0x3d, 0x7e, 0xc6));
  p.setColor(QPalette::HighlightedText, Qt::white);
  p.setColor(QPalette::Link, QColor(0x6c, 0xb4, 0xee));
  p.setColor(QPalette::PlaceholderText, QColor(0x90, 0x90, 0x90));
  p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x80, 0x80, 0x80));
  p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x80, 0x80, 0x80));
  p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x80, 0x80, 0x80));
  return p;
}

LiveController::Options controllerOptions(const GuiLaunchOptions& launch) {
  LiveController::Options o;
  o.startRunning = !launch.scripted();  // a scripted run starts on its own command
  o.decimate = !launch.scripted();      // and keeps every sample for its CSV
  o.snapshotBudgetBytes = launch.snapshotBudgetBytes;
  return o;
}
}  // namespace

MainWindow::MainWindow(const GuiLaunchOptions& options, UserNotifier& notifier,
                       SettingsStore& settings, QWidget* parent)
    : QMainWindow(parent),
      m_options(options),
      m_notifier(notifier),
      m_settings(settings),
      m_scriptedMode(options.scripted()) {
  setObjectName(QStringLiteral("mainWindow"));
  // Before any control is made: their tool tips are wrapped as they are set.
  qApp->installEventFilter(new ToolTipWrap(this));
  m_baseFont = font();
  m_controller = new LiveController(controllerOptions(options), this);
  m_controller->setObjectName(QStringLiteral("liveController"));
  m_dashboard = new Dashboard(this);
  m_compareView = new CompareView(this);
  m_branch = new BranchController(*m_controller, *m_compareView, this);
  if (m_scriptedMode) m_compareView->setDecimation(false);
  m_traceView = new TraceView(this);
  m_hostView = new HostView(this);
  m_stack = new QStackedWidget(this);
  m_stack->addWidget(m_dashboard);
  m_stack->addWidget(m_compareView);
  m_stack->addWidget(m_traceView);
  m_stack->addWidget(m_hostView);
  // A stacked widget is as wide as its widest page, shown or not: the trace view alone would
  // hold the window at 1215 px with a lesson open. Only the current page counts (see
  // ignoreHiddenPages), so the dashboard fits a 1024 px projector.
  connect(m_stack, &QStackedWidget::currentChanged, this, [this] { ignoreHiddenPages(); });
  ignoreHiddenPages();
  setCentralWidget(m_stack);
  // A click on a view (a plot) takes the keyboard from a spin box, and Escape gives it to the
  // view shown: Space and "." are the run's again.
  for (int i = 0; i < m_stack->count(); ++i) m_stack->widget(i)->setFocusPolicy(Qt::ClickFocus);
  qApp->installEventFilter(new SpinBoxKeys(this, [this] { return m_stack->currentWidget(); }));
  const StatusLine status = [this](const QString& text, int timeoutMs) {
    statusBar()->showMessage(text, timeoutMs);
  };
  m_controller->setDashboard(m_dashboard);

  m_parameters = new ParameterPanel;
  auto* scroll = new QScrollArea;
  scroll->setWidget(m_parameters);
  scroll->setWidgetResizable(true);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  scroll->setMinimumWidth(m_parameters->sizeHint().width() + 20);
  m_parameterDock = new QDockWidget(tr("Parameters"), this);
  m_parameterDock->setObjectName(QStringLiteral("parameterDock"));
  m_parameterDock->setWidget(scroll);
  addDockWidget(Qt::LeftDockWidgetArea, m_parameterDock);

  m_taskModel = new TaskTableModel(this);
  m_controller->setTaskModel(m_taskModel);
  m_taskTable = new TaskTable(m_taskModel);
  m_taskDock = new QDockWidget(tr("Tasks"), this);
  m_taskDock->setObjectName(QStringLiteral("taskDock"));
  m_taskDock->setWidget(m_taskTable);
  addDockWidget(Qt::BottomDockWidgetArea, m_taskDock);
  resizeDocks({m_taskDock}, {170}, Qt::Vertical);

  m_experimentPanel = new ExperimentPanel;
  m_experimentDock = new QDockWidget(tr("Experiment report"), this);
  m_experimentDock->setObjectName(QStringLiteral("experimentDock"));
  m_experimentDock->setWidget(m_experimentPanel);
  addDockWidget(Qt::BottomDockWidgetArea, m_experimentDock);
  tabifyDockWidget(m_taskDock, m_experimentDock);
  m_experimentDock->hide();
  buildExplainAndTimeline();

  m_lessonPanel = new LessonPanel(*m_controller);
  m_lessonDock = new QDockWidget(tr("Lesson"), this);
  m_lessonDock->setObjectName(QStringLiteral("lessonDock"));
  m_lessonDock->setWidget(m_lessonPanel);

  // A tab beside the parameters: a third column would push the window past a projector's
  // 1280 px; the parameters stay one click (or the lesson's own slider hint) away.
  addDockWidget(Qt::LeftDockWidgetArea, m_lessonDock);
  tabifyDockWidget(m_parameterDock, m_lessonDock);
  m_lessonDock->hide();

  m_runControls = new RunControls(this);
  addToolBar(Qt::TopToolBarArea, m_runControls);
  auto live = std::make_unique<LivePart>(
      *m_dashboard, *m_controller, *m_runControls,
      std::vector<QDockWidget*>{m_taskDock, m_explainDock, m_timelineDock});
  const CentralViewPart& livePart = *live;
  m_parts = {std::move(live),
             std::make_unique<ComparePart>(*m_compareView, *m_branch, *m_controller, livePart,
                                           *m_runControls, status),
             std::make_unique<TracePart>(*m_traceView, livePart, *m_runControls),
             std::make_unique<HostPart>(*m_hostView, livePart, *m_runControls, status)};
  QStringList builtins;
  for (const auto& name : engine::builtinScenarioNames()) builtins << QString::fromStdString(name);
  m_runControls->setScenarioNames(builtins);

  m_statusReadout = new StatusReadout(this);
  statusBar()->addPermanentWidget(m_statusReadout);

  buildMenus();
  m_session = std::make_unique<WindowSession>(
      WindowSession::Parts{.window = *this,
                           .controller = *m_controller,
                           .dashboard = *m_dashboard,
                           .runControls = *m_runControls,
                           .taskTable = *m_taskTable,
                           .unitsPagesAction = *m_pagesAction,
                           .setPresenterMode = [this](bool on) { setPresenterMode(on); },
                           .branch = *m_branch,
                           .scripted = m_scriptedMode});
  wire();
  makeScriptedJob();
  if (!m_scriptedMode) restoreSettings();
  const QRect available = screen() ? screen()->availableGeometry() : QRect(0, 0, 1600, 1000);
  if (m_scriptedMode || m_settings.value(Setting::WindowGeometry).toByteArray().isEmpty()) {
    const QSize size = QSize(1600, 1000).boundedTo(available.size());
    setGeometry(QRect(available.topLeft(), size));
  }
  loadInitialScenario();
  if (!m_options.session.empty()) openSession(QString::fromStdString(m_options.session));
  if (m_options.presenter) setPresenterMode(true);
  m_controller->start();
  if (!m_options.importTrace.empty())
    importTrace(QString::fromStdString(m_options.importTrace), m_options.traceCgroup);
  if (!m_options.watchCgroup.empty())
    m_hostView->watchCgroup(QString::fromStdString(m_options.watchCgroup));
  if (m_options.watchHost) setHostMode(true);
  if (!m_options.lesson.empty())
    openLesson(QString::fromStdString(m_options.lesson), m_options.lessonStep - 1);
}

MainWindow::~MainWindow() {
  // QWidget's destructor hides the docks after this one has run: what they signal then must
  // not reach the MainWindow that no longer is (UBSan caught the explain dock's sizing).
  for (QDockWidget* dock : findChildren<QDockWidget*>()) {
    dock->disconnect(this);
    dock->toggleViewAction()->disconnect(this);
  }
  // A recording puts tracefs back before the window goes; the live run stops last.
  for (auto view :
       {CentralView::Host, CentralView::Compare, CentralView::RealKernel, CentralView::Dashboard})
    part(view).shutdown();
}

CentralViewPart& MainWindow::part(CentralView view) const {
  return *m_parts[static_cast<std::size_t>(view)];
}

void MainWindow::loadInitialScenario() {
  const QString name =
      m_options.scenario.empty()
          ? QString::fromUtf8(engine::kDefaultScenarioName.data(),
                              static_cast<qsizetype>(engine::kDefaultScenarioName.size()))
          : QString::fromStdString(m_options.scenario);
  engine::Scenario scenario;
  try {
    scenario = engine::loadScenario(name.toStdString(), m_options.overrides);
    if (m_options.policy) scenario.policy = *m_options.policy;
    if (m_options.seed) scenario.seed = *m_options.seed;
    engine::validateScenario(scenario);
  } catch (const engine::ScenarioError& e) {
    const QString what = QString::fromUtf8(e.what());
    const QString key = QString::fromStdString(e.key());
    statusBar()->showMessage(tr("Could not load scenario %1: %2").arg(name, what));
    // As the headless run says it: the reason names the file or the key.
    loadFailed(tr("Cannot open scenario"), scenarioErrorText(name, e),
               key.isEmpty() || what.startsWith(key) ? what : key + QStringLiteral(": ") + what);
    // Keep the window usable with the engine's defaults and a single writer.
    scenario = engine::Scenario{};
    scenario.name = "fallback";
    scenario.tasks = {engine::TaskSpec{}};
  }
  m_controller->load(scenario);
  if (!m_scriptedMode) m_controller->setRunning(true);
  m_controller->setSpeed(1);
  m_runControls->setSpeed(1);
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* open = file->addAction(tr("&Open Scenario…"), this, &MainWindow::openScenarioDialog);
  open->setShortcut(QKeySequence::Open);
  m_recentMenu = file->addMenu(tr("Open &Recent"));
  file->addSeparator();
  file->addAction(tr("Open &Session…"), this, &MainWindow::openSessionDialog);
  QAction* save = file->addAction(tr("&Save Session…"), this, &MainWindow::saveSessionDialog);
  save->setShortcut(QKeySequence::Save);
  file->addSeparator();
  m_importTraceAction =
      file->addAction(tr("&Import kernel trace…"), this, &MainWindow::importTraceDialog);
  m_importTraceAction->setObjectName(QStringLiteral("importTraceAction"));
  m_importTraceAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
  m_importTraceAction->setToolTip(
      tr("Read a writeback trace (ftrace, trace-cmd report or perf script text) and lay a "
         "simulation over it"));
  file->addSeparator();
  QAction* exportAction =
      file->addAction(tr("&Export…"), this, [this] { exportInteractive(std::nullopt); });
  exportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);
  updateRecentMenu();

  QMenu* sim = menuBar()->addMenu(tr("&Simulation"));
  sim->addAction(m_runControls->runAction());
  sim->addAction(m_runControls->stepAction());
  sim->addAction(m_runControls->resetAction());
  sim->addSeparator();
  QAction* branch = sim->addAction(tr("&Branch here"), this, &MainWindow::branchHere);
  branch->setObjectName(QStringLiteral("branchHereAction"));
  branch->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
  branch->setToolTip(
      tr("Go back to marker A (click a time plot) and run a second future from there beside "
         "this one; then change any control to change the branch (Ctrl+B; or Ctrl+click a time "
         "plot at the moment)"));
  m_runControls->addAction(branch);

  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (PlotId id : kAllPlots) {
    QAction* a = view->addAction(plotTitle(id));
    a->setCheckable(true);
    a->setChecked(m_dashboard->isPlotVisible(id));
    connect(a, &QAction::toggled, this,
            [this, id](bool on) { m_dashboard->setPlotVisible(id, on); });
    connect(m_dashboard, &Dashboard::plotVisibilityChanged, a, [a, id](PlotId changed, bool on) {
      if (changed == id) a->setChecked(on);
    });
  }
  view->addSeparator();
  view->addAction(m_parameterDock->toggleViewAction());
  view->addAction(m_taskDock->toggleViewAction());
  view->addAction(m_runControls->toggleViewAction());
  view->addSeparator();
  view->addAction(m_runControls->followAction());
  view->addAction(m_runControls->fitAction());
  view->addAction(tr("Clear A/B markers"), m_dashboard, &Dashboard::clearMarkers);
  view->addSeparator();
  m_compareAction = view->addAction(tr("&Compare policies…"));
  m_compareAction->setObjectName(QStringLiteral("compareAction"));
  m_compareAction->setCheckable(true);
  m_compareAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_K));
  m_compareAction->setToolTip(
      tr("Run the current scenario under two policies side by side (Ctrl+K)"));
  connect(m_compareAction, &QAction::toggled, this, &MainWindow::setCompareMode);
  m_realKernelAction = view->addAction(tr("&Real kernel: trace against simulation"));
  m_realKernelAction->setObjectName(QStringLiteral("realKernelAction"));
  m_realKernelAction->setIconText(tr("Real kernel"));
  m_realKernelAction->setCheckable(true);
  m_realKernelAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T));
  m_realKernelAction->setToolTip(
      tr("An imported kernel trace laid over its simulation (Ctrl+Shift+T)"));
  connect(m_realKernelAction, &QAction::toggled, this, [this](bool on) {
    showCentralView(on ? CentralView::RealKernel : CentralView::Dashboard);
  });
  m_watchHostAction = view->addAction(tr("&Watch this machine"));
  m_watchHostAction->setObjectName(QStringLiteral("watchHostAction"));
  m_watchHostAction->setCheckable(true);
  m_watchHostAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_H));
  m_watchHostAction->setToolTip(
      tr("This machine's dirty pages against its thresholds, live (Ctrl+Shift+H)"));
  connect(m_watchHostAction, &QAction::toggled, this, &MainWindow::setHostMode);
  m_runControls->addSeparator();
  m_runControls->addAction(m_compareAction);
  m_runControls->addAction(m_realKernelAction);
  m_runControls->addAction(m_watchHostAction);
  view->addAction(m_experimentDock->toggleViewAction());
  m_pagesAction = view->addAction(tr("Memory in pages (not MiB)"));
  m_pagesAction->setCheckable(true);
  connect(m_pagesAction, &QAction::toggled, m_dashboard, &Dashboard::setUnitsPages);
  view->addSeparator();
  m_presenterAction = view->addAction(tr("&Presenter mode"));
  m_presenterAction->setCheckable(true);
  m_presenterAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
  connect(m_presenterAction, &QAction::toggled, this, &MainWindow::setPresenterMode);
  QAction* dark = view->addAction(tr("&Dark palette"));
  dark->setObjectName(QStringLiteral("darkPaletteAction"));
  dark->setCheckable(true);
  dark->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D));
  dark->setToolTip(tr("Switch between a light and a dark palette (Ctrl+Shift+D)"));
  connect(dark, &QAction::toggled, this, [](bool on) {
    QApplication::setPalette(on ? darkPalette() : QApplication::style()->standardPalette());
  });
  m_fullScreenAction = view->addAction(tr("&Full screen"));
  m_fullScreenAction->setCheckable(true);
  m_fullScreenAction->setShortcut(QKeySequence(Qt::Key_F11));
  connect(m_fullScreenAction, &QAction::toggled, this,
          [this](bool on) { on ? showFullScreen() : showNormal(); });

  buildExperimentsMenu();

  QMenu* lessons = menuBar()->addMenu(tr("&Lessons"));
  lessons->setObjectName(QStringLiteral("lessonsMenu"));
  buildLessonsMenu(lessons);

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  QAction* shortcuts =
      help->addAction(tr("Keyboard shortcuts"), this, &MainWindow::showHelpShortcuts);
  shortcuts->setShortcut(QKeySequence::HelpContents);
  help->addAction(tr("How to read the plots"), this, [this] {
    QMessageBox::information(
        this, tr("How to read the plots"),
        tr("<p><b>Dirty pages</b>: dirty and writeback pages against the limits. Writers run "
           "free below <i>freerun</i> = (thresh + bg_thresh)/2; above it every writer is "
           "throttled, and the controller holds dirty pages near the <i>setpoint</i>.</p>"
           "<p><b>Throttle curve</b>: pos_ratio as a function of dirty pages. Each writer may "
           "dirty at task_ratelimit = dirty_ratelimit × pos_ratio, so its pause is pages "
           "dirtied ÷ task_ratelimit, at most max_pause (200 ms).</p>"
           "<p><b>Throttle delays</b>: the pauses each writer gets. <b>Bandwidth</b>: what the "
           "disk writes and the estimates the controller uses; N × dirty_ratelimit approaches "
           "write_bw once the rate control has converged.</p>"
           "<p>Hover to read values; click for marker A, Shift+click for B; drag to pan and "
           "use the wheel to zoom the time axis.</p>"));
  });
  help->addAction(tr("About ThrottleLab"), this, [this] {
    QMessageBox::about(this, tr("About ThrottleLab"),
                       tr("<b>%1</b><br>An interactive lab for Linux dirty-page throttling.<br>"
                          "Licensed under the GNU GPL, version 3 or later. Plots by QCustomPlot.")
                           .arg(Exporter::softwareName()));
  });
}

void MainWindow::wire() {
  LiveController* c = m_controller;
  // While comparing, the run controls drive both compared runs instead of the live one.
  connect(m_runControls, &RunControls::runToggled, this, [this](bool on) {
    compareMode() ? m_compareView->setRunning(on) : m_controller->setRunning(on);
  });
  connect(m_runControls, &RunControls::stepRequested, this,
          [this] { compareMode() ? m_compareView->step() : m_controller->step(); });
  connect(m_runControls, &RunControls::resetRequested, this, [this] {
    if (compareMode()) {
      m_compareView->reset();
      statusBar()->showMessage(tr("Both compared runs restarted"), 4000);
      return;
    }
    m_controller->reset();
    statusBar()->showMessage(tr("Restarted with seed %1").arg(m_controller->scenario().seed), 4000);
  });
  connect(m_runControls, &RunControls::speedChanged, this, [this](double factor) {
    m_controller->setSpeed(factor);
    m_compareView->setSpeed(factor);
  });
  connect(m_compareView, &CompareView::runningChanged, m_runControls, &RunControls::setRunning);
  connect(m_experimentPanel, &ExperimentPanel::problem, this,
          [this](const QString& title, const QString& text) { m_notifier.error(title, text); });
  connect(m_experimentPanel, &ExperimentPanel::statusMessage, this,
          [this](const QString& text) { statusBar()->showMessage(text, 8000); });
  connect(m_experimentPanel, &ExperimentPanel::saveRequested, this,
          &MainWindow::saveExperimentReportDialog);
  connect(m_runControls, &RunControls::seedChanged, this, [this](std::uint64_t seed) {
    m_controller->setSeed(seed);
    statusBar()->showMessage(tr("Seed %1 takes effect on Reset (Ctrl+R)").arg(seed), 5000);
  });
  connect(m_runControls, &RunControls::scenarioPicked, this, &MainWindow::openScenario);
  connect(m_runControls, &RunControls::openScenarioRequested, this,
          &MainWindow::openScenarioDialog);
  connect(m_runControls, &RunControls::historyWindowChanged, c, &LiveController::setHistoryWindow);
  connect(m_runControls, &RunControls::followToggled, m_dashboard, &Dashboard::setFollowLive);
  connect(m_runControls, &RunControls::fitAllRequested, m_dashboard, &Dashboard::fitAll);
  connect(m_dashboard, &Dashboard::followLiveChanged, m_runControls, &RunControls::setFollowLive);
  connect(m_dashboard, &Dashboard::exportPlotRequested, this,
          [this](PlotId id) { exportInteractive(id); });

  connect(m_parameters, &ParameterPanel::scenarioEdited, this,
          [this](const engine::Scenario& edited) {
            // While a branch is shown, the controls are the branch's.
            const QString error =
                m_branch->branch() ? m_branch->edit(edited) : m_controller->reconfigure(edited);
            if (!error.isEmpty()) {
              statusBar()->showMessage(tr("Not applied: %1").arg(error), 8000);
              m_parameters->setScenario(m_branch->branchScenario());
            }
          });
  connect(m_branch, &BranchController::started, this, [this] {
    setCompareMode(true);
    m_parameters->setScenario(m_branch->branchScenario());
    // A branch is changed by the parameters, unlike a policy comparison.
    if (m_parameterDockWasVisible && m_parameterDock->isHidden()) m_parameterDock->show();
  });
  connect(m_branch, &BranchController::restored, this, [this](const QString& error) {
    if (!error.isEmpty()) statusBar()->showMessage(tr("Branch not restored: %1").arg(error), 8000);
  });
  connect(c, &LiveController::scenarioLoaded, this, &MainWindow::applyScenarioToControls);
  connect(c, &LiveController::scenarioReverted, this,
          [this] { m_parameters->setScenario(m_controller->scenario()); });
  connect(c, &LiveController::engineError, this, [this](const QString& message) {
    statusBar()->showMessage(tr("Engine: %1").arg(message), 10000);
  });
  connect(c, &LiveController::runningChanged, this, [this](bool running) {
    if (!compareMode()) m_runControls->setRunning(running);
  });
  connect(c, &LiveController::statusChanged, this,
          [this] { m_statusReadout->show(m_controller->status()); });
  connect(m_taskTable, &TaskTable::selectedTaskChanged, c, &LiveController::setSelectedTask);

  connect(m_traceView, &TraceView::importRequested, this, &MainWindow::importTraceDialog);
  connect(m_traceView, &TraceView::importFailed, this, [this](const QString& message) {
    statusBar()->showMessage(tr("Import failed"), 6000);
    loadFailed(tr("Cannot import the trace"), message, QStringLiteral("--open-trace: ") + message);
    importEnded();
  });
  connect(m_traceView, &TraceView::importFinished, this, &MainWindow::importEnded);
  connect(m_traceView, &TraceView::importCancelled, this, [this] {
    if (m_scriptedMode)
      loadFailed({}, {}, QStringLiteral("--open-trace: the import was cancelled"));
    importEnded();
  });
  connect(m_traceView, &TraceView::simulationFailed, this, [this](const QString& message) {
    m_notifier.error(tr("Cannot simulate the trace"), message);
  });
  connect(m_traceView, &TraceView::statusMessage, this,
          [this](const QString& text) { statusBar()->showMessage(text, 6000); });
  connect(m_traceView, &TraceView::openScenarioRequested, this, &MainWindow::runScenario);
  connect(m_hostView, &HostView::statusMessage, this,
          [this](const QString& text) { statusBar()->showMessage(text, 6000); });
  connect(m_hostView, &HostView::errorMessage, this,
          [this](const QString& title, const QString& text) { m_notifier.error(title, text); });
  connect(m_hostView, &HostView::interruptRequested, this, &QWidget::close);
  connect(m_hostView, &HostView::saveRecordingRequested, this, &MainWindow::saveRecordingDialog);
  connect(m_hostView, &HostView::simulateRecordingRequested, this,
          [this](std::shared_ptr<const ImportedTrace> trace) {
            showCentralView(CentralView::RealKernel);
            m_traceView->showTrace(std::move(trace));
            m_traceView->simulate();
          });
}

void MainWindow::buildExplainAndTimeline() {
  m_explainPanel = new ExplainPanel(*m_controller);
  m_explainDock = new QDockWidget(tr("Why this pause"), this);
  m_explainDock->setObjectName(QStringLiteral("explainDock"));
  m_explainDock->setWidget(m_explainPanel);
  addDockWidget(Qt::BottomDockWidgetArea, m_explainDock);
  tabifyDockWidget(m_taskDock, m_explainDock);
  // The breakdown is about 30 lines; the bottom docks' 170 px showed three and a half. While it
  // is the tab shown, the docks take what the plots shown can spare (each keeps its data area:
  // none is put away for it, least of all the one whose curve was clicked), up to
  // kExplainShare of the window; the other tabs give the plots their height back.
  connect(m_explainDock, &QDockWidget::visibilityChanged, this, [this](bool shown) {
    if (m_explainDock->isFloating() || dockWidgetArea(m_explainDock) != Qt::BottomDockWidgetArea)
      return;
    // What resizeDocks() sizes is the docks' tab group, its tab bar included: from the panel's
    // top to the status bar.
    const auto groupHeight = [this] {
      const int bottom = statusBar()->isVisible() ? statusBar()->y() : height();
      return bottom - m_explainDock->y();
    };
    if (shown) {
      // Once the tab switch is laid out: a panel brought to the front still has the height it
      // had when it was last there.
      QTimer::singleShot(0, this, [this, groupHeight] {
        if (!isInFront(*m_explainDock) || m_bottomDocksHeight > 0) return;
        const int now = groupHeight();
        const int spare = m_dashboard->isVisible()
                              ? m_dashboard->height() - m_dashboard->heightForShownPlots()
                              : 0;
        const int wanted = std::min(static_cast<int>(height() * kExplainShare), now + spare);
        if (now >= wanted) return;
        m_bottomDocksHeight = now;
        resizeDocks({m_explainDock}, {wanted}, Qt::Vertical);
      });
    } else if (m_bottomDocksHeight > 0) {
      // Another tab of the same group (in front once this signal is through), or the group
      // closed: the plots get their height back.
      QTimer::singleShot(0, this, [this, height = std::exchange(m_bottomDocksHeight, 0)] {
        if (isInFront(*m_explainDock)) return;
        for (QDockWidget* dock : tabifiedDockWidgets(m_explainDock))
          if (isInFront(*dock)) {
            resizeDocks({dock}, {height}, Qt::Vertical);  // the group's height, one for all
            break;
          }
      });
    }
  });

  // A new note goes to marker A if there is one, else to the run's current time.
  m_timelinePanel = new TimelinePanel(*m_controller, [this] {
    return m_dashboard->markerA().value_or(m_controller->status().simTimeS);
  });
  m_timelineDock = new QDockWidget(tr("Timeline"), this);
  m_timelineDock->setObjectName(QStringLiteral("timelineDock"));
  m_timelineDock->setWidget(m_timelinePanel);
  addDockWidget(Qt::BottomDockWidgetArea, m_timelineDock);
  tabifyDockWidget(m_taskDock, m_timelineDock);
  m_taskDock->raise();

  connect(m_controller, &LiveController::timelineChanged, this,
          [this] { m_dashboard->setEvents(m_controller->timeline(), &m_controller->scenario()); });
  connect(m_controller, &LiveController::dataReset, m_explainPanel, &ExplainPanel::refresh);
  connect(m_taskTable, &TaskTable::selectedTaskChanged, m_explainPanel, &ExplainPanel::setTask);
  connect(m_dashboard, &Dashboard::markerPlaced, this, [this](double t, bool markerB) {
    if (!markerB) m_explainPanel->setMoment(t);
  });
  // Ctrl+click: the click put marker A there; branch at it.
  connect(m_dashboard, &Dashboard::branchRequested, this, &MainWindow::branchHere);
  connect(m_dashboard, &Dashboard::taskClicked, this, [this](int task, double t) {
    m_taskTable->selectTask(task);
    m_explainPanel->setTask(task);
    m_explainPanel->setMoment(t);
    m_explainDock->show();
    m_explainDock->raise();
  });
  connect(m_timelinePanel, &TimelinePanel::timeActivated, this, [this](double t) {
    m_dashboard->setMarker(t, false);
    m_explainPanel->setMoment(t);
  });
}

void MainWindow::setCompareMode(bool on) {
  if (on)
    showCentralView(CentralView::Compare);
  else if (m_central == CentralView::Compare)
    showCentralView(CentralView::Dashboard);
  else
    syncViewActions();
}

void MainWindow::setHostMode(bool on) {
  if (on)
    showCentralView(CentralView::Host);
  else if (m_central == CentralView::Host)
    showCentralView(CentralView::Dashboard);
  else
    syncViewActions();
}

void MainWindow::syncViewActions() {
  const std::pair<QAction*, CentralView> actions[] = {{m_compareAction, CentralView::Compare},
                                                      {m_realKernelAction, CentralView::RealKernel},
                                                      {m_watchHostAction, CentralView::Host}};
  for (const auto& [action, view] : actions) {
    const QSignalBlocker block(action);
    action->setChecked(m_central == view);
  }
}

void MainWindow::showCentralView(CentralView view) {
  if (view == m_central) {
    syncViewActions();
    return;
  }
  CentralViewPart& from = part(m_central);
  CentralViewPart& to = part(view);
  const bool branched = m_branch->branch().has_value();
  const bool hadParameters = showsParameters(m_central);  // before a branch ends
  from.deactivate();
  if (branched) m_parameters->setScenario(m_controller->scenario());  // the live run's again
  // The parameters drive the live run or a branch: no use beside a policy comparison (it ran
  // the live scenario as it was; at 1024 px they left its table one column), a trace or this
  // machine.
  const bool hasParameters = showsParameters(view);
  if (hadParameters && !hasParameters) {
    m_parameterDockWasVisible = m_parameterDock->toggleViewAction()->isChecked();
    m_parameterDock->hide();
  } else if (!hadParameters && hasParameters && m_parameterDockWasVisible) {
    m_parameterDock->show();
  }
  m_central = view;
  syncViewActions();
  // Run, Step and Reset drive a simulation; beside a trace or this machine there is none to
  // drive (the live run waits, paused, for the dashboard to come back).
  for (QAction* action :
       {m_runControls->runAction(), m_runControls->stepAction(), m_runControls->resetAction()})
    action->setEnabled(to.drivesSimulation());
  m_stack->setCurrentWidget(to.widget());
  to.activate();
}

bool MainWindow::showsParameters(CentralView view) const {
  return view == CentralView::Dashboard || (view == CentralView::Compare && m_branch->branch());
}

void MainWindow::importTraceDialog() {
  const QString path =
      askPath(tr("Import kernel trace"),
              tr("Kernel traces (*.txt *.trace *.log *.dat.txt);;All files (*)"), false);
  if (!path.isEmpty()) importTrace(path);
}

void MainWindow::importTrace(const QString& path, std::optional<std::uint64_t> cgroupIno) {
  showCentralView(CentralView::RealKernel);
  if (m_scripted) m_scripted->importStarted();
  if (m_traceView->importFile(path, cgroupIno))  // else it said why (importFailed)
    statusBar()->showMessage(tr("Importing %1…").arg(QFileInfo(path).fileName()));
}

void MainWindow::runScenario(const engine::Scenario& scenario) {
  showCentralView(CentralView::Dashboard);
  m_controller->load(scenario);
  m_controller->setRunning(true);
  m_runControls->setRunning(true);
  statusBar()->showMessage(tr("Running %1 live").arg(QString::fromStdString(scenario.name)), 6000);
}

void MainWindow::saveRecordingDialog() {
  const QString path = askPath(tr("Save recording"), tr("Kernel traces (*.txt);;All files (*)"),
                               true, QStringLiteral("writeback-trace.txt"));
  if (path.isEmpty()) return;
  const QString error = m_hostView->saveRecording(path);
  if (!error.isEmpty()) {
    m_notifier.error(tr("Cannot save the recording"), error);
    return;
  }
  statusBar()->showMessage(tr("Saved %1").arg(QFileInfo(path).fileName()), 4000);
}

bool MainWindow::compareMode() const {
  return m_compareView->isActive();
}

void MainWindow::buildExperimentsMenu() {
  m_experimentsMenu = menuBar()->addMenu(tr("E&xperiments"));
  m_experimentsMenu->setObjectName(QStringLiteral("experimentsMenu"));
  for (const std::string& name : engine::experimentNames()) {
    const auto experiment = engine::makeExperiment(name, true);
    const QString key = QString::fromStdString(name);
    const QString title = experiment ? QString::fromStdString(experiment->title) : QString();
    QAction* a = m_experimentsMenu->addAction(
        title.isEmpty() ? key : QStringLiteral("%1 — %2").arg(key, title), this,
        [this, key] { runExperiment(key); });
    a->setData(key);
  }
  m_experimentsMenu->addSeparator();
  QMenu* quick = m_experimentsMenu->addMenu(tr("Quick form (shorter runs, fewer cases)"));
  for (const std::string& name : engine::experimentNames()) {
    const QString key = QString::fromStdString(name);
    quick->addAction(key, this, [this, key] { runExperiment(key, true); });
  }
}

const engine::ExperimentCase* MainWindow::liveCase(const engine::Experiment& e) {
  for (const auto& c : e.cases)
    if (c.name == e.liveCase) return &c;
  return e.cases.empty() ? nullptr : &e.cases.front();
}

bool MainWindow::runExperiment(const QString& name, bool quick, int seeds) {
  const auto experiment = engine::makeExperiment(name.toStdString(), quick);
  if (!experiment) {
    m_notifier.error(tr("Unknown experiment"), tr("There is no experiment called %1.").arg(name));
    return false;
  }
  setCompareMode(false);
  if (const engine::ExperimentCase* c = liveCase(*experiment)) {
    engine::Scenario scenario = c->scenario;
    scenario.name = experiment->name + ": " + c->name;
    m_controller->load(scenario);
    m_controller->setRunning(true);
    statusBar()->showMessage(tr("Live: %1 (case %2)").arg(name, QString::fromStdString(c->name)),
                             8000);
  }
  m_experimentDock->show();
  m_experimentDock->raise();
  resizeDocks({m_experimentDock}, {360}, Qt::Vertical);
  m_experimentPanel->run(*experiment, seeds);
  return true;
}

void MainWindow::saveExperimentReportDialog() {
  const auto result = m_experimentPanel->model().result();
  const QString base =
      result ? QString::fromStdString(result->experiment) : QStringLiteral("report");
  const QString path = askPath(tr("Save experiment report"), tr("Markdown (*.md);;JSON (*.json)"),
                               true, base + QStringLiteral("-report.md"));
  if (path.isEmpty()) return;
  const QString error = m_experimentPanel->saveReport(path);
  if (!error.isEmpty()) {
    m_notifier.error(tr("Cannot save the report"), error);
    return;
  }
  statusBar()->showMessage(tr("Saved %1").arg(QFileInfo(path).fileName()), 4000);
}

void MainWindow::applyScenarioToControls() {
  const engine::Scenario& s = m_controller->scenario();
  m_parameters->setScenario(s);
  m_runControls->setSeed(s.seed);
  m_runControls->setCurrentScenario(QString::fromStdString(s.name));
  m_runControls->setRunning(m_controller->isRunning());
  m_taskTable->selectTask(-1);
  updateTitle();
}

void MainWindow::updateTitle() {
  setWindowTitle(tr("ThrottleLab — %1").arg(QString::fromStdString(m_controller->scenario().name)));
}

void MainWindow::restoreSettings() {
  restoreGeometryOnScreen(*this, m_settings.value(Setting::WindowGeometry).toByteArray());
  restoreState(m_settings.value(Setting::WindowState).toByteArray());
  m_dashboard->restoreLayoutState(m_settings.value(Setting::DashboardLayout).toByteArray());
  if (auto w = historyFromKey(m_settings.value(Setting::HistoryWindow).toString())) {
    m_controller->setHistoryWindow(*w);
    m_runControls->setHistoryWindow(*w);
  }
  m_pagesAction->setChecked(m_settings.value(Setting::UnitsPages).toBool());
}

void MainWindow::closeEvent(QCloseEvent* event) {
  m_hostView->stop();  // ends a recording: tracefs goes back as it was found
  if (!m_scriptedMode) {
    m_settings.setValue(Setting::WindowGeometry, saveGeometry());
    m_settings.setValue(Setting::WindowState, saveState());
    m_settings.setValue(Setting::DashboardLayout, m_dashboard->saveLayoutState());
    m_settings.setValue(Setting::HistoryWindow, historyKey(m_controller->historyWindow()));
    m_settings.setValue(Setting::UnitsPages, m_dashboard->unitsPages());
    m_settings.sync();
  }
  QMainWindow::closeEvent(event);
}

bool MainWindow::openScenario(const QString& fileOrName) {
  engine::Scenario scenario;
  try {
    scenario = engine::loadScenario(fileOrName.toStdString());
  } catch (const engine::ScenarioError& e) {
    m_notifier.error(tr("Cannot open scenario"), scenarioErrorText(fileOrName, e));
    m_runControls->setCurrentScenario(QString::fromStdString(m_controller->scenario().name));
    return false;
  }
  m_controller->load(scenario);
  if (QFileInfo::exists(fileOrName)) {
    m_settings.addRecentFile(fileOrName);
    updateRecentMenu();
  }
  statusBar()->showMessage(tr("Opened scenario %1").arg(QString::fromStdString(scenario.name)),
                           4000);
  return true;
}

bool MainWindow::openSession(const QString& path) {
  const SessionFile::ReadResult result = SessionFile::read(path);
  if (!result.state) {
    loadFailed(tr("Cannot open session"), result.error,
               QStringLiteral("--session: ") + result.error);
    return false;
  }
  applySession(*result.state);
  m_settings.addRecentFile(path);
  updateRecentMenu();
  statusBar()->showMessage(tr("Opened session %1").arg(QFileInfo(path).fileName()), 4000);
  return true;
}

bool MainWindow::saveSession(const QString& path) {
  const QString error = SessionFile::write(path, captureSession());
  if (!error.isEmpty()) {
    m_notifier.error(tr("Cannot save session"), error);
    return false;
  }
  m_settings.addRecentFile(path);
  updateRecentMenu();
  statusBar()->showMessage(tr("Saved session %1").arg(QFileInfo(path).fileName()), 4000);
  return true;
}

bool MainWindow::openFile(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    m_notifier.error(tr("Cannot open file"),
                     tr("Cannot read %1: %2.").arg(path, file.errorString()));
    m_settings.removeRecentFile(path);
    updateRecentMenu();
    return false;
  }
  return SessionFile::isSession(file.readAll()) ? openSession(path) : openScenario(path);
}

SessionState MainWindow::captureSession() const {
  return m_session->capture();
}

void MainWindow::applySession(const SessionState& s) {
  m_session->apply(s);
}

void MainWindow::setPresenterMode(bool on) {
  if (m_presenterAction->isChecked() != on) {
    m_presenterAction->setChecked(on);  // re-enters through toggled
    return;
  }
  QFont f = m_baseFont;
  if (on) f.setPointSizeF(std::max(13.0, m_baseFont.pointSizeF() * 1.4));
  setFont(f);
  m_dashboard->setPresenterMode(on);
  // The bottom docks would take a third of a projector's height from the plots; View brings
  // each back.
  if (on)
    for (QDockWidget* dock : {m_taskDock, m_explainDock, m_timelineDock}) dock->hide();
}

void MainWindow::ignoreHiddenPages() {
  for (int i = 0; i < m_stack->count(); ++i) {
    QWidget* page = m_stack->widget(i);
    const bool current = page == m_stack->currentWidget();
    page->setSizePolicy(current ? QSizePolicy::Preferred : QSizePolicy::Ignored,
                        current ? QSizePolicy::Preferred : QSizePolicy::Ignored);
  }
}

bool MainWindow::presenterMode() const {
  return m_dashboard->presenterMode();
}

QString MainWindow::exportTo(const QString& path, const ExportChoice& choice) const {
  if (m_options.explainPid > 0 && !choice.plot &&
      (choice.format == ExportFormat::Png1x || choice.format == ExportFormat::Png2x))
    return exportExplained(path);
  // A lesson's step is its caption and question beside the plots: the PNG of the whole
  // dashboard is then the window as the class sees it.
  if (choice.format == ExportFormat::Png1x && !choice.plot && m_lessonPanel->hasLesson() &&
      m_lessonDock->isVisible())
    return exportWindowPng(*const_cast<MainWindow*>(this), path, 1);
  return part(m_central).exportTo(path, choice);
}

QString MainWindow::exportExplained(const QString& path) const {
  const auto& infos = m_controller->taskInfos();
  const auto it = std::find_if(infos.begin(), infos.end(), [this](const auto& i) {
    return i.second.pid == m_options.explainPid;
  });
  if (it == infos.end())
    return tr("--explain: no task has pid %1 at %2 s")
        .arg(m_options.explainPid)
        .arg(m_options.explainS);
  m_taskTable->selectTask(it->first);
  m_explainPanel->setTask(it->first);
  m_explainPanel->setMoment(m_options.explainS);
  m_dashboard->setMarker(m_options.explainS, false);
  // Beside the plots, at the window's full height, in the parameters' place: under the plots,
  // at 720 px, their least heights leave the breakdown (about 30 lines) four.
  auto* self = const_cast<MainWindow*>(this);
  self->addDockWidget(Qt::RightDockWidgetArea, m_explainDock);
  // The task table stays under the plots (the task explained is its selected row); the
  // breakdown takes the right edge from top to bottom.
  self->setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
  m_parameterDock->hide();
  m_taskDock->show();
  m_taskDock->raise();
  m_explainDock->show();
  m_explainDock->raise();
  QCoreApplication::processEvents();
  self->resizeDocks({m_explainDock}, {std::max(width() * 2 / 5, 420)}, Qt::Horizontal);
  QCoreApplication::processEvents();
  m_controller->frame(true, true);
  QCoreApplication::processEvents();
  SaveFile file(path);
  if (!file.open(QIODevice::WriteOnly))
    return tr("Cannot write %1: %2.").arg(path, file.errorString());
  if (!self->grab().save(&file, "PNG")) {
    file.cancelWriting();
    return tr("Cannot write %1: the PNG could not be made.").arg(path);
  }
  if (!file.commit()) return tr("Cannot write %1: %2.").arg(path, file.errorString());
  return {};
}

void MainWindow::exportInteractive(std::optional<PlotId> plot) {
  ExportDialog dialog(plot, this);
  if (dialog.exec() != QDialog::Accepted) return;
  const ExportChoice choice = dialog.choice();
  const QString base = QString::fromStdString(m_controller->scenario().name) +
                       (choice.plot ? QStringLiteral("-") + plotKey(*choice.plot) : QString());
  const QString path = askPath(tr("Export"), ExportDialog::filter(choice.format), true,
                               base + QStringLiteral(".") + ExportDialog::suffix(choice.format));
  if (path.isEmpty()) return;
  const QString error = exportTo(path, choice);
  if (!error.isEmpty()) {
    m_notifier.error(tr("Export failed"), error);
    return;
  }
  statusBar()->showMessage(tr("Exported %1").arg(QFileInfo(path).fileName()), 4000);
}

QString MainWindow::askPath(const QString& caption, const QString& filter, bool save,
                            const QString& suggestedName) {
  QString dir = m_settings.value(Setting::LastDirectory).toString();
  if (dir.isEmpty()) dir = QDir::homePath();
  const QString path =
      save ? QFileDialog::getSaveFileName(this, caption, QDir(dir).filePath(suggestedName), filter)
           : QFileDialog::getOpenFileName(this, caption, dir, filter);
  if (!path.isEmpty()) m_settings.setValue(Setting::LastDirectory, QFileInfo(path).absolutePath());
  return path;
}

void MainWindow::openScenarioDialog() {
  const QString path = askPath(tr("Open Scenario"), tr("Scenarios (*.json);;All files (*)"), false);
  if (path.isEmpty()) {
    m_runControls->setCurrentScenario(QString::fromStdString(m_controller->scenario().name));
    return;
  }
  openScenario(path);
}

void MainWindow::openSessionDialog() {
  const QString path =
      askPath(tr("Open Session"), tr("ThrottleLab sessions (*.json);;All files (*)"), false);
  if (!path.isEmpty()) openSession(path);
}

void MainWindow::saveSessionDialog() {
  const QString path = askPath(
      tr("Save Session"), tr("ThrottleLab sessions (*.json)"), true,
      QString::fromStdString(m_controller->scenario().name) + QStringLiteral("-session.json"));
  if (!path.isEmpty()) saveSession(path);
}

void MainWindow::updateRecentMenu() {
  m_recentMenu->clear();
  const QStringList files = m_settings.recentFiles();
  for (const QString& f : files)
    m_recentMenu->addAction(QFileInfo(f).fileName(), this, [this, f] { openFile(f); })
        ->setToolTip(f);
  m_recentMenu->setEnabled(!files.isEmpty());
}

void MainWindow::loadFailed(const QString& title, const QString& text, const QString& line) {
  if (!m_scriptedMode) {
    m_notifier.error(title, text);
    return;
  }
  // No dialog and no figure of a fallback scenario over the user's files: one line, and the
  // job fails with status 2 when it would start.
  m_scripted->addFailure(line);
  m_notifier.error(QString(), line);
}

void MainWindow::importEnded() {
  if (m_scripted) m_scripted->importEnded();
}

void MainWindow::makeScriptedJob() {
  if (!m_scriptedMode) return;
  m_scripted = new ScriptedFigures(
      m_options,
      ScriptedFigures::Window{
          .live = *m_controller,
          .branch = *m_branch,
          .compare = *m_compareView,
          .lessons = *m_lessonPanel,
          .host = *m_hostView,
          .showsHost = [this] { return m_central == CentralView::Host; },
          .exportTo = [this](const QString& path,
                             const ExportChoice& choice) { return exportTo(path, choice); }},
      this);
  connect(m_scripted, &ScriptedFigures::finished, this, [this](int code, const QString& status) {
    statusBar()->showMessage(status);
    Q_EMIT scriptedJobFinished(code);
  });
}

void MainWindow::startScriptedJob() {
  if (m_scripted) m_scripted->start();
}

std::optional<int> MainWindow::scriptedExitCode() const {
  return m_scripted ? m_scripted->exitCode() : std::nullopt;
}

void MainWindow::branchHere() {
  auto at = m_dashboard->markerA() ? m_dashboard->markerA() : m_dashboard->cursorTime();
  if (at) at = std::round(*at * 10) / 10;  // a sample's time: "at 40.3 s", not 40.2871
  if (!at) {
    statusBar()->showMessage(tr("Branch here: click a time plot first (marker A marks the moment "
                                "to branch from)"),
                             8000);
    return;
  }
  const QString error = m_branch->branchHere(*at, {}, true);
  statusBar()->showMessage(
      error.isEmpty()
          ? tr("Branched at %1 s: change any control to change the branch").arg(*at, 0, 'f', 1)
          : tr("Branch here at %1 s: %2").arg(*at, 0, 'f', 1).arg(error),
      8000);
}

void MainWindow::buildLessonsMenu(QMenu* menu) {
  for (const std::string& name : engine::builtinLessonNames()) {
    QString title = QString::fromStdString(name);
    try {
      title =
          QString::fromStdString(engine::parseLesson(*engine::builtinLessonJson(name), name).title);
    } catch (const engine::LessonError&) {
      // Listed by name; opening it says what is wrong.
    }
    const QString key = QString::fromStdString(name);
    menu->addAction(title, this, [this, key] { openLesson(key); })->setData(key);
  }
  menu->addSeparator();
  menu->addAction(tr("Open lesson file…"), this, &MainWindow::openLessonDialog);
  menu->addSeparator();
  QAction* next = menu->addAction(tr("Next step"));
  next->setShortcut(QKeySequence(Qt::Key_PageDown));
  next->setShortcutContext(Qt::WindowShortcut);
  connect(next, &QAction::triggered, m_lessonPanel, &LessonPanel::nextStep);
  QAction* previous = menu->addAction(tr("Previous step"));
  previous->setShortcut(QKeySequence(Qt::Key_PageUp));
  previous->setShortcutContext(Qt::WindowShortcut);
  connect(previous, &QAction::triggered, m_lessonPanel, &LessonPanel::previousStep);
  connect(m_lessonPanel, &LessonPanel::hostViewRequested, this, [this](bool on) {
    if (on || m_central == CentralView::Host) setHostMode(on);
  });
  connect(m_lessonPanel, &LessonPanel::plotsRequested, this, &MainWindow::showPlotsByLessonNames);
  connect(m_lessonPanel, &LessonPanel::highlightRequested, m_dashboard, &Dashboard::setHighlight);
  // A step's band and wide curves belong to the lesson: closing its panel takes them away (they
  // stayed on the plots with nothing on screen saying why), opening it again brings them back.
  // The view action follows close and show, not the tabs in front.
  connect(m_lessonDock->toggleViewAction(), &QAction::toggled, this, [this](bool open) {
    if (!m_lessonPanel->hasLesson()) return;
    const auto& steps = m_lessonPanel->lesson().steps;
    const auto step = static_cast<std::size_t>(m_lessonPanel->currentStep());
    m_dashboard->setHighlight(open && step < steps.size() ? steps[step].highlight : std::nullopt);
  });
  connect(m_lessonPanel, &LessonPanel::scenarioChanged, this,
          [this] { m_parameters->setScenario(m_controller->scenario()); });
  connect(m_lessonPanel, &LessonPanel::problem, this, [this](const QString& text) {
    statusBar()->showMessage(tr("Lesson: %1").arg(text), 8000);
  });
}

void MainWindow::showPlotsByLessonNames(const QStringList& plots) {
  for (PlotId id : kAllPlots) m_dashboard->setPlotVisible(id, plots.contains(lessonPlotName(id)));
}

bool MainWindow::openLesson(const QString& fileOrName, int index) {
  engine::Lesson lesson;
  try {
    lesson = engine::loadLesson(fileOrName.toStdString());
  } catch (const engine::LessonError& e) {
    loadFailed(tr("Cannot open lesson"), QString::fromUtf8(e.what()),
               QStringLiteral("--lesson ") + QString::fromUtf8(e.what()));
    return false;
  }
  const int last = static_cast<int>(lesson.steps.size()) - 1;
  m_lessonPanel->setLesson(std::move(lesson));
  m_lessonDock->show();
  m_lessonDock->raise();
  m_lessonPanel->goToStep(std::clamp(index, 0, last), m_scriptedMode);
  return true;
}

void MainWindow::openLessonDialog() {
  const QString path = askPath(tr("Open lesson"), tr("Lessons (*.json);;All files (*)"), false);
  if (!path.isEmpty()) openLesson(path);
}

void MainWindow::showHelpShortcuts() {
  QString rows;
  const auto add = [&rows](const QString& keys, const QString& what) {
    rows += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(keys, what);
  };
  // Every action of the menus and the tool bar that has a shortcut, as they are bound now.
  QList<QAction*> seen;
  const std::function<void(const QList<QAction*>&)> walk = [&](const QList<QAction*>& actions) {
    for (QAction* a : actions) {
      if (a->menu()) walk(a->menu()->actions());
      if (a->shortcut().isEmpty() || seen.contains(a)) continue;
      seen << a;
      add(a->shortcut().toString(QKeySequence::NativeText), a->text().remove('&'));
    }
  };
  walk(menuBar()->actions());
  walk(m_runControls->actions());
  add(tr("Click / Shift+click"), tr("Set marker A / marker B on a time plot"));
  add(tr("Drag, mouse wheel"), tr("Pan and zoom the time axis (stops following live)"));
  add(tr("Escape"), tr("Leave a spin box or text field: Space and \".\" drive the run again"));
  QMessageBox box(this);
  box.setObjectName(QStringLiteral("shortcutsHelp"));
  box.setWindowTitle(tr("Keyboard shortcuts"));
  box.setText(QStringLiteral("<table cellspacing=6>%1</table>").arg(rows));
  box.exec();
}

}  // namespace throttlelab::ui
