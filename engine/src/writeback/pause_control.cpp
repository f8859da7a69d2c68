// SPDX-License-Identifier: GPL-3.0-or-later
#include "pause_control.h"

#include <algorithm>

#include "kernel_math.h"

namespace throttlelab::engine {

Pages dirtyPollInterval(Pages dirty, Pages thresh) {
  if (thresh > dirty) return Pages{1} << (ilog2(static_cast<std::uint64_t>(thresh - dirty)) >> 1);
  return 1;
}

std::int64_t wbMaxPause(std::int64_t avgWriteBw, Pages wbDirty, int hz) {
  const auto div = static_cast<std::int64_t>(rup2(static_cast<std::uint64_t>(1 + hz / 8)));
  std::int64_t t = wbDirty / (1 + avgWriteBw / div);
  t++;
  return std::min<std::int64_t>(t, std::max(hz / 5, 1));
}

MinPause wbMinPause(std::int64_t avgWriteBw, std::int64_t dirtyRatelimit,
                    std::int64_t taskRatelimit, std::int64_t maxPause, int hz) {
  const auto rupHz = static_cast<std::int64_t>(rup2(static_cast<std::uint64_t>(hz)));
  // Target 10 ms for one dd, plus ~10 ms per doubling of N (N ~ write_bw / dirty_ratelimit).
  std::int64_t t = std::max(1, hz / 100);
  const int hi = ilog2(static_cast<std::uint64_t>(std::max<std::int64_t>(avgWriteBw, 1)));
  const int lo = ilog2(static_cast<std::uint64_t>(std::max<std::int64_t>(dirtyRatelimit, 1)));
  if (hi > lo) t += (hi - lo) * (10 * hz) / 1024;
  // Leave room for think time; never ask for more than half of max_pause.
  t = std::min(t, 1 + maxPause / 2);
  Pages pages = dirtyRatelimit * t / rupHz;
  // Too few pages per pause means too much overhead: poll less often, pause longer.
  if (pages < kDirtyPollThresh) {
    t = maxPause;
    pages = dirtyRatelimit * t / rupHz;
    if (pages > kDirtyPollThresh) {
      pages = kDirtyPollThresh;
      t = hz * kDirtyPollThresh / std::max<std::int64_t>(dirtyRatelimit, 1);
    }
  }
  // The estimated pause for that many pages at task_ratelimit must not exceed max_pause.
  if (hz * pages / (taskRatelimit + 1) > maxPause) {
    t = maxPause;
    pages = taskRatelimit * t / rupHz;
  }
  MinPause r;
  r.nrDirtiedPause = pages;
  r.minPause = pages >= kDirtyPollThresh ? 1 + t / 2 : t;
  return r;
}

}  // namespace throttlelab::engine
