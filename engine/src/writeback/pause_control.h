// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// How often a task checks in, and how long one sleep may be (docs/model.md, Pause control,
// Eq. 26–28). All times in jiffies.
#include <cstdint>

#include "throttlelab/engine/units.h"

namespace throttlelab::engine {

/// DIRTY_POLL_THRESH: 128 KiB.
inline constexpr Pages kDirtyPollThresh = 32;

/// Eq. 26 (dirty_poll_interval()): about sqrt(thresh - dirty), rounded down to a power of two; 1 at
/// or over thresh.
Pages dirtyPollInterval(Pages dirty, Pages thresh);

/// Eq. 27 (wb_max_pause()): about 1/8 of the time needed to write wb_dirty out, at most HZ/5
/// (MAX_PAUSE).
std::int64_t wbMaxPause(std::int64_t avgWriteBw, Pages wbDirty, int hz);

struct MinPause {
  std::int64_t minPause = 0;  ///< jiffies
  Pages nrDirtiedPause = 0;   ///< next poll interval
};
/// Eq. 28 (wb_min_pause()).
MinPause wbMinPause(std::int64_t avgWriteBw, std::int64_t dirtyRatelimit,
                    std::int64_t taskRatelimit, std::int64_t maxPause, int hz);

}  // namespace throttlelab::engine
