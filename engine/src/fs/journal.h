// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The journal of one device's file system (docs/model.md, The file system): the jbd/jbd2
// transactions and kjournald's commits (jbd2_journal_commit_transaction()), or the XFS log's
// in-core buffer; and the tasks that wait in it: a handle started while a commit locks the
// transaction down (start_this_handle()), write access to a buffer the commit is writing to
// the log (do_get_write_access() on BJ_Shadow), fsync() waiting for its commit
// (jbd2_log_wait_commit()). The journal knows its waiters by task number only: the host wakes
// them (journalWaitDone()), as the kernel's wait queues do.
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "block_device.h"
#include "event_queue.h"
#include "mount_options.h"
#include "throttlelab/engine/sim_time.h"
#include "throttlelab/engine/units.h"

namespace throttlelab::engine {

/// A jbd/jbd2 transaction: the inodes and block groups whose metadata it holds.
struct Transaction {
  std::int64_t tid = 1;
  std::vector<int> inodes{};           ///< inode numbers (file ids), each once
  std::vector<std::int64_t> groups{};  ///< block groups whose bitmap it dirtied, each once
  std::int64_t allocations = 0;        ///< block allocations (extent tree or indirect updates)
  std::int64_t extentLeafUpdates = 0;  ///< allocations of files past 4 extents (a leaf block)
  bool empty() const { return inodes.empty() && groups.empty(); }
  bool holds(int inode) const;
};

enum class CommitPhase : std::uint8_t {
  Idle,          ///< no commit running
  Locked,        ///< T_LOCKED: waiting for the handles still open (t_updates) to stop
  Data,          ///< data=ordered: waiting for the transaction's data to reach the disk
  Log,           ///< the metadata blocks are being written to the journal (BJ_Shadow)
  CommitRecord,  ///< the commit block is being written
};

/// What the journal reaches of the rest of the kernel: time, its device, the data the commit
/// waits for, and the tasks it wakes. Kernel implements it and passes itself to each call.
class JournalHost {
 public:
  virtual SimTime now() const = 0;
  virtual void scheduleAt(SimTime when, EventKind kind, int id, std::uint32_t generation) = 0;
  virtual BlockDevice& blockDevice(int dev) = 0;
  /// The device's next completion may have moved.
  virtual void scheduleDevice(int dev) = 0;
  /// The device's dirty inodes (its wb's b_dirty), by (dirtied_when, inode).
  virtual const std::set<std::pair<SimTime, int>>& dirtyInodes(int dev) const = 0;
  /// The device wb's pages: dirty (WB_RECLAIMABLE), under writeback, and written so far.
  struct WbPages {
    Pages dirty = 0, writeback = 0, written = 0;
  };
  virtual WbPages wbPages(int dev) const = 0;
  /// data=ordered: have the device's flusher write at least `pages` now.
  virtual void writeOrderedData(int dev, Pages pages) = 0;
  /// The dirty pages of the file task `task` is fsync()ing.
  virtual Pages fsyncDirtyPages(int task) const = 0;
  /// Task `task`, waiting in the journal, may go on.
  virtual void journalWaitDone(int task) = 0;
  virtual bool tracing() const = 0;
  /// jbd2_start_commit (`end` false) or jbd2_end_commit.
  virtual void traceJbd2Commit(int dev, bool end, std::int64_t tid, int sync) = 0;

 protected:
  JournalHost() = default;
  ~JournalHost() = default;
  JournalHost(const JournalHost&) = default;
  JournalHost& operator=(const JournalHost&) = default;
};

class Journal {
 public:
  Journal() = default;
  Journal(FsKind kind, const MountOptions& options, int device);

  /// The first commit timer (mount): kjournald's commit_interval, or xfssyncd's log force.
  void start(JournalHost& host);
  /// The JournalTimer event: the running transaction is due for its commit.
  void timer(JournalHost& host);
  /// Writeback allocated blocks for `file` (delayed allocation): a metadata update.
  void blocksAllocated(JournalHost& host, int file);
  /// A block group's bitmap joins the running transaction (a block allocation in it); under
  /// XFS the allocation is logged instead.
  void allocationInGroup(std::int64_t group, bool leafUpdate);
  /// The inode joins the running transaction; true if that transaction was empty until now.
  bool joinRunning(int inode);

  /// Request slots of the device were handed out: a commit whose lock-down waits for the
  /// handles of writepage()s blocked in get_request_wait() may go on.
  void slotWaitersWoken(JournalHost& host);
  /// Data of the device reached the disk: a data=ordered commit may go on to the log.
  void dataWritten(JournalHost& host);
  /// A request of the journal (or the XFS log) completed.
  void ioDone(JournalHost& host);

  /// write()'s handle (jbd2__journal_start()) for task `task`: true if it must wait for a
  /// commit's lock-down to end first (the host is told when it may go on).
  bool handleMustWait(int task);
  /// The atime update's write access to the inode block of `inode` (ext3_dirty_inode()).
  enum class AccessWait : std::uint8_t { None, Locked, Shadow };
  /// None: the inode joined the running transaction. Locked: the handle waits for the
  /// lock-down; Shadow: the block is being written to the log. The host is told when the task
  /// may go on (it then joins the inode to the new transaction).
  AccessWait getWriteAccess(int task, int inode);
  /// fsync() of `inode` by `task`: force a commit of the running transaction and wait for it.
  void forceCommit(JournalHost& host, int task, int inode);

  /// Journal blocks a commit of `t` writes before its commit block: a descriptor block per
  /// 256 tags, inode-table blocks, bitmaps, group descriptors, extent-tree leaves.
  Pages logPagesFor(const Transaction& t) const;

  CommitPhase phase() const { return m_phase; }
  struct Stats {
    std::int64_t commits = 0;
    Pages logPages = 0;
    double commitSTotal = 0;
    std::int64_t lockedCommits = 0;  ///< commits whose lock-down had to wait for open handles
    double lockedSTotal = 0;         ///< time those lock-downs took
  };
  const Stats& stats() const { return m_stats; }

  /// XFS: bytes an allocation transaction logs (docs/model.md, The file system).
  static constexpr double kXfsAllocLogBytes = 1024;
  /// XFS: the in-core log buffer (logbsize, 32 KiB default).
  static constexpr Pages kXfsLogBufferPages = 8;
  /// XFS: the periodic log force of xfssyncd (fs.xfs.xfssyncd_centisecs, 3000).
  static constexpr double kXfsSyncS = 30;
  /// Disk address of the journal (mid-disk, as mke2fs and mkfs.xfs place it): far from data.
  static constexpr std::int64_t kJournalBase = std::int64_t{1} << 38;
  static constexpr Pages kJournalPages = 32768;  ///< 128 MiB (mke2fs for large file systems)

 private:
  bool jbd() const { return m_kind == FsKind::Ext3 || m_kind == FsKind::Ext4; }
  void startCommit(JournalHost& host);
  /// From T_FLUSH on: data=ordered data, then the log blocks and the commit block.
  void flushCommit(JournalHost& host);
  void xfsLogWrite(JournalHost& host);
  /// Writes `n` pages at the journal's head.
  void writeLog(JournalHost& host, Pages n);
  /// Next free place in the journal (pages, absolute disk address).
  std::int64_t head(Pages n);
  void wake(JournalHost& host, std::vector<int>& waiters);

  FsKind m_kind = FsKind::None;
  DataMode m_data = DataMode::Ordered;
  double m_commitS = 5;
  int m_device = 0;

  Transaction m_running;
  Transaction m_committing;
  CommitPhase m_phase = CommitPhase::Idle;
  Pages m_dataTarget = 0;            ///< Data phase: the device's completed-page count to reach
  bool m_commitRequested = false;    ///< the running transaction is due (timer, fsync) meanwhile
  std::vector<int> m_shadowWaiters;  ///< tasks in do_get_write_access() on a BJ_Shadow buffer
  std::vector<int> m_lockedWaiters;  ///< tasks in start_this_handle(): wait_transaction_locked()
  /// Locked: the handles still open are those of writepage()s blocked in get_request_wait();
  /// the lock-down ends once the device's slot waiters have been woken this many times.
  std::int64_t m_lockUntilWakeups = 0;
  SimTime m_lockStart{};
  std::vector<std::pair<int, std::int64_t>> m_commitWaiters;  ///< (task, tid) in log_wait_commit
  SimTime m_commitStart{};
  bool m_committingSync = false;  ///< an fsync() waited for the committing transaction at start
  double m_xfsLogBytes = 0;       ///< XFS: bytes in the current in-core log buffer
  std::int64_t m_head = 0;        ///< next free page of the journal, relative to kJournalBase
  Stats m_stats;
};

}  // namespace throttlelab::engine
