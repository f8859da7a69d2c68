// SPDX-License-Identifier: GPL-3.0-or-later
// Memory cgroups (docs/model.md, Memory cgroups): charging, reclaim and the OOM killer inside a
// cgroup, and its own writeback domain.
#include "memcg.h"

#include <algorithm>

#include "heap_bytes.h"
#include "memcg_domain.h"
#include "page_allocator.h"

namespace throttlelab::engine {

namespace {
constexpr int kMaxReclaimRetries = 16;  // MAX_RECLAIM_RETRIES
constexpr Pages kReclaimBatch = 32;     // SWAP_CLUSTER_MAX
/// reclaim_throttle(VMSCAN_THROTTLE_WRITEBACK): at most HZ/10, ended early by writeback
/// completing in the cgroup.
constexpr SimDuration kWritebackWait = std::chrono::milliseconds(100);
/// cgroup_ino of the first cgroup; the root is 1. Any stable numbers would do: a real kernel's
/// are kernfs inode numbers.
constexpr std::uint64_t kFirstCgroupIno = 4096;

Pages limitPages(std::int64_t mib) {
  return mib > 0 ? mibToPages(static_cast<double>(mib)) : 0;
}

/// The sum of every device's min_ratio, at most 100 (__wb_calc_thresh()'s reserved shares).
int sumMinRatio(const MemcgHost& host) {
  int sumMin = 0;
  for (int d = 0; d < host.deviceCount(); ++d) sumMin += host.device(d).device.config().minRatio;
  return std::min(sumMin, 100);
}
}  // namespace

void MemCgroups::setup(MemcgHost& host, const std::vector<CgroupSpec>& specs) {
  m_cgroups.assign(specs.size(), CgroupState());
  const auto devices = static_cast<std::size_t>(host.deviceCount());
  for (std::size_t i = 0; i < m_cgroups.size(); ++i) {
    CgroupState& c = m_cgroups[i];
    c.ino = kFirstCgroupIno + 2 * i;
    c.wbs.assign(devices, CgroupWb{});
    for (CgroupWb& w : c.wbs) w.bw.bwTimeStampJiffies = host.jiffies();
    c.completions.resize(devices);
    c.dirtyLimitStamp = host.jiffies();
  }
  reconfigure(specs);
}

void MemCgroups::reconfigure(const std::vector<CgroupSpec>& specs) {
  m_names.clear();
  for (std::size_t i = 0; i < m_cgroups.size(); ++i) {
    const CgroupSpec& spec = specs[i];
    CgroupState& c = m_cgroups[i];
    c.maxPages = limitPages(spec.memoryMaxMiB);
    c.highPages = limitPages(spec.memoryHighMiB);
    c.writebackDomain = spec.version == 2;
    m_names.push_back(spec.name);
  }
}

int MemCgroups::domainOf(const MemcgHost& host, const Task& task) const {
  const int cg = task.info.cgroup;
  if (cg < 0 || !host.era().memcg) return -1;
  return state(cg).writebackDomain ? cg : -1;
}

std::uint64_t MemCgroups::traceIno(const MemcgHost& host, const Task& task) const {
  const int cg = domainOf(host, task);
  return cg < 0 ? 1 : state(cg).ino;
}

MemcgView MemCgroups::viewFor(const MemcgHost& host, int cg, const GlobalView& g, LimitBonus bonus,
                              bool includeWriteback) const {
  const CgroupState& c = state(cg);
  MemcgView m;
  m.filePages = c.file;
  // Only page cache is charged in the model, so usage is the cgroup's file pages.
  m.headroom = memcgHeadroom(c.maxPages, c.highPages, c.file);
  m.dirty = c.dirty + (includeWriteback ? c.writeback : 0);
  m.avail = memcgDirtyable(m.filePages, m.headroom, m.dirty, g.avail, g.dirty);
  const DirtyThresholds th =
      computeMemcgThresholds(host.vm(), m.avail, g.avail, bonus, host.domain().dirtyLimit);
  m.thresh = th.thresh;
  m.bgThresh = th.bgThresh;
  m.freerun = freerunCeiling(m.thresh, m.bgThresh);
  m.limit = hardDirtyLimit(m.thresh, c.dirtyLimit);
  m.setpoint = dirtySetpoint(m.freerun, m.limit);
  return m;
}

MemcgView MemCgroups::view(const MemcgHost& host, int cg, const GlobalView& g,
                           const Task* task) const {
  bool bonus = false;
  if (task != nullptr) {
    const KernelEra& era = host.era();
    bonus = (isRealTime(*task) && era.rtBonus != RtLimitBonus::None) ||
            (task->lessThrottle && era.lessThrottleBonus);
  }
  return viewFor(host, cg, g, bonus ? LimitBonus::RealTime : LimitBonus::None, true);
}

WbView MemCgroups::wbView(const MemcgHost& host, int cg, int dev, const MemcgView& m) const {
  const CgroupState& c = state(cg);
  const CgroupWb& w = c.wbs[static_cast<std::size_t>(dev)];
  const DeviceConfig& dc = host.device(dev).device.config();
  std::int64_t num = 0, den = 1;
  c.completions.fraction(static_cast<std::size_t>(dev), host.now(), num, den);
  WbView v = wbThresholds(
      WbThreshInputs{m.thresh, m.bgThresh, num, den, sumMinRatio(host), dc.minRatio, dc.maxRatio});
  v.wbDirty = w.reclaimable + w.writeback;
  return v;
}

Pages MemCgroups::wbDirty(const MemcgHost& host, int dev) const {
  if (m_cgroups.empty() || !host.era().memcg) return 0;
  Pages n = 0;
  for (const CgroupState& c : m_cgroups)
    if (c.writebackDomain) {
      const CgroupWb& w = c.wbs[static_cast<std::size_t>(dev)];
      n += w.reclaimable + w.writeback;
    }
  return n;
}

bool MemCgroups::overBackgroundThresh(const MemcgHost& host, int dev, const GlobalView& g) const {
  if (m_cgroups.empty() || !host.era().memcg) return false;
  for (std::size_t i = 0; i < m_cgroups.size(); ++i) {
    const CgroupState& c = m_cgroups[i];
    const CgroupWb& w = c.wbs[static_cast<std::size_t>(dev)];
    if (!c.writebackDomain || w.reclaimable <= 0) continue;
    const int cg = static_cast<int>(i);
    const MemcgView m = viewFor(host, cg, g, LimitBonus::None, false);
    if (m.dirty > m.bgThresh) return true;
    MemcgView asBg = m;
    asBg.thresh = m.bgThresh;
    if (w.reclaimable > wbView(host, cg, dev, asBg).wbThresh) return true;
  }
  return false;
}

void MemCgroups::dirtied(const CachedFile& f, Pages n) {
  CgroupState& c = state(f.cgroup);
  CgroupWb& w = c.wbs[static_cast<std::size_t>(f.device())];
  c.dirty += n;
  c.dirtied += n;
  w.reclaimable += n;
  w.dirtied += n;
}

void MemCgroups::writebackStarted(const CachedFile& f, Pages n) {
  CgroupState& c = state(f.cgroup);
  CgroupWb& w = c.wbs[static_cast<std::size_t>(f.device())];
  c.dirty -= n;
  c.writeback += n;
  w.reclaimable -= n;
  w.writeback += n;
}

void MemCgroups::writebackDone(MemcgHost& host, const CachedFile& f, Pages n, int dev) {
  CgroupState& c = state(f.cgroup);
  CgroupWb& w = c.wbs[static_cast<std::size_t>(dev)];
  c.writeback -= n;
  c.written += n;
  w.writeback -= n;
  w.written += n;
  c.completions.add(static_cast<std::size_t>(dev), n, host.now());
  // Reclaimers throttled on the cgroup's writeback go round again.
  const std::span<Task> tasks = host.taskTable();
  for (const int id : c.waiters) {
    Task& t = tasks[static_cast<std::size_t>(id)];
    if (!t.removed && t.memcgWaiting && t.state == TaskState::IoWait) host.wakeTaskNow(t);
  }
  c.waiters.clear();
}

Pages MemCgroups::reclaim(MemcgHost& host, int cg, Pages target) {
  CgroupState& c = state(cg);
  Pages freed = 0;
  // The cgroup's own LRU: its files in the order they were created, each giving its clean
  // pages (the oldest first, as the global reclaim takes them).
  for (const int id : c.files) {
    if (freed >= target) break;
    freed += host.file(id).evictClean(target - freed);
  }
  c.file -= freed;
  c.reclaimed += freed;
  Memory& mem = host.nodeCounters();
  mem.file -= freed;
  mem.free += freed;
  mem.pgsteal += freed;
  if (freed > 0) host.memoryFreed();
  return freed;
}

bool MemCgroups::oomKill(MemcgHost& host, int cg) {
  Memory& mem = host.nodeCounters();
  const double total = static_cast<double>(mem.total + mem.swapTotal);
  Task* victim = selectOomVictim(host.taskTable(), total, cg);
  if (victim == nullptr) return false;
  ++mem.oomKills;
  ++state(cg).oomKills;
  // The timeline names the cgroup, as the kernel's "Memory cgroup out of memory: Killed
  // process" does; removeTask() adds the global OOM killer's event for a task already marked
  // killed, so the mark comes after it.
  host.addRunEvent(RunEvent::Kind::OomKill, "OOM killer in memory cgroup " +
                                                m_names[static_cast<std::size_t>(cg)] + ": " +
                                                victim->info.name + " (pid " +
                                                std::to_string(victim->info.pid) + ") killed");
  host.removeTask(*victim);
  victim->oomKilled = true;
  return true;
}

bool MemCgroups::charge(MemcgHost& host, Task& t, Pages n) {
  const int cg = t.info.cgroup;
  if (cg < 0 || n <= 0 || !host.era().memcg) return true;
  CgroupState& c = state(cg);
  // memory.high: reclaim back under it, never fail (the kernel also delays the task; not
  // modelled).
  if (c.highPages > 0 && c.file + n > c.highPages)
    reclaim(host, cg, c.file + n - c.highPages + kReclaimBatch);
  if (c.maxPages <= 0 || c.file + n <= c.maxPages) {
    t.reclaimNoProgress = 0;
    return true;
  }
  ++c.limitHits;
  const Pages freed = reclaim(host, cg, c.file + n - c.maxPages + kReclaimBatch);
  if (c.file + n <= c.maxPages) {
    t.reclaimNoProgress = 0;
    return true;
  }
  // What is left is dirty or under writeback: have it written (the flushers of the devices
  // the cgroup has dirty pages on), and wait for it.
  for (std::size_t d = 0; d < c.wbs.size(); ++d)
    if (c.wbs[d].reclaimable > 0) host.startReclaimWriteback(static_cast<int>(d));
  // Progress is anything that will become reclaimable: pages under writeback or still dirty.
  const bool progress = freed > 0 || c.writeback > 0 || c.dirty > 0;
  t.reclaimNoProgress = progress ? 0 : t.reclaimNoProgress + 1;
  if (t.reclaimNoProgress > kMaxReclaimRetries) {
    t.reclaimNoProgress = 0;
    if (oomKill(host, cg) && t.removed) return false;
  }
  if (t.removed) return false;
  t.allocWaiting = true;
  t.memcgWaiting = true;
  t.allocStart = host.now();
  ++t.allocStalls;
  c.waiters.push_back(t.info.index);
  host.sleepTask(t, kWritebackWait, TaskState::IoWait);
  return false;
}

std::vector<CgroupSample> MemCgroups::samples(const MemcgHost& host, const GlobalView& g) const {
  std::vector<CgroupSample> out(m_cgroups.size());
  for (std::size_t i = 0; i < m_cgroups.size(); ++i) {
    const CgroupState& c = m_cgroups[i];
    CgroupSample& s = out[i];
    s.filePages = c.file;
    s.dirtyPages = c.dirty;
    s.writebackPages = c.writeback;
    s.maxPages = c.maxPages;
    s.reclaimedPages = c.reclaimed;
    s.oomKills = c.oomKills;
    if (!host.era().memcg || !c.writebackDomain) continue;
    const MemcgView m = viewFor(host, static_cast<int>(i), g, LimitBonus::None, true);
    reportThresholds(m, c.dirtyLimit, s);
    s.posRatio = c.lastPosRatio;
  }
  return out;
}

std::size_t MemCgroups::heapBytes() const {
  std::size_t bytes = heap::of(m_cgroups) + heap::of(m_names);
  for (const CgroupState& c : m_cgroups)
    bytes += heap::of(c.wbs) + heap::of(c.files) + heap::of(c.waiters);
  for (const std::string& name : m_names) bytes += heap::of(name);
  return bytes;
}

}  // namespace throttlelab::engine
