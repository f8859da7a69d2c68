// SPDX-License-Identifier: GPL-3.0-or-later
// The file system's side of the kernel (docs/model.md, The file system): the jbd/jbd2 journal's
// commits (kjournald's journal_commit_transaction()), the XFS log buffer, tasks' uncached reads
// and the waits they meet in the journal (do_get_write_access() on a BJ_Shadow buffer,
// log_wait_commit() in fsync()).
#include <algorithm>

#include "kernel.h"

namespace throttlelab::engine {

void Kernel::fsInit() {
  for (int dev = 0; dev < static_cast<int>(m_devices.size()); ++dev) {
    const FileSystem& fs = device(dev).fs;
    if (fs.jbd())
      m_queue.push(m_now + seconds(fs.options().commitS), EventKind::JournalTimer, dev);
    else if (fs.kind() == FsKind::Xfs)
      m_queue.push(m_now + seconds(FileSystem::kXfsSyncS), EventKind::JournalTimer, dev);
  }
}

void Kernel::journalTimer(int dev) {
  DeviceState& d = device(dev);
  FileSystem& fs = d.fs;
  if (fs.kind() == FsKind::Xfs) {
    // xfssyncd's periodic log force writes the partly filled log buffer.
    if (fs.journal().xfsLogBytes > 0) xfsLogWrite(dev);
    m_queue.push(m_now + seconds(FileSystem::kXfsSyncS), EventKind::JournalTimer, dev);
    return;
  }
  // The commit timer of the running transaction (commit_interval, 5 s): a steady writer always
  // has one open, its write()s and mtime updates taking handles, so the timer keeps a cadence.
  if (fs.journal().phase == CommitPhase::Idle)
    startCommit(dev);
  else
    fs.journal().commitRequested = true;
  m_queue.push(m_now + seconds(fs.options().commitS), EventKind::JournalTimer, dev);
}

void Kernel::startCommit(int dev) {
  DeviceState& d = device(dev);
  FileSystem& fs = d.fs;
  Journal& j = fs.journal();
  j.commitRequested = false;
  // Every file written since the last commit has its inode in the transaction (mtime and
  // i_size updates through ext3_dirty_inode()/ext4_dirty_inode()); under ext3 its blocks were
  // allocated by its write()s, in the same handles.
  for (const auto& [when, file] : d.dirtyFiles) fs.joinRunning(file);
  if (j.running.empty() && j.commitWaiters.empty()) return;  // nothing to commit
  // The transaction becomes the committing one; handles started from now on belong to the
  // next (the model files them there once the lock-down below is over).
  j.committing = j.running;
  j.running = Transaction{};
  j.running.tid = j.committing.tid + 1;
  j.commitStart = m_now;
  j.committingSync = !j.commitWaiters.empty();
  if (tracing()) traceJbd2Commit(dev, false, j.committing.tid, j.committingSync ? 1 : 0);
  // journal_commit_transaction() first sets T_LOCKED and waits until no handle of the
  // transaction is open (t_updates == 0); new handles wait meanwhile in start_this_handle()
  // (jbd2: add_transaction_credits() -> wait_transaction_locked(); jbd 2.6.x: the T_LOCKED
  // check in start_this_handle()). Handles in the model are instantaneous except those of a
  // writepage() blocked in get_request_wait() at a full request queue: ext3's
  // ext3_ordered_writepage() holds one around block_write_full_page(), and ext4's
  // ext4_da_writepages()/ext4_writepages() hold one while they map and submit an extent. Such
  // writers wait in the device's slotWaiters: the lock-down lasts until the last of them that
  // is there now has got its request slot.
  std::int64_t holders = 0;
  for (std::size_t i = 0; i < d.slotWaiters.size(); ++i) {
    // ext4's writepage from reclaim allocates nothing and takes no handle.
    if (fs.kind() == FsKind::Ext4 && d.slotWaiters[i] == PageAllocator::kKswapdSlotWaiter) continue;
    holders = static_cast<std::int64_t>(i) + 1;
  }
  if (holders > 0) {
    j.phase = CommitPhase::Locked;
    j.lockStart = m_now;
    j.lockUntilWakeups = d.slotWakeups + holders;
    return;  // journalLockProgress() goes on
  }
  flushCommit(dev);
}

void Kernel::journalLockProgress(int dev) {
  DeviceState& d = device(dev);
  Journal& j = d.fs.journal();
  if (j.phase != CommitPhase::Locked) return;
  if (d.slotWakeups < j.lockUntilWakeups && !d.slotWaiters.empty()) return;
  // t_updates is 0: T_FLUSH. The handles that waited join the new running transaction.
  ++j.lockedCommits;
  j.lockedSTotal += toSeconds(m_now - j.lockStart);
  flushCommit(dev);
  std::vector<int> waiters;
  waiters.swap(j.lockedWaiters);
  for (int id : waiters) fsWaitDone(task(id));
}

bool Kernel::writeHandleWaits(Task& t) {
  if (t.handleStarted) {
    t.handleStarted = false;  // granted after waiting: the copy goes on
    return false;
  }
  FileSystem& fs = device(t.info.device).fs;
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
  const std::int64_t tick = jiffies();
  const bool handle = fs.kind() == FsKind::Ext3 || tick != t.mtimeTick;
  t.mtimeTick = tick;
  if (!handle || fs.journal().phase != CommitPhase::Locked) return false;
  t.fsWait = Task::FsWait::Locked;
  t.journalWaitStart = m_now;
  t.state = TaskState::IoWait;
  t.holdsCpu = false;
  fs.journal().lockedWaiters.push_back(t.info.index);
  return true;
}

void Kernel::flushCommit(int dev) {
  DeviceState& d = device(dev);
  FileSystem& fs = d.fs;
  Journal& j = fs.journal();
  j.phase = CommitPhase::Data;
  if (fs.options().data == DataMode::Ordered) {
    Pages write = 0;
    if (fs.kind() == FsKind::Ext3) {
      // ext3 ordered: every data buffer a write() filed in the transaction is written by
      // kjournald before the metadata (journal_submit_data_buffers()): all dirty data.
      write = d.reclaimable;
    } else {
      // ext4 with delayed allocation: only data with blocks allocated in the transaction,
      // which writeback submitted when it allocated them; an fsync() adds its file's data
      // (filemap_write_and_wait_range() before the commit).
      for (const auto& [task, tid] : j.commitWaiters) {
        (void)tid;
        const Task& t = m_tasks[static_cast<std::size_t>(task)];
        if (t.file >= 0) write += m_files[static_cast<std::size_t>(t.file)].dirty();
      }
    }
    j.dataTarget = d.written + d.writeback + write;
    if (write > 0) {
      d.flusher.reclaimPages = std::max(d.flusher.reclaimPages, write);
      kickFlusher(dev);
    }
  } else {
    j.dataTarget = 0;
  }
  journalDataProgress(dev);
}

void Kernel::journalDataProgress(int dev) {
  DeviceState& d = device(dev);
  Journal& j = d.fs.journal();
  if (j.phase != CommitPhase::Data || d.written < j.dataTarget) return;
  // Commit phase 3: the metadata blocks go to the journal. Each is BJ_Shadow until its log
  // write completes: a handle that needs one of them waits (do_get_write_access()).
  const Pages n = d.fs.logPagesFor(j.committing);
  j.phase = CommitPhase::Log;
  if (n == 0) {
    journalIoDone(dev);
    return;
  }
  j.logPages += n;
  d.device.submitOther(kJournalFile, d.fs.journalHead(n), n, false, -1, m_now);
  scheduleDevice(dev);
}

void Kernel::journalIoDone(int dev) {
  DeviceState& d = device(dev);
  Journal& j = d.fs.journal();
  if (d.fs.kind() == FsKind::Xfs) return;  // a log buffer reached the disk
  if (j.phase == CommitPhase::Log) {
    // The log blocks are on disk: the shadow buffers are released (their waiters go on), then
    // the commit block is written (journal_write_commit_record()).
    std::vector<int> waiters;
    waiters.swap(j.shadowWaiters);
    for (int id : waiters) fsWaitDone(task(id));
    j.phase = CommitPhase::CommitRecord;
    j.logPages += 1;
    d.device.submitOther(kJournalFile, d.fs.journalHead(1), 1, false, -1, m_now);
    scheduleDevice(dev);
    return;
  }
  if (j.phase != CommitPhase::CommitRecord) return;
  j.phase = CommitPhase::Idle;
  ++j.commits;
  j.commitSTotal += toSeconds(m_now - j.commitStart);
  const std::int64_t done = j.committing.tid;
  if (tracing()) traceJbd2Commit(dev, true, done, j.committingSync ? 1 : 0);
  std::vector<std::pair<int, std::int64_t>> waiting;
  waiting.swap(j.commitWaiters);
  for (const auto& w : waiting) {
    if (w.second <= done)
      fsWaitDone(task(w.first));
    else
      j.commitWaiters.push_back(w);
  }
  if (j.commitRequested || !j.commitWaiters.empty()) startCommit(dev);
}

void Kernel::xfsLogWrite(int dev) {
  DeviceState& d = device(dev);
  Journal& j = d.fs.journal();
  const auto pages = std::max<Pages>(
      1, std::min<Pages>(FileSystem::kXfsLogBufferPages,
                         static_cast<Pages>((j.xfsLogBytes + kPageBytes - 1) / kPageBytes)));
  j.xfsLogBytes = std::max(0.0, j.xfsLogBytes - FileSystem::kXfsLogBufferPages * kPageBytes);
  j.logPages += pages;
  ++j.commits;
  d.device.submitOther(kJournalFile, d.fs.journalHead(pages), pages, false, -1, m_now);
  scheduleDevice(dev);
}

void Kernel::noteAllocation(int dev, int file) {
  DeviceState& d = device(dev);
  if (d.fs.jbd()) {
    d.fs.joinRunning(file);
  } else if (d.fs.kind() == FsKind::Xfs &&
             d.fs.journal().xfsLogBytes >= FileSystem::kXfsLogBufferPages * kPageBytes) {
    xfsLogWrite(dev);  // the in-core log buffer is full
  }
}

bool Kernel::startRead(Task& t) {
  if (t.spec.readKiB <= 0 || t.readDoneThisRun) return false;
  const int dev = t.info.device;
  if (t.readInode < 0) t.readInode = -1000 - t.info.index;  // an inode of its own
  t.readLeft = std::max<Pages>(1, t.spec.readKiB / 4);
  t.readLba = FileSystem::readBase(t.info.index);
  t.readStart = m_now;
  t.fsWait = Task::FsWait::Read;
  t.state = TaskState::IoWait;
  t.holdsCpu = false;
  submitReadahead(t, dev);
  return true;
}

void Kernel::submitReadahead(Task& t, int dev) {
  // A sync read fault or read() reads one readahead window (VM_MAX_READAHEAD, 128 KiB in 2.6)
  // and waits for it before the next.
  constexpr Pages kReadahead = 32;
  const Pages n = std::min(t.readLeft, kReadahead);
  DeviceState& d = device(dev);
  d.device.submitOther(kReadFile, t.readLba, n, true, t.info.index, m_now);
  t.readLba += n;
  t.readLeft -= n;
  scheduleDevice(dev);
}

void Kernel::readIoDone(Task& t) {
  if (t.removed || t.fsWait != Task::FsWait::Read) return;
  if (t.readLeft > 0) {
    submitReadahead(t, t.info.device);
    return;
  }
  const double ms = toSeconds(m_now - t.readStart) * 1e3;
  t.readLatency.add(ms);
  t.readWaitS += ms / 1e3;
  t.fsWait = Task::FsWait::None;
  // The read is done: touch_atime(). Unless noatime (or relatime says no), the inode is
  // dirtied: ext3_dirty_inode() starts a handle and asks for write access to the inode's
  // block, which waits while that block is being written to the journal by a commit.
  DeviceState& d = device(t.info.device);
  FileSystem& fs = d.fs;
  if (fs.jbd() && fs.atimeUpdate(t.readTimes, toSeconds(m_now))) {
    Journal& j = fs.journal();
    if (j.phase == CommitPhase::Locked) {
      // ext3_dirty_inode()'s handle waits for the lock-down first.
      t.fsWait = Task::FsWait::LockedAtime;
      t.journalWaitStart = m_now;
      j.lockedWaiters.push_back(t.info.index);
      return;
    }
    if (j.phase == CommitPhase::Log && j.committing.holds(t.readInode)) {
      t.fsWait = Task::FsWait::Shadow;
      t.journalWaitStart = m_now;
      j.shadowWaiters.push_back(t.info.index);
      return;
    }
    fs.joinRunning(t.readInode);
  }
  t.readDoneThisRun = true;
  t.state = TaskState::Runnable;
  continueWriting(t);
}

bool Kernel::startFsync(Task& t) {
  if (!t.spec.fsync || t.fsyncDone) return false;
  FileSystem& fs = device(t.info.device).fs;
  if (!fs.jbd()) return false;  // XFS's fsync (a log force) is not modelled
  Journal& j = fs.journal();
  // ext3_sync_file()/ext4_sync_file(): force a commit of the running transaction and wait.
  t.fsWait = Task::FsWait::Commit;
  t.journalWaitStart = m_now;
  t.state = TaskState::IoWait;
  t.holdsCpu = false;
  fs.joinRunning(t.file);
  j.commitWaiters.emplace_back(t.info.index, j.running.tid);
  if (j.phase == CommitPhase::Idle)
    startCommit(t.info.device);
  else
    j.commitRequested = true;
  return true;
}

void Kernel::fsWaitDone(Task& t) {
  if (t.removed || t.fsWait == Task::FsWait::None || t.fsWait == Task::FsWait::Read) return;
  const Task::FsWait was = t.fsWait;
  t.fsWait = Task::FsWait::None;
  t.journalWaitS += toSeconds(m_now - t.journalWaitStart);
  ++t.journalWaits;
  t.state = TaskState::Runnable;
  if (was == Task::FsWait::Locked) {
    t.writeHandleWaitS += toSeconds(m_now - t.journalWaitStart);
    t.handleStarted = true;
    continueWriting(t);
  } else if (was == Task::FsWait::Shadow || was == Task::FsWait::LockedAtime) {
    FileSystem& fs = device(t.info.device).fs;
    fs.joinRunning(t.readInode);  // the handle goes on, in the new transaction
    t.readDoneThisRun = true;
    continueWriting(t);
  } else if (was == Task::FsWait::Commit) {
    t.fsyncDone = true;
    endRun(t);
  }
}

}  // namespace throttlelab::engine
