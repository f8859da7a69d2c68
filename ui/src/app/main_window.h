// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The main window only composes: the four central views (each behind a CentralViewPart), the
/// parameter panel, the run controls, the task table, the experiment report and the status
/// bar, plus the menus that reach them.
#include <QMainWindow>
#include <array>
#include <memory>
#include <optional>

#include "export_dialog.h"
#include "session_state.h"
#include "throttlelab/engine/experiments.h"
#include "throttlelab/ui/gui_main.h"

class QDockWidget;
class QMenu;
class QStackedWidget;

namespace throttlelab::ui {

class BranchController;
class CentralViewPart;
class CompareView;
class Dashboard;
class ExperimentPanel;
class ExplainPanel;
class TimelinePanel;
class HostView;
class LessonPanel;
class TraceView;
class LiveController;
class ParameterPanel;
class RunControls;
class ScriptedFigures;
class SettingsStore;
class StatusReadout;
class TaskTable;
class TaskTableModel;
class UserNotifier;
class WindowSession;

/// What the central area shows.
enum class CentralView { Dashboard, Compare, RealKernel, Host };

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  MainWindow(const GuiLaunchOptions& options, UserNotifier& notifier, SettingsStore& settings,
             QWidget* parent = nullptr);
  ~MainWindow() override;

  // Tests and scripts find the views, panels, menus and actions by their objectName
  // (findChild): "liveController", "dashboard", "compareView", "traceView", "hostView",
  // "parameterPanel", "runControls", "experimentPanel", "experimentsMenu", "compareAction",
  // "importTraceAction", "realKernelAction", "watchHostAction".

  /// Switches the central area. Leaving the dashboard pauses the live run (and hides its task
  /// table); coming back resumes it as it was. Leaving live host mode stops polling and any
  /// recording; leaving the compare view stops both compared runs.
  void showCentralView(CentralView view);
  CentralView centralView() const { return m_central; }
  /// File ▸ Import kernel trace…: shows the real-kernel view and imports `path` off the GUI
  /// thread; failures reach the UserNotifier.
  /// Opens the trace in the Real kernel view; `cgroupIno`: only that cgroup's records.
  void importTrace(const QString& path, std::optional<std::uint64_t> cgroupIno = std::nullopt);
  /// View ▸ Watch this machine.
  void setHostMode(bool on);
  /// Loads a scenario value (e.g. one derived from a trace) into the live dashboard and runs it.
  void runScenario(const engine::Scenario& scenario);

  /// Shows the compare view (the current scenario under two policies) instead of the
  /// dashboard; the live run pauses meanwhile and the run controls drive both compared runs.
  void setCompareMode(bool on);
  bool compareMode() const;
  /// Experiments menu: loads the experiment's most telling case into the live dashboard and
  /// starts it, and runs the whole experiment (quick form if asked) in the background into
  /// the report panel. False (with a message) if the name is unknown.
  bool runExperiment(const QString& name, bool quick = false, int seeds = 3);
  /// The case of `experiment` to show live: the one it names (Experiment::liveCase), else
  /// the first.
  static const engine::ExperimentCase* liveCase(const engine::Experiment& experiment);

  /// Opens a lesson file or built-in lesson at step `index` (0-based) in the lesson panel.
  /// On error: a message naming the step and the key, and nothing changes.
  bool openLesson(const QString& fileOrName, int index = 0);
  /// A scenario file or built-in name. On error: a message naming the key and the reason,
  /// and nothing changes. Returns whether it was opened.
  bool openScenario(const QString& fileOrName);
  bool openSession(const QString& path);
  bool saveSession(const QString& path);
  /// Opens a file from the recent list: a session or a scenario, whichever it is.
  bool openFile(const QString& path);
  SessionState captureSession() const;
  void applySession(const SessionState& state);
  /// Returns an error message, or empty on success.
  QString exportTo(const QString& path, const ExportChoice& choice) const;
  void setPresenterMode(bool on);
  bool presenterMode() const;
  /// Starts the --run-for/--export/--quit job given at launch, if any (ScriptedFigures): after
  /// the --open-trace import has ended, and only if every file given at launch loaded (else
  /// status 2, no export). With --quit the application exits with the job's status.
  void startScriptedJob();
  /// The scripted job's exit status once it finished (0, 1 an export failed, 2 bad input).
  std::optional<int> scriptedExitCode() const;

 Q_SIGNALS:
  void scriptedJobFinished(int exitCode);

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void buildMenus();
  /// The central stack's pages other than the current one ignore their size (hints and
  /// minimum), so the window's least width is the shown page's.
  void ignoreHiddenPages();
  void wire();
  /// The "Why this pause" and "Timeline" docks, and what feeds them.
  void buildExplainAndTimeline();
  /// --export-png with --explain: the whole window, the task's breakdown in its panel.
  QString exportExplained(const QString& path) const;
  /// The Parameters dock is shown beside `view` (the live run's dashboard, a branch).
  bool showsParameters(CentralView view) const;
  void restoreSettings();
  void loadInitialScenario();
  void updateRecentMenu();
  void updateTitle();
  void exportInteractive(std::optional<PlotId> plot);
  void openScenarioDialog();
  void openSessionDialog();
  void saveSessionDialog();
  QString askPath(const QString& caption, const QString& filter, bool save,
                  const QString& suggestedName = {});
  void applyScenarioToControls();
  void buildExperimentsMenu();
  void saveExperimentReportDialog();
  void importTraceDialog();
  void saveRecordingDialog();
  void syncViewActions();
  CentralViewPart& part(CentralView view) const;
  /// A file could not be loaded: a dialog (`title`, `text`), or in a scripted run `line` on
  /// standard error and a failed job.
  void loadFailed(const QString& title, const QString& text, const QString& line);
  void importEnded();
  /// The scripted job of a scripted run (nullptr otherwise), with what it needs of the window.
  void makeScriptedJob();
  void buildLessonsMenu(QMenu* menu);
  void openLessonDialog();
  void showHelpShortcuts();
  void showPlotsByLessonNames(const QStringList& plots);
  /// Simulation ▸ Branch here: the live run at marker A (or the hover cursor), in the compare
  /// view beside a branch whose controls the parameters now change.
  void branchHere();

  GuiLaunchOptions m_options;
  UserNotifier& m_notifier;
  SettingsStore& m_settings;
  LiveController* m_controller;
  Dashboard* m_dashboard;
  ParameterPanel* m_parameters;
  RunControls* m_runControls;
  TaskTableModel* m_taskModel;
  TaskTable* m_taskTable;
  StatusReadout* m_statusReadout;
  QDockWidget* m_parameterDock;
  QDockWidget* m_taskDock;
  QMenu* m_recentMenu = nullptr;
  QAction* m_presenterAction = nullptr;
  QAction* m_fullScreenAction = nullptr;
  QAction* m_pagesAction = nullptr;
  QAction* m_compareAction = nullptr;
  QAction* m_importTraceAction = nullptr;
  QAction* m_realKernelAction = nullptr;
  QAction* m_watchHostAction = nullptr;
  TraceView* m_traceView = nullptr;
  HostView* m_hostView = nullptr;
  CentralView m_central = CentralView::Dashboard;
  QMenu* m_experimentsMenu = nullptr;
  QStackedWidget* m_stack = nullptr;
  CompareView* m_compareView = nullptr;
  BranchController* m_branch = nullptr;
  ExperimentPanel* m_experimentPanel = nullptr;
  LessonPanel* m_lessonPanel = nullptr;
  QDockWidget* m_lessonDock = nullptr;
  QDockWidget* m_experimentDock = nullptr;
  ExplainPanel* m_explainPanel = nullptr;
  QDockWidget* m_explainDock = nullptr;
  /// The share of the window's height the bottom docks take while "Why this pause" is shown.
  static constexpr double kExplainShare = 0.4;
  int m_bottomDocksHeight = 0;  ///< theirs before it was shown (0: not changed)
  TimelinePanel* m_timelinePanel = nullptr;
  QDockWidget* m_timelineDock = nullptr;
  /// The central views' parts, by CentralView.
  std::array<std::unique_ptr<CentralViewPart>, 4> m_parts;
  std::unique_ptr<WindowSession> m_session;
  bool m_parameterDockWasVisible = true;
  ScriptedFigures* m_scripted = nullptr;  ///< in a scripted run only
  QFont m_baseFont;
  bool m_scriptedMode = false;
};

}  // namespace throttlelab::ui
