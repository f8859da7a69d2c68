// SPDX-License-Identifier: GPL-3.0-or-later
// The page allocator (docs/model.md, The page allocator; Reclaim, swap and the OOM killer):
// watermarks by era, kswapd, direct reclaim that stalls the allocating task, the real-time reserve
// bonus as it changed over time, reclaim of clean cache, swap-out of anonymous memory, and the OOM
// killer.
#include <algorithm>
#include <cmath>

#include "cost_model.h"
#include "kernel.h"

namespace throttlelab::engine {

namespace {
constexpr int kMaxReclaimRetries = 16;          // MAX_RECLAIM_RETRIES
constexpr Pages kSwapClusterMax = 32;           // SWAP_CLUSTER_MAX: what one reclaim round aims at
constexpr SimDuration kReclaimWait = std::chrono::milliseconds(100);  // congestion_wait(HZ/10)
constexpr SimDuration kKswapdBatch = std::chrono::milliseconds(10);   // [D] kswapd's cadence

std::int64_t isqrt(std::int64_t v) {
  auto r = static_cast<std::int64_t>(std::sqrt(static_cast<double>(v)));
  while (r * r > v) --r;
  while ((r + 1) * (r + 1) <= v) ++r;
  return r;
}
bool oldAllocator(const std::string& era) { return era != "6.x"; }
}  // namespace

void Kernel::setupWatermarks() {
  const Pages total = m_mem.total;
  const std::int64_t kb = total * 4;
  std::int64_t minFreeKb = m_scenario.vm.minFreeKbytes;
  const bool old = oldAllocator(m_scenario.machine.allocator);
  if (minFreeKb <= 0) {
    // Eq. 41 (calculate_min_free_kbytes()): sqrt(lowmem KiB) clamped to [128, 16384] up to 2.6.9;
    // sqrt(16 x KiB), [128, 262144] later.
    minFreeKb = old ? std::clamp<std::int64_t>(isqrt(kb), 128, 16384)
                    : std::clamp<std::int64_t>(isqrt(kb * 16), 128, 262144);
  }
  m_mem.wmarkMin = minFreeKb / 4;
  if (old) {  // Eq. 42, 2.6.0–2.6.9: low = 2 min, high = 3 min
    m_mem.wmarkLow = 2 * m_mem.wmarkMin;
    m_mem.wmarkHigh = 3 * m_mem.wmarkMin;
  } else {  // 4.6+: the gap is the larger of min/4 and watermark_scale_factor of memory
    const Pages gap = std::max(m_mem.wmarkMin / 4, total * m_scenario.vm.watermarkScaleFactor / 10000);
    m_mem.wmarkLow = m_mem.wmarkMin + gap;
    m_mem.wmarkHigh = m_mem.wmarkMin + 2 * gap;
  }
  m_mem.totalReserve = m_mem.wmarkHigh;  // one zone: lowmem_reserve is 0
}

Kernel::AllocEra Kernel::allocatorEra(const std::string& era) {
  if (era == "2.6.0") return AllocEra::V260;
  if (era == "2.6.9") return AllocEra::V269;
  if (era == "6.x") return AllocEra::V6x;
  if (era == "2.6.0-no-rt") return AllocEra::V260NoRt;
  return AllocEra::Other;
}

Pages Kernel::allocMark(const Task& t, bool lowPass) const {
  const AllocEra era = m_allocEra;  // machine.allocator
  const bool rt = isRealTime(t);
  if (lowPass) {
    // Love's 2003 allocator (as merged): the first pass halves pages_low for an RT task.
    if (rt && era == AllocEra::V260) return m_mem.wmarkLow / 2;
    return m_mem.wmarkLow;
  }
  const Pages min = m_mem.wmarkMin;
  if (!rt) return min;
  if (era == AllocEra::V260) return min / 2;        // Morton's "-2": RT also halves pages_min
  if (era == AllocEra::V269) return min - min / 4;  // ALLOC_HARDER: 3/4 of min
  if (era == AllocEra::V6x) return min - min / 2;   // ALLOC_MIN_RESERVE (6.3+): 1/2 of min
  return min;                                       // "2.6.0-no-rt": no bonus
}

Pages Kernel::allocatePages(Task& t, Pages n) {
  if (n <= 0) return 0;
  // Every page is an order-0 allocation of its own (a fault, a page-cache page): the task
  // gets what stays above the watermark, and only the next page has to wait. (A request for
  // a whole batch at once would lose every race for freed pages to tasks asking for fewer.)
  if (m_mem.free - n >= allocMark(t, true)) {
    m_mem.free -= n;
    return n;
  }
  wakeKswapd();
  const Pages got = std::min(n, m_mem.free - allocMark(t, false));
  if (got > 0) {
    m_mem.free -= got;
    return got;
  }
  // Slow path: the task stalls in direct reclaim until a page is free above the mark.
  t.allocNeed = 1;
  t.allocWaiting = true;
  t.allocStart = m_now;
  t.reclaimNoProgress = 0;
  t.reclaimedSeen = m_mem.pgsteal;
  ++t.allocStalls;
  ++m_mem.allocStalls;
  directReclaim(t);
  return 0;
}

Pages Kernel::reclaimableNow() const {
  return m_mem.file - m_mem.nrDirty - m_mem.nrWriteback - m_mem.copying;  // the clean page cache
}

int Kernel::swapDeviceIndex() const {
  const std::string& name = m_scenario.machine.swapDevice;
  for (std::size_t i = 0; i < m_devices.size(); ++i)
    if (name.empty() || m_devices[i]->device.config().name == name) return static_cast<int>(i);
  return 0;
}

void Kernel::noteClean(CachedFile& f) {
  if (f.inCleanList || f.clean() <= 0) return;
  f.inCleanList = true;
  m_cleanFiles.push_back(f.id());
}

Pages Kernel::reclaimClean(Pages target) {
  if (reclaimableNow() <= 0 || target <= 0) return 0;
  Pages freed = 0;
  // The inactive file LRU, by file: files in the order their pages came clean (writeback
  // completed), oldest first. Only files that hold clean pages are on it, so a reclaimer does
  // not walk ten thousand files of dirty pages to find a few clean ones.
  while (freed < target && !m_cleanFiles.empty()) {
    CachedFile& f = m_files[static_cast<std::size_t>(m_cleanFiles.front())];
    freed += f.evictClean(target - freed);
    if (f.clean() > 0) break;  // target reached; the file keeps its place
    f.inCleanList = false;
    m_cleanFiles.pop_front();
  }
  m_mem.file -= freed;
  m_mem.free += freed;
  return freed;
}

Pages Kernel::startSwapOut(Pages target, bool kswapd) {
  const int dev = swapDeviceIndex();
  DeviceState& d = device(dev);
  const Pages maxReq = std::max<Pages>(1, d.device.config().maxRequestKiB / 4);
  Pages submitted = 0;
  // Take from the task with the most resident anonymous memory: a stand-in for the anon LRU.
  for (int round = 0; round < 64 && submitted < target; ++round) {
    Task* victim = nullptr;
    for (auto& t : m_tasks)
      if (!t.removed && t.rss > 0 && (victim == nullptr || t.rss > victim->rss)) victim = &t;
    if (victim == nullptr) break;
    const Pages slotsFree = m_mem.swapTotal - m_mem.swapUsed;
    const Pages n = std::min({target - submitted, victim->rss, slotsFree, maxReq});
    if (n <= 0) break;
    // Swap slots are handed out in order (cluster allocation), so swap-out writes stream.
    if (!d.device.submitSwap(m_mem.nextSwapSlot, n, false, victim->info.index, m_now)) {
      // The request queue is full. kswapd's pageout() blocks for a request like any writer
      // (PF_SWAPWRITE: congestion does not stop it) and takes its turn for the next free
      // slot; a direct reclaimer waits for memory instead and tries again.
      if (kswapd && !m_kswapd.waitingForSlot) {
        m_kswapd.waitingForSlot = true;
        d.slotWaiters.push_back(kKswapdSlotWaiter);
      }
      break;
    }
    m_mem.nextSwapSlot += n;
    victim->rss -= n;
    victim->swapWb += n;
    m_mem.swapWb += n;
    m_mem.swapUsed += n;
    submitted += n;
  }
  scheduleDevice(dev);
  return submitted;
}

void Kernel::swapOutDone(const IoRequest& r) {
  // The page was written to swap: it is freed; its owner now has it in swap.
  Task& owner = task(r.owner);
  const Pages own = std::min(r.pages, owner.swapWb);
  owner.swapWb -= own;
  owner.swapped += own;
  m_mem.swapUsed -= r.pages - own;  // pages of a run that ended: their slots are free again
  m_mem.swapWb -= r.pages;
  m_mem.anon -= r.pages;
  m_mem.free += r.pages;
  m_mem.swapOutPages += r.pages;
  m_mem.pgsteal += r.pages;
}

Pages Kernel::reclaim(Pages target, std::int64_t* scanned, bool kswapd) {
  const Pages fileClean = reclaimableNow();
  const Pages anonLru = m_mem.anon - m_mem.swapWb;
  const bool anonOk = m_mem.swapTotal - m_mem.swapUsed > 0 && anonLru > 0;
  const int sw = m_scenario.vm.swappiness;
  // Scan balance: anon : file = swappiness : (200 - swappiness), weighted by list sizes.
  Pages fileTarget = target;
  if (anonOk) {
    const double fw = static_cast<double>(200 - sw) * static_cast<double>(fileClean);
    const double aw = static_cast<double>(sw) * static_cast<double>(anonLru);
    fileTarget = fw + aw > 0 ? static_cast<Pages>(std::ceil(static_cast<double>(target) * fw / (fw + aw))) : 0;
  }
  const Pages freed = reclaimClean(fileTarget);
  Pages swapping = 0;
  if (anonOk) swapping = startSwapOut(target - freed, kswapd);
  // Dirty file pages cannot be freed until written: ask the flushers to write them.
  if (freed + swapping < target && m_mem.nrDirty > 0)
    for (int dev = 0; dev < static_cast<int>(m_devices.size()); ++dev)
      if (device(dev).reclaimable > 0) startReclaimWriteback(dev);
  m_mem.pgsteal += freed;
  *scanned += static_cast<std::int64_t>(static_cast<double>(freed + swapping) * cost::kScanPerReclaimed) +
              (freed + swapping == 0 ? 32 : 0);
  return freed + swapping;
}

void Kernel::wakeKswapd() {
  if (m_kswapd.active) return;
  m_kswapd.active = true;
  m_kswapd.noProgress = 0;
  if (!m_kswapd.scheduled) {
    m_kswapd.scheduled = true;
    m_queue.push(m_now, EventKind::KswapdRun);
  }
}

Pages Kernel::kswapdTarget() const { return m_mem.wmarkHigh - m_mem.free + m_mem.swapWb / 8; }

void Kernel::kswapdSlotFree() {
  // kswapd was waiting for a request slot for its swap-out: it submits in its turn.
  m_kswapd.waitingForSlot = false;
  if (!m_kswapd.active || m_mem.free >= m_mem.wmarkHigh) return;
  const Pages n = startSwapOut(kswapdTarget(), /*kswapd=*/true);
  chargeKernel(kKswapdThread, static_cast<double>(n) * cost::kSwapPerPageS);
}

void Kernel::kswapdRun() {
  if (m_mem.free >= m_mem.wmarkHigh) {  // balanced: back to sleep
    m_kswapd.active = false;
    return;
  }
  std::int64_t scanned = 0;
  const Pages before = m_mem.free;
  const Pages progress = reclaim(kswapdTarget(), &scanned, /*kswapd=*/true);
  m_mem.pgscanKswapd += scanned;
  const double cpuS = static_cast<double>(scanned) * cost::kReclaimScanPerPageS +
                      static_cast<double>(progress - (m_mem.free - before)) * cost::kSwapPerPageS;
  chargeKernel(kKswapdThread, cpuS);
  if (progress == 0 && m_mem.swapWb == 0 && m_mem.nrWriteback == 0) {
    if (++m_kswapd.noProgress >= kMaxReclaimRetries) {  // kswapd_failures: the node is hopeless
      m_kswapd.active = false;
      return;
    }
  } else {
    m_kswapd.noProgress = 0;
  }
  wakeMemoryWaiters();
  m_kswapd.scheduled = true;
  m_queue.push(m_now + std::max(kKswapdBatch, seconds(cpuS)), EventKind::KswapdRun);
}

void Kernel::directReclaim(Task& t) {
  // __alloc_pages_slowpath() wakes kswapd on every retry, so that it does not go to sleep
  // while anyone loops in the allocator.
  wakeKswapd();
  ++t.reclaimRounds;
  const Pages mark = allocMark(t, false);
  const Pages need = std::max<Pages>(kSwapClusterMax, t.allocNeed + mark - m_mem.free);
  std::int64_t scanned = 0;
  const Pages before = m_mem.free;
  const Pages progress = reclaim(need, &scanned, /*kswapd=*/false);
  m_mem.pgscanDirect += scanned;
  const Pages freed = m_mem.free - before;
  const Pages swapping = progress - freed;
  const double cpuS = static_cast<double>(scanned) * cost::kReclaimScanPerPageS +
                      static_cast<double>(swapping) * cost::kSwapPerPageS;
  if (m_mem.free - t.allocNeed >= mark) {
    // Reclaimed enough at once: the stall is the CPU time of the scan.
    t.reclaimNoProgress = 0;
    runCpu(t, cpuS, 0, AfterCpu::Alloc);
    return;
  }
  // should_reclaim_retry() (__alloc_pages_slowpath, 4.7+): a round that reclaimed nothing
  // adds to no_progress_loops, one that reclaimed anything starts it again. Progress is the
  // machine's: pages reclaimed since the task's last round by anyone (kswapd, another
  // reclaimer, a swap write completing; the model frees those at the completion) are pages
  // its own scan of the same LRU could have taken. So a task that lost the race for what was
  // freed goes on waiting, and only a machine that frees nothing at all ends in the killer.
  const bool progressed = freed > 0 || m_mem.pgsteal > t.reclaimedSeen;
  t.reclaimedSeen = m_mem.pgsteal;
  t.reclaimNoProgress = progressed ? 0 : t.reclaimNoProgress + 1;
  // Would the allocation succeed if every reclaimable page were reclaimed? The page cache
  // counts whole (dirty and under writeback too), anonymous memory while swap has room.
  const Pages reclaimable = m_mem.file + (m_mem.swapTotal > m_mem.swapUsed ? m_mem.anon - m_mem.swapWb : 0);
  const bool hopeless = m_mem.free + reclaimable - t.allocNeed < mark;
  if ((hopeless || t.reclaimNoProgress > kMaxReclaimRetries) && oomKill()) {
    t.reclaimNoProgress = 0;
    if (m_mem.free - t.allocNeed >= mark && !t.removed) {
      runCpu(t, cpuS, 0, AfterCpu::Alloc);
      return;
    }
  }
  if (t.removed) return;  // it was the victim
  // Wait for the IO that reclaim started (or for anything to be freed), at most HZ/10. The
  // scan's CPU time is taken with the task's next piece of work.
  t.owedSystemS += cpuS;
  if (!t.inMemoryWaiters) {  // one entry per task: it keeps its place in the queue
    t.inMemoryWaiters = true;
    m_memoryWaiters.push_back(t.info.index);
  }
  sleepTask(t, kReclaimWait, TaskState::IoWait);
}

void Kernel::retryAllocation(Task& t) {
  if (t.removed) return;
  if (!t.allocWaiting) {
    t.state = TaskState::Runnable;
    return;
  }
  if (m_mem.free - t.allocNeed >= allocMark(t, false)) {
    finishAllocWait(t);
    if (t.info.kind == TaskKind::Writer || t.anonPhase == AnonPhase::WriteObject) {
      t.holdsCpu = true;  // it takes its pages now that it has them, and then queues to copy
      continueWriting(t);
    } else {
      continueAnon(t);
    }
    return;
  }
  directReclaim(t);
}

void Kernel::finishAllocWait(Task& t) {
  const double ms = toMs(m_now - t.allocStart);
  t.allocLatency.add(ms);
  m_allAllocLatency.add(ms);
  m_intervalAllocMsMax = std::max(m_intervalAllocMsMax, ms);
  t.allocWaiting = false;
  t.state = TaskState::Runnable;
}

void Kernel::wakeMemoryWaiters() {
  // Freed pages go to the tasks that waited longest, as many as they cover: waking every
  // waiter for a handful of pages would have all but the first find nothing and go round
  // reclaim again (with 10,000 stalled writers, 10,000 wake-ups per completion).
  // Called on every completion and kswapd batch: compact the list in place (same order, no
  // allocation), start loading the tasks a few entries ahead, and stop once nothing is left
  // to hand out (no task's mark is below half of min).
  constexpr std::size_t kAhead = 4;
  const std::size_t n = m_memoryWaiters.size();
  Pages budget = m_mem.free;
  std::size_t keep = 0, i = 0;
  for (; i < n && budget - 1 >= m_mem.wmarkMin / 2; ++i) {
    if (i + kAhead < n) {
      const Task& ahead = task(m_memoryWaiters[i + kAhead]);
      __builtin_prefetch(&ahead.info.sched);
      __builtin_prefetch(&ahead.state);
      __builtin_prefetch(&ahead.allocNeed);
    }
    const int id = m_memoryWaiters[i];
    Task& t = task(id);
    if (t.removed || !t.allocWaiting || t.state != TaskState::IoWait) {
      t.inMemoryWaiters = false;
      continue;
    }
    if (budget - t.allocNeed >= allocMark(t, false)) {
      budget -= t.allocNeed;
      t.inMemoryWaiters = false;
      wakeTaskNow(t);
    } else {
      m_memoryWaiters[keep++] = id;
    }
  }
  for (; i < n; ++i) m_memoryWaiters[keep++] = m_memoryWaiters[i];
  m_memoryWaiters.resize(keep);
}

bool Kernel::oomKill() {
  if (m_oomPending) return false;
  // oom_badness(): resident + swap, adjusted by oom_score_adj in thousandths of memory + swap.
  // Every task that may be killed is a candidate, the highest score first (select_bad_process()
  // starts from LONG_MIN): a dd whose memory the model does not count is killed last, not never.
  const double total = static_cast<double>(m_mem.total + m_mem.swapTotal);
  Task* victim = nullptr;
  double best = 0;
  for (auto& t : m_tasks) {
    if (t.removed || t.state == TaskState::Exited || t.state == TaskState::NotStarted ||
        t.spec.oomScoreAdj <= -1000)
      continue;
    const double points = static_cast<double>(t.rss + t.swapped + t.swapWb) + t.spec.oomScoreAdj * total / 1000.0;
    if (victim == nullptr || points > best) {
      best = points;
      victim = &t;
    }
  }
  if (victim == nullptr) return false;
  victim->oomKilled = true;
  ++m_mem.oomKills;
  removeTask(*victim);
  m_oomPending = 1;
  m_queue.push(m_now + std::chrono::milliseconds(20), EventKind::OomExit);
  return true;
}

}  // namespace throttlelab::engine
