// SPDX-License-Identifier: GPL-3.0-or-later
// IO-ful throttling (docs/model.md, The IO-ful policies): a throttled dirtier writes back dirty
// pages of its device itself, sleeping whenever no request slot is free, and waits in
// congestion_wait(). Many such writers interleave their inodes in the request queue: smaller
// merges, more seeks, and CPU spent spinning on the locks they share.
#include <algorithm>

#include "cost_model.h"
#include "kernel.h"

namespace throttlelab::engine {

void Kernel::startTaskWriteback(Task& t, Pages pages) {
  DeviceState& d = device(t.info.device);
  t.writebackLeft = std::max<Pages>(pages, 0);
  t.writebackSubmitted = 0;
  t.writebackFile = -1;
  t.submitting = true;
  ++d.submitters;
  // queue_io(): every dirty inode goes onto b_io (here: when it has run empty).
  if (m_era.flusher != FlusherStyle::Pdflush && d.flusher.io.empty()) queueIo(t.info.device, m_now);
  continueTaskWriteback(t);
}

void Kernel::continueTaskWriteback(Task& t) {
  const int dev = t.info.device;
  DeviceState& d = device(dev);
  while (t.writebackLeft > 0) {
    // writeback_inodes_wb() (2.6.32-3.1; writeback_inodes() and sync_sb_inodes() before):
    // the dirtier works from the same b_io list as the flusher, oldest inode first, so the
    // two take turns over the inodes. An inode under I_SYNC (someone else is writing it) goes
    // to b_more_io for a later pass (requeue_io()); once b_io is empty the call returns.
    // (pdflush era: the oldest dirty inode nobody is writing; that kernel's shared s_io list
    // is not modelled.)
    if (t.writebackFile < 0 || m_files[static_cast<std::size_t>(t.writebackFile)].dirty() == 0) {
      if (t.writebackFile >= 0)
        setSyncOwner(m_files[static_cast<std::size_t>(t.writebackFile)], -1);
      t.writebackFile = -1;
      if (m_era.flusher == FlusherStyle::Pdflush) {
        if (d.dirtyUnowned.empty()) break;  // nothing left that nobody else is writing
        t.writebackFile = d.dirtyUnowned.begin()->second;
      } else {
        std::deque<int>& io = d.flusher.io;
        while (!io.empty() && t.writebackFile < 0) {
          const int file = io.front();
          io.pop_front();
          const CachedFile& f = m_files[static_cast<std::size_t>(file)];
          if (f.dirty() > 0 && f.syncOwner < 0) t.writebackFile = file;
        }
        if (t.writebackFile < 0) break;  // b_io is empty
      }
      setSyncOwner(m_files[static_cast<std::size_t>(t.writebackFile)], t.info.index);
    }
    const Pages accepted = submitPages(dev, t.writebackFile, t.writebackLeft, &t);
    t.writebackLeft -= accepted;
    t.writebackSubmitted += accepted;
    if (t.writebackLeft > 0 && accepted == 0 && d.device.full()) {
      // get_request_wait(): sleep until a request slot frees.
      t.state = TaskState::IoWait;
      d.slotWaiters.push_back(t.info.index);
      return;
    }
    if (accepted == 0) break;
  }
  // Done: the CPU cost of building and submitting the IO, with spinning on the shared locks
  // for every other task submitting to this device at the same time.
  const int others = std::min(d.submitters, cpus()) - 1;
  const double perPage = cost::writebackSubmitPerPageS(m_scenario.machine.writebackUsPerPage) +
                         cost::kSubmitLockHoldPerPageS * std::max(others, 0);
  const double sys = static_cast<double>(t.writebackSubmitted) * perPage;
  --d.submitters;
  t.submitting = false;
  t.lastWriteback = t.writebackSubmitted;
  if (t.writebackFile >= 0) setSyncOwner(m_files[static_cast<std::size_t>(t.writebackFile)], -1);
  t.writebackFile = -1;
  runCpu(t, sys, 0, AfterCpu::Balance);
}

void Kernel::wakeSlotWaiter(int dev) {
  DeviceState& d = device(dev);
  while (!d.slotWaiters.empty() && !d.device.full()) {
    const int id = d.slotWaiters.front();
    d.slotWaiters.pop_front();
    ++d.slotWakeups;
    if (id == PageAllocator::kKswapdSlotWaiter) {
      m_pages.kswapdSlotFree(*this);
      continue;
    }
    if (id < 0) {
      if (d.flusher.blockedFile >= 0 && d.flusher.active) flusherRun(dev);
      continue;
    }
    Task& t = m_tasks[static_cast<std::size_t>(id)];
    if (t.removed || t.state != TaskState::IoWait || t.writebackLeft <= 0) continue;
    t.state = TaskState::Runnable;
    // ioc_batching: having waited, the task may allocate BLK_BATCH_REQ (32) requests within
    // BLK_BATCH_TIME (20 ms) without waiting again.
    t.batchRequests = 32;
    t.batchUntil = m_now + std::chrono::milliseconds(20);
    continueTaskWriteback(t);
  }
  journalLockProgress(dev);  // a writepage() holding a handle may have gone on
}

void Kernel::startCongestionWait(Task& t, SimDuration timeout) {
  // congestion_wait(): sleep until a queue leaves congestion, at most `timeout`.
  DeviceState& d = device(t.info.device);
  sleepTask(t, timeout, TaskState::Paused);
  if (d.device.congested()) d.congestionWaiters.push_back(t.info.index);
}

void Kernel::wakeCongestionWaiters(int dev) {
  DeviceState& d = device(dev);
  if (d.congestionWaiters.empty() || d.device.congested()) return;
  std::vector<int> waiters;
  waiters.swap(d.congestionWaiters);
  for (int id : waiters) {
    Task& t = m_tasks[static_cast<std::size_t>(id)];
    if (!t.removed && t.state == TaskState::Paused) wakeTaskNow(t);
  }
}

}  // namespace throttlelab::engine
