// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Statistics that the simulation, the trace import and the comparisons compute one way, so
/// that a measured figure and a simulated one set side by side (docs/model.md, Outputs) differ
/// only in what was measured: the pause columns of a sample interval, its longest pauses, and
/// the percent change between two figures.
#include <array>
#include <optional>
#include <span>

#include "throttlelab/engine/records.h"

namespace throttlelab::engine {

/// The pause columns of a Sample (pauseMsMin, pauseMsP50, pauseMsMax) over the pauses that
/// started in its interval: the smallest, the median and the largest, all 0 when there were
/// none. The median is the upper one, element n/2 of the pauses in ascending order.
struct IntervalPauses {
  double minMs = 0;
  double p50Ms = 0;
  double maxMs = 0;
};
/// Reorders `pauses`: only their values matter.
IntervalPauses intervalPauses(std::span<double> pauses);

/// Adds a pause of `ms` by task `task` to an interval's longest pauses (Sample::topPauses): one
/// slot per task, holding its longest, the longest first; empty slots (task -1) stay last.
void addTopPause(std::array<TopPause, 4>& top, int task, double ms);

/// The change of `value` against `base` in percent: (value − base) / |base| × 100. 0 when both
/// are 0; nullopt when `base` is 0 and `value` is not (no finite percentage) or when either is
/// NaN. The policy comparison, the window's A/B table and the measured-versus-simulated table
/// all use it.
std::optional<double> percentChange(double value, double base);

}  // namespace throttlelab::engine
