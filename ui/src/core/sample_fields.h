// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Small readers of Sample fields shared by the plots.
#include <limits>

#include "display_units.h"
#include "throttlelab/engine/records.h"

namespace throttlelab::ui {

inline constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();

/// The first device's state, or nullptr if the sample has none.
inline const engine::DeviceSample* firstDevice(const engine::Sample& s) {
  return s.devices.empty() ? nullptr : &s.devices.front();
}

/// A bandwidth of the first device in MB/s; NaN if absent, or if not positive and `positive`
/// (a log axis cannot show 0).
template <typename Field>
double deviceMBps(const engine::Sample& s, Field field, bool positive = false) {
  const auto* d = firstDevice(s);
  if (!d) return kNoValue;
  const double v = kbpsToMBps(d->*field);
  return positive && !(v > 0) ? kNoValue : v;
}

}  // namespace throttlelab::ui
