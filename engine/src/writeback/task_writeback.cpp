// SPDX-License-Identifier: GPL-3.0-or-later
// IO-ful throttling (docs/model.md, The IO-ful policies): a throttled dirtier writes back dirty
// pages of its device itself (writeback_inodes_wb() from balance_dirty_pages(), 2.6.32-3.1;
// writeback_inodes() and sync_sb_inodes() before), sleeping whenever no request slot is free.
// Many such writers interleave their inodes in the request queue: smaller merges, more seeks,
// and CPU spent spinning on the locks they share.
#include <algorithm>

#include "cost_model.h"
#include "device_state.h"
#include "flusher.h"

namespace throttlelab::engine {

void Flusher::startTaskWriteback(FlusherHost& host, Task& t, Pages pages) {
  t.writebackLeft = std::max<Pages>(pages, 0);
  t.writebackSubmitted = 0;
  t.writebackFile = -1;
  t.submitting = true;
  ++m_submitters;
  // queue_io(): every dirty inode goes onto b_io (here: when it has run empty).
  if (host.era().flusher != FlusherStyle::Pdflush && m_io.empty()) queueIo(host.now());
}

bool Flusher::continueTaskWriteback(FlusherHost& host, Task& t) {
  const bool pdflush = host.era().flusher == FlusherStyle::Pdflush;
  BlockDevice& device = host.device(m_device).device;
  while (t.writebackLeft > 0) {
    // The dirtier works from the same b_io list as the flusher, oldest inode first, so the
    // two take turns over the inodes. An inode under I_SYNC (someone else is writing it) goes
    // to b_more_io for a later pass (requeue_io()); once b_io is empty the call returns.
    // (pdflush era: the oldest dirty inode nobody is writing; that kernel's shared s_io list
    // is not modelled.)
    if (t.writebackFile < 0 || host.file(t.writebackFile).dirty() == 0) {
      if (t.writebackFile >= 0) setSyncOwner(host, host.file(t.writebackFile), -1);
      t.writebackFile = -1;
      if (pdflush) {
        if (m_dirtyUnowned.empty()) break;  // nothing left that nobody else is writing
        t.writebackFile = m_dirtyUnowned.begin()->second;
      } else {
        while (!m_io.empty() && t.writebackFile < 0) {
          const int file = m_io.front();
          m_io.pop_front();
          const CachedFile& f = host.file(file);
          if (f.dirty() > 0 && f.syncOwner < 0) t.writebackFile = file;
        }
        if (t.writebackFile < 0) break;  // b_io is empty
      }
      setSyncOwner(host, host.file(t.writebackFile), t.info.index);
    }
    const Pages accepted = writepages(host, t.writebackFile, t.writebackLeft, &t);
    t.writebackLeft -= accepted;
    t.writebackSubmitted += accepted;
    if (t.writebackLeft > 0 && accepted == 0 && device.full()) {
      // get_request_wait(): sleep until a request slot frees.
      t.state = TaskState::IoWait;
      device.waitForSlot(t.info.index);
      return false;
    }
    if (accepted == 0) break;
  }
  return true;
}

double Flusher::endTaskWriteback(FlusherHost& host, Task& t) {
  // The CPU cost of building and submitting the IO, with spinning on the shared locks for
  // every other task submitting to this device at the same time.
  const int others = std::min(m_submitters, host.cpus()) - 1;
  const double perPage = cost::writebackSubmitPerPageS(host.machine().writebackUsPerPage) +
                         cost::kSubmitLockHoldPerPageS * std::max(others, 0);
  const double sys = static_cast<double>(t.writebackSubmitted) * perPage;
  --m_submitters;
  t.submitting = false;
  t.lastWriteback = t.writebackSubmitted;
  if (t.writebackFile >= 0) setSyncOwner(host, host.file(t.writebackFile), -1);
  t.writebackFile = -1;
  return sys;
}

void Flusher::abandonTaskWriteback(FlusherHost& host, Task& t) {
  if (t.writebackFile >= 0) {
    CachedFile& f = host.file(t.writebackFile);
    host.device(f.device()).flusher.setSyncOwner(host, f, -1);
  }
  t.writebackFile = -1;
  if (t.submitting) --m_submitters;
  t.submitting = false;
  t.writebackLeft = 0;
}

}  // namespace throttlelab::engine
