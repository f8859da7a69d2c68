// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A fixed-size log histogram of durations for p50/p99 without keeping every value:
// four buckets per doubling from 1 µs, so a quantile is within ~19 % of the true value.
#include <array>
#include <cmath>
#include <cstdint>

namespace throttlelab::engine {

class PauseHistogram {
 public:
  static constexpr int kBuckets = 128;

  void add(double ms) {
    const int b = bucketOf(ms);
    ++m_counts[static_cast<std::size_t>(b)];
    ++m_total;
    if (ms > m_max) m_max = ms;
  }
  std::int64_t count() const { return m_total; }
  double max() const { return m_max; }
  /// The q-quantile (0..1), as the geometric middle of its bucket; 0 when empty.
  double quantile(double q) const {
    if (m_total == 0) return 0;
    const auto rank = static_cast<std::int64_t>(std::ceil(q * static_cast<double>(m_total)));
    std::int64_t seen = 0;
    for (int b = 0; b < kBuckets; ++b) {
      seen += m_counts[static_cast<std::size_t>(b)];
      if (seen >= std::max<std::int64_t>(rank, 1)) {
        if (b == 0) return 0.0005;
        const double lo = std::exp2((b - 1) / 4.0), hi = std::exp2(b / 4.0);
        return std::min(std::sqrt(lo * hi) / 1000.0, m_max);
      }
    }
    return m_max;
  }
  void merge(const PauseHistogram& o) {
    for (int b = 0; b < kBuckets; ++b) m_counts[static_cast<std::size_t>(b)] += o.m_counts[static_cast<std::size_t>(b)];
    m_total += o.m_total;
    m_max = std::max(m_max, o.m_max);
  }

 private:
  static int bucketOf(double ms) {
    // The bucket is a pure function of ms, and pauses repeat: every writer held at the hard
    // limit sleeps max_pause, and each pause goes into two histograms (the task's and the
    // run's). Remember the last one instead of calling log2() half a million times a second.
    thread_local double lastMs = -1;
    thread_local int lastBucket = 0;
    if (ms == lastMs) return lastBucket;
    const double us = ms * 1000.0;
    const int b = us < 1.0 ? 0 : std::min(kBuckets - 1, static_cast<int>(std::log2(us) * 4.0) + 1);
    lastMs = ms;
    lastBucket = b;
    return b;
  }

  std::array<std::uint32_t, kBuckets> m_counts{};
  std::int64_t m_total = 0;
  double m_max = 0;
};

}  // namespace throttlelab::engine
