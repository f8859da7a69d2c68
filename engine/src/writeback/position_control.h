// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Position control: how far dirty pages are from the setpoint decides a multiplier on the
// base rate (docs/model.md, Position control, Eq. 16–18). Fixed point with kRatelimitCalcShift
// bits, truncating where the kernel truncates.
#include <cstdint>

#include "throttlelab/engine/units.h"

namespace throttlelab::engine {

/// Eq. 16 (pos_ratio_polynom()): 1 + ((setpoint - dirty)/(limit - setpoint))^3, clamped to [0, 2];
/// fixed point (1.0 = 1024).
std::int64_t globalPosRatio(Pages setpoint, Pages dirty, Pages limit);

/// Inputs of the whole position ratio for one device (wb_position_ratio()).
struct PositionInputs {
  Pages thresh = 0;  ///< the caller's thresh
  Pages bgThresh = 0;
  Pages limit = 0;     ///< hard limit (Eq. 9)
  Pages dirty = 0;     ///< global dirty + writeback
  Pages wbThresh = 0;  ///< this device's share of thresh (Eq. 13)
  Pages wbBgThresh = 0;
  Pages wbDirty = 0;            ///< this device's dirty + writeback
  std::int64_t avgWriteBw = 0;  ///< pages/s, used as a page count in the span (as the kernel does)
  bool strictLimit = false;
};

struct PositionResult {
  std::int64_t posRatio = 0;  ///< fixed point, 1.0 = 1024
  Pages wbSetpoint = 0;       ///< the scaled setpoint of the device line
};

/// Eq. 16 × Eq. 17 with the device reserve area (Eq. 18); the strictlimit form (Eq. 19) when set.
PositionResult wbPositionRatio(const PositionInputs& in);

}  // namespace throttlelab::engine
