// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The file system under writeback (docs/model.md, The file system): where a file's pages lie on
// the disk (block allocation: at write time for ext3, delayed to writeback for ext4 and XFS,
// one extent per allocation, the files' extents interleaved in the order writeback allocated
// them), the metadata each allocation and inode update dirties, and the journal's state
// (jbd/jbd2 transactions and their commit phases; the XFS log's in-core buffer).
// Everything here is a plain value: the Kernel drives it (engine/src/fs/journal.cpp).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "throttlelab/engine/scenario.h"
#include "throttlelab/engine/sim_time.h"
#include "throttlelab/engine/units.h"

namespace throttlelab::engine {

class CachedFile;

/// Requests of a file system's journal (jbd/jbd2) or log (XFS) use this pseudo file number.
inline constexpr int kJournalFile = -3;
/// Uncached reads of a task (TaskSpec::readKiB) use this pseudo file number.
inline constexpr int kReadFile = -4;

enum class FsKind : std::uint8_t { None, Ext3, Ext4, Xfs };
enum class AtimeMode : std::uint8_t { Strict, Relatime, Noatime };
enum class DataMode : std::uint8_t { Ordered, Writeback };

struct MountOptions {
  AtimeMode atime = AtimeMode::Relatime;  ///< the VFS default since 2.6.30
  DataMode data = DataMode::Ordered;      ///< ext3/ext4 default (data=ordered)
  double commitS = 5;                     ///< commit=, JBD_DEFAULT_MAX_COMMIT_AGE
};

/// FsKind of a `fileSystem` key; nullopt if unknown ("" is none).
std::optional<FsKind> fsKindFromString(std::string_view s);
std::string_view toString(FsKind k);
/// Parses `mountOptions`; on a bad option returns nullopt and sets *error to why.
std::optional<MountOptions> parseMountOptions(std::string_view s, std::string* error);
/// True for "", "fifo" and "deadline".
bool knownElevator(std::string_view s);

/// One extent: `len` pages of the file from `fileOffset` at disk address `lba` (pages).
struct Extent {
  Pages fileOffset = 0;
  std::int64_t lba = 0;
  Pages len = 0;
};

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

struct Journal {
  Transaction running;
  Transaction committing;
  CommitPhase phase = CommitPhase::Idle;
  Pages dataTarget = 0;            ///< Data phase: the device's completed-page count to reach
  bool commitRequested = false;    ///< the running transaction is due (timer, fsync) meanwhile
  std::vector<int> shadowWaiters;  ///< tasks in do_get_write_access() on a BJ_Shadow buffer
  std::vector<int> lockedWaiters;  ///< tasks in start_this_handle(): wait_transaction_locked()
  /// Locked: the handles still open are those of writepage()s blocked in get_request_wait();
  /// the lock-down ends once the device's slot waiters have been woken this many times.
  std::int64_t lockUntilWakeups = 0;
  SimTime lockStart{};
  std::vector<std::pair<int, std::int64_t>> commitWaiters;  ///< (task, tid) in log_wait_commit
  SimTime commitStart{};
  bool committingSync = false;  ///< an fsync() waited for the committing transaction at start
  // statistics
  std::int64_t commits = 0;
  Pages logPages = 0;
  double commitSTotal = 0;
  std::int64_t lockedCommits = 0;  ///< commits whose lock-down had to wait for open handles
  double lockedSTotal = 0;         ///< time those lock-downs took
  double xfsLogBytes = 0;          ///< XFS: bytes in the current in-core log buffer
};

/// Per-inode times the atime rules need (seconds of simulated time; -1 = never).
struct InodeTimes {
  double atimeS = -1;
  double mtimeS = 0;  ///< files exist (created) at the start
};

class FileSystem {
 public:
  FileSystem() = default;
  explicit FileSystem(const DeviceConfig& config);

  FsKind kind() const { return m_kind; }
  const MountOptions& options() const { return m_options; }
  bool delayedAllocation() const { return m_kind == FsKind::Ext4 || m_kind == FsKind::Xfs; }
  bool jbd() const { return m_kind == FsKind::Ext3 || m_kind == FsKind::Ext4; }
  bool none() const { return m_kind == FsKind::None; }

  /// Where writeback of `n` pages of `f` from file offset `offset` goes. `dirtyAhead`: the
  /// file's dirty pages from `offset` on (what a delayed allocation can cover). Allocates
  /// when the pages have no blocks yet; *allocated is set when it did (a metadata update).
  /// Returns the disk address of `offset`; *run = pages contiguous on disk from there (<= n).
  std::int64_t mapForWriteback(CachedFile& f, Pages offset, Pages n, Pages dirtyAhead,
                               std::int64_t* legacyCursor, Pages* run, bool* allocated);

  /// The inode joins the running transaction; true if that transaction was empty until now
  /// (its commit timer starts).
  bool joinRunning(int inode);
  /// A block group's bitmap joins the running transaction (a block allocation in it).
  void allocationInGroup(std::int64_t lba, bool leafUpdate);

  /// Journal blocks a commit of `t` writes before its commit block: a descriptor block per
  /// 256 tags, inode-table blocks, bitmaps, group descriptors, extent-tree leaves.
  Pages logPagesFor(const Transaction& t) const;
  /// XFS: bytes an allocation transaction logs (docs/model.md, The file system).
  static constexpr double kXfsAllocLogBytes = 1024;
  /// XFS: the in-core log buffer (logbsize, 32 KiB default).
  static constexpr Pages kXfsLogBufferPages = 8;
  /// XFS: the periodic log force of xfssyncd (fs.xfs.xfssyncd_centisecs, 3000).
  static constexpr double kXfsSyncS = 30;

  /// atime rules of touch_atime() (relatime_need_update(), 2.6.30+): does a read at `nowS`
  /// update the inode's atime?
  bool atimeUpdate(InodeTimes& t, double nowS) const;

  /// Next free place in the journal (pages, absolute disk address).
  std::int64_t journalHead(Pages n);

  Journal& journal() { return m_journal; }
  const Journal& journal() const { return m_journal; }
  std::int64_t allocations() const { return m_allocations; }
  std::int64_t extentCount() const;

  /// Disk address of the journal (mid-disk, as mke2fs and mkfs.xfs place it): far from data.
  static constexpr std::int64_t kJournalBase = std::int64_t{1} << 38;
  static constexpr Pages kJournalPages = 32768;  ///< 128 MiB (mke2fs for large file systems)
  /// Where uncached reads of task `i` read from (a file of its own, away from the data).
  static std::int64_t readBase(int task) { return (std::int64_t{1} << 39) + task * (1 << 20); }

 private:
  FsKind m_kind = FsKind::None;
  MountOptions m_options;
  std::int64_t m_cursor = 0;                   ///< the data allocator's next free block (pages)
  std::vector<std::vector<Extent>> m_extents;  ///< per file id (delayed allocation)
  Journal m_journal;
  std::int64_t m_journalHead = 0;
  std::int64_t m_allocations = 0;
};

}  // namespace throttlelab::engine
