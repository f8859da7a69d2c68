// SPDX-License-Identifier: GPL-3.0-or-later
// The file system's journal (docs/model.md, The file system): the jbd/jbd2 journal's commits
// (kjournald's journal_commit_transaction()), the XFS log buffer, and the waits tasks meet in
// them (do_get_write_access() on a BJ_Shadow buffer, start_this_handle() during a lock-down,
// log_wait_commit() in fsync()).
#include "journal.h"

#include <algorithm>

namespace throttlelab::engine {

namespace {

// Inodes per 4 KiB inode-table block: 128-byte inodes (ext3 of 2003, mke2fs then) and 256-byte
// (mke2fs.conf inode_size since e2fsprogs 1.41 for ext4).
constexpr int kExt3InodesPerBlock = 32;
constexpr int kExt4InodesPerBlock = 16;
// Group descriptors per block: 32 bytes (ext3) and 64 bytes (ext4 with 64bit).
constexpr int kExt3DescPerBlock = 128;
constexpr int kExt4DescPerBlock = 64;
// Block tags per jbd descriptor block: (4096 - 12-byte header) / 16 (tag + UUID amortised);
// jbd's journal_write_metadata_buffer() starts a new descriptor when one is full.
constexpr int kTagsPerDescriptor = 255;

template <class T>
bool addOnce(std::vector<T>& v, const T& x) {
  if (std::find(v.begin(), v.end(), x) != v.end()) return false;
  v.push_back(x);
  return true;
}

}  // namespace

bool Transaction::holds(int inode) const {
  return std::find(inodes.begin(), inodes.end(), inode) != inodes.end();
}

Journal::Journal(FsKind kind, const MountOptions& options, int device)
    : m_kind(kind), m_data(options.data), m_commitS(options.commitS), m_device(device) {}

bool Journal::joinRunning(int inode) {
  const bool wasEmpty = m_running.empty();
  addOnce(m_running.inodes, inode);
  return wasEmpty;
}

void Journal::allocationInGroup(std::int64_t group, bool leafUpdate) {
  if (m_kind == FsKind::Xfs) {
    m_xfsLogBytes += kXfsAllocLogBytes;
    return;
  }
  addOnce(m_running.groups, group);
  ++m_running.allocations;
  if (leafUpdate) ++m_running.extentLeafUpdates;
}

Pages Journal::logPagesFor(const Transaction& t) const {
  const int perInode = m_kind == FsKind::Ext3 ? kExt3InodesPerBlock : kExt4InodesPerBlock;
  const int perDesc = m_kind == FsKind::Ext3 ? kExt3DescPerBlock : kExt4DescPerBlock;
  const auto inodes = static_cast<Pages>(t.inodes.size());
  const auto groups = static_cast<Pages>(t.groups.size());
  // Inode-table blocks: files made together have neighbouring inode numbers.
  Pages meta = (inodes + perInode - 1) / perInode;
  meta += groups;                                             // block bitmaps
  meta += groups > 0 ? (groups + perDesc - 1) / perDesc : 0;  // group descriptors
  meta += std::min<Pages>(t.extentLeafUpdates, inodes);       // one leaf per such file
  if (meta == 0) return 0;
  return meta + (meta + kTagsPerDescriptor - 1) / kTagsPerDescriptor;
}

std::int64_t Journal::head(Pages n) {
  if (m_head + n > kJournalPages) m_head = 0;  // the log wraps
  const std::int64_t at = kJournalBase + m_head;
  m_head += n;
  return at;
}

void Journal::writeLog(JournalHost& host, Pages n) {
  host.blockDevice(m_device).submitOther(kJournalFile, head(n), n, false, -1, host.now());
  host.scheduleDevice(m_device);
}

void Journal::wake(JournalHost& host, std::vector<int>& waiters) {
  std::vector<int> woken;
  woken.swap(waiters);
  for (int id : woken) host.journalWaitDone(id);
}

void Journal::start(JournalHost& host) {
  if (jbd())
    host.scheduleAt(host.now() + seconds(m_commitS), EventKind::JournalTimer, m_device, 0);
  else if (m_kind == FsKind::Xfs)
    host.scheduleAt(host.now() + seconds(kXfsSyncS), EventKind::JournalTimer, m_device, 0);
}

void Journal::timer(JournalHost& host) {
  if (m_kind == FsKind::Xfs) {
    // xfssyncd's periodic log force writes the partly filled log buffer.
    if (m_xfsLogBytes > 0) xfsLogWrite(host);
    host.scheduleAt(host.now() + seconds(kXfsSyncS), EventKind::JournalTimer, m_device, 0);
    return;
  }
  // The commit timer of the running transaction (commit_interval, 5 s): a steady writer always
  // has one open, its write()s and mtime updates taking handles, so the timer keeps a cadence.
  if (m_phase == CommitPhase::Idle)
    startCommit(host);
  else
    m_commitRequested = true;
  host.scheduleAt(host.now() + seconds(m_commitS), EventKind::JournalTimer, m_device, 0);
}

void Journal::startCommit(JournalHost& host) {
  m_commitRequested = false;
  // Every file written since the last commit has its inode in the transaction (mtime and
  // i_size updates through ext3_dirty_inode()/ext4_dirty_inode()); under ext3 its blocks were
  // allocated by its write()s, in the same handles.
  for (const auto& [when, file] : host.dirtyInodes(m_device)) joinRunning(file);
  if (m_running.empty() && m_commitWaiters.empty()) return;  // nothing to commit
  // The transaction becomes the committing one; handles started from now on belong to the
  // next (the model files them there once the lock-down below is over).
  m_committing = m_running;
  m_running = Transaction{};
  m_running.tid = m_committing.tid + 1;
  m_commitStart = host.now();
  m_committingSync = !m_commitWaiters.empty();
  if (host.tracing())
    host.traceJbd2Commit(m_device, false, m_committing.tid, m_committingSync ? 1 : 0);
  // journal_commit_transaction() first sets T_LOCKED and waits until no handle of the
  // transaction is open (t_updates == 0); new handles wait meanwhile in start_this_handle()
  // (jbd2: add_transaction_credits() -> wait_transaction_locked(); jbd 2.6.x: the T_LOCKED
  // check in start_this_handle()). Handles in the model are instantaneous except those of a
  // writepage() blocked in get_request_wait() at a full request queue: ext3's
  // ext3_ordered_writepage() holds one around block_write_full_page(), and ext4's
  // ext4_da_writepages()/ext4_writepages() hold one while they map and submit an extent. Such
  // writers wait in the device's slot waiters: the lock-down lasts until the last of them that
  // is there now has got its request slot.
  const BlockDevice& device = host.blockDevice(m_device);
  const std::deque<int>& waiters = device.slotWaiters();
  std::int64_t holders = 0;
  for (std::size_t i = 0; i < waiters.size(); ++i) {
    // ext4's writepage from reclaim allocates nothing and takes no handle.
    if (m_kind == FsKind::Ext4 && waiters[i] == BlockDevice::kKswapdWaiter) continue;
    holders = static_cast<std::int64_t>(i) + 1;
  }
  if (holders > 0) {
    m_phase = CommitPhase::Locked;
    m_lockStart = host.now();
    m_lockUntilWakeups = device.slotWakeups() + holders;
    return;  // slotWaitersWoken() goes on
  }
  flushCommit(host);
}

void Journal::slotWaitersWoken(JournalHost& host) {
  if (m_phase != CommitPhase::Locked) return;
  const BlockDevice& device = host.blockDevice(m_device);
  if (device.slotWakeups() < m_lockUntilWakeups && !device.slotWaiters().empty()) return;
  // t_updates is 0: T_FLUSH. The handles that waited join the new running transaction.
  ++m_stats.lockedCommits;
  m_stats.lockedSTotal += toSeconds(host.now() - m_lockStart);
  flushCommit(host);
  wake(host, m_lockedWaiters);
}

bool Journal::handleMustWait(int task) {
  if (m_phase != CommitPhase::Locked) return false;
  m_lockedWaiters.push_back(task);
  return true;
}

Journal::AccessWait Journal::getWriteAccess(int task, int inode) {
  if (m_phase == CommitPhase::Locked) {
    // ext3_dirty_inode()'s handle waits for the lock-down first.
    m_lockedWaiters.push_back(task);
    return AccessWait::Locked;
  }
  if (m_phase == CommitPhase::Log && m_committing.holds(inode)) {
    m_shadowWaiters.push_back(task);
    return AccessWait::Shadow;
  }
  joinRunning(inode);
  return AccessWait::None;
}

void Journal::forceCommit(JournalHost& host, int task, int inode) {
  // ext3_sync_file()/ext4_sync_file(): force a commit of the running transaction and wait.
  joinRunning(inode);
  m_commitWaiters.emplace_back(task, m_running.tid);
  if (m_phase == CommitPhase::Idle)
    startCommit(host);
  else
    m_commitRequested = true;
}

void Journal::flushCommit(JournalHost& host) {
  m_phase = CommitPhase::Data;
  if (m_data == DataMode::Ordered) {
    const JournalHost::WbPages wb = host.wbPages(m_device);
    Pages write = 0;
    if (m_kind == FsKind::Ext3) {
      // ext3 ordered: every data buffer a write() filed in the transaction is written by
      // kjournald before the metadata (journal_submit_data_buffers()): all dirty data.
      write = wb.dirty;
    } else {
      // ext4 with delayed allocation: only data with blocks allocated in the transaction,
      // which writeback submitted when it allocated them; an fsync() adds its file's data
      // (filemap_write_and_wait_range() before the commit).
      for (const auto& [task, tid] : m_commitWaiters) {
        (void)tid;
        write += host.fsyncDirtyPages(task);
      }
    }
    m_dataTarget = wb.written + wb.writeback + write;
    if (write > 0) host.writeOrderedData(m_device, write);
  } else {
    m_dataTarget = 0;
  }
  dataWritten(host);
}

void Journal::dataWritten(JournalHost& host) {
  if (m_phase != CommitPhase::Data || host.wbPages(m_device).written < m_dataTarget) return;
  // Commit phase 3: the metadata blocks go to the journal. Each is BJ_Shadow until its log
  // write completes: a handle that needs one of them waits (do_get_write_access()).
  const Pages n = logPagesFor(m_committing);
  m_phase = CommitPhase::Log;
  if (n == 0) {
    ioDone(host);
    return;
  }
  m_stats.logPages += n;
  writeLog(host, n);
}

void Journal::ioDone(JournalHost& host) {
  if (m_kind == FsKind::Xfs) return;  // a log buffer reached the disk
  if (m_phase == CommitPhase::Log) {
    // The log blocks are on disk: the shadow buffers are released (their waiters go on), then
    // the commit block is written (journal_write_commit_record()).
    wake(host, m_shadowWaiters);
    m_phase = CommitPhase::CommitRecord;
    m_stats.logPages += 1;
    writeLog(host, 1);
    return;
  }
  if (m_phase != CommitPhase::CommitRecord) return;
  m_phase = CommitPhase::Idle;
  ++m_stats.commits;
  m_stats.commitSTotal += toSeconds(host.now() - m_commitStart);
  const std::int64_t done = m_committing.tid;
  if (host.tracing()) host.traceJbd2Commit(m_device, true, done, m_committingSync ? 1 : 0);
  std::vector<std::pair<int, std::int64_t>> waiting;
  waiting.swap(m_commitWaiters);
  for (const auto& w : waiting) {
    if (w.second <= done)
      host.journalWaitDone(w.first);
    else
      m_commitWaiters.push_back(w);
  }
  if (m_commitRequested || !m_commitWaiters.empty()) startCommit(host);
}

void Journal::xfsLogWrite(JournalHost& host) {
  const auto pages = std::max<Pages>(
      1, std::min<Pages>(kXfsLogBufferPages,
                         static_cast<Pages>((m_xfsLogBytes + kPageBytes - 1) / kPageBytes)));
  m_xfsLogBytes = std::max(0.0, m_xfsLogBytes - kXfsLogBufferPages * kPageBytes);
  m_stats.logPages += pages;
  ++m_stats.commits;
  writeLog(host, pages);
}

void Journal::blocksAllocated(JournalHost& host, int file) {
  if (jbd()) {
    joinRunning(file);
  } else if (m_kind == FsKind::Xfs && m_xfsLogBytes >= kXfsLogBufferPages * kPageBytes) {
    xfsLogWrite(host);  // the in-core log buffer is full
  }
}

}  // namespace throttlelab::engine
