// SPDX-License-Identifier: GPL-3.0-or-later
#include "position_control.h"

#include <algorithm>

#include "dirty_limits.h"
#include "kernel_math.h"

namespace throttlelab::engine {

std::int64_t globalPosRatio(Pages setpoint, Pages dirty, Pages limit) {
  // x = (setpoint - dirty) / (limit - setpoint), truncated to 1/1024; then x^3 with a
  // truncation after each multiplication, as in pos_ratio_polynom().
  const std::int64_t x = ((setpoint - dirty) * kPosRatioOne) / ((limit - setpoint) | 1);
  std::int64_t p = x;
  p = (p * x) >> kRatelimitCalcShift;
  p = (p * x) >> kRatelimitCalcShift;
  p += kPosRatioOne;
  return std::clamp<std::int64_t>(p, 0, 2 * kPosRatioOne);
}

PositionResult wbPositionRatio(const PositionInputs& in) {
  PositionResult r;
  if (in.dirty >= in.limit) return r;  // pos_ratio = 0: at or past the hard limit
  const Pages freerun = freerunCeiling(in.thresh, in.bgThresh);
  const Pages setpoint = dirtySetpoint(freerun, in.limit);
  std::int64_t pos = globalPosRatio(setpoint, in.dirty, in.limit);

  if (in.strictLimit) {
    // strictlimit (docs/model.md, Eq. 19): the control line uses the device's own counters and
    // limits.
    if (in.wbDirty < 8) {
      r.posRatio = std::min<std::int64_t>(pos * 2, 2 * kPosRatioOne);
      return r;
    }
    if (in.wbDirty >= in.wbThresh) return r;
    const Pages wbSetpoint = freerunCeiling(in.wbThresh, in.wbBgThresh);
    if (wbSetpoint == 0 || wbSetpoint == in.wbThresh) return r;
    r.wbSetpoint = wbSetpoint;
    r.posRatio = std::min(pos, globalPosRatio(wbSetpoint, in.wbDirty, in.wbThresh));
    return r;
  }

  Pages wbThresh = std::min(in.wbThresh, in.thresh);
  // An idle device gets a usable share at once (its proportion may still be ~0).
  wbThresh = std::max(wbThresh, (in.limit - in.dirty) / 8);
  // Scale the global setpoint to the device: 16-bit fixed-point fraction wb_thresh/thresh.
  const std::int64_t xr = (wbThresh << 16) / (in.thresh | 1);
  const Pages wbSetpoint = (setpoint * xr) >> 16;
  // span = 8 x write_bw for a single device, moving towards wb_thresh when there are several.
  const std::int64_t span = ((in.thresh - wbThresh + 8 * in.avgWriteBw) * xr) >> 16;
  const std::int64_t xIntercept = wbSetpoint + span;
  if (in.wbDirty < xIntercept - span / 4) {
    pos = (pos * (xIntercept - in.wbDirty)) / ((xIntercept - wbSetpoint) | 1);
  } else {
    pos /= 4;  // the device line never goes below 1/4
  }
  // Device reserve area: keep the disk queue fed when this device's pool runs low.
  const Pages reserve = wbThresh / 2;
  if (in.wbDirty < reserve) {
    if (in.wbDirty > reserve / 8)
      pos = (pos * reserve) / in.wbDirty;
    else
      pos *= 8;
  }
  r.posRatio = pos;
  r.wbSetpoint = wbSetpoint;
  return r;
}

}  // namespace throttlelab::engine
