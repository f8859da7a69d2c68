// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Position control: how far dirty pages are from the setpoint decides a multiplier on the
// base rate (model-spec §3.4.2, E23 and E24). Fixed point with kRatelimitCalcShift bits,
// truncating where the kernel truncates.
#include <cstdint>

#include "throttlelab/engine/units.h"

namespace throttlelab::engine {

/// E23: 1 + ((setpoint - dirty)/(limit - setpoint))^3, clamped to [0, 2]; fixed point (1.0 = 1024).
std::int64_t globalPosRatio(Pages setpoint, Pages dirty, Pages limit);

/// Inputs of the whole position ratio for one device (wb_position_ratio()).
struct PositionInputs {
  Pages thresh = 0;      ///< the caller's thresh
  Pages bgThresh = 0;
  Pages limit = 0;       ///< E21 hard limit
  Pages dirty = 0;       ///< global dirty + writeback
  Pages wbThresh = 0;    ///< this device's share of thresh (E15)
  Pages wbBgThresh = 0;
  Pages wbDirty = 0;     ///< this device's dirty + writeback
  std::int64_t avgWriteBw = 0;  ///< pages/s, used as a page count in the span (as the kernel does)
  bool strictLimit = false;
};

struct PositionResult {
  std::int64_t posRatio = 0;  ///< fixed point, 1.0 = 1024
  Pages wbSetpoint = 0;       ///< the scaled setpoint of the device line
};

/// E23 × E24 including the device reserve area; the strictlimit variant of §3.5 when set.
PositionResult wbPositionRatio(const PositionInputs& in);

}  // namespace throttlelab::engine
