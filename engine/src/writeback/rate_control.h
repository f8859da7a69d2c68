// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Rate control: the base dirty rate per task that balances the device (docs/model.md, Rate control,
// Eq. 22–25).
#include <cstdint>

#include "bandwidth_estimator.h"

namespace throttlelab::engine {

struct RateInputs {
  Pages dirtied = 0;  ///< cumulative pages dirtied on the device
  std::int64_t elapsedJiffies = 1;
  std::int64_t posRatio = 0;  ///< fixed point, this pass's pos_ratio
  Pages dirty = 0;            ///< the caller's dirty (or the device's, strictlimit)
  Pages setpoint = 0;         ///< the caller's setpoint (or the device's, strictlimit)
  int hz = 250;
};

/// Eq. 22–25 (wb_update_dirty_ratelimit()). Moves wb.dirtyRatelimit and stores
/// balancedDirtyRatelimit, lastDirtyRate and lastTaskRatelimit (with the +1).
void updateDirtyRatelimit(WbBandwidth& wb, const RateInputs& in);

}  // namespace throttlelab::engine
