// SPDX-License-Identifier: GPL-3.0-or-later
#include "file_system.h"

#include <algorithm>

#include "heap_bytes.h"

namespace throttlelab::engine {

namespace {

// 4 KiB blocks: one page is one block.
// ext3/ext4 block group: 8 x block size blocks (one bitmap block's bits), 32768 blocks = 128 MiB
// (mke2fs default, Documentation/filesystems/ext4 "Block Groups").
constexpr std::int64_t kGroupPages = 32768;
// ext4 mpage_add_bh_to_extent() (2.6.3x): a mapping stops at 8 MiB, "not larger than mballoc is
// willing to allocate" (MAX_WRITEPAGES_EXTENT_LEN, 2048 blocks, in later kernels).
constexpr Pages kExt4MaxMapping = 2048;
// XFS MAXEXTLEN: 2^21 - 1 blocks in one extent record (fs/xfs/xfs_bmap_btree.h).
constexpr Pages kXfsMaxExtent = (Pages{1} << 21) - 1;
// Extents held in the inode before a tree block is needed: ext4's i_block holds 4
// (EXT4_EXT_MAX... the in-inode header plus 4 ext4_extent); XFS's data fork of a 256-byte
// inode about 9 (16-byte records after the 100-byte core).
constexpr std::size_t kExt4InodeExtents = 4;
constexpr std::size_t kXfsInodeExtents = 9;

}  // namespace

FileSystem::FileSystem(const DeviceConfig& config, int device) {
  m_kind = fsKindFromString(config.fileSystem).value_or(FsKind::None);
  std::string error;
  m_options = parseMountOptions(config.mountOptions, &error).value_or(MountOptions{});
  m_journal = Journal(m_kind, m_options, device);
}

std::int64_t FileSystem::mapToRegion(int file, Pages size, Pages offset, Pages n, Pages* run) {
  const auto id = static_cast<std::size_t>(file);
  if (m_regions.size() <= id) m_regions.resize(id + 1, -1);
  std::int64_t& base = m_regions[id];
  if (base < 0) {
    base = m_regionCursor;
    m_regionCursor += size;
  }
  *run = std::min(n, size - offset);
  return base + offset;
}

std::int64_t FileSystem::mapForWriteback(int file, Pages fileSize, Pages offset, Pages n,
                                         Pages dirtyAhead, Pages* run, bool* allocated) {
  *allocated = false;
  // No file system, or ext3: the blocks were chosen at write time (docs/model.md).
  if (!delayedAllocation()) return mapToRegion(file, fileSize, offset, n, run);
  const auto id = static_cast<std::size_t>(file);
  if (m_extents.size() <= id) m_extents.resize(id + 1);
  std::vector<Extent>& ex = m_extents[id];
  // The extent holding `offset` (extents are kept sorted by file offset).
  auto it = std::upper_bound(ex.begin(), ex.end(), offset,
                             [](Pages o, const Extent& e) { return o < e.fileOffset; });
  if (it != ex.begin()) {
    const Extent& e = *std::prev(it);
    if (offset < e.fileOffset + e.len) {
      *run = std::min(n, e.fileOffset + e.len - offset);
      return e.lba + (offset - e.fileOffset);
    }
  }
  // Delayed allocation: the blocks are chosen now, for the delalloc range writeback reached.
  // ext4 maps at most 8 MiB at once; XFS converts the whole delalloc extent from here
  // (xfs_iomap_write_allocate()), up to MAXEXTLEN.
  Pages size = std::max(n, dirtyAhead);
  size = std::min(size, m_kind == FsKind::Ext4 ? kExt4MaxMapping : kXfsMaxExtent);
  size = std::min(size, fileSize - offset);
  if (it != ex.end()) size = std::min(size, it->fileOffset - offset);
  size = std::max<Pages>(size, 1);
  // One allocator for the whole file system: the goal (the block after the file's previous
  // extent, ext4_ext_find_goal()/xfs_bmap_adjacent()) is free only if nobody allocated since.
  const std::int64_t lba = m_cursor;
  m_cursor += size;
  ++m_allocations;
  *allocated = true;
  const std::size_t inodeExtents = m_kind == FsKind::Ext4 ? kExt4InodeExtents : kXfsInodeExtents;
  if (it != ex.begin()) {
    Extent& prev = *std::prev(it);
    if (prev.fileOffset + prev.len == offset && prev.lba + prev.len == lba) {
      prev.len += size;  // the goal was free: the extent grows
      allocationAt(lba, ex.size() > inodeExtents);
      *run = std::min(n, size);
      return lba;
    }
  }
  ex.insert(it, Extent{.fileOffset = offset, .lba = lba, .len = size});
  allocationAt(lba, ex.size() > inodeExtents);
  *run = std::min(n, size);
  return lba;
}

void FileSystem::allocationAt(std::int64_t lba, bool leafUpdate) {
  m_journal.allocationInGroup(lba / kGroupPages, leafUpdate);
}

bool FileSystem::atimeUpdate(InodeTimes& t, double nowS) const {
  bool update = false;
  switch (m_options.atime) {
    case AtimeMode::Noatime:
      return false;
    case AtimeMode::Strict:
      // Timestamps have one-second granularity (ext3's 32-bit seconds).
      update =
          t.atimeS < 0 || static_cast<std::int64_t>(nowS) != static_cast<std::int64_t>(t.atimeS);
      break;
    case AtimeMode::Relatime:
      // relatime_need_update(): atime not newer than mtime, or older than a day.
      update = t.atimeS < 0 || t.atimeS <= t.mtimeS || nowS - t.atimeS >= 24 * 3600.0;
      break;
  }
  if (update) t.atimeS = nowS;
  return update;
}

std::int64_t FileSystem::extentCount() const {
  std::int64_t n = 0;
  for (const auto& v : m_extents) n += static_cast<std::int64_t>(v.size());
  return n;
}

std::size_t FileSystem::regionBytes() const {
  return heap::of(m_regions);
}

}  // namespace throttlelab::engine
