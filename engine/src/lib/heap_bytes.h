// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What a copy of a container holds on the heap, in bytes, from its size: what a snapshot of
// the kernel costs (Kernel::stateBytes()). A copy allocates exactly what its elements need
// (a vector's copy has capacity == size), so the figures follow from the element counts and
// from how libstdc++ and glibc malloc lay them out: a malloc chunk is the request plus an
// 8-byte header, rounded up to 16 bytes (at least 32); a deque holds its elements in 512-byte
// nodes under a map of at least 8 pointers; a set or map node carries a 32-byte header.
#include <algorithm>
#include <cstddef>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace throttlelab::engine::heap {

/// The bytes glibc malloc takes for a request of `bytes` (none for none).
constexpr std::size_t chunk(std::size_t bytes) {
  return bytes == 0 ? 0 : std::max<std::size_t>(32, (bytes + 8 + 15) / 16 * 16);
}

/// A string's copy: nothing beyond itself up to 15 characters (kept inside), else a block.
inline std::size_t of(const std::string& s) {
  return s.size() <= 15 ? 0 : chunk(s.size() + 1);
}

/// A vector: one block of its capacity (a copy's capacity is its size).
template <class T, class A>
std::size_t of(const std::vector<T, A>& v) {
  return chunk(v.capacity() * sizeof(T));
}

/// A deque's copy: its nodes of 512 bytes (or one element, if larger) and the map above them.
template <class T>
std::size_t of(const std::deque<T>& d) {
  constexpr std::size_t perNode = sizeof(T) < 512 ? 512 / sizeof(T) : 1;
  const std::size_t nodes = d.size() / perNode + 1;
  return nodes * chunk(perNode * sizeof(T)) + chunk(std::max<std::size_t>(8, nodes + 2) * 8);
}

/// A set's copy: one node per element.
template <class K, class C, class A>
std::size_t of(const std::set<K, C, A>& s) {
  return s.size() * chunk(32 + sizeof(K));
}

/// A map's copy: one node per element.
template <class K, class V, class C, class A>
std::size_t of(const std::map<K, V, C, A>& m) {
  return m.size() * chunk(32 + sizeof(std::pair<const K, V>));
}

}  // namespace throttlelab::engine::heap
