// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The page cache of one file, without per-page objects (docs/model.md, The page cache and the life
// of a page). A file written sequentially, possibly again and again (conv=notrunc), keeps its pages
// in this order going forward from the writer's position: [not resident][clean][under
// writeback][dirty][being copied] -> writer. A page becomes dirty when the copy into it is done
// (generic_perform_write() copies, then marks the page dirty); until then it is locked: neither
// clean nor dirty. Reclaim evicts the oldest clean pages, which are the ones just ahead of the
// writer. Dirty pages are a queue of runs (dirtied-at, count), oldest first, so expiry and the
// flusher's oldest-first order need no per-page state.
#include <cstdint>
#include <deque>
#include <vector>

#include "throttlelab/engine/sim_time.h"
#include "throttlelab/engine/units.h"

namespace throttlelab::engine {

/// The folio a buffered write() gets at page `index` of a file (docs/model.md, Large folios in
/// the write path, Eq. 51), in pages. `writeLeft` is what is left of the write() from `index`
/// (pages), `maxOrder` the mapping's largest folio order. generic_perform_write() and
/// iomap_write_iter() (6.11+/6.6+) take chunks of mapping_max_folio_size(), cut at the chunk
/// boundary and the write's end; __filemap_get_folio() asks for order ⌊log₂ len⌋
/// (fgf_set_order()), at most the mapping's order and no more than `index` is aligned to.
/// A folio already in the cache keeps its size; the model's files are rewritten with the same
/// writes, so it is the one this rule gives again.
Pages writeFolioPages(std::int64_t index, Pages writeLeft, int maxOrder);

struct DirtyRun {
  SimTime dirtiedAt{};
  Pages count = 0;
};

class CachedFile {
 public:
  CachedFile(int id, int device, Pages sizePages) : m_id(id), m_device(device), m_size(sizePages) {}

  /// The task writing this inode back right now (I_SYNC), kFlusherOwner, or -1.
  int syncOwner = -1;
  static constexpr int kFlusherOwner = 1 << 30;
  /// On the kernel's list of files with clean pages (Kernel::reclaimClean()).
  bool inCleanList = false;
  /// The memory cgroup its pages are charged to (the writer's at creation), -1 = the root.
  int cgroup = -1;

  int id() const { return m_id; }
  int device() const { return m_device; }
  Pages size() const { return m_size; }
  Pages dirty() const { return m_dirty; }
  Pages writeback() const { return m_writeback; }
  Pages clean() const { return m_clean; }
  /// Pages the writer is copying into right now (allocated, locked, not yet dirty).
  Pages copying() const { return m_copying; }
  Pages resident() const { return m_clean + m_dirty + m_writeback + m_copying; }
  Pages notResident() const { return m_size - resident(); }
  /// Time the oldest dirty page was dirtied (the inode's dirtied_when); meaningless if clean.
  /// What a copy of the file holds on the heap beside itself: its dirty runs (heap_bytes.h).
  std::size_t heapBytes() const;
  SimTime dirtiedWhen() const { return m_runs.empty() ? SimTime{} : m_runs.front().dirtiedAt; }
  std::int64_t writebackOffset() const { return m_wbOffset; }

  /// Result of writing n pages at the writer's position.
  struct WriteResult {
    Pages newlyDirtied = 0;  ///< clean or absent pages that became dirty (accounted)
    Pages allocated = 0;     ///< of those, pages that needed a new page-cache page
  };
  /// What writing `n` pages would need, without changing anything.
  WriteResult planWrite(Pages n) const;
  /// Applies a write of `n` pages at `now`; the allocation must already have succeeded.
  WriteResult write(Pages n, SimTime now);
  /// Starts copying `n` pages at the writer's position (write_begin): the pages that will be
  /// newly dirtied are taken out of the clean ones (or allocated) and held until endCopy().
  /// The allocation must already have succeeded. At most one copy per file at a time.
  WriteResult beginCopy(Pages n);
  /// The copy completed at `now` (write_end): its pages become dirty. Returns how many.
  Pages endCopy(SimTime now);
  /// The copy was abandoned (the task exited): its pages stay cached, clean.
  void abandonCopy();
  /// Moves up to `n` of the oldest dirty pages to writeback (only those dirtied at or before
  /// `olderThan`). Returns the number moved; writebackOffset() advances by it.
  Pages startWriteback(Pages n, SimTime olderThan);
  /// Pages dirtied at or before `t`.
  Pages dirtyOlderThan(SimTime t) const;
  /// IO completion: writeback pages become clean (they stay cached).
  void completeWriteback(Pages n);
  /// Reclaim evicts up to `n` clean pages; returns how many.
  Pages evictClean(Pages n);

 private:
  int m_id;
  int m_device;
  Pages m_size;
  Pages m_clean = 0;
  Pages m_dirty = 0;
  Pages m_writeback = 0;
  Pages m_copying = 0;
  std::int64_t m_wbOffset = 0;
  std::deque<DirtyRun> m_runs;
};

}  // namespace throttlelab::engine
