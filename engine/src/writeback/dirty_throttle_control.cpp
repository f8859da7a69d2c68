// SPDX-License-Identifier: GPL-3.0-or-later
#include "dirty_throttle_control.h"

#include <algorithm>
#include <cstdint>

#include "kernel_math.h"

namespace throttlelab::engine {

WbView wbThresholds(const WbThreshInputs& in) {
  // The share of recent completions, on top of the reserved minimum. Each step is a * b / c
  // truncated towards zero, as the 128-bit form computed it; in 64 bits whenever a * b fits
  // (always, for real machines): __divti3 was 5 % of a check.
  const auto mulDiv = [](std::int64_t a, std::int64_t b, std::int64_t divisor) -> Int128 {
    std::int64_t p = 0;
    if (!__builtin_mul_overflow(a, b, &p)) return p / divisor;
    return static_cast<Int128>(a) * b / divisor;
  };
  Int128 wbThresh = mulDiv(in.thresh, 100 - in.sumMin, 100);
  if (wbThresh >= INT64_MIN && wbThresh <= INT64_MAX)
    wbThresh = mulDiv(static_cast<std::int64_t>(wbThresh), in.num, in.den);
  else
    wbThresh = wbThresh * in.num / in.den;
  wbThresh += mulDiv(in.thresh, in.minRatio, 100);
  wbThresh = std::min<Int128>(wbThresh, mulDiv(in.thresh, in.maxRatio, 100));
  WbView w;
  w.wbThresh = static_cast<Pages>(wbThresh);
  w.wbBgThresh = in.thresh ? static_cast<Pages>(mulDiv(w.wbThresh, in.bgThresh, in.thresh)) : 0;
  return w;
}

}  // namespace throttlelab::engine
