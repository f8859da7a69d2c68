// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The node's memory counters (struct pglist_data's vm_stat, /proc/meminfo and /proc/vmstat):
// what the page cache, anonymous memory, swap and the page allocator change and the dirty
// limits read.
#include <cstdint>

#include "throttlelab/engine/units.h"

namespace throttlelab::engine {

struct Memory {
  Pages total = 0;
  Pages free = 0;
  Pages file = 0;  ///< page cache: clean + dirty + writeback
  Pages anon = 0;
  Pages nrDirty = 0;      ///< NR_FILE_DIRTY
  Pages nrWriteback = 0;  ///< NR_WRITEBACK
  Pages copying = 0;      ///< page-cache pages locked while a write() copies into them
  Pages dirtied = 0;      ///< NR_DIRTIED
  Pages written = 0;      ///< NR_WRITTEN
  Pages wmarkMin = 0, wmarkLow = 0, wmarkHigh = 0;
  Pages totalReserve = 0;
  Pages swapTotal = 0;
  Pages swapUsed = 0;  ///< slots holding pages (swapped, plus being written)
  Pages swapWb = 0;    ///< anonymous pages under swap-out IO
  std::int64_t nextSwapSlot = 0;
  // cumulative counters (/proc/vmstat)
  std::int64_t pgscanKswapd = 0, pgscanDirect = 0, pgsteal = 0;
  std::int64_t swapOutPages = 0, swapInPages = 0;
  std::int64_t allocStalls = 0;
  std::int64_t oomKills = 0;
  double systemS = 0;  ///< CPU work charged to kernel threads (flusher, kswapd, IO completion);
                       ///< the part not yet done is CpuScheduler::kernelBacklog()
};

}  // namespace throttlelab::engine
