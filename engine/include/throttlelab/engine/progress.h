// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Progress of long work (a long run, a comparison, an experiment, a branch, a lesson),
/// counted in simulated seconds: every run the work makes, added up. The engine's long calls
/// report it through a SimulatedProgress; ProgressMeter turns it into a rate and an estimate
/// of what is left, and into the one line that the command line prints on a terminal and the
/// window's progress dialog shows (app/terminal_progress.h, ui/src/live/work_progress.h).
#include <functional>
#include <optional>
#include <string>

#include "throttlelab/engine/sim_time.h"

namespace throttlelab::engine {

class Simulator;

/// Told how far long work has got: `doneS` of `totalS` simulated seconds (all of its runs
/// together). Called on the thread doing the work, after each slice of simulated time, so it
/// must be cheap; it may throw to end the work (a cancel), and the work lets that through.
using SimulatedProgress = std::function<void(double doneS, double totalS)>;

/// Runs `sim` to `until` in slices of `sliceS` simulated seconds and calls `afterSlice` after
/// each: the same run as sim.runUntil(until), event for event (the engine is event-driven; a
/// slice's end only moves the clock to where the next event would find it anyway).
void runInSlices(Simulator& sim, SimTime until, const std::function<void()>& afterSlice,
                 double sliceS = 0.1);

/// How long a wall-clock span is, in words: "45 s", "3 min 20 s", "2 h 05 min".
std::string durationWords(double seconds);

/// The rate of long work and an estimate of what is left, from how far it had got when.
/// Pure arithmetic (the caller reads the clock), so that it is tested without waiting.
class ProgressMeter {
 public:
  explicit ProgressMeter(double totalS) : m_totalS(totalS) {}

  /// `doneS` simulated seconds were done `wallS` wall-clock seconds after the work began.
  void update(double doneS, double wallS);

  double totalS() const { return m_totalS; }
  double doneS() const { return m_doneS; }
  double wallS() const { return m_wallS; }
  /// Simulated seconds per wall-clock second so far (0 before any time has passed).
  double rate() const;
  /// The wall-clock seconds left at the rate so far; nullopt until there is a rate.
  std::optional<double> remainingS() const;
  /// Whether the whole work is expected to last more than `seconds` of wall-clock time: it has
  /// already, or (once `settleS` have passed, so that the rate means something) its elapsed
  /// time and the estimate of what is left add up to more.
  bool expectedLongerThan(double seconds, double settleS = 0.5) const;
  /// One line: "simulated 1234 of 3600 s (34 %), 412 s/s, about 6 s left".
  std::string line() const;

 private:
  double m_totalS;
  double m_doneS = 0;
  double m_wallS = 0;
};

}  // namespace throttlelab::engine
