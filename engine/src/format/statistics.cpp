// SPDX-License-Identifier: GPL-3.0-or-later
// Like-for-like statistics shared by the simulation, the trace import and the comparisons.
#include "throttlelab/engine/statistics.h"

#include <algorithm>
#include <cmath>

namespace throttlelab::engine {

IntervalPauses intervalPauses(std::span<double> pauses) {
  IntervalPauses r;
  if (pauses.empty()) return r;
  const auto mid = pauses.begin() + static_cast<std::ptrdiff_t>(pauses.size() / 2);
  std::nth_element(pauses.begin(), mid, pauses.end());
  r.p50Ms = *mid;
  const auto [mn, mx] = std::minmax_element(pauses.begin(), pauses.end());
  r.minMs = *mn;
  r.maxMs = *mx;
  return r;
}

void addTopPause(std::array<TopPause, 4>& top, int task, double ms) {
  // A pause no longer than the smallest kept one changes nothing (most of them, with
  // thousands of writers). Four slots sort by insertion, which keeps equal pauses in order.
  if (top.back().task >= 0 && ms <= top.back().pauseMs) return;
  const auto byPause = [](const TopPause& a, const TopPause& b) { return a.pauseMs > b.pauseMs; };
  for (auto& slot : top) {
    if (slot.task == task) {
      slot.pauseMs = std::max(slot.pauseMs, ms);
      std::sort(top.begin(), top.end(), byPause);
      return;
    }
  }
  top.back() = TopPause{task, ms};
  std::sort(top.begin(), top.end(), byPause);
}

std::optional<double> percentChange(double value, double base) {
  if (std::isnan(value) || std::isnan(base)) return std::nullopt;
  if (base == 0) return value == 0 ? std::optional<double>(0.0) : std::nullopt;
  return (value - base) / std::fabs(base) * 100.0;
}

}  // namespace throttlelab::engine
