// SPDX-License-Identifier: GPL-3.0-or-later
// The dd writer: copy a piece of pages on a CPU, dirty them, check in with
// balance_dirty_pages() every nr_dirtied_pause pages, think between blocks, loop or exit.
#include <algorithm>

#include "kernel.h"

namespace throttlelab::engine {

namespace {
Pages blockPages(const TaskSpec& s) { return std::max<Pages>(1, s.blockKiB / 4); }
Pages filePages(const TaskSpec& s) { return std::max<Pages>(1, mibToPages(static_cast<double>(s.fileMiB))); }
}  // namespace

void Kernel::taskStart(Task& t) {
  t.startedS = toSeconds(m_now);
  t.state = TaskState::Runnable;
  beginRun(t);
}

void Kernel::beginRun(Task& t) {
  // Every dd invocation is a new process: fork() resets the throttle state.
  t.nrDirtied = 0;
  t.nrDirtiedPause = 32;
  t.dirtyPausedWhen = 0;
  t.balancePages = 0;
  const int dev = static_cast<int>(deviceIndexOf(m_scenario, t.spec));
  const Pages size = filePages(t.spec);
  const bool reuse = t.spec.loop && t.file >= 0 &&
                     m_files[static_cast<std::size_t>(t.file)].device() == dev &&
                     m_files[static_cast<std::size_t>(t.file)].size() == size;
  if (!reuse) {  // conv=notrunc keeps rewriting the same file; anything else is a new file
    t.file = static_cast<int>(m_files.size());
    m_files.emplace_back(t.file, dev, size);
  }
  t.info.device = dev;
  t.runLeft = size;
  t.blockLeft = blockPages(t.spec);
  t.runStart = m_now;
  continueWriting(t);
}

void Kernel::continueWriting(Task& t) {
  if (t.runLeft <= 0) {
    endRun(t);
    return;
  }
  const Pages ratelimit = m_policy->ratelimit(*this, t);
  Pages piece = std::max<Pages>(1, ratelimit - t.nrDirtied);
  piece = std::min(piece, t.runLeft);
  if (t.spec.thinkMs > 0) piece = std::min(piece, t.blockLeft);

  CachedFile& f = m_files[static_cast<std::size_t>(t.file)];
  const auto plan = f.planWrite(piece);
  if (!allocatePages(plan.allocated)) {
    // No free or clean page left: wait until writeback completes somewhere.
    t.state = TaskState::IoWait;
    m_memoryWaiters.push_back(t.info.index);
    return;
  }
  // The pages become dirty as the copy starts; the CPU time of the copy follows.
  const SimTime oldWhen = f.dirtiedWhen();
  const bool wasDirty = f.dirty() > 0;
  const auto res = f.write(piece, m_now);
  DeviceState& d = device(f.device());
  m_mem.nrDirty += res.newlyDirtied;
  m_mem.dirtied += res.newlyDirtied;
  d.reclaimable += res.newlyDirtied;
  d.dirtied += res.newlyDirtied;
  t.nrDirtied += res.newlyDirtied;
  recordDirtied(t, res.newlyDirtied);
  fileDirtiedWhenChanged(f, oldWhen, wasDirty);

  t.piece = piece;
  t.state = TaskState::Running;
  const double workS = static_cast<double>(piece * kPageBytes) / (t.spec.copyMBps * 1e6);
  const int rtPrio = t.info.sched == SchedClass::Other ? 0 : std::max(1, t.info.rtPriority);
  m_cpu.start(t.info.index, workS, rtPrio, t.info.nice, m_now);
}

void Kernel::recordDirtied(Task& t, Pages n) { t.dirtiedTotal += n; }

void Kernel::pieceDone(Task& t) {
  t.runLeft -= t.piece;
  if (t.spec.thinkMs > 0) t.blockLeft -= t.piece;
  t.piece = 0;
  t.state = TaskState::Runnable;
  // balance_dirty_pages_ratelimited(): check in once the quota is used up.
  if (t.nrDirtied >= m_policy->ratelimit(*this, t)) {
    callBalance(t, t.nrDirtied);
    return;
  }
  proceed(t);
}

void Kernel::proceed(Task& t) {
  if (t.spec.thinkMs > 0 && t.blockLeft <= 0 && t.runLeft > 0) {
    t.blockLeft = blockPages(t.spec);
    t.state = TaskState::Thinking;
    m_queue.push(m_now + millis(t.spec.thinkMs), EventKind::TaskWake, t.info.index, t.generation);
    return;
  }
  continueWriting(t);
}

void Kernel::callBalance(Task& t, Pages pages) {
  const BalanceOutcome out = m_policy->balance(*this, t, pages);
  if (out.action == BalanceOutcome::Action::Run || out.sleep.count() <= 0) {
    proceed(t);
    return;
  }
  const double ms = toMs(out.sleep);
  recordPause(t, ms);
  t.pausedS += ms / 1000.0;
  t.state = TaskState::Paused;
  m_queue.push(m_now + out.sleep, EventKind::TaskWake, t.info.index, t.generation);
}

void Kernel::taskWake(Task& t) {
  switch (t.state) {
    case TaskState::Paused:
      t.state = TaskState::Runnable;
      if (t.balancePages > 0)
        callBalance(t, t.balancePages);  // still over the limit: the loop goes round again
      else
        proceed(t);
      break;
    case TaskState::Thinking:
      t.state = TaskState::Runnable;
      continueWriting(t);
      break;
    default:
      break;
  }
}

void Kernel::endRun(Task& t) {
  ++t.runs;
  t.lastRunS = toSeconds(m_now - t.runStart);
  if (t.spec.loop) {
    beginRun(t);
    return;
  }
  t.state = TaskState::Exited;
  t.exitedS = toSeconds(m_now);
}

bool Kernel::allocatePages(Pages n) {
  if (n <= 0) return true;
  // kswapd (instantaneous in this model): below the low watermark, reclaim clean cache up to
  // the high watermark.
  if (m_mem.free - n < m_mem.wmarkLow) reclaimClean(m_mem.wmarkHigh + n - m_mem.free, -1);
  if (m_mem.free - n < m_mem.wmarkMin) return false;
  m_mem.free -= n;
  m_mem.file += n;
  return true;
}

void Kernel::reclaimClean(Pages target, int excludeFile) {
  const Pages clean = m_mem.file - m_mem.nrDirty - m_mem.nrWriteback;
  if (clean <= 0 || target <= 0 || m_files.empty()) return;
  Pages freed = 0;
  // Sweep the files round-robin from where the last reclaim stopped: an approximation of the
  // inactive file LRU that needs no per-page state.
  for (std::size_t n = 0; n < m_files.size() && freed < target; ++n) {
    m_reclaimCursor = (m_reclaimCursor + 1) % m_files.size();
    CachedFile& f = m_files[m_reclaimCursor];
    if (f.id() == excludeFile) continue;
    freed += f.evictClean(target - freed);
  }
  m_mem.file -= freed;
  m_mem.free += freed;
}

void Kernel::wakeMemoryWaiters() {
  if (m_memoryWaiters.empty()) return;
  std::vector<int> waiters;
  waiters.swap(m_memoryWaiters);
  for (int id : waiters) {
    Task& t = m_tasks[static_cast<std::size_t>(id)];
    if (!t.removed && t.state == TaskState::IoWait) continueWriting(t);
  }
}

void Kernel::recordPause(Task& t, double ms) {
  t.pauses.add(ms);
  m_allPauses.add(ms);
  m_intervalPauses.push_back(ms);
  t.intervalMaxPauseMs = std::max(t.intervalMaxPauseMs, ms);
  // Keep the four largest pauses of the interval, one slot per task.
  auto& top = m_intervalTop;
  for (auto& slot : top) {
    if (slot.task == t.info.index) {
      slot.pauseMs = std::max(slot.pauseMs, ms);
      std::sort(top.begin(), top.end(), [](const TopPause& a, const TopPause& b) { return a.pauseMs > b.pauseMs; });
      return;
    }
  }
  if (top.back().task < 0 || ms > top.back().pauseMs) {
    top.back() = TopPause{t.info.index, ms};
    std::sort(top.begin(), top.end(), [](const TopPause& a, const TopPause& b) { return a.pauseMs > b.pauseMs; });
  }
}

}  // namespace throttlelab::engine
