// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Simulated time: an integer count of nanoseconds, never wall-clock time.
#include <chrono>
#include <cstdint>

namespace throttlelab::engine {

using SimDuration = std::chrono::duration<std::int64_t, std::nano>;

/// The simulation's own clock; its epoch is the start of the run.
struct SimClock {
  using duration = SimDuration;
  using rep = duration::rep;
  using period = duration::period;
  using time_point = std::chrono::time_point<SimClock, SimDuration>;
  static constexpr bool is_steady = true;
};
using SimTime = SimClock::time_point;

constexpr double toSeconds(SimDuration d) {
  return static_cast<double>(d.count()) * 1e-9;
}
constexpr double toSeconds(SimTime t) {
  return toSeconds(t.time_since_epoch());
}
constexpr double toMs(SimDuration d) {
  return static_cast<double>(d.count()) * 1e-6;
}
constexpr SimDuration seconds(double s) {
  return SimDuration{static_cast<std::int64_t>(s * 1e9)};
}
constexpr SimDuration millis(double ms) {
  return SimDuration{static_cast<std::int64_t>(ms * 1e6)};
}
constexpr SimTime atSeconds(double s) {
  return SimTime{seconds(s)};
}

}  // namespace throttlelab::engine
