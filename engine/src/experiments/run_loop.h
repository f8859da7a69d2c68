// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Running a simulator in slices of simulated time so that a run can end early (when its
// tasks have exited) without the engine knowing why it is being asked.
#include <algorithm>
#include <functional>

#include "throttlelab/engine/progress.h"
#include "throttlelab/engine/simulator.h"

namespace throttlelab::engine::detail {

/// Slices of one simulated second: short enough that a finished job is noticed soon, long
/// enough that the check costs nothing against the events inside a slice.
inline constexpr double kSliceS = 1.0;

/// Runs `sim` up to `untilS` of simulated time in slices, checking `done()` after each one
/// (after `afterSlice()`, a progress report, if given). Returns true if it stopped because
/// done() said so.
template <class Done>
bool runSliced(Simulator& sim, double untilS, Done done,
               const std::function<void()>& afterSlice = {}) {
  // In integer nanoseconds: a double end time that is not a whole number of nanoseconds
  // must not leave the loop one rounding step short of it forever.
  const SimTime end = atSeconds(untilS);
  while (sim.now() < end) {
    sim.runUntil(std::min(end, sim.now() + seconds(kSliceS)));
    if (afterSlice) afterSlice();
    if (done()) return true;
  }
  return false;
}

/// The simulated seconds of several runs counted as one whole for a SimulatedProgress: each
/// run adds its own time to what the runs before it did.
class ProgressTally {
 public:
  ProgressTally(const SimulatedProgress& report, double totalS)
      : m_report(report), m_totalS(totalS) {}
  /// The run in progress is at `runS` of its own time.
  void at(double runS) const {
    if (m_report) m_report(std::min(m_doneS + runS, m_totalS), m_totalS);
  }
  /// The run in progress ended; it counts as `runS` (its whole length, also when it ended
  /// early because its tasks had exited: the total counted it so).
  void endRun(double runS) {
    m_doneS += runS;
    at(0);
  }

 private:
  const SimulatedProgress& m_report;
  double m_totalS;
  double m_doneS = 0;
};

/// Whether the scenario has any task at all (an empty one has "all exited" from the start).
inline bool hasTasks(const Scenario& s) {
  return std::any_of(s.tasks.begin(), s.tasks.end(), [](const TaskSpec& t) { return t.count > 0; });
}

}  // namespace throttlelab::engine::detail
