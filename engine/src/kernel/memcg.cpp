// SPDX-License-Identifier: GPL-3.0-or-later
// Memory cgroups (docs/model.md, Memory cgroups): the page cache charged to each cgroup, its
// own writeback domain (mem_cgroup_wb_stats(), mdtc_calc_avail(), domain_dirty_limits() on the
// mdtc; cgroup writeback, 4.2+), and reclaim and the OOM killer inside a cgroup at its limit
// (try_charge_memcg(), try_to_free_mem_cgroup_pages(), mem_cgroup_out_of_memory()).
#include <algorithm>

#include "kernel.h"
#include "memcg_domain.h"

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
}  // namespace

void Kernel::setupCgroups() {
  m_cgroups.assign(m_scenario.cgroups.size(), CgroupState());
  for (std::size_t i = 0; i < m_cgroups.size(); ++i) {
    CgroupState& c = m_cgroups[i];
    c.ino = kFirstCgroupIno + 2 * i;
    c.wbs.assign(m_devices.size(), CgroupWb{});
    for (CgroupWb& w : c.wbs) w.bw.bwTimeStampJiffies = jiffies();
    c.completions.resize(m_devices.size());
    c.dirtyLimitStamp = jiffies();
  }
  reconfigureCgroups();
}

void Kernel::reconfigureCgroups() {
  for (std::size_t i = 0; i < m_cgroups.size(); ++i) {
    const CgroupSpec& spec = m_scenario.cgroups[i];
    CgroupState& c = m_cgroups[i];
    c.maxPages = limitPages(spec.memoryMaxMiB);
    c.highPages = limitPages(spec.memoryHighMiB);
    c.writebackDomain = spec.version == 2;
  }
}

int Kernel::memcgDomainOf(const Task& task) const {
  const int cg = task.info.cgroup;
  if (cg < 0 || !m_era.memcg) return -1;
  return m_cgroups[static_cast<std::size_t>(cg)].writebackDomain ? cg : -1;
}

std::uint64_t Kernel::traceCgroupIno(const Task& task) const {
  const int cg = memcgDomainOf(task);
  return cg < 0 ? 1 : m_cgroups[static_cast<std::size_t>(cg)].ino;
}

MemcgView Kernel::memcgViewFor(int cg, const GlobalView& g, LimitBonus bonus,
                               bool includeWriteback) const {
  const CgroupState& c = m_cgroups[static_cast<std::size_t>(cg)];
  MemcgView m;
  m.filePages = c.file;
  // Only page cache is charged in the model, so usage is the cgroup's file pages.
  m.headroom = memcgHeadroom(c.maxPages, c.highPages, c.file);
  m.dirty = c.dirty + (includeWriteback ? c.writeback : 0);
  m.avail = memcgDirtyable(m.filePages, m.headroom, m.dirty, g.avail, g.dirty);
  const DirtyThresholds th =
      computeMemcgThresholds(m_scenario.vm, m.avail, g.avail, bonus, m_domain.dirtyLimit);
  m.thresh = th.thresh;
  m.bgThresh = th.bgThresh;
  m.freerun = freerunCeiling(m.thresh, m.bgThresh);
  m.limit = hardDirtyLimit(m.thresh, c.dirtyLimit);
  m.setpoint = dirtySetpoint(m.freerun, m.limit);
  return m;
}

MemcgView Kernel::memcgView(int cg, const GlobalView& g, const Task* task) const {
  bool bonus = false;
  if (task != nullptr)
    bonus = (isRealTime(*task) && m_era.rtBonus != RtLimitBonus::None) ||
            (task->lessThrottle && m_era.lessThrottleBonus);
  return memcgViewFor(cg, g, bonus ? LimitBonus::RealTime : LimitBonus::None, true);
}

WbView Kernel::memcgWbView(int cg, int dev, const MemcgView& m) const {
  const CgroupState& c = m_cgroups[static_cast<std::size_t>(cg)];
  const CgroupWb& w = c.wbs[static_cast<std::size_t>(dev)];
  const DeviceConfig& dc = device(dev).device.config();
  std::int64_t num = 0, den = 1;
  c.completions.fraction(static_cast<std::size_t>(dev), m_now, num, den);
  int sumMin = 0;
  for (const auto& other : m_devices) sumMin += other->device.config().minRatio;
  WbView v = wbThresholds(WbThreshInputs{m.thresh, m.bgThresh, num, den, std::min(sumMin, 100),
                                         dc.minRatio, dc.maxRatio});
  v.wbDirty = w.reclaimable + w.writeback;
  return v;
}

Pages Kernel::cgroupWbDirty(int dev) const {
  if (m_cgroups.empty() || !m_era.memcg) return 0;
  Pages n = 0;
  for (const CgroupState& c : m_cgroups)
    if (c.writebackDomain) {
      const CgroupWb& w = c.wbs[static_cast<std::size_t>(dev)];
      n += w.reclaimable + w.writeback;
    }
  return n;
}

bool Kernel::memcgOverBackgroundThresh(int dev, const GlobalView& g) const {
  if (m_cgroups.empty() || !m_era.memcg) return false;
  for (std::size_t i = 0; i < m_cgroups.size(); ++i) {
    const CgroupState& c = m_cgroups[i];
    const CgroupWb& w = c.wbs[static_cast<std::size_t>(dev)];
    if (!c.writebackDomain || w.reclaimable <= 0) continue;
    const int cg = static_cast<int>(i);
    const MemcgView m = memcgViewFor(cg, g, LimitBonus::None, false);
    if (m.dirty > m.bgThresh) return true;
    MemcgView asBg = m;
    asBg.thresh = m.bgThresh;
    if (w.reclaimable > memcgWbView(cg, dev, asBg).wbThresh) return true;
  }
  return false;
}

void Kernel::memcgDirtied(const CachedFile& f, Pages n) {
  CgroupState& c = m_cgroups[static_cast<std::size_t>(f.cgroup)];
  CgroupWb& w = c.wbs[static_cast<std::size_t>(f.device())];
  c.dirty += n;
  c.dirtied += n;
  w.reclaimable += n;
  w.dirtied += n;
}

void Kernel::memcgWritebackStarted(const CachedFile& f, Pages n) {
  CgroupState& c = m_cgroups[static_cast<std::size_t>(f.cgroup)];
  CgroupWb& w = c.wbs[static_cast<std::size_t>(f.device())];
  c.dirty -= n;
  c.writeback += n;
  w.reclaimable -= n;
  w.writeback += n;
}

void Kernel::memcgWritebackDone(const CachedFile& f, Pages n, int dev) {
  CgroupState& c = m_cgroups[static_cast<std::size_t>(f.cgroup)];
  CgroupWb& w = c.wbs[static_cast<std::size_t>(dev)];
  c.writeback -= n;
  c.written += n;
  w.writeback -= n;
  w.written += n;
  c.completions.add(static_cast<std::size_t>(dev), n, m_now);
  // Reclaimers throttled on the cgroup's writeback go round again.
  for (const int id : c.waiters) {
    Task& t = task(id);
    if (!t.removed && t.memcgWaiting && t.state == TaskState::IoWait) wakeTaskNow(t);
  }
  c.waiters.clear();
}

void Kernel::fileEvicted(const CachedFile& f, Pages n) {
  CgroupState& c = m_cgroups[static_cast<std::size_t>(f.cgroup)];
  c.file -= n;
}

Pages Kernel::memcgReclaim(int cg, Pages target) {
  CgroupState& c = m_cgroups[static_cast<std::size_t>(cg)];
  Pages freed = 0;
  // The cgroup's own LRU: its files in the order they were created, each giving its clean
  // pages (the oldest first, as the global reclaim takes them).
  for (const int id : c.files) {
    if (freed >= target) break;
    CachedFile& f = m_files[static_cast<std::size_t>(id)];
    freed += f.evictClean(target - freed);
  }
  c.file -= freed;
  c.reclaimed += freed;
  m_mem.file -= freed;
  m_mem.free += freed;
  m_mem.pgsteal += freed;
  if (freed > 0) m_pages.wakeMemoryWaiters(*this);
  return freed;
}

bool Kernel::memcgOomKill(int cg) {
  const double total = static_cast<double>(m_mem.total + m_mem.swapTotal);
  Task* victim = selectOomVictim(taskTable(), total, cg);
  if (victim == nullptr) return false;
  ++m_mem.oomKills;
  ++m_cgroups[static_cast<std::size_t>(cg)].oomKills;
  // The timeline names the cgroup, as the kernel's "Memory cgroup out of memory: Killed
  // process" does; removeTask() adds the global OOM killer's event for a task already marked
  // killed, so the mark comes after it.
  addRunEvent(RunEvent::Kind::OomKill, "OOM killer in memory cgroup " +
                                           m_scenario.cgroups[static_cast<std::size_t>(cg)].name +
                                           ": " + victim->info.name + " (pid " +
                                           std::to_string(victim->info.pid) + ") killed");
  removeTask(*victim);
  victim->oomKilled = true;
  return true;
}

bool Kernel::memcgCharge(Task& t, Pages n) {
  const int cg = t.info.cgroup;
  if (cg < 0 || n <= 0 || !m_era.memcg) return true;
  CgroupState& c = m_cgroups[static_cast<std::size_t>(cg)];
  // memory.high: reclaim back under it, never fail (the kernel also delays the task; not
  // modelled).
  if (c.highPages > 0 && c.file + n > c.highPages)
    memcgReclaim(cg, c.file + n - c.highPages + kReclaimBatch);
  if (c.maxPages <= 0 || c.file + n <= c.maxPages) {
    t.reclaimNoProgress = 0;
    return true;
  }
  ++c.limitHits;
  const Pages freed = memcgReclaim(cg, c.file + n - c.maxPages + kReclaimBatch);
  if (c.file + n <= c.maxPages) {
    t.reclaimNoProgress = 0;
    return true;
  }
  // What is left is dirty or under writeback: have it written (the flushers of the devices
  // the cgroup has dirty pages on), and wait for it.
  for (std::size_t d = 0; d < c.wbs.size(); ++d)
    if (c.wbs[d].reclaimable > 0) startReclaimWriteback(static_cast<int>(d));
  // Progress is anything that will become reclaimable: pages under writeback or still dirty.
  const bool progress = freed > 0 || c.writeback > 0 || c.dirty > 0;
  t.reclaimNoProgress = progress ? 0 : t.reclaimNoProgress + 1;
  if (t.reclaimNoProgress > kMaxReclaimRetries) {
    t.reclaimNoProgress = 0;
    if (memcgOomKill(cg) && t.removed) return false;
  }
  if (t.removed) return false;
  t.allocWaiting = true;
  t.memcgWaiting = true;
  t.allocStart = m_now;
  ++t.allocStalls;
  c.waiters.push_back(t.info.index);
  sleepTask(t, kWritebackWait, TaskState::IoWait);
  return false;
}

std::vector<CgroupSample> Kernel::cgroupSamples() const {
  std::vector<CgroupSample> out(m_cgroups.size());
  if (m_cgroups.empty()) return out;
  const GlobalView g = globalViewFor(LimitBonus::None);
  for (std::size_t i = 0; i < m_cgroups.size(); ++i) {
    const CgroupState& c = m_cgroups[i];
    CgroupSample& s = out[i];
    s.filePages = c.file;
    s.dirtyPages = c.dirty;
    s.writebackPages = c.writeback;
    s.maxPages = c.maxPages;
    s.reclaimedPages = c.reclaimed;
    s.oomKills = c.oomKills;
    if (!m_era.memcg || !c.writebackDomain) continue;
    const MemcgView m = memcgViewFor(static_cast<int>(i), g, LimitBonus::None, true);
    s.availPages = m.avail;
    s.bgThreshPages = m.bgThresh;
    s.threshPages = m.thresh;
    s.freerunPages = m.freerun;
    s.setpointPages = m.setpoint;
    s.limitPages = m.limit;
    s.dirtyLimitPages = c.dirtyLimit;
    s.posRatio = c.lastPosRatio;
  }
  return out;
}

}  // namespace throttlelab::engine
