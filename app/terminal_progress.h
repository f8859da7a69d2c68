// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The command line's progress report for long work (a run, a comparison, an experiment, a
/// branch, a lesson, a trace's simulation): one line on standard error, rewritten in place,
/// when standard error is a terminal and the work is expected to take more than about two
/// seconds (THROTTLELAB_PROGRESS_DELAY seconds, as git's GIT_PROGRESS_DELAY); nothing
/// otherwise, so that a pipe or a file never receives it. The line is the engine's
/// ProgressMeter's: simulated time done of the whole, the rate, an estimate of what is left.
#include <functional>
#include <iosfwd>
#include <string>

#include "throttlelab/engine/progress.h"

namespace throttlelab::cli {

class TerminalProgress {
 public:
  /// Wall-clock seconds since some fixed moment (a steady clock); replaced in tests.
  using Clock = std::function<double()>;

  /// Reports on `err` if `enabled` (main(): standard error is a terminal), the line starting
  /// with `what` ("--compare: "). `delayS` is how long the work must be expected to take
  /// before anything is shown; `clock` defaults to std::chrono::steady_clock.
  TerminalProgress(std::ostream& err, bool enabled, double totalS, std::string what = {},
                   double delayS = defaultDelayS(), Clock clock = {});
  ~TerminalProgress();
  TerminalProgress(const TerminalProgress&) = delete;
  TerminalProgress& operator=(const TerminalProgress&) = delete;

  /// `doneS` simulated seconds of the whole are done. Cheap when nothing is drawn.
  void update(double doneS);
  /// For the engine's long calls (they pass the whole too, which replaces totalS).
  engine::SimulatedProgress callback();
  /// Clears the line, if one is shown, so that what is printed next starts at the margin.
  void finish();
  /// Whether a line has been drawn.
  bool shown() const { return m_shown; }

  /// THROTTLELAB_PROGRESS_DELAY if set to a number of seconds >= 0, else 2.
  static double defaultDelayS();
  /// Redraws at most this often (seconds).
  static constexpr double kRedrawS = 0.2;

 private:
  std::ostream& m_err;
  bool m_enabled;
  std::string m_what;
  double m_delayS;
  Clock m_clock;
  double m_startS;
  double m_lastDrawS = -1;
  engine::ProgressMeter m_meter;
  bool m_shown = false;
};

}  // namespace throttlelab::cli
