// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The parts of the kernel that changed with the throttling policy's era: how dirtyable memory
// is counted, who gets a bonus on the limits, and how the flusher writes (docs/model.md).
#include <cstdint>

namespace throttlelab::engine {

enum class DirtyableStyle {
  TotalPages,       ///< Eq. 1 (2.6.0 – ~2.6.19): all page-cache-capable pages
  FreePlusLru,      ///< Eq. 2 (~2.6.20 – 3.13): free + every LRU page, anonymous included
  FreeMinusReserve  ///< Eq. 3 (3.14+): free above the reserve + file LRU
};

enum class RtLimitBonus {
  None,               ///< before the 2003 change (and the "rt-exempt"/"rt-break" variants)
  Quarter,            ///< +1/4 (2.6.0 – 4.6)
  QuarterPlusLimit32  ///< +1/4 + dirty_limit/32 (4.7+)
};

enum class FlusherStyle {
  Pdflush,  ///< 2.6.0 – 2.6.31: 1024-page chunks, stops at congestion and waits (nonblocking)
  Blocking1024,  ///< 2.6.32 – 3.1: one flusher per device, 1024-page chunks, blocks on a full queue
  Modern         ///< 3.2+: chunks of ~0.5 s of bandwidth (Eq. 36), blocks on a full queue
};

struct KernelEra {
  DirtyableStyle dirtyable = DirtyableStyle::FreeMinusReserve;
  bool unmappedClamp = false;     ///< E1b: dirty_ratio <= unmapped%/2 (2.6.0 – 2.6.23)
  bool fivePercentFloor = false;  ///< dirty_ratio >= 5 (2.6.0 – 2.6.2x)
  RtLimitBonus rtBonus = RtLimitBonus::QuarterPlusLimit32;
  bool lessThrottleBonus = true;  ///< PF_LESS_THROTTLE tasks get +1/4 (<= 5.8)
  FlusherStyle flusher = FlusherStyle::Modern;
  bool followDirtyLimit = true;  ///< the slowly following dirty_limit (3.1+)
  /// The entry check counts pages per CPU (bdp_ratelimits, shared by every task on the CPU)
  /// rather than per task (nr_dirtied, 3.2+): balance_dirty_pages_ratelimited_nr() <= 3.1.
  bool perCpuRatelimit = false;
  /// Memory cgroups (4.2+ cgroup writeback): memory.max/high are enforced, and a task in a v2
  /// cgroup is throttled against its cgroup's wb_domain as well as the global one. Older eras
  /// ignore cgroups.
  bool memcg = true;
  /// The largest page-cache folio a buffered write() creates, as a page order
  /// (docs/model.md, Large folios in the write path): 9 (2 MiB) for today's ext4 and XFS on
  /// x86-64; 0 (4 KiB pages only) for kernels before large folios. `machine.maxFolioOrder`
  /// overrides it.
  int maxFolioOrder = 9;
};

/// The starting point of every era older than 4.2: no cgroup writeback, and 4 KiB page-cache
/// pages only (large folios came with 5.18+).
constexpr KernelEra eraBeforeCgroupWriteback() {
  KernelEra e;
  e.memcg = false;
  e.maxFolioOrder = 0;
  return e;
}

}  // namespace throttlelab::engine
