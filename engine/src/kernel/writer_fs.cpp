// SPDX-License-Identifier: GPL-3.0-or-later
// A writer's calls into its file system (docs/model.md, The file system): the uncached read
// before a run and the atime update after it, the journal handle a write() starts, and
// fsync() at the end of a run. The journal itself is fs/journal.cpp; here is the task's side
// of each wait in it.
#include <algorithm>

#include "writers.h"

namespace throttlelab::engine {

bool Writers::startRead(WritersHost& host, Task& t) {
  if (t.spec.readKiB <= 0 || t.readDoneThisRun) return false;
  const int dev = t.info.device;
  if (t.readInode < 0) t.readInode = -1000 - t.info.index;  // an inode of its own
  t.readLeft = std::max<Pages>(1, t.spec.readKiB / 4);
  t.readLba = FileSystem::readBase(t.info.index);
  t.readStart = host.now();
  t.fsWait = Task::FsWait::Read;
  t.state = TaskState::IoWait;
  t.holdsCpu = false;
  submitReadahead(host, t, dev);
  return true;
}

void Writers::submitReadahead(WritersHost& host, Task& t, int dev) {
  // A sync read fault or read() reads one readahead window (VM_MAX_READAHEAD, 128 KiB in 2.6)
  // and waits for it before the next.
  constexpr Pages kReadahead = 32;
  const Pages n = std::min(t.readLeft, kReadahead);
  host.device(dev).device.submitOther(kReadFile, t.readLba, n, true, t.info.index, host.now());
  t.readLba += n;
  t.readLeft -= n;
  host.scheduleDevice(dev);
}

void Writers::readIoDone(WritersHost& host, Task& t) {
  if (t.removed || t.fsWait != Task::FsWait::Read) return;
  if (t.readLeft > 0) {
    submitReadahead(host, t, t.info.device);
    return;
  }
  const SimTime now = host.now();
  const double ms = toSeconds(now - t.readStart) * 1e3;
  t.readLatency.add(ms);
  t.readWaitS += ms / 1e3;
  t.fsWait = Task::FsWait::None;
  // The read is done: touch_atime(). Unless noatime (or relatime says no), the inode is
  // dirtied: ext3_dirty_inode() starts a handle and asks for write access to the inode's
  // block, which waits while that block is being written to the journal by a commit.
  FileSystem& fs = host.device(t.info.device).fs;
  if (fs.jbd() && fs.atimeUpdate(t.readTimes, toSeconds(now))) {
    switch (fs.journal().getWriteAccess(t.info.index, t.readInode)) {
      case Journal::AccessWait::Locked:  // ext3_dirty_inode()'s handle waits for the lock-down
        t.fsWait = Task::FsWait::LockedAtime;
        t.journalWaitStart = now;
        return;
      case Journal::AccessWait::Shadow:
        t.fsWait = Task::FsWait::Shadow;
        t.journalWaitStart = now;
        return;
      case Journal::AccessWait::None:
        break;
    }
  }
  t.readDoneThisRun = true;
  t.state = TaskState::Runnable;
  continueWriting(host, t);
}

bool Writers::writeHandleWaits(WritersHost& host, Task& t) {
  if (t.handleStarted) {
    t.handleStarted = false;  // granted after waiting: the copy goes on
    return false;
  }
  FileSystem& fs = host.device(t.info.device).fs;
  if (!fs.jbd()) return false;
  // Which pieces of a write() start a handle (jbd2__journal_start() -> start_this_handle()):
  // - ext3: every page, in ext3_prepare_write() (2.6.0) / ext3_write_begin() (2.6.24+), which
  //   allocates its blocks at write time;
  // - ext4 (delayed allocation; ext4_da_write_begin() allocates nothing): file_update_time()
  //   at the start of write() dirties the inode (ext4_dirty_inode() takes a handle) when the
  //   mtime it would set differs from the stored one. The time comes from the coarse clock,
  //   which moves once a jiffy (current_time(); ext4's s_time_gran is 1 ns with 256-byte
  //   inodes), so at most one update per tick and file. 6.13's multigrain timestamps give a
  //   fine-grained time only after someone has queried the ctime (stat): a dd that nobody
  //   stats still updates once per tick.
  const std::int64_t tick = host.jiffies();
  const bool handle = fs.kind() == FsKind::Ext3 || tick != t.mtimeTick;
  t.mtimeTick = tick;
  if (!handle || !fs.journal().handleMustWait(t.info.index)) return false;
  t.fsWait = Task::FsWait::Locked;
  t.journalWaitStart = host.now();
  t.state = TaskState::IoWait;
  t.holdsCpu = false;
  return true;
}

bool Writers::startFsync(WritersHost& host, Task& t) {
  if (!t.spec.fsync || t.fsyncDone) return false;
  if (!host.device(t.info.device).fs.jbd())
    return false;  // XFS's fsync (a log force) is not
                   // modelled
  // ext3_sync_file()/ext4_sync_file(): force a commit of the running transaction and wait.
  t.fsWait = Task::FsWait::Commit;
  t.journalWaitStart = host.now();
  t.state = TaskState::IoWait;
  t.holdsCpu = false;
  host.journalForceCommit(t.info.device, t.info.index, t.file);
  return true;
}

void Writers::journalWaitDone(WritersHost& host, Task& t) {
  if (t.removed || t.fsWait == Task::FsWait::None || t.fsWait == Task::FsWait::Read) return;
  const Task::FsWait was = t.fsWait;
  const SimTime now = host.now();
  t.fsWait = Task::FsWait::None;
  t.journalWaitS += toSeconds(now - t.journalWaitStart);
  ++t.journalWaits;
  t.state = TaskState::Runnable;
  if (was == Task::FsWait::Locked) {
    t.writeHandleWaitS += toSeconds(now - t.journalWaitStart);
    t.handleStarted = true;
    continueWriting(host, t);
  } else if (was == Task::FsWait::Shadow || was == Task::FsWait::LockedAtime) {
    // The handle goes on, in the new transaction.
    host.device(t.info.device).fs.journal().joinRunning(t.readInode);
    t.readDoneThisRun = true;
    continueWriting(host, t);
  } else if (was == Task::FsWait::Commit) {
    t.fsyncDone = true;
    endRun(host, t);
  }
}

}  // namespace throttlelab::engine
