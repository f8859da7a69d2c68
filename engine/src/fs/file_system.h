// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The file system under writeback (docs/model.md, The file system): where a file's pages lie on
// the disk (block allocation: at write time for ext3, delayed to writeback for ext4 and XFS,
// one extent per allocation, the files' extents interleaved in the order writeback allocated
// them), the metadata each allocation and inode update dirties, the atime rules, and its
// journal (journal.h).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "journal.h"
#include "mount_options.h"
#include "throttlelab/engine/scenario.h"
#include "throttlelab/engine/sim_time.h"
#include "throttlelab/engine/units.h"

namespace throttlelab::engine {

/// One extent: `len` pages of the file from `fileOffset` at disk address `lba` (pages).
struct Extent {
  Pages fileOffset = 0;
  std::int64_t lba = 0;
  Pages len = 0;
};

/// Per-inode times the atime rules need (seconds of simulated time; -1 = never).
struct InodeTimes {
  double atimeS = -1;
  double mtimeS = 0;  ///< files exist (created) at the start
};

class FileSystem {
 public:
  FileSystem() = default;
  explicit FileSystem(const DeviceConfig& config, int device = 0);

  FsKind kind() const { return m_kind; }
  const MountOptions& options() const { return m_options; }
  bool delayedAllocation() const { return m_kind == FsKind::Ext4 || m_kind == FsKind::Xfs; }
  bool jbd() const { return m_kind == FsKind::Ext3 || m_kind == FsKind::Ext4; }
  bool none() const { return m_kind == FsKind::None; }

  /// Where writeback of `n` pages of file `file` (`size` pages long) from file offset
  /// `offset` goes. `dirtyAhead`: the file's dirty pages from `offset` on (what a delayed
  /// allocation can cover). Allocates when the pages have no blocks yet; *allocated is set
  /// when it did (a metadata update). Returns the disk address of `offset`; *run = pages
  /// contiguous on disk from there (<= n).
  std::int64_t mapForWriteback(int file, Pages size, Pages offset, Pages n, Pages dirtyAhead,
                               Pages* run, bool* allocated);

  /// atime rules of touch_atime() (relatime_need_update(), 2.6.30+): does a read at `nowS`
  /// update the inode's atime?
  bool atimeUpdate(InodeTimes& t, double nowS) const;

  Journal& journal() { return m_journal; }
  const Journal& journal() const { return m_journal; }
  std::int64_t allocations() const { return m_allocations; }
  std::int64_t extentCount() const;
  /// What a copy holds on the heap for the files' places on disk, beside the extents.
  std::size_t regionBytes() const;

  /// Where uncached reads of task `i` read from (a file of its own, away from the data).
  static std::int64_t readBase(int task) { return (std::int64_t{1} << 39) + task * (1 << 20); }

 private:
  /// No file system, or ext3: a file gets its own region when first written back, at the
  /// region cursor, large enough for the whole file (blocks chosen at write time next to the
  /// file's previous block: ext3_find_goal()), so one writer's file is one region.
  std::int64_t mapToRegion(int file, Pages size, Pages offset, Pages n, Pages* run);
  /// A block allocation in the block group of `lba` (the journal logs it).
  void allocationAt(std::int64_t lba, bool leafUpdate);

  FsKind m_kind = FsKind::None;
  MountOptions m_options;
  std::int64_t m_cursor = 0;                   ///< the data allocator's next free block (pages)
  std::vector<std::vector<Extent>> m_extents;  ///< per file id (delayed allocation)
  std::int64_t m_regionCursor = 0;             ///< next free block for a file's region
  std::vector<std::int64_t> m_regions;         ///< per file id, its region's first block or -1
  Journal m_journal;
  std::int64_t m_allocations = 0;
};

}  // namespace throttlelab::engine
