// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A memory cgroup's own writeback domain (cgroup writeback, 4.2+; docs/model.md, Memory
// cgroups, Eq. 60–62): its dirtyable memory and thresholds, from the same vm.dirty_* settings
// as the global domain.
#include "dirty_limits.h"
#include "throttlelab/engine/scenario.h"
#include "throttlelab/engine/units.h"

namespace throttlelab::engine {

/// What mem_cgroup_wb_stats() reports as headroom: how far the cgroup's usage is below the
/// lower of memory.max and memory.high (0 = no limit; then effectively unlimited).
Pages memcgHeadroom(Pages maxPages, Pages highPages, Pages usedPages);

/// Eq. 60 (mdtc_calc_avail()): the cgroup's file pages plus its headroom, the headroom capped
/// by the clean memory outside the cgroup (global dirtyable memory that is neither dirty nor
/// already the cgroup's clean cache).
Pages memcgDirtyable(Pages filePages, Pages headroom, Pages memcgDirty, Pages globalAvail,
                     Pages globalDirty);

/// Eq. 61 (domain_dirty_limits() for a memcg domain, 4.2+ and 6.x): ratios of the cgroup's
/// dirtyable memory in 1/PAGE_SIZE steps; a `vm.dirty_bytes` setting becomes the ratio
/// ceil(bytes / global avail) of them, so the cgroup gets the share of the byte limit its
/// dirtyable memory is of the machine's. RT bonus as in the global domain (+1/4 and the
/// global dirty_limit/32), then bg >= thresh -> bg = thresh/2.
DirtyThresholds computeMemcgThresholds(const VmConfig& vm, Pages avail, Pages globalAvail,
                                       LimitBonus bonus, Pages globalDirtyLimit);

}  // namespace throttlelab::engine
