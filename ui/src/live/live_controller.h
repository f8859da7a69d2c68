// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The GUI side of a live run. Owns the SimulationWorker and the histories; one frame timer
/// (~60 fps) drains the worker, appends to the histories, feeds the dashboard incrementally and
/// asks it for one replot per visible plot. Controls reach the engine only through here, as
/// commands. frame() is public so benchmarks and tests can drive it directly.
#include <QObject>
#include <QTimer>
#include <boost/circular_buffer.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>

#include "history_window.h"
#include "live_batch.h"
#include "sample_history.h"
#include "session_state.h"
#include "simulation_worker.h"
#include "task_trace_history.h"

namespace throttlelab::ui {

class Dashboard;
class TaskTableModel;

struct FrameStats {
  std::size_t samples = 0;  ///< drained this frame
  std::size_t taskSamples = 0;
  int replotted = 0;   ///< plots redrawn
  bool reset = false;  ///< a new run started (history cleared)
};

class LiveController : public QObject {
  Q_OBJECT

 public:
  struct Options {
    bool startRunning = true;
    bool decimate = true;
    int frameIntervalMs = 16;
    std::size_t historyCap = SampleHistory::kDefaultCap;
    bool publishSummary = false;          ///< snapshots carry Simulator::summary() (compare view)
    bool keepSnapshots = true;            ///< the worker keeps engine snapshots, for branchAt()
    std::size_t snapshotBudgetBytes = 0;  ///< what they may take; 0: the machine's default
  };

  explicit LiveController(QObject* parent = nullptr);
  explicit LiveController(Options options, QObject* parent = nullptr);
  ~LiveController() override;

  void setDashboard(Dashboard* dashboard);
  void setTaskModel(TaskTableModel* model);

  /// The scenario as the user configured it (what the engine runs, or is about to).
  const engine::Scenario& scenario() const { return m_scenario; }
  /// Starts a new run of this scenario (its seed included).
  void load(const engine::Scenario& scenario);
  /// Restarts the current scenario, with its current edits and seed, from t = 0.
  void reset();
  /// Applies an edited scenario to the running engine. Validates first: returns the error
  /// (key and reason) and changes nothing if invalid; empty on success.
  QString reconfigure(const engine::Scenario& scenario);
  /// The seed for the next reset.
  void setSeed(std::uint64_t seed);
  /// The run at simulated second `atS` with `changes` applied there (by the rules of --set),
  /// and (`withOriginal`) the run as it is now, which result.original delivers a little later;
  /// the run goes on untouched. Waits for the worker (a restore and a replay of at most the
  /// snapshot interval). Once it returns, one frame() takes in the history up to
  /// result.originalS. On failure, result.error says why.
  command::BranchResult branchAt(double atS, const std::vector<engine::Override>& changes,
                                 bool withOriginal = true);
  /// Goes on from `from` (a snapshot of this or another run) as a new run of `scenario`; the
  /// history starts with `before` (what the run showed up to the snapshot, for the plots).
  void adopt(const engine::SimulatorSnapshot& from, const engine::Scenario& scenario,
             std::vector<engine::Sample> before = {});
  /// Whether samples are folded when they come faster than a frame can use (on by default).
  void setDecimation(bool on);

  void setRunning(bool running);
  bool isRunning() const { return m_running; }
  void step();
  /// Simulated seconds per wall second; 0 = as fast as possible.
  void setSpeed(double factor);
  double speed() const { return m_speed; }
  /// Runs as fast as possible until this simulated time, then pauses and emits runForFinished.
  /// Pausing (setRunning(false)) ends it there, without runForFinished.
  void runFor(double simS);
  /// Whether a runFor() is under way.
  bool isRunningFor() const { return m_runForSeq != 0; }

  void setSelectedTask(int task);
  int selectedTask() const { return m_selected; }
  void setHistoryWindow(HistoryWindow window);
  HistoryWindow historyWindow() const { return m_history.window(); }
  /// Its part of a session: the scenario, history window, speed and whether it runs.
  void captureSession(SessionState& session) const;
  /// Loads the session's scenario with its history window and speed, running as it was
  /// unless `keepPaused` (a scripted run stays paused until its job runs it).
  void applySession(const SessionState& session, bool keepPaused);

  const SampleHistory& history() const { return m_history; }
  const TaskTraceHistory& taskHistory() const { return m_taskHistory; }
  const WorkerStatus& status() const { return m_status; }
  std::shared_ptr<const WorkerSnapshot> snapshot() const { return m_snapshot; }
  const std::map<int, engine::TaskInfo>& taskInfos() const { return m_taskInfos; }
  // --- the timeline (docs/model.md, Outputs): the engine's events, resets and notes ---
  /// Every event of the run, in time order.
  std::vector<engine::RunEvent> timeline() const;
  /// One event of timeline(), and where it comes from.
  struct TimelineEntry {
    const engine::RunEvent* event;  ///< valid until the timeline changes
    int userIndex;                  ///< its index in userEvents(), -1 for the engine's events
  };
  /// timeline() as entries, in the same order: each knows whether it is one of the user's
  /// notes, so that nothing has to be matched again (one sort, n log n for n events).
  std::vector<TimelineEntry> timelineEntries() const;
  /// The user's notes (and the reset that started this run), in the order added.
  const std::vector<engine::RunEvent>& userEvents() const { return m_userEvents; }
  /// Adds a note at `timeS`; returns its index in userEvents().
  std::size_t addNote(double timeS, const std::string& text);
  /// Changes or removes entry `index` of userEvents() (false if there is none).
  bool editNote(std::size_t index, double timeS, const std::string& text);
  bool removeNote(std::size_t index);
  /// The notes of a session: they replace the current notes.
  void setNotes(const std::vector<engine::RunEvent>& events);

  // --- why a task waited ---
  /// Breakdowns kept: the last one per drawn or selected task per sample interval, the
  /// newest kExplainHistory of them (about ~100 s of 16 writers at 10 samples/s, ~6 MB).
  static constexpr std::size_t kExplainHistory = 16384;
  /// Task `task`'s last throttle call at or before `timeS` among those kept.
  std::optional<engine::ThrottleExplain> explainAt(int task, double timeS) const;
  /// The oldest time a breakdown is kept for (NaN if none).
  double oldestExplainS() const;

  /// Sequence number of the last command sent to the worker.
  std::uint64_t lastPostedSeq() const { return m_lastSeq; }

  /// One frame: drain, append, update the plots (replot immediately if asked, e.g. when
  /// measuring; otherwise queued). Returns what happened.
  FrameStats frame(bool immediateReplot = false, bool forceReplot = false);
  void start();
  void stop();

 Q_SIGNALS:
  void scenarioLoaded();
  /// The engine refused an edit; scenario() was reset to what the engine runs.
  void scenarioReverted();
  void runningChanged(bool running);
  void statusChanged();
  void snapshotArrived();
  void runForFinished();
  void engineError(const QString& message);
  // For views other than the dashboard that mirror the history (the compare view), per frame:
  /// A new run started; the history is empty.
  void dataReset();
  /// New samples, before they move into the history.
  void samplesArrived(const throttlelab::ui::SampleBuffer& samples);
  /// The history was decimated or trimmed in a way that needs a full refill.
  void historyRebuilt();
  /// The timeline changed: an engine event arrived, or a note was added, edited or removed.
  void timelineChanged();
  /// New breakdowns arrived (an explain panel showing "now" redraws).
  void explainsArrived();

 private:
  std::uint64_t post(WorkerCommand command);
  void clearSelection();
  void takeSnapshot(std::shared_ptr<const WorkerSnapshot> snapshot);

  Options m_options;
  SimulationWorker m_worker;
  QTimer m_timer;
  LiveBatch m_batch;
  SampleHistory m_history;
  TaskTraceHistory m_taskHistory;
  Dashboard* m_dashboard = nullptr;
  TaskTableModel* m_taskModel = nullptr;
  engine::Scenario m_scenario;
  std::optional<engine::CheckedScenario> m_pendingReconfigure;
  std::map<int, engine::TaskInfo> m_taskInfos;
  std::shared_ptr<const WorkerSnapshot> m_snapshot;
  WorkerStatus m_status;
  int m_generation = 0;
  std::uint64_t m_lastSeq = 0;
  std::uint64_t m_runForSeq = 0;
  std::uint64_t m_lastErrorSeq = 0;
  bool m_running = true;
  double m_speed = 1;
  int m_selected = -1;
  std::vector<engine::RunEvent> m_engineEvents;
  std::vector<engine::Sample> m_adoptedHistory;  ///< adopt()'s `before`, for the new generation
  std::vector<engine::RunEvent> m_userEvents;
  boost::circular_buffer<engine::ThrottleExplain> m_explains{kExplainHistory};
};

}  // namespace throttlelab::ui
