// SPDX-License-Identifier: GPL-3.0-or-later
#include "dirty_limits.h"

#include "kernel_math.h"

#include <algorithm>
#include <cstdint>

namespace throttlelab::engine {

Pages dirtyableMemory(Pages freePages, Pages fileLruPages, Pages totalReservePages) {
  return std::max<Pages>(0, freePages - totalReservePages) + fileLruPages + 1;
}

namespace {
// Ratio of avail with the kernel's per-page precision: (ratio * PAGE_SIZE / 100) * avail /
// PAGE_SIZE.
Pages ratioOf(int ratioPct, Pages avail) {
  const std::int64_t scaled = static_cast<std::int64_t>(ratioPct) * kPageBytes / 100;
  return static_cast<Pages>((static_cast<Int128>(scaled) * avail) / kPageBytes);
}
Pages bytesToPagesRoundUp(std::int64_t bytes) {
  return (bytes + kPageBytes - 1) / kPageBytes;
}
}  // namespace

DirtyThresholds computeDirtyThresholds(const VmConfig& vm, Pages avail, LimitBonus bonus,
                                       Pages globalDirtyLimit) {
  DirtyThresholds t;
  t.thresh = vm.dirtyBytes > 0 ? bytesToPagesRoundUp(vm.dirtyBytes) : ratioOf(vm.dirtyRatio, avail);
  t.bgThresh = vm.dirtyBackgroundBytes > 0 ? bytesToPagesRoundUp(vm.dirtyBackgroundBytes)
                                           : ratioOf(vm.dirtyBackgroundRatio, avail);
  // 6.10+: thresh is capped at 2^32-1 pages before anything else.
  t.thresh = std::min<Pages>(t.thresh, 0xffffffffLL);
  if (bonus == LimitBonus::RealTime) {
    t.bgThresh += t.bgThresh / 4 + globalDirtyLimit / 32;
    t.thresh += t.thresh / 4 + globalDirtyLimit / 32;
  }
  if (t.bgThresh >= t.thresh) t.bgThresh = t.thresh / 2;
  return t;
}

DirtyThresholds computeEraThresholds(const VmConfig& vm, Pages avail, const KernelEra& era,
                                     bool bonus, Pages mappedPages, Pages globalDirtyLimit) {
  if (era.rtBonus == RtLimitBonus::QuarterPlusLimit32 && !era.unmappedClamp &&
      !era.fivePercentFloor)
    return computeDirtyThresholds(vm, avail, bonus ? LimitBonus::RealTime : LimitBonus::None,
                                  globalDirtyLimit);
  // 2.6.x get_dirty_limits(): whole-percent ratios of avail, clamped.
  int dirtyRatio = vm.dirtyRatio;
  int bgRatio = vm.dirtyBackgroundRatio;
  if (era.unmappedClamp && avail > 0) {
    const auto unmapped = static_cast<int>(100 - mappedPages * 100 / avail);
    if (dirtyRatio > unmapped / 2) dirtyRatio = unmapped / 2;
  }
  if (era.fivePercentFloor && dirtyRatio < 5) dirtyRatio = 5;
  if (bgRatio >= dirtyRatio) bgRatio = dirtyRatio / 2;
  DirtyThresholds t;
  t.thresh = vm.dirtyBytes > 0 ? bytesToPagesRoundUp(vm.dirtyBytes) : dirtyRatio * avail / 100;
  t.bgThresh = vm.dirtyBackgroundBytes > 0 ? bytesToPagesRoundUp(vm.dirtyBackgroundBytes)
                                           : bgRatio * avail / 100;
  if (bonus) {
    t.bgThresh += t.bgThresh / 4;
    t.thresh += t.thresh / 4;
  }
  if (t.bgThresh >= t.thresh) t.bgThresh = t.thresh / 2;
  return t;
}

Pages followDirtyLimit(Pages stored, Pages thresh, Pages dirty) {
  if (stored < thresh) return thresh;            // follow up in one step
  const Pages target = std::max(thresh, dirty);  // thresh may have dropped below dirty
  if (stored > target) stored -= (stored - target) >> 5;
  return stored;
}

}  // namespace throttlelab::engine
