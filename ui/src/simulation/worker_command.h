// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Commands from the GUI to the simulation worker, applied between runUntil() slices.
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "throttlelab/engine/scenario.h"
#include "throttlelab/engine/sim_time.h"
#include "throttlelab/engine/simulator.h"

namespace throttlelab::ui {

namespace command {
/// Run paced (or as fast as possible), or pause.
struct SetRunning {
  bool running = true;
};
/// Pause, then advance by one control period (the kernel's 200 ms estimator interval).
struct Step {
  engine::SimDuration by = engine::millis(200);
};
/// Speed factor: simulated seconds per wall second. 0 or less: as fast as possible.
struct SetSpeed {
  double factor = 1;
};
/// Throw the simulator away and build a new one from this scenario (and its seed).
struct Reset {
  engine::Scenario scenario;
};
/// Apply an edited scenario to the running simulator (Simulator::reconfigure).
struct Reconfigure {
  engine::CheckedScenario scenario;
};
/// Tasks (beyond the first kDrawnTasks) whose TaskSamples the GUI wants, e.g. the selection.
struct SampleTasks {
  std::vector<int> extra;
};
/// Run as fast as possible until this simulated time, then pause (scripted figures).
struct RunUntil {
  double simS = 0;
};
/// Whether to fold samples into min/max/last buckets when the GUI cannot keep up.
struct SetDecimation {
  bool enabled = true;
};
/// What a Branch command answers.
struct BranchResult {
  std::optional<engine::SimulatorSnapshot> branch;  ///< the run at atS, the changes applied
  engine::Scenario base;     ///< the run's scenario at atS (live changes until then included)
  engine::Scenario changed;  ///< the branch's: `base` with the changes
  std::string error;         ///< why there is no branch
  /// Where the run was when the worker answered: every sample up to it has been handed to the
  /// exchange before the answer (one drain takes them in), none after it.
  double originalS = 0;
  engine::Scenario originalScenario;  ///< the run's scenario at originalS
  /// The run as it was at originalS, if asked for: copied after the answer, so that the
  /// branch can start meanwhile (the copy of a large run takes as long as a replay).
  std::shared_future<engine::SimulatorSnapshot> original;
};
/// Go back to simulated second atS of this run (SnapshotStore::rewind: the nearest snapshot
/// at or before it, replayed to it) and apply `changes` there, by the rules of --set; the run
/// itself goes on untouched. The answer arrives through `result`; then, if `original` is
/// given, the run as it is now through it.
struct Branch {
  double atS = 0;
  std::vector<engine::Override> changes;
  std::shared_ptr<std::promise<BranchResult>> result;
  std::shared_ptr<std::promise<engine::SimulatorSnapshot>> original;
};
/// Throw the simulator away and go on from this snapshot instead (a branch, or the run it
/// was taken from).
struct Adopt {
  engine::SimulatorSnapshot from;
};
}  // namespace command

using WorkerCommand =
    std::variant<command::SetRunning, command::Step, command::SetSpeed, command::Reset,
                 command::Reconfigure, command::SampleTasks, command::RunUntil,
                 command::SetDecimation, command::Branch, command::Adopt>;

}  // namespace throttlelab::ui
