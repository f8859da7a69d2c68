// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A small deterministic generator (SplitMix64). Unlike std:: distributions its output is the
// same on every platform and standard library, which byte-identical runs need.
#include <cstdint>

namespace throttlelab::engine {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : m_state(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (m_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }

 private:
  std::uint64_t m_state;
};

}  // namespace throttlelab::engine
