// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// An allocator for big, randomly accessed tables (the task table): blocks of 2 MiB or more are
// mapped 2 MiB-aligned and offered to transparent huge pages (madvise), so that touching one
// of 10,000 tasks does not also cost a TLB miss. Smaller blocks, and systems that refuse,
// get ordinary memory, aligned to a cache line (so element types may be alignas(64)); the
// contents are the same either way.
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <new>

namespace throttlelab::engine {

void* allocateLargeTable(std::size_t bytes);
void freeLargeTable(void* p, std::size_t bytes) noexcept;
/// The memory allocateLargeTable(bytes) takes (mapped and, once touched, resident).
std::size_t largeTableBytes(std::size_t bytes);

template <class T>
struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}  // NOLINT: rebinding
  static_assert(alignof(T) <= 64, "allocateLargeTable() aligns to a cache line");
  T* allocate(std::size_t n) { return static_cast<T*>(allocateLargeTable(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { freeLargeTable(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const HugePageAllocator<U>&) const noexcept {
    return true;
  }
};

}  // namespace throttlelab::engine
