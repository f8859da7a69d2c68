// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The simulation engine: one instance per run, no global state.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "throttlelab/engine/events.h"
#include "throttlelab/engine/explain.h"
#include "throttlelab/engine/records.h"
#include "throttlelab/engine/scenario.h"
#include "throttlelab/engine/sim_time.h"

namespace throttlelab::engine {

/// Receives what a run produces. Called on the thread that runs the simulator.
class RecordSink {
 public:
  virtual ~RecordSink() = default;
  RecordSink() = default;
  RecordSink(const RecordSink&) = default;
  RecordSink& operator=(const RecordSink&) = default;
  virtual void onSample(const Sample&) {}
  virtual void onTaskSample(const TaskSample&) {}
  virtual void onTrace(const TraceRecord&) {}
  /// With OutputOptions::traces: block_rq_issue/complete and jbd2 commit records.
  virtual void onFsTrace(const FsTraceRecord&) {}
  /// A task was created (at start or by a live reconfiguration).
  virtual void onTaskCreated(const TaskInfo&) {}
  /// With OutputOptions::explains: at each sample, the last throttle call of every sampled
  /// task that throttled in the interval (at most one per task per interval).
  virtual void onTaskExplain(const ThrottleExplain&) {}
};

/// Which of the costly outputs the sink wants.
struct OutputOptions {
  bool taskSamples = false;            ///< one TaskSample per task per interval
  int taskSampleLimit = -1;            ///< only tasks with index < limit (-1: all)
  std::vector<int> taskSampleIndices;  ///< also sample these tasks, whatever the limit
  bool traces = false;                 ///< the tracepoint records (onTrace, onFsTrace)
  bool explains = false;               ///< onTaskExplain() for the sampled tasks
};

/// The throttle curve (plot 5): pos_ratio as a function of dirty pages, for the current state.
struct ThrottleCurve {
  std::vector<double> dirtyPages;   ///< x
  std::vector<double> globalRatio;  ///< the global cubic term (docs/model.md, Eq. 16)
  std::vector<double> deviceRatio;  ///< the whole pos_ratio with the bdi line (Eq. 17–18),
                                    ///< bdi_dirty taken to move in proportion to global dirty
  double freerun = 0, setpoint = 0, limit = 0, bgThresh = 0, thresh = 0;
  double operatingDirty = 0;  ///< dirty + writeback now
  double operatingRatio = 0;  ///< pos_ratio now
  bool throttling = false;    ///< false if the policy has no position control
};

/// A scenario that validateScenario() has accepted. A caller that must know at once whether
/// a change is valid (the window, as a slider moves) checks it here and hands it to a
/// simulator, perhaps on another thread, which does not validate it again.
class CheckedScenario {
 public:
  /// Validates `scenario`: throws ScenarioError, naming the key, if it is invalid.
  explicit CheckedScenario(Scenario scenario);
  const Scenario& scenario() const { return m_scenario; }

 private:
  Scenario m_scenario;
};

class Simulator;

/// The whole state of a run at one moment (event queue, tasks, page cache, devices,
/// estimators, random state, statistics): a deep copy, independent of the simulator it was
/// taken from, which may run on or be destroyed. Copying a snapshot is cheap (it shares the
/// immutable state). The sink is not part of it.
class SimulatorSnapshot {
 public:
  /// The simulated time it was taken at (Simulator::now()).
  SimTime time() const;
  /// The scenario as configured at that moment.
  const Scenario& scenario() const;
  /// The memory it holds, in bytes: an estimate from the sizes of the state's containers
  /// (every table that grows with tasks, files, devices and events, and how the allocator
  /// lays them out), within a few per cent of what the copy allocated
  /// (tests/engine/snapshot_bytes_test.cpp). Computed once, when the snapshot is made.
  std::size_t bytes() const;

 private:
  friend class Simulator;
  struct State;
  explicit SimulatorSnapshot(std::shared_ptr<const State> state) : m_state(std::move(state)) {}
  std::shared_ptr<const State> m_state;
};

/// A throttling policy as the window and --list-policies describe it.
struct PolicyDescription {
  std::string name;     ///< "ioless"
  std::string summary;  ///< one line
  std::string kernels;  ///< "Linux 3.3 to today's 6.x"
  std::string details;  ///< a paragraph: what it does differently
};

class Simulator {
 public:
  /// Validates the scenario (throws ScenarioError) and sets up tasks at their start times.
  explicit Simulator(Scenario scenario);
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;
  Simulator(Simulator&&) noexcept;
  Simulator& operator=(Simulator&&) noexcept;

  /// A simulator that goes on from `snapshot` exactly as the run it was taken from did
  /// (same samples, task rows and trace records, bit for bit), without a sink.
  explicit Simulator(const SimulatorSnapshot& snapshot);
  /// A deep copy of the run's state now: costs a copy of every task, file and device (see
  /// bench/snapshot_bench.cpp); nothing is copied or kept while no snapshot is taken.
  SimulatorSnapshot snapshot() const&;
  /// The run's state now as a snapshot, without a copy: the state moves into it, and this
  /// simulator is left without one (only destroying it or assigning to it is allowed).
  /// For a simulator made only to be handed on (a rewound branch point).
  SimulatorSnapshot snapshot() &&;
  /// Puts this simulator back to `snapshot`. It keeps its sink and output options, and tells
  /// the sink the snapshot's tasks (RecordSink::onTaskCreated) as setSink() does.
  void restore(const SimulatorSnapshot& snapshot);

  /// The sink is not owned; it must outlive the runs it observes. nullptr detaches.
  void setSink(RecordSink* sink, OutputOptions options = {});

  /// Processes every event due at or before `t`, emitting samples on the way.
  void runUntil(SimTime t);
  /// Runs to the scenario's duration.
  void run();
  SimTime now() const;
  /// Time of the next pending event (now() if none).
  SimTime nextEventTime() const;

  /// The scenario as currently configured (after any reconfigure()).
  const Scenario& scenario() const;
  /// Applies a changed scenario while running: task counts, vm sysctls, memory, CPUs,
  /// device speed, policy. Validates first (throws ScenarioError and changes nothing).
  /// The seed, name and duration are ignored here.
  void reconfigure(const Scenario& changed);
  /// The same for a scenario validated already: throws ScenarioError only for what the
  /// running kernel refuses (devices added or renamed, HZ, a shrink below what is in use).
  void reconfigure(const CheckedScenario& changed);

  const std::vector<TaskInfo>& tasks() const;
  std::vector<TaskStats> taskStats() const;
  Summary summary() const;
  ThrottleCurve throttleCurve(int device = 0, int points = 200) const;
  std::int64_t eventsProcessed() const;
  /// The run's timeline so far: task groups starting and stopping, OOM kills, live
  /// reconfigurations and policy changes, in time order.
  const std::vector<RunEvent>& events() const;
  /// The last throttle call of task `index` at or before now(), step by step (Kind::None if
  /// it has not been throttled). Throws std::out_of_range for an unknown index.
  ThrottleExplain lastExplain(int index) const;
  /// True once every task has exited (finished its runs or was OOM-killed) and none is
  /// waiting to start: a run of finite jobs (make -jN) can stop here.
  bool allTasksExited() const;

  /// Names accepted in Scenario::policy.
  static std::vector<std::string> policyNames();
  /// Whether the policy's kernel has memory cgroups with their own dirty domain (cgroup
  /// writeback, 4.2+); older policies ignore Scenario::cgroups. False for an unknown name.
  static bool policyHasCgroups(std::string_view policy);
  /// Every policy, in the order the window lists them, with its kernels and what it does.
  static std::vector<PolicyDescription> policyDescriptions();

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace throttlelab::engine
