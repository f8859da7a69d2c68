// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Dirtyable memory and the global thresholds (docs/model.md, Dirtyable memory and thresholds, Eq.
// 3–11).
#include "kernel_era.h"
#include "throttlelab/engine/scenario.h"
#include "throttlelab/engine/units.h"

namespace throttlelab::engine {

/// Eq. 3 (global_dirtyable_memory(), 3.14+): avail = max(0, free - totalreserve) + file LRU + 1.
/// Anonymous memory is not dirtyable; there is no highmem in this model.
Pages dirtyableMemory(Pages freePages, Pages fileLruPages, Pages totalReservePages);

/// Who is asking: real-time tasks get the bonus (docs/model.md, The real-time bonus, Eq. 6).
enum class LimitBonus { None, RealTime };

struct DirtyThresholds {
  Pages bgThresh = 0;  ///< background writeback threshold
  Pages thresh = 0;    ///< throttle threshold
};

/// domain_dirty_limits() in its 6.10+ form: ratio or bytes, the RT bonus
/// (+1/4 and +dirty_limit/32, 4.7+), then Eq. 7 (bg >= thresh -> bg = thresh/2).
/// `globalDirtyLimit` is the stored dirty_limit (Eq. 8), used only by the /32 term.
DirtyThresholds computeDirtyThresholds(const VmConfig& vm, Pages avail, LimitBonus bonus,
                                       Pages globalDirtyLimit);

/// The same for an older kernel: the ratio clamps of E1b and the bonus of that era.
/// `mappedPages` is what E1b subtracts (mapped file + anonymous pages); `bonusFor` says
/// whether the caller qualifies (RT under a policy that gives RT the bonus, or PF_LESS_THROTTLE).
DirtyThresholds computeEraThresholds(const VmConfig& vm, Pages avail, const KernelEra& era,
                                     bool bonus, Pages mappedPages, Pages globalDirtyLimit);

/// Eq. 10 (dirty_freerun_ceiling()): (thresh + bg_thresh)/2; nobody is throttled at or below it.
constexpr Pages freerunCeiling(Pages thresh, Pages bgThresh) {
  return (thresh + bgThresh) / 2;
}
/// Eq. 9 (hard_dirty_limit()): the hard limit of the control line.
constexpr Pages hardDirtyLimit(Pages thresh, Pages storedDirtyLimit) {
  return thresh > storedDirtyLimit ? thresh : storedDirtyLimit;
}
/// Eq. 11: the setpoint
constexpr Pages dirtySetpoint(Pages freerun, Pages limit) {
  return (freerun + limit) / 2;
}

/// Eq. 8 (update_dirty_limit()): the global dirty_limit follows thresh up at once and down by 1/32
/// of the gap to max(thresh, dirty) per update. Returns the new stored value.
Pages followDirtyLimit(Pages stored, Pages thresh, Pages dirty);

}  // namespace throttlelab::engine
