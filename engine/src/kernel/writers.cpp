// SPDX-License-Identifier: GPL-3.0-or-later
// The dd writer: copy a piece of pages (whole folios on 6.x) on a CPU, dirty them, check in
// with balance_dirty_pages() every nr_dirtied_pause pages (at the next folio boundary), think
// between blocks, loop or exit.
#include "writers.h"

#include <algorithm>

#include "cost_model.h"
#include "heap_bytes.h"
#include "kernel_math.h"

namespace throttlelab::engine {

namespace {
// The largest piece a writer copies between two looks at the state: pages become dirty when
// their piece is copied, so others see a copying task's pages at most this late. It matters
// only where nothing else cuts the copy short (a real-time writer that is never throttled,
// a very large nr_dirtied_pause); the kernel itself dirties page by page.
constexpr Pages kMaxCopyPiece = 256;
Pages blockPages(const TaskSpec& s) {
  return std::max<Pages>(1, s.blockKiB / 4);
}
Pages filePages(const TaskSpec& s) {
  return std::max<Pages>(1, static_cast<Pages>(static_cast<double>(s.fileMiB) * kPagesPerMiB));
}
}  // namespace

void Writers::taskAdded(int index, bool fresh) {
  if (fresh) {
    m_explains.emplace_back();
    m_passes.emplace_back();
    return;
  }
  m_explains[static_cast<std::size_t>(index)] = ThrottleExplain{};
  m_passes[static_cast<std::size_t>(index)] = IolessPass{};
}

void Writers::policyChanging(std::span<const Task> tasks, std::string_view policy) {
  for (std::size_t i = 0; i < m_passes.size(); ++i) {
    if (!m_passes[i].set) continue;
    m_explains[i] = lastExplain(tasks[i], policy, GlobalView{});  // a pass is a call
    m_passes[i] = IolessPass{};
  }
}

void Writers::beginRun(WritersHost& host, Task& t) {
  // Every dd invocation is a new process: fork() resets the throttle state; the last one's
  // unthrottled pages went to dirty_throttle_leaks at its exit (3.2+).
  if (hasBdpSafetyNet(host.era())) host.cpu().perCpuDirty(cpuOf(host, t)).leaks += t.nrDirtied;
  t.nrDirtied = 0;
  t.nrDirtiedPause = 32;
  t.dirtyPausedWhen = 0;
  t.balancePages = 0;
  const int dev = static_cast<int>(deviceIndexOf(host.scenario(), t.spec));
  const Pages size = filePages(t.spec);
  const bool reuse = (t.spec.loop || t.seededPages > 0) && t.info.kind == TaskKind::Writer &&
                     t.file >= 0 && host.file(t.file).device() == dev &&
                     host.file(t.file).size() == size;
  if (!reuse) {  // conv=notrunc keeps rewriting the same file; anything else is a new file
    t.file = host.addFile(dev, size);
    t.mtimeTick = -1;
    // Its pages are charged to the writer's memory cgroup.
    if (t.info.cgroup >= 0) {
      host.file(t.file).cgroup = t.info.cgroup;
      host.memcgAddFile(t.info.cgroup, t.file);
    }
  }
  t.info.device = dev;
  t.runLeft = size - t.seededPages;  // the pages the run wrote before the start are behind it
  t.seededPages = 0;
  t.blockLeft = blockPages(t.spec);
  if (t.info.kind == TaskKind::Writer) t.runStart = host.now();
  t.readDoneThisRun = false;
  t.fsyncDone = false;
  if (startRead(host, t)) return;  // an uncached read first (writer_fs.cpp)
  continueWriting(host, t);
}

void Writers::seedInitialPages(WritersHost& host) {
  // The page cache of a run that begins in the middle of writing (docs/model.md, Eq. 68): the
  // writers that start at once have each written a share of their first run, which is dirty
  // (and partly under writeback) and accounted where the thresholds read it: NR_FILE_DIRTY /
  // NR_WRITEBACK, the wb's WB_RECLAIMABLE / WB_WRITEBACK, the inode on the wb's dirty list.
  // Writers in a memory cgroup are left out (their domain would need its own share).
  const MachineConfig& mc = host.scenario().machine;
  if (mc.initialDirtyPages + mc.initialWritebackPages <= 0) return;
  const std::span<Task> tasks = host.taskTable();
  std::vector<int> writers;
  for (const Task& t : tasks)
    if (t.info.kind == TaskKind::Writer && t.spec.startS == 0 && t.info.cgroup < 0)
      writers.push_back(t.info.index);
  if (writers.empty()) return;
  // Never more than half of free memory: the rest is the machine's to run with.
  Memory& mem = host.nodeCounters();
  const Pages room = mem.free / 2;
  const Pages wanted = std::min(room, mc.initialDirtyPages + mc.initialWritebackPages);
  const Pages wbWanted = std::min(wanted, mc.initialWritebackPages);
  const auto n = static_cast<Pages>(writers.size());
  std::vector<Pages> wbShare(writers.size());
  for (std::size_t i = 0; i < writers.size(); ++i) {
    Task& t = tasks[static_cast<std::size_t>(writers[i])];
    const auto in = static_cast<Pages>(i);
    const Pages size = filePages(t.spec);
    const Pages share = std::min(size - 1, wanted / n + (in < wanted % n ? 1 : 0));
    wbShare[i] = std::min(share, wbWanted / n + (in < wbWanted % n ? 1 : 0));
    if (share <= 0) continue;
    const int dev = static_cast<int>(deviceIndexOf(host.scenario(), t.spec));
    t.file = host.addFile(dev, size);
    t.mtimeTick = -1;
    t.seededPages = share;
    CachedFile& f = host.file(t.file);
    f.beginCopy(share);
    f.endCopy(host.now());
    mem.free -= share;
    mem.file += share;
    mem.nrDirty += share;
    mem.dirtied += share;
    DeviceState& d = host.device(dev);
    d.reclaimable += share;
    d.dirtied += share;
    // Dirtied before the run: not part of the first dirty-rate estimate.
    d.bw.dirtiedStamp += share;
    d.flusher.inodeDirtiedWhenChanged(f, SimTime{}, false);
  }
  for (std::size_t i = 0; i < writers.size(); ++i) {
    const Task& t = tasks[static_cast<std::size_t>(writers[i])];
    if (wbShare[i] > 0) host.writepages(host.file(t.file).device(), t.file, wbShare[i]);
  }
  // Less than the scenario asked for is said, not left for the plots to show.
  Pages seeded = 0;
  for (const int w : writers) seeded += tasks[static_cast<std::size_t>(w)].seededPages;
  if (const Pages asked = mc.initialDirtyPages + mc.initialWritebackPages; seeded < asked)
    host.addRunEvent(RunEvent::Kind::Adjusted,
                     "machine.initialDirtyPages + initialWritebackPages " + std::to_string(asked) +
                         " → " + std::to_string(seeded) +
                         " pages: the run starts with at most half the free memory (" +
                         std::to_string(room) + " pages) and less than each writer's file");
}

Pages Writers::pieceSize(WritersHost& host, Task& t) {
  const KernelEra& era = host.era();
  CpuScheduler& cpu = host.cpu();
  const Pages ratelimit = host.ratelimit(t);
  if (hasBdpSafetyNet(era)) takeThrottleLeaks(host, t, ratelimit);
  Pages piece = std::max<Pages>(1, ratelimit - t.nrDirtied);
  if (hasBdpSafetyNet(era)) {
    // 3.2+: the kernel looks at the CPU's bdp_ratelimits at every folio, so the piece ends
    // where this CPU reaches ratelimit_pages (checkInDue()).
    const Pages cpuLeft = m_bdpRatelimitPages - cpu.perCpuDirty(cpuOf(host, t)).dirtied;
    piece = std::min(piece, std::max<Pages>(1, cpuLeft));
  }
  if (era.perCpuRatelimit) {
    // <= 3.1: generic_perform_write() calls balance_dirty_pages_ratelimited() for every page
    // it copies, which adds to this CPU's bdp_ratelimits; whichever task brings the CPU's
    // count to the ratelimit checks in. The writers copying on one CPU advance together, so
    // this one copies its share of what the CPU has left before the check.
    const CpuScheduler::PerCpuDirty& c = cpu.perCpuDirty(cpuOf(host, t));
    const Pages left = std::max<Pages>(1, ratelimit - c.dirtied);
    const Pages n = c.copiers + 1;
    piece = (left + n - 1) / n;
  }
  Pages cap = kMaxCopyPiece;
  if (const int order = maxFolioOrder(host); order > 0 && blockPages(t.spec) > 1) {
    // generic_perform_write() / iomap_write_iter() (6.x): the write goes into the cache folio
    // by folio (Eq. 51), marking each dirty as a whole and calling
    // balance_dirty_pages_ratelimited() between two folios. The check-in therefore comes at
    // the first folio boundary at or past the quota: nr_dirtied overshoots nr_dirtied_pause by
    // up to a folio less a page.
    // A folio that is not in the cache yet is allocated at the largest order the allocator
    // gives without reclaim, down to a single page (Eq. 70); the writer's pages that are not
    // resident come first.
    const Pages bp = blockPages(t.spec);
    const Pages toAllocate = host.file(t.file).notResident();
    std::int64_t index = filePages(t.spec) - t.runLeft;
    Pages whole = 0;
    while (whole < piece && whole < t.runLeft) {
      const Pages inWrite = std::min<Pages>(bp - index % bp, t.runLeft - whole);
      Pages folio = writeFolioPages(index, inWrite, order);
      if (whole < toAllocate && folio > 1)
        folio = host.folioWithoutReclaim(t, folio, std::min(whole, toAllocate));
      if (whole > 0 && whole + folio > kMaxCopyPiece) break;
      whole += folio;
      index += folio;
    }
    piece = whole;
    cap = std::max(cap, whole);  // one folio is copied whole, even one above the cap
  }
  piece = std::min({piece, t.runLeft, cap});
  if (t.spec.thinkMs > 0) piece = std::min(piece, t.blockLeft);
  return piece;
}

void Writers::continueWriting(WritersHost& host, Task& t) {
  if (t.runLeft <= 0) {
    endRun(host, t);
    return;
  }
  Pages piece = pieceSize(host, t);
  // generic_perform_write() locks a page-cache page as its copy reaches it: a task waiting
  // for a CPU holds none. When it would have to wait, it waits first and copies its first page
  // then, and takes the pages for the rest once it runs.
  const double pageS = static_cast<double>(kPageBytes) / (t.spec.copyMBps * 1e6);
  if (!t.holdsCpu && !t.firstPageCopied &&
      !host.cpu().wouldRunAt(t.info.index, rtPriorityOf(t), host.now())) {
    if (t.info.kind == TaskKind::Writer)
      host.runCpu(t, pageS, 0, AfterCpu::CopyBegin);
    else
      host.runCpu(t, 0.25 * pageS, 0.75 * pageS, AfterCpu::CopyBegin);
    return;
  }
  t.holdsCpu = false;
  if (writeHandleWaits(host, t)) return;  // journalWaitDone() calls us again

  CachedFile& f = host.file(t.file);
  const auto plan = f.planWrite(piece);
  // A memory cgroup at its limit reclaims inside itself first, or makes the task wait.
  if (plan.allocated > 0 && f.cgroup >= 0 && !host.memcgCharge(t, plan.allocated)) return;
  if (plan.allocated > 0) {
    const Pages got = host.allocatePages(t, plan.allocated);
    if (got == 0) return;  // waiting in the allocator; it calls us again
    // Short of memory the piece is what could be allocated: the pages needing a new
    // page-cache page come first, so a piece of `got` pages needs exactly `got`.
    if (got < plan.allocated) piece = got;
  }
  // write_begin: the page-cache pages are allocated and locked; they become dirty in
  // pieceDone(), once the CPU has copied into them, so no task dirties faster than its share
  // of a CPU copies.
  const auto res = f.beginCopy(piece);
  Memory& mem = host.nodeCounters();
  mem.file += res.allocated;
  mem.copying += res.newlyDirtied;
  if (f.cgroup >= 0) host.memcgCached(f, res.allocated);
  t.piece = piece;
  // dd's copy (read from /dev/zero, write() into the cache) is kernel time: see cost_model.h.
  const double copyS = static_cast<double>(piece - (t.firstPageCopied ? 1 : 0)) * pageS;
  t.firstPageCopied = false;
  if (host.era().perCpuRatelimit) {
    t.copying = true;
    ++host.cpu().perCpuDirty(cpuOf(host, t)).copiers;
  }
  if (t.info.kind == TaskKind::Writer)
    host.runCpu(t, copyS, 0, AfterCpu::Write);
  else
    host.runCpu(t, 0.25 * copyS, 0.75 * copyS,
                AfterCpu::Write);  // a compiler's write(): mostly its own formatting
}

int Writers::maxFolioOrder(WritersHost& host) const {
  const KernelEra& era = host.era();
  if (era.perCpuRatelimit) return 0;
  const int key = host.scenario().machine.maxFolioOrder;
  return key >= 0 ? key : era.maxFolioOrder;
}

void Writers::endCopy(WritersHost& host, Task& t) {
  // write_end: the copied pages are dirty now (those that were not already).
  CachedFile& f = host.file(t.file);
  const SimTime oldWhen = f.dirtiedWhen();
  const bool wasDirty = f.dirty() > 0;
  const Pages newlyDirtied = f.endCopy(host.now());
  Memory& mem = host.nodeCounters();
  mem.copying -= newlyDirtied;
  DeviceState& d = host.device(f.device());
  mem.nrDirty += newlyDirtied;
  mem.dirtied += newlyDirtied;
  d.reclaimable += newlyDirtied;
  d.dirtied += newlyDirtied;
  if (f.cgroup >= 0) host.memcgDirtied(f, newlyDirtied);
  t.nrDirtied += newlyDirtied;
  // folio_account_dirtied() 3.2+: the CPU's bdp_ratelimits counts every page dirtied on it.
  if (hasBdpSafetyNet(host.era())) host.cpu().perCpuDirty(cpuOf(host, t)).dirtied += newlyDirtied;
  recordDirtied(host, t, newlyDirtied);
  d.flusher.inodeDirtiedWhenChanged(f, oldWhen, wasDirty);
}

void Writers::recordDirtied(WritersHost& host, Task& t, Pages n) {
  t.dirtiedTotal += n;
  if (n <= 0) return;
  // 2.6.24 task proportions (docs/model.md, Eq. 15): periods of 2^(2 + ilog2(thresh - 1)) dirtied
  // pages.
  const Pages thresh = std::max<Pages>(2, host.globalView(nullptr, false).thresh);
  const int shift = 2 + ilog2(static_cast<std::uint64_t>(thresh - 1));
  const std::int64_t period = m_taskPropEvents >> shift;
  // A shrinking thresh can move the period index back; only ever age forwards.
  const auto age = [](std::int64_t v, std::int64_t periods) {
    return periods <= 0 ? v : periods >= 63 ? 0 : v >> periods;
  };
  m_taskPropGlobal = age(m_taskPropGlobal, period - m_taskPropPeriod);
  m_taskPropPeriod = std::max(m_taskPropPeriod, period);
  t.propCount = age(t.propCount, period - t.propPeriod);
  t.propPeriod = std::max(t.propPeriod, period);
  t.propCount += n;
  m_taskPropGlobal += n;
  m_taskPropEvents += n;
}

double Writers::taskDirtyShare(const Task& t) const {
  // Floating proportion over tasks (2.6.24 "proportions", counted in events): a task's
  // dirtied pages age by half every period of 2^shift pages, shift = 2 + ilog2(thresh).
  if (m_taskPropGlobal <= 0) return 0;
  const std::int64_t period = m_taskPropPeriod;
  const auto age = [period](std::int64_t v, std::int64_t since) {
    const std::int64_t d = period - since;
    return d <= 0 ? v : d >= 63 ? 0 : v >> d;
  };
  const std::int64_t mine = age(t.propCount, t.propPeriod);
  return std::min(1.0, static_cast<double>(mine) / static_cast<double>(m_taskPropGlobal));
}

void Writers::stopCopying(WritersHost& host, Task& t) {
  if (!t.copying) return;
  t.copying = false;
  --host.cpu().perCpuDirty(cpuOf(host, t)).copiers;
}

void Writers::pieceDone(WritersHost& host, Task& t) {
  endCopy(host, t);
  const Pages copied = t.piece;
  t.runLeft -= t.piece;
  if (t.spec.thinkMs > 0) t.blockLeft -= t.piece;
  t.piece = 0;
  t.state = TaskState::Runnable;
  if (host.era().perCpuRatelimit) {
    stopCopying(host, t);
    // balance_dirty_pages_ratelimited_nr() (<= 3.1): the CPU's count, not the task's; once it
    // reaches the ratelimit it starts again from zero and this task calls balance_dirty_pages()
    // with write_chunk = sync_writeback_pages(count).
    Pages& count = host.cpu().perCpuDirty(cpuOf(host, t)).dirtied;
    count += copied;
    t.nrDirtied = 0;
    if (count >= host.ratelimit(t)) {
      const Pages n = count;
      count = 0;
      enterBalance(host, t, n);
      return;
    }
    proceed(host, t);
    return;
  }
  // balance_dirty_pages_ratelimited(): check in once the quota is used up (3.2+: or the CPU's).
  if (hasBdpSafetyNet(host.era()) ? checkInDue(host, t) : t.nrDirtied >= host.ratelimit(t)) {
    enterBalance(host, t, t.nrDirtied);
    return;
  }
  proceed(host, t);
}

bool Writers::hasBdpSafetyNet(const KernelEra& era) {
  // The per-task quota of 3.2+ came with bdp_ratelimits and dirty_throttle_leaks beside it
  // (the IO-less policies and `none`); the 2.6.0 policies count per task without either.
  return era.followDirtyLimit && !era.perCpuRatelimit;
}

void Writers::setBdpRatelimitPages(WritersHost& host) {
  // writeback_set_ratelimit() 3.2+ (6.18 unchanged): dirty_thresh / (online CPUs x 32), at
  // least 16 pages.
  const Pages thresh = host.globalView(nullptr, false).thresh;
  m_bdpRatelimitPages = std::max<Pages>(16, thresh / (std::max(1, host.cpus()) * 32));
}

bool Writers::checkInDue(WritersHost& host, Task& t) {
  // balance_dirty_pages_ratelimited_flags() (3.2+, 6.18): the task checks in once its own
  // quota is used up, which starts its CPU's count afresh. Otherwise a CPU on which tasks
  // together dirtied ratelimit_pages since then sends this one in anyway: 1000 tasks that all
  // start at once each honour their first, too large, nr_dirtied_pause.
  Pages ratelimit = host.ratelimit(t);
  CpuScheduler::PerCpuDirty& c = host.cpu().perCpuDirty(cpuOf(host, t));
  if (t.nrDirtied >= ratelimit) {
    c.dirtied = 0;
  } else if (c.dirtied >= m_bdpRatelimitPages) {
    c.dirtied = 0;
    ratelimit = 0;
  }
  takeThrottleLeaks(host, t, ratelimit);
  return t.nrDirtied >= ratelimit;
}

void Writers::takeThrottleLeaks(WritersHost& host, Task& t, Pages ratelimit) {
  // Pages dirtied by tasks that exited before their check-in are charged to a running one on
  // the same CPU, up to its quota, so short-lived writers cannot escape the throttle.
  Pages& leaks = host.cpu().perCpuDirty(cpuOf(host, t)).leaks;
  if (leaks <= 0 || t.nrDirtied >= ratelimit) return;
  const Pages take = std::min(leaks, ratelimit - t.nrDirtied);
  leaks -= take;
  t.nrDirtied += take;
}

void Writers::proceed(WritersHost& host, Task& t) {
  if (t.spec.thinkMs > 0 && t.blockLeft <= 0 && t.runLeft > 0) {
    t.blockLeft = blockPages(t.spec);
    host.sleepTask(t, millis(t.spec.thinkMs), TaskState::Thinking);
    return;
  }
  continueWriting(host, t);
}

void Writers::enterBalance(WritersHost& host, Task& t, Pages pages) {
  // A new balance_dirty_pages() call: the loop of the IO-ful policies starts from its top.
  t.balancePhase = 0;
  t.balanceWritten = 0;
  t.balanceBackoff = 0;
  t.balanceBlocked = false;
  t.balanceCallStart = host.now();
  t.balancePages = 0;
  callBalance(host, t, pages);
}

void Writers::callBalance(WritersHost& host, Task& t, Pages pages) {
  t.owedSystemS += cost::kThrottleCallS;  // taken with the next piece of CPU work
  const BalanceOutcome out = host.balance(t, pages);
  using A = BalanceOutcome::Action;
  const bool positionControl = host.positionControl();
  if (positionControl) {
    if (IolessPass& p = pass(t.info.index); p.set && p.time == host.now())
      p.nextDirtiedPause = t.nrDirtiedPause;
  } else {
    explainLoopStep(host, t, out);
  }
  switch (out.action) {
    case A::Run:
      balanceDone(host, t);
      return;
    case A::Sleep:
      if (out.sleep.count() <= 0) {
        balanceDone(host, t);
        return;
      }
      // Policies with position control report each sleep, as their tracepoint does; for the
      // IO-ful ones the delay is the whole call (recorded by balanceDone).
      if (positionControl)
        recordPause(host, t, toMs(out.sleep));
      else
        t.balanceBlocked = true;
      t.balancePages = out.recheck ? pages : 0;
      t.pausedS += toSeconds(out.sleep);
      host.sleepTask(t, out.sleep, TaskState::Paused);
      return;
    case A::Writeback:
      t.balanceBlocked = true;
      t.balancePages = pages;
      host.taskWriteback(t, out.writebackPages);
      return;
    case A::CongestionWait:
      t.balanceBlocked = true;
      t.balancePages = pages;
      host.congestionWait(t, out.sleep);
      return;
  }
}

void Writers::setExplainPolicy(ThrottleExplain& e, std::string_view name) {
  const std::size_t n = std::min(name.size(), e.policy.size() - 1);
  std::copy_n(name.data(), n, e.policy.data());
  e.policy[n] = '\0';
}

SimTime Writers::lastExplainTime(int index) const {
  const auto i = static_cast<std::size_t>(index);
  return m_passes[i].set ? m_passes[i].time : m_explains[i].time;
}

ThrottleExplain Writers::lastExplain(const Task& t, std::string_view policy,
                                     const GlobalView& now) const {
  const int index = t.info.index;
  const auto i = static_cast<std::size_t>(index);
  ThrottleExplain e = m_passes.at(i).set ? explainFromPass(m_passes[i]) : m_explains.at(i);
  if (m_passes[i].set) {
    e.task = index;
    e.pid = t.info.pid;
    setExplainPolicy(e, policy);
  }
  if (e.kind == ThrottleExplain::Kind::None) {
    // No call to explain: what the task has done and where dirty stands for it now, so the
    // breakdown can say why (not started, no check yet, or every check found no need to wait).
    e.task = index;
    e.pid = t.info.pid;
    e.realTime = isRealTime(t);
    setExplainPolicy(e, policy);
    e.startedS = t.startedS;
    e.lastCallS = t.balanceCallStart > SimTime{} ? toSeconds(t.balanceCallStart) : -1;
    e.dirtiedTotal = t.dirtiedTotal;
    e.pagesDirtied = t.nrDirtied;
    e.dirtiedPause = t.nrDirtiedPause;
    e.dirty = now.dirty;
    e.thresh = now.thresh;
    e.bgThresh = now.bgThresh;
    e.freerun = now.freerun;
  }
  e.journalWaitS = t.journalWaitS;
  e.journalWaits = t.journalWaits;
  e.writeHandleWaitS = t.writeHandleWaitS;
  e.readWaitS = t.readWaitS;
  e.readMaxMs = t.readLatency.max();
  return e;
}

void Writers::explainLoopStep(WritersHost& host, Task& t, const BalanceOutcome& out) {
  using A = BalanceOutcome::Action;
  ThrottleExplain& e = m_explains[static_cast<std::size_t>(t.info.index)];
  // A call is kept from its first step on unless it leaves at once: the last call that wrote
  // back or waited stays the one to explain.
  const bool thisCall = e.kind == ThrottleExplain::Kind::IoFul && e.time == t.balanceCallStart;
  if (!thisCall) {
    if (out.action == A::Run || (out.action == A::Sleep && out.sleep.count() <= 0)) return;
    e = ThrottleExplain{};
    e.kind = ThrottleExplain::Kind::IoFul;
    e.time = t.balanceCallStart;
    e.task = t.info.index;
    e.pid = t.info.pid;
    e.realTime = isRealTime(t);
    setExplainPolicy(e, host.policyName());
  } else if (LoopStep* last = e.lastStep(); last && last->kind == LoopStep::Kind::Writeback) {
    last->pages = t.lastWriteback;  // what it did write, not what it was asked to
    e.writtenByTask += t.lastWriteback;
  }
  const double now = toSeconds(host.now());
  if (out.hasCheck) {
    LoopStep c = out.check;
    c.timeS = now;
    e.addStep(c);
  }
  LoopStep s;
  s.timeS = now;
  switch (out.action) {
    case A::Run:
      s.kind = LoopStep::Kind::Leave;
      break;
    case A::Sleep:
      s.kind = out.sleep.count() > 0 ? LoopStep::Kind::Sleep : LoopStep::Kind::Leave;
      s.ms = toMs(out.sleep);
      break;
    case A::Writeback:
      s.kind = LoopStep::Kind::Writeback;
      s.pages = out.writebackPages;
      break;
    case A::CongestionWait:
      s.kind = LoopStep::Kind::CongestionWait;
      s.ms = toMs(out.sleep);
      break;
  }
  e.addStep(s);
  if (s.kind == LoopStep::Kind::Leave) {
    e.callMs = toMs(host.now() - t.balanceCallStart);
    e.finished = true;
  }
}

void Writers::balanceDone(WritersHost& host, Task& t) {
  // Under IO-ful policies (or an over-limit loop) the delay is the whole time spent in
  // balance_dirty_pages(): writing back and waiting.
  if (t.balanceBlocked) {
    const double ms = toMs(host.now() - t.balanceCallStart);
    recordPause(host, t, ms);
    if (ThrottleExplain& e = m_explains[static_cast<std::size_t>(t.info.index)];
        e.kind == ThrottleExplain::Kind::IoFul && e.time == t.balanceCallStart) {
      e.callMs = ms;
      e.finished = true;
    }
    t.balanceBlocked = false;
  }
  t.balancePages = 0;
  proceed(host, t);
}

void Writers::pauseEnded(WritersHost& host, Task& t) {
  t.state = TaskState::Runnable;
  if (t.balancePages > 0)
    callBalance(host, t, t.balancePages);  // the balance() loop goes round again
  else if (t.balanceBlocked)
    balanceDone(host, t);
  else
    proceed(host, t);
}

void Writers::endRun(WritersHost& host, Task& t) {
  if (t.info.kind != TaskKind::Writer) {
    host.anonWriteDone(t);
    return;
  }
  if (startFsync(host, t)) return;  // it comes back here when the commit is done
  ++t.runs;
  t.lastRunS = toSeconds(host.now() - t.runStart);
  if (t.spec.loop && (t.spec.runs == 0 || t.runs < t.spec.runs)) {
    beginRun(host, t);
    return;
  }
  // do_exit() 3.2+: pages the task dirtied since its last check-in go to dirty_throttle_leaks.
  if (hasBdpSafetyNet(host.era())) host.cpu().perCpuDirty(cpuOf(host, t)).leaks += t.nrDirtied;
  host.noteTaskExiting(t);
  t.state = TaskState::Exited;
  t.exitedS = toSeconds(host.now());
}

void Writers::recordPause(WritersHost& host, Task& t, double ms) {
  t.pauses.add(ms);
  t.intervalMaxPauseMs = std::max(t.intervalMaxPauseMs, ms);
  host.pauseEnded(t.info.index, ms);
}

std::size_t Writers::heapBytes() const {
  return heap::of(m_explains) + heap::of(m_passes);
}

}  // namespace throttlelab::engine
