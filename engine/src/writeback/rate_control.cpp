// SPDX-License-Identifier: GPL-3.0-or-later
#include "rate_control.h"

#include <algorithm>

#include "kernel_math.h"

namespace throttlelab::engine {

void updateDirtyRatelimit(WbBandwidth& wb, const RateInputs& in) {
  const std::int64_t writeBw = wb.avgWriteBw;  // the previous update's smoothed estimate
  std::int64_t rate = wb.dirtyRatelimit;
  const std::int64_t dirtyRate =
      (in.dirtied - wb.dirtiedStamp) * in.hz / std::max<std::int64_t>(in.elapsedJiffies, 1);
  // Each task was held to task_ratelimit over the last period; +1 lets tiny rates climb.
  const std::int64_t taskRatelimit = ((rate * in.posRatio) >> kRatelimitCalcShift) + 1;
  // N tasks at task_ratelimit dirty N x task_ratelimit, so this is about write_bw/N whatever
  // pos_ratio is.
  std::int64_t balanced = taskRatelimit * writeBw / (dirtyRate | 1);
  balanced = std::min(balanced, writeBw);

  // Only move when the position error and the rate error agree on the direction.
  std::int64_t step = 0;
  if (in.dirty < in.setpoint) {
    const std::int64_t x = std::min({wb.balancedDirtyRatelimit, balanced, taskRatelimit});
    if (rate < x) step = x - rate;
  } else {
    const std::int64_t x = std::max({wb.balancedDirtyRatelimit, balanced, taskRatelimit});
    if (rate > x) step = rate - x;
  }
  // Slow down near the target: the balanced rate itself always fluctuates.
  const std::int64_t shift = rate / (2 * step + 1);
  step = shift < 64 ? ((step >> shift) + 7) / 8 : 0;
  rate += rate < balanced ? step : -step;

  wb.dirtyRatelimit = std::max<std::int64_t>(rate, 1);
  wb.balancedDirtyRatelimit = balanced;
  wb.lastDirtyRate = dirtyRate;
  wb.lastTaskRatelimit = taskRatelimit;
}

}  // namespace throttlelab::engine
