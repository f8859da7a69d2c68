// SPDX-License-Identifier: GPL-3.0-or-later
#include "page_cache.h"

#include <algorithm>
#include <bit>
#include <stdexcept>

namespace throttlelab::engine {

Pages writeFolioPages(std::int64_t index, Pages writeLeft, int maxOrder) {
  if (maxOrder <= 0 || writeLeft <= 1 || index < 0) return 1;
  const std::int64_t chunk = std::int64_t{1} << maxOrder;
  const Pages len = std::min<Pages>(chunk - (index & (chunk - 1)), writeLeft);
  int order =
      std::min(static_cast<int>(std::bit_width(static_cast<std::uint64_t>(len))) - 1, maxOrder);
  // Not aligned to that order: the largest order the index is aligned to (__ffs(index)).
  if (index & ((std::int64_t{1} << order) - 1))
    order = std::countr_zero(static_cast<std::uint64_t>(index));
  return Pages{1} << order;
}

CachedFile::WriteResult CachedFile::planWrite(Pages n) const {
  WriteResult r;
  // Pages ahead of the writer that are neither dirty nor under writeback.
  const Pages writable = m_size - m_dirty - m_writeback - m_copying;
  r.newlyDirtied = std::min(n, writable);
  // The not-resident pages come first, then the clean ones.
  r.allocated = std::min(r.newlyDirtied, notResident());
  return r;
}

CachedFile::WriteResult CachedFile::write(Pages n, SimTime now) {
  const WriteResult r = beginCopy(n);
  endCopy(now);
  return r;
}

CachedFile::WriteResult CachedFile::beginCopy(Pages n) {
  if (m_copying > 0) throw std::logic_error("CachedFile: a copy is already in progress");
  const WriteResult r = planWrite(n);
  m_clean -= r.newlyDirtied - r.allocated;
  m_copying = r.newlyDirtied;
  if (m_clean < 0) throw std::logic_error("CachedFile: clean pages went negative");
  return r;
}

Pages CachedFile::endCopy(SimTime now) {
  const Pages n = m_copying;
  m_copying = 0;
  m_dirty += n;
  if (n > 0) {
    if (!m_runs.empty() && m_runs.back().dirtiedAt == now)
      m_runs.back().count += n;
    else
      m_runs.push_back({now, n});
  }
  return n;
}

void CachedFile::abandonCopy() {
  m_clean += m_copying;
  m_copying = 0;
}

Pages CachedFile::dirtyOlderThan(SimTime t) const {
  Pages n = 0;
  for (const auto& run : m_runs) {
    if (run.dirtiedAt > t) break;
    n += run.count;
  }
  return n;
}

Pages CachedFile::startWriteback(Pages n, SimTime olderThan) {
  Pages moved = 0;
  while (moved < n && !m_runs.empty() && m_runs.front().dirtiedAt <= olderThan) {
    auto& run = m_runs.front();
    const Pages take = std::min(n - moved, run.count);
    run.count -= take;
    moved += take;
    if (run.count == 0) m_runs.pop_front();
  }
  m_dirty -= moved;
  m_writeback += moved;
  m_wbOffset += moved;
  return moved;
}

void CachedFile::completeWriteback(Pages n) {
  if (n > m_writeback) throw std::logic_error("CachedFile: completing more than under writeback");
  m_writeback -= n;
  m_clean += n;
}

Pages CachedFile::evictClean(Pages n) {
  const Pages k = std::min(n, m_clean);
  m_clean -= k;
  return k;
}

}  // namespace throttlelab::engine
