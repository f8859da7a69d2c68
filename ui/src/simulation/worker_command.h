// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Commands from the GUI to the simulation worker, applied between runUntil() slices.
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
}  // namespace command

using WorkerCommand = std::variant<command::SetRunning, command::Step, command::SetSpeed,
                                   command::Reset, command::Reconfigure, command::SampleTasks,
                                   command::RunUntil, command::SetDecimation>;

}  // namespace throttlelab::ui
