// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Integer helpers with the kernel's semantics (ilog2 = floor(log2), rup2 = round up to 2^k).
#include <bit>
#include <cstdint>

namespace throttlelab::engine {

/// floor(log2(x)) for x > 0; 0 for x == 0 (callers guard as the kernel does).
constexpr int ilog2(std::uint64_t x) {
  return x == 0 ? 0 : 63 - std::countl_zero(x);
}
/// Smallest power of two >= x (roundup_pow_of_two); 1 for x <= 1.
constexpr std::uint64_t rup2(std::uint64_t x) {
  return x <= 1 ? 1 : std::bit_ceil(x);
}

/// 128-bit intermediate for products of page counts, as the kernel's u64 * u64 >> 16 needs.
__extension__ using Int128 = __int128;

/// RATELIMIT_CALC_SHIFT: pos_ratio and friends are fixed point with this many fraction bits.
inline constexpr int kRatelimitCalcShift = 10;
inline constexpr std::int64_t kPosRatioOne = std::int64_t{1} << kRatelimitCalcShift;

}  // namespace throttlelab::engine
