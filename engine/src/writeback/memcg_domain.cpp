// SPDX-License-Identifier: GPL-3.0-or-later
#include "memcg_domain.h"

#include <algorithm>
#include <cstdint>

#include "kernel_math.h"
#include "throttlelab/engine/memcg_limits.h"

namespace throttlelab::engine {

namespace {
// PAGE_COUNTER_MAX: the headroom of a cgroup without a limit.
constexpr Pages kNoLimit = INT64_MAX / 4;
}  // namespace

Pages memcgHeadroom(Pages maxPages, Pages highPages, Pages usedPages) {
  Pages ceiling = kNoLimit;
  if (maxPages > 0) ceiling = std::min(ceiling, maxPages);
  if (highPages > 0) ceiling = std::min(ceiling, highPages);
  return ceiling > usedPages ? ceiling - usedPages : 0;
}

Pages memcgDirtyable(Pages filePages, Pages headroom, Pages memcgDirty, Pages globalAvail,
                     Pages globalDirty) {
  const Pages clean = filePages - std::min(filePages, memcgDirty);
  const Pages globalClean = globalAvail - std::min(globalAvail, globalDirty);
  const Pages otherClean = globalClean - std::min(globalClean, clean);
  return filePages + std::min(headroom, otherClean);
}

DirtyThresholds computeMemcgThresholds(const VmConfig& vm, Pages avail, Pages globalAvail,
                                       LimitBonus bonus, Pages globalDirtyLimit) {
  // Ratios per PAGE_SIZE, as domain_dirty_limits() keeps them.
  std::int64_t ratio = static_cast<std::int64_t>(vm.dirtyRatio) * kPageBytes / 100;
  std::int64_t bgRatio = static_cast<std::int64_t>(vm.dirtyBackgroundRatio) * kPageBytes / 100;
  const std::int64_t globalPages = std::max<Pages>(globalAvail, 1);
  if (vm.dirtyBytes > 0)
    ratio = std::min<std::int64_t>((vm.dirtyBytes + globalPages - 1) / globalPages, kPageBytes);
  if (vm.dirtyBackgroundBytes > 0)
    bgRatio = std::min<std::int64_t>((vm.dirtyBackgroundBytes + globalPages - 1) / globalPages,
                                     kPageBytes);
  DirtyThresholds t;
  t.thresh = static_cast<Pages>(static_cast<Int128>(ratio) * avail / kPageBytes);
  t.bgThresh = static_cast<Pages>(static_cast<Int128>(bgRatio) * avail / kPageBytes);
  if (bonus == LimitBonus::RealTime) {
    t.bgThresh += t.bgThresh / 4 + globalDirtyLimit / 32;
    t.thresh += t.thresh / 4 + globalDirtyLimit / 32;
  }
  t.thresh = std::min<Pages>(t.thresh, 0xffffffffLL);
  if (t.bgThresh >= t.thresh) t.bgThresh = t.thresh / 2;
  return t;
}

CgroupSample memcgDomainOf(Pages filePages, Pages dirtyPages, Pages writebackPages,
                           const std::vector<MemcgLevel>& levels, const VmConfig& vm,
                           Pages globalAvail, Pages globalDirty) {
  CgroupSample s;
  s.filePages = filePages;
  s.dirtyPages = dirtyPages;
  s.writebackPages = writebackPages;
  Pages headroom = memcgHeadroom(0, 0, 0);
  for (const MemcgLevel& l : levels) {
    headroom = std::min(headroom, memcgHeadroom(l.maxPages, l.highPages, l.usedPages));
    if (l.maxPages > 0) s.maxPages = s.maxPages > 0 ? std::min(s.maxPages, l.maxPages) : l.maxPages;
  }
  s.availPages =
      memcgDirtyable(filePages, headroom, dirtyPages + writebackPages, globalAvail, globalDirty);
  const DirtyThresholds th =
      computeMemcgThresholds(vm, s.availPages, globalAvail, LimitBonus::None, 0);
  s.threshPages = th.thresh;
  s.bgThreshPages = th.bgThresh;
  s.freerunPages = freerunCeiling(th.thresh, th.bgThresh);
  s.limitPages = th.thresh;
  s.dirtyLimitPages = th.thresh;
  s.setpointPages = dirtySetpoint(s.freerunPages, s.limitPages);
  return s;
}

}  // namespace throttlelab::engine
