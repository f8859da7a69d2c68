// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// A memory cgroup's own writeback domain from counters a running kernel exports (cgroup v2's
/// memory.stat, memory.max, memory.high, memory.current), for live host mode: the same
/// formulas the simulated cgroups use (docs/model.md, Memory cgroups, Eq. 60–61).
#include <vector>

#include "throttlelab/engine/records.h"
#include "throttlelab/engine/scenario.h"

namespace throttlelab::engine {

/// One level of the cgroup tree, the watched cgroup first, then each ancestor below the root.
struct MemcgLevel {
  Pages maxPages = 0;   ///< memory.max; 0 = "max" (no limit)
  Pages highPages = 0;  ///< memory.high; 0 = "max"
  Pages usedPages = 0;  ///< memory.current
};

/// The cgroup's domain as balance_dirty_pages() sees it for a normal task in it: the headroom
/// of mem_cgroup_wb_stats() (the smallest of min(max, high) − usage over the cgroup and its
/// ancestors), its dirtyable memory (Eq. 60, mdtc_calc_avail()), its thresholds (Eq. 61) and
/// freerun, and limit = thresh (a cgroup's stored dirty_limit is not exported, so the limit
/// and setpoint are those of a settled domain). `dirtyPages`/`writebackPages` are the
/// cgroup's file_dirty/file_writeback; `globalAvail` and `globalDirty` the machine's
/// dirtyable memory and dirty + writeback pages. maxPages is the smallest memory.max over
/// `levels` (0 = none). posRatio, reclaimedPages and oomKills are left 0.
CgroupSample memcgDomainOf(Pages filePages, Pages dirtyPages, Pages writebackPages,
                           const std::vector<MemcgLevel>& levels, const VmConfig& vm,
                           Pages globalAvail, Pages globalDirty);

}  // namespace throttlelab::engine
