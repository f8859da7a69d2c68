// SPDX-License-Identifier: GPL-3.0-or-later
#include "huge_page_allocator.h"

#include <algorithm>
#include <cstdlib>

namespace throttlelab::engine {

namespace {
constexpr std::size_t kHuge = std::size_t{2} << 20;
constexpr std::size_t kLine = 64;
std::size_t roundUp(std::size_t bytes) {
  return (bytes + kHuge - 1) / kHuge * kHuge;
}
}  // namespace

void* allocateLargeTable(std::size_t bytes) {
  if (bytes < kHuge) {
    // Cache-line aligned, which also covers alignas(64) element types.
    const std::size_t size = (std::max<std::size_t>(bytes, 1) + kLine - 1) / kLine * kLine;
    if (void* p = std::aligned_alloc(kLine, size)) return p;
    throw std::bad_alloc();
  }
  // Over-map by 2 MiB, then trim both ends so the block starts on a 2 MiB boundary.
  const std::size_t size = roundUp(bytes);
  void* raw =
      mmap(nullptr, size + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  auto* base = static_cast<char*>(raw);
  const auto addr = reinterpret_cast<std::uintptr_t>(base);
  const std::size_t lead = (kHuge - addr % kHuge) % kHuge;
  if (lead > 0) munmap(base, lead);
  if (kHuge - lead > 0) munmap(base + lead + size, kHuge - lead);
  char* p = base + lead;
  madvise(p, size, MADV_HUGEPAGE);  // advice only: without THP the table is merely aligned
  return p;
}

std::size_t largeTableBytes(std::size_t bytes) {
  if (bytes == 0) return 0;
  return bytes < kHuge ? (bytes + kLine - 1) / kLine * kLine + kLine : roundUp(bytes);
}

void freeLargeTable(void* p, std::size_t bytes) noexcept {
  if (p == nullptr) return;
  if (bytes < kHuge) {
    std::free(p);
    return;
  }
  munmap(p, roundUp(bytes));
}

}  // namespace throttlelab::engine
