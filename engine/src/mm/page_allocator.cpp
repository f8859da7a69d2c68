// SPDX-License-Identifier: GPL-3.0-or-later
// The page allocator (docs/model.md, The page allocator; Reclaim, swap and the OOM killer).
#include "page_allocator.h"

#include <algorithm>
#include <cmath>

#include "cost_model.h"

namespace throttlelab::engine {

namespace {
constexpr int kMaxReclaimRetries = 16;  // MAX_RECLAIM_RETRIES
constexpr Pages kSwapClusterMax = 32;   // SWAP_CLUSTER_MAX: what one reclaim round aims at
constexpr SimDuration kReclaimWait = std::chrono::milliseconds(100);  // congestion_wait(HZ/10)
constexpr SimDuration kKswapdBatch = std::chrono::milliseconds(10);   // [D] kswapd's cadence

std::int64_t isqrt(std::int64_t v) {
  auto r = static_cast<std::int64_t>(std::sqrt(static_cast<double>(v)));
  while (r * r > v) --r;
  while ((r + 1) * (r + 1) <= v) ++r;
  return r;
}
}  // namespace

void PageAllocator::configure(const Scenario& s) {
  m_era = eraOf(s.machine.allocator);
  m_oldWatermarks = s.machine.allocator != "6.x";
  m_memoryMiB = s.machine.memoryMiB;
  m_swapMiB = s.machine.swapMiB;
  m_minFreeKbytes = s.vm.minFreeKbytes;
  m_watermarkScaleFactor = s.vm.watermarkScaleFactor;
  m_swappiness = s.vm.swappiness;
  m_swapDevice = 0;
  for (std::size_t i = 0; i < s.devices.size(); ++i) {
    if (s.machine.swapDevice.empty() || s.devices[i].name == s.machine.swapDevice) {
      m_swapDevice = static_cast<int>(i);
      break;
    }
  }
}

void PageAllocator::resize(PageAllocatorHost& host) {
  Memory& mem = host.nodeCounters();
  const Pages total = mibToPages(static_cast<double>(m_memoryMiB));
  // A smaller node takes its pages from free memory, then from clean cache.
  const Pages delta = total - mem.total;
  if (delta < 0 && mem.free + delta < 0) reclaimClean(host, -delta - mem.free);
  mem.total = total;
  mem.free = total - (mem.file + mem.anon);
  mem.swapTotal = mibToPages(static_cast<double>(m_swapMiB));
  setupWatermarks(mem);
}

void PageAllocator::setupWatermarks(Memory& mem) const {
  const Pages total = mem.total;
  const std::int64_t kb = total * 4;
  std::int64_t minFreeKb = m_minFreeKbytes;
  const bool old = m_oldWatermarks;
  if (minFreeKb <= 0) {
    // Eq. 41 (calculate_min_free_kbytes()): sqrt(lowmem KiB) clamped to [128, 16384] up to 2.6.9;
    // sqrt(16 x KiB), [128, 262144] later.
    minFreeKb = old ? std::clamp<std::int64_t>(isqrt(kb), 128, 16384)
                    : std::clamp<std::int64_t>(isqrt(kb * 16), 128, 262144);
  }
  mem.wmarkMin = minFreeKb / 4;
  if (old) {  // Eq. 42, 2.6.0–2.6.9: low = 2 min, high = 3 min
    mem.wmarkLow = 2 * mem.wmarkMin;
    mem.wmarkHigh = 3 * mem.wmarkMin;
  } else {  // 4.6+: the gap is the larger of min/4 and watermark_scale_factor of memory
    const Pages gap = std::max(mem.wmarkMin / 4, total * m_watermarkScaleFactor / 10000);
    mem.wmarkLow = mem.wmarkMin + gap;
    mem.wmarkHigh = mem.wmarkMin + 2 * gap;
  }
  mem.totalReserve = mem.wmarkHigh;  // one zone: lowmem_reserve is 0
}

PageAllocator::Era PageAllocator::eraOf(const std::string& allocator) {
  if (allocator == "2.6.0") return Era::V260;
  if (allocator == "2.6.9") return Era::V269;
  if (allocator == "6.x") return Era::V6x;
  if (allocator == "2.6.0-no-rt") return Era::V260NoRt;
  return Era::Other;
}

Pages PageAllocator::allocMark(const Memory& mem, const Task& t, bool lowPass) const {
  const Era era = m_era;  // machine.allocator
  const bool rt = isRealTime(t);
  if (lowPass) {
    // Love's 2003 allocator (as merged): the first pass halves pages_low for an RT task.
    if (rt && era == Era::V260) return mem.wmarkLow / 2;
    return mem.wmarkLow;
  }
  const Pages min = mem.wmarkMin;
  if (!rt) return min;
  if (era == Era::V260) return min / 2;        // Morton's "-2": RT also halves pages_min
  if (era == Era::V269) return min - min / 4;  // ALLOC_HARDER: 3/4 of min
  if (era == Era::V6x) return min - min / 2;   // ALLOC_MIN_RESERVE (6.3+): 1/2 of min
  return min;                                  // "2.6.0-no-rt": no bonus
}

Pages PageAllocator::allocate(PageAllocatorHost& host, Task& t, Pages n) {
  if (n <= 0) return 0;
  Memory& mem = host.nodeCounters();
  // Every page is an order-0 allocation of its own (a fault, a page-cache page): the task
  // gets what stays above the watermark, and only the next page has to wait. (A request for
  // a whole batch at once would lose every race for freed pages to tasks asking for fewer.)
  if (mem.free - n >= allocMark(mem, t, true)) {
    mem.free -= n;
    return n;
  }
  wakeKswapd(host);
  const Pages got = std::min(n, mem.free - allocMark(mem, t, false));
  if (got > 0) {
    mem.free -= got;
    return got;
  }
  // Slow path: the task stalls in direct reclaim until a page is free above the mark.
  t.allocNeed = 1;
  t.allocWaiting = true;
  t.allocStart = host.now();
  t.reclaimNoProgress = 0;
  t.reclaimedSeen = mem.pgsteal;
  ++t.allocStalls;
  ++mem.allocStalls;
  return 0;
}

Pages PageAllocator::reclaimableNow(const Memory& mem) {
  return mem.file - mem.nrDirty - mem.nrWriteback - mem.copying;  // the clean page cache
}

void PageAllocator::noteClean(CachedFile& f) {
  if (f.inCleanList || f.clean() <= 0) return;
  f.inCleanList = true;
  m_cleanFiles.push_back(f.id());
}

Pages PageAllocator::reclaimClean(PageAllocatorHost& host, Pages target) {
  Memory& mem = host.nodeCounters();
  if (reclaimableNow(mem) <= 0 || target <= 0) return 0;
  Pages freed = 0;
  // The inactive file LRU, by file: files in the order their pages came clean (writeback
  // completed), oldest first. Only files that hold clean pages are on it, so a reclaimer does
  // not walk ten thousand files of dirty pages to find a few clean ones.
  while (freed < target && !m_cleanFiles.empty()) {
    CachedFile& f = host.file(m_cleanFiles.front());
    const Pages evicted = f.evictClean(target - freed);
    if (f.cgroup >= 0 && evicted > 0) host.fileEvicted(f, evicted);
    freed += evicted;
    if (f.clean() > 0) break;  // target reached; the file keeps its place
    f.inCleanList = false;
    m_cleanFiles.pop_front();
  }
  mem.file -= freed;
  mem.free += freed;
  return freed;
}

Pages PageAllocator::startSwapOut(PageAllocatorHost& host, Pages target, bool kswapd) {
  Memory& mem = host.nodeCounters();
  const int dev = m_swapDevice;
  BlockDevice& device = host.blockDevice(dev);
  const Pages maxReq = std::max<Pages>(1, device.config().maxRequestKiB / 4);
  Pages submitted = 0;
  const std::span<Task> tasks = host.taskTable();
  // Take from the task with the most resident anonymous memory: a stand-in for the anon LRU.
  for (int round = 0; round < 64 && submitted < target; ++round) {
    Task* victim = nullptr;
    for (auto& t : tasks)
      if (!t.removed && t.rss > 0 && (victim == nullptr || t.rss > victim->rss)) victim = &t;
    if (victim == nullptr) break;
    const Pages slotsFree = mem.swapTotal - mem.swapUsed;
    const Pages n = std::min({target - submitted, victim->rss, slotsFree, maxReq});
    if (n <= 0) break;
    // Swap slots are handed out in order (cluster allocation), so swap-out writes stream.
    if (!device.submitSwap(mem.nextSwapSlot, n, false, victim->info.index, host.now())) {
      // The request queue is full. kswapd's pageout() blocks for a request like any writer
      // (PF_SWAPWRITE: congestion does not stop it) and takes its turn for the next free
      // slot; a direct reclaimer waits for memory instead and tries again.
      if (kswapd && !m_kswapd.waitingForSlot) {
        m_kswapd.waitingForSlot = true;
        device.waitForSlot(BlockDevice::kKswapdWaiter);
      }
      break;
    }
    mem.nextSwapSlot += n;
    victim->rss -= n;
    victim->swapWb += n;
    mem.swapWb += n;
    mem.swapUsed += n;
    submitted += n;
  }
  host.scheduleDevice(dev);
  return submitted;
}

void PageAllocator::swapOutDone(PageAllocatorHost& host, const IoRequest& r) {
  Memory& mem = host.nodeCounters();
  // The page was written to swap: it is freed; its owner now has it in swap.
  Task& owner = host.taskTable()[static_cast<std::size_t>(r.owner)];
  const Pages own = std::min(r.pages, owner.swapWb);
  owner.swapWb -= own;
  owner.swapped += own;
  mem.swapUsed -= r.pages - own;  // pages of a run that ended: their slots are free again
  mem.swapWb -= r.pages;
  mem.anon -= r.pages;
  mem.free += r.pages;
  mem.swapOutPages += r.pages;
  mem.pgsteal += r.pages;
}

Pages PageAllocator::reclaim(PageAllocatorHost& host, Pages target, std::int64_t* scanned,
                             bool kswapd) {
  Memory& mem = host.nodeCounters();
  const Pages fileClean = reclaimableNow(mem);
  const Pages anonLru = mem.anon - mem.swapWb;
  const bool anonOk = mem.swapTotal - mem.swapUsed > 0 && anonLru > 0;
  const int sw = m_swappiness;
  // Scan balance: anon : file = swappiness : (200 - swappiness), weighted by list sizes.
  Pages fileTarget = target;
  if (anonOk) {
    const double fw = static_cast<double>(200 - sw) * static_cast<double>(fileClean);
    const double aw = static_cast<double>(sw) * static_cast<double>(anonLru);
    fileTarget = fw + aw > 0
                     ? static_cast<Pages>(std::ceil(static_cast<double>(target) * fw / (fw + aw)))
                     : 0;
  }
  const Pages freed = reclaimClean(host, fileTarget);
  Pages swapping = 0;
  if (anonOk) swapping = startSwapOut(host, target - freed, kswapd);
  // Dirty file pages cannot be freed until written: ask the flushers to write them.
  if (freed + swapping < target && mem.nrDirty > 0)
    for (int dev = 0; dev < host.deviceCount(); ++dev) host.startReclaimWriteback(dev);
  mem.pgsteal += freed;
  *scanned +=
      static_cast<std::int64_t>(static_cast<double>(freed + swapping) * cost::kScanPerReclaimed) +
      (freed + swapping == 0 ? 32 : 0);
  return freed + swapping;
}

void PageAllocator::wakeKswapd(PageAllocatorHost& host) {
  if (m_kswapd.active) return;
  m_kswapd.active = true;
  m_kswapd.noProgress = 0;
  if (!m_kswapd.scheduled) {
    m_kswapd.scheduled = true;
    host.scheduleAt(host.now(), EventKind::KswapdRun, 0, 0);
  }
}

Pages PageAllocator::kswapdTarget(const Memory& mem) const {
  return mem.wmarkHigh - mem.free + mem.swapWb / 8;
}

void PageAllocator::kswapdSlotFree(PageAllocatorHost& host) {
  const Memory& mem = host.nodeCounters();
  // kswapd was waiting for a request slot for its swap-out: it submits in its turn.
  m_kswapd.waitingForSlot = false;
  if (!m_kswapd.active || mem.free >= mem.wmarkHigh) return;
  const Pages n = startSwapOut(host, kswapdTarget(mem), /*kswapd=*/true);
  host.chargeKernel(kKswapdThread, static_cast<double>(n) * cost::kSwapPerPageS);
}

void PageAllocator::kswapdRun(PageAllocatorHost& host) {
  m_kswapd.scheduled = false;
  Memory& mem = host.nodeCounters();
  if (mem.free >= mem.wmarkHigh) {  // balanced: back to sleep
    m_kswapd.active = false;
    return;
  }
  std::int64_t scanned = 0;
  const Pages before = mem.free;
  const Pages progress = reclaim(host, kswapdTarget(mem), &scanned, /*kswapd=*/true);
  mem.pgscanKswapd += scanned;
  const double cpuS = static_cast<double>(scanned) * cost::kReclaimScanPerPageS +
                      static_cast<double>(progress - (mem.free - before)) * cost::kSwapPerPageS;
  host.chargeKernel(kKswapdThread, cpuS);
  if (progress == 0 && mem.swapWb == 0 && mem.nrWriteback == 0) {
    if (++m_kswapd.noProgress >= kMaxReclaimRetries) {  // kswapd_failures: the node is hopeless
      m_kswapd.active = false;
      return;
    }
  } else {
    m_kswapd.noProgress = 0;
  }
  wakeMemoryWaiters(host);
  m_kswapd.scheduled = true;
  host.scheduleAt(host.now() + std::max(kKswapdBatch, seconds(cpuS)), EventKind::KswapdRun, 0, 0);
}

PageAllocator::DirectReclaim PageAllocator::directReclaim(PageAllocatorHost& host, Task& t) {
  Memory& mem = host.nodeCounters();
  // __alloc_pages_slowpath() wakes kswapd on every retry, so that it does not go to sleep
  // while anyone loops in the allocator.
  wakeKswapd(host);
  ++t.reclaimRounds;
  const Pages mark = allocMark(mem, t, false);
  const Pages need = std::max<Pages>(kSwapClusterMax, t.allocNeed + mark - mem.free);
  std::int64_t scanned = 0;
  const Pages before = mem.free;
  const Pages progress = reclaim(host, need, &scanned, /*kswapd=*/false);
  mem.pgscanDirect += scanned;
  const Pages freed = mem.free - before;
  const Pages swapping = progress - freed;
  const double cpuS = static_cast<double>(scanned) * cost::kReclaimScanPerPageS +
                      static_cast<double>(swapping) * cost::kSwapPerPageS;
  if (mem.free - t.allocNeed >= mark) {
    // Reclaimed enough at once: the stall is the CPU time of the scan.
    t.reclaimNoProgress = 0;
    return {DirectReclaim::Next::Retry, cpuS};
  }
  // should_reclaim_retry() (__alloc_pages_slowpath, 4.7+): a round that reclaimed nothing
  // adds to no_progress_loops, one that reclaimed anything starts it again. Progress is the
  // machine's: pages reclaimed since the task's last round by anyone (kswapd, another
  // reclaimer, a swap write completing; the model frees those at the completion) are pages
  // its own scan of the same LRU could have taken. So a task that lost the race for what was
  // freed goes on waiting, and only a machine that frees nothing at all ends in the killer.
  const bool progressed = freed > 0 || mem.pgsteal > t.reclaimedSeen;
  t.reclaimedSeen = mem.pgsteal;
  t.reclaimNoProgress = progressed ? 0 : t.reclaimNoProgress + 1;
  // Would the allocation succeed if every reclaimable page were reclaimed? The page cache
  // counts whole (dirty and under writeback too), anonymous memory while swap has room.
  const Pages reclaimable = mem.file + (mem.swapTotal > mem.swapUsed ? mem.anon - mem.swapWb : 0);
  const bool hopeless = mem.free + reclaimable - t.allocNeed < mark;
  if ((hopeless || t.reclaimNoProgress > kMaxReclaimRetries) && oomKill(host)) {
    t.reclaimNoProgress = 0;
    if (mem.free - t.allocNeed >= mark && !t.removed) return {DirectReclaim::Next::Retry, cpuS};
  }
  if (t.removed) return {DirectReclaim::Next::Gone, cpuS};  // it was the victim
  // Wait for the IO that reclaim started (or for anything to be freed), at most HZ/10. The
  // scan's CPU time is taken with the task's next piece of work.
  if (!t.inMemoryWaiters) {  // one entry per task: it keeps its place in the queue
    t.inMemoryWaiters = true;
    m_memoryWaiters.push_back(t.info.index);
  }
  return {DirectReclaim::Next::Wait, cpuS, kReclaimWait};
}

void PageAllocator::wakeMemoryWaiters(PageAllocatorHost& host) {
  // Freed pages go to the tasks that waited longest, as many as they cover: waking every
  // waiter for a handful of pages would have all but the first find nothing and go round
  // reclaim again (with 10,000 stalled writers, 10,000 wake-ups per completion).
  // Called on every completion and kswapd batch: compact the list in place (same order, no
  // allocation), start loading the tasks a few entries ahead, and stop once nothing is left
  // to hand out (no task's mark is below half of min).
  constexpr std::size_t kAhead = 4;
  const std::size_t n = m_memoryWaiters.size();
  if (n == 0) return;
  const Memory& mem = host.nodeCounters();
  const std::span<Task> tasks = host.taskTable();
  Pages budget = mem.free;
  std::size_t keep = 0, i = 0;
  for (; i < n && budget - 1 >= mem.wmarkMin / 2; ++i) {
    if (i + kAhead < n) {
      const Task& ahead = tasks[static_cast<std::size_t>(m_memoryWaiters[i + kAhead])];
      __builtin_prefetch(&ahead.info.sched);
      __builtin_prefetch(&ahead.state);
      __builtin_prefetch(&ahead.allocNeed);
    }
    const int id = m_memoryWaiters[i];
    Task& t = tasks[static_cast<std::size_t>(id)];
    if (t.removed || !t.allocWaiting || t.state != TaskState::IoWait) {
      t.inMemoryWaiters = false;
      continue;
    }
    if (budget - t.allocNeed >= allocMark(mem, t, false)) {
      budget -= t.allocNeed;
      t.inMemoryWaiters = false;
      host.wakeTaskNow(t);
    } else {
      m_memoryWaiters[keep++] = id;
    }
  }
  for (; i < n; ++i) m_memoryWaiters[keep++] = m_memoryWaiters[i];
  m_memoryWaiters.resize(keep);
}

void PageAllocator::oomExited(PageAllocatorHost& host) {
  m_oomPending = 0;
  wakeMemoryWaiters(host);
}

Task* selectOomVictim(std::span<Task> tasks, double totalPages, std::optional<int> cgroup) {
  Task* victim = nullptr;
  double best = 0;
  for (auto& t : tasks) {
    if (t.removed || (cgroup && t.info.cgroup != *cgroup) || t.state == TaskState::Exited ||
        t.state == TaskState::NotStarted || t.spec.oomScoreAdj <= -1000)
      continue;
    const double points = static_cast<double>(t.rss + t.swapped + t.swapWb) +
                          t.spec.oomScoreAdj * totalPages / 1000.0;
    if (victim == nullptr || points > best) {
      best = points;
      victim = &t;
    }
  }
  return victim;
}

bool PageAllocator::oomKill(PageAllocatorHost& host) {
  if (m_oomPending) return false;
  const Memory& mem = host.nodeCounters();
  // oom_badness(): resident + swap, adjusted by oom_score_adj in thousandths of memory + swap.
  // Every task that may be killed is a candidate, the highest score first (select_bad_process()
  // starts from LONG_MIN): a dd whose memory the model does not count is killed last, not never.
  const double total = static_cast<double>(mem.total + mem.swapTotal);
  Task* victim = selectOomVictim(host.taskTable(), total);
  if (victim == nullptr) return false;
  victim->oomKilled = true;
  ++host.nodeCounters().oomKills;
  host.removeTask(*victim);
  m_oomPending = 1;
  host.scheduleAt(host.now() + std::chrono::milliseconds(20), EventKind::OomExit, 0, 0);
  return true;
}

}  // namespace throttlelab::engine
