// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Page-size and unit conversions used everywhere in the engine.
#include <cstdint>

namespace throttlelab::engine {

using Pages = std::int64_t;                       ///< a count of 4 KiB pages
inline constexpr std::int64_t kPageBytes = 4096;  ///< PAGE_SIZE
inline constexpr Pages kPagesPerMiB = 256;

/// Pages per second to KiB/s, the unit of the kernel's tracepoints (KBps()).
constexpr double pagesToKBps(double pagesPerS) {
  return pagesPerS * 4.0;
}
/// Decimal megabytes per second (10^6 B/s, how disks are rated) to pages per second.
constexpr double mbpsToPagesPerS(double mbps) {
  return mbps * 1e6 / static_cast<double>(kPageBytes);
}
constexpr Pages mibToPages(double mib) {
  return static_cast<Pages>(mib * kPagesPerMiB);
}
constexpr double pagesToMiB(double pages) {
  return pages / static_cast<double>(kPagesPerMiB);
}

}  // namespace throttlelab::engine
