// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// When a device completes nothing (docs/model.md, A device that stalls): intervals of simulated
// time during which the request in service makes no progress, given as measured on a real
// machine, once or repeating with a period.
#include <string>
#include <string_view>
#include <vector>

#include "throttlelab/engine/sim_time.h"

namespace throttlelab::engine {

/// One spell without completions, [start, end), in simulated time from the run's start.
struct Stall {
  SimTime start{};
  SimTime end{};
  bool operator==(const Stall&) const = default;
};

/// Parses DeviceConfig::stalls: `START+LENGTH` pairs in seconds, separated by spaces or commas,
/// in increasing order and not overlapping. Returns false and says what is wrong in `error`.
/// With `periodS` > 0 every stall must end within the period.
bool parseStalls(std::string_view text, double periodS, std::vector<Stall>* out,
                 std::string* error);

/// The stall timeline of one device: plain values (a sorted vector and a period), so a device
/// that holds one stays copyable.
class StallTimeline {
 public:
  StallTimeline() = default;
  /// `period` zero: the stalls happen once; otherwise they repeat every `period`.
  StallTimeline(std::vector<Stall> stalls, SimDuration period);
  bool empty() const { return m_stalls.empty(); }
  /// When a request that needs `work` of service, started at `start`, is done: the service
  /// stops during every stall and goes on after it. SimTime::max() when the stalls cover
  /// the whole period (the device never completes).
  SimTime finishAfter(SimTime start, SimDuration work) const;
  /// Whether `t` falls into a stall.
  bool stalledAt(SimTime t) const;

 private:
  /// The first stall, in absolute time, that ends after `t`; false if there is none.
  bool nextStall(SimTime t, Stall* stall) const;

  std::vector<Stall> m_stalls;
  SimDuration m_period{};
  SimDuration m_stalledPerPeriod{};
};

}  // namespace throttlelab::engine
