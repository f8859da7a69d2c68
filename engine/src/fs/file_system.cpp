// SPDX-License-Identifier: GPL-3.0-or-later
#include "file_system.h"

#include <algorithm>
#include <charconv>

#include "page_cache.h"
#include "throttlelab/engine/enum_names.h"

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

constexpr EnumName<FsKind> kFsKindNames[] = {
    {FsKind::None, "none"}, {FsKind::Ext3, "ext3"}, {FsKind::Ext4, "ext4"}, {FsKind::Xfs, "xfs"}};

std::optional<FsKind> fsKindFromString(std::string_view s) {
  if (s.empty()) return FsKind::None;
  return valueNamed(s, kFsKindNames);
}

std::string_view toString(FsKind k) {
  return nameOf(k, kFsKindNames, "none");
}

bool knownElevator(std::string_view s) {
  return s.empty() || s == "fifo" || s == "deadline";
}

std::optional<MountOptions> parseMountOptions(std::string_view s, std::string* error) {
  MountOptions o;
  bool atimeSet = false, dataSet = false, commitSet = false;
  std::size_t pos = 0;
  while (pos <= s.size() && !s.empty()) {
    const std::size_t comma = s.find(',', pos);
    const std::string_view opt =
        s.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    pos = comma == std::string_view::npos ? s.size() + 1 : comma + 1;
    auto once = [&](bool& seen) {
      if (seen) {
        *error = "option '" + std::string(opt) + "' contradicts or repeats an earlier one";
        return false;
      }
      seen = true;
      return true;
    };
    if (opt == "atime" || opt == "strictatime" || opt == "relatime" || opt == "noatime") {
      if (!once(atimeSet)) return std::nullopt;
      o.atime = opt == "noatime"    ? AtimeMode::Noatime
                : opt == "relatime" ? AtimeMode::Relatime
                                    : AtimeMode::Strict;
    } else if (opt == "data=ordered" || opt == "data=writeback") {
      if (!once(dataSet)) return std::nullopt;
      o.data = opt == "data=ordered" ? DataMode::Ordered : DataMode::Writeback;
    } else if (opt.starts_with("commit=")) {
      if (!once(commitSet)) return std::nullopt;
      const std::string_view v = opt.substr(7);
      int secs = 0;
      const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), secs);
      if (ec != std::errc{} || p != v.data() + v.size() || secs < 1 || secs > 3600) {
        *error = "commit= takes whole seconds from 1 to 3600, got '" + std::string(v) + "'";
        return std::nullopt;
      }
      o.commitS = secs;
    } else {
      *error = "unknown mount option '" + std::string(opt) +
               "' (known: atime, strictatime, relatime, noatime, data=ordered, data=writeback, "
               "commit=SECONDS)";
      return std::nullopt;
    }
  }
  return o;
}

bool Transaction::holds(int inode) const {
  return std::find(inodes.begin(), inodes.end(), inode) != inodes.end();
}

FileSystem::FileSystem(const DeviceConfig& config) {
  m_kind = fsKindFromString(config.fileSystem).value_or(FsKind::None);
  std::string error;
  m_options = parseMountOptions(config.mountOptions, &error).value_or(MountOptions{});
}

std::int64_t FileSystem::mapForWriteback(CachedFile& f, Pages offset, Pages n, Pages dirtyAhead,
                                         std::int64_t* legacyCursor, Pages* run, bool* allocated) {
  *allocated = false;
  if (!delayedAllocation()) {
    // No file system, or ext3: its blocks were chosen at write time next to the file's previous
    // block (ext3_find_goal()), so one writer's file is one region (docs/model.md).
    return f.mapForWriteback(offset, n, legacyCursor, run);
  }
  const auto id = static_cast<std::size_t>(f.id());
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
  size = std::min(size, f.size() - offset);
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
      allocationInGroup(lba, ex.size() > inodeExtents);
      *run = std::min(n, size);
      return lba;
    }
  }
  ex.insert(it, Extent{.fileOffset = offset, .lba = lba, .len = size});
  allocationInGroup(lba, ex.size() > inodeExtents);
  *run = std::min(n, size);
  return lba;
}

bool FileSystem::joinRunning(int inode) {
  const bool wasEmpty = m_journal.running.empty();
  addOnce(m_journal.running.inodes, inode);
  return wasEmpty;
}

void FileSystem::allocationInGroup(std::int64_t lba, bool leafUpdate) {
  if (m_kind == FsKind::Xfs) {
    m_journal.xfsLogBytes += kXfsAllocLogBytes;
    return;
  }
  addOnce(m_journal.running.groups, lba / kGroupPages);
  ++m_journal.running.allocations;
  if (leafUpdate) ++m_journal.running.extentLeafUpdates;
}

Pages FileSystem::logPagesFor(const Transaction& t) const {
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

std::int64_t FileSystem::journalHead(Pages n) {
  if (m_journalHead + n > kJournalPages) m_journalHead = 0;  // the log wraps
  const std::int64_t at = kJournalBase + m_journalHead;
  m_journalHead += n;
  return at;
}

std::int64_t FileSystem::extentCount() const {
  std::int64_t n = 0;
  for (const auto& v : m_extents) n += static_cast<std::int64_t>(v.size());
  return n;
}

}  // namespace throttlelab::engine
