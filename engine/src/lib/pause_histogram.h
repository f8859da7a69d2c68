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
    // Pauses come in runs of equal values (every writer held at the hard limit sleeps
    // max_pause, pause after pause): count a run in the header and put it in its bucket only
    // when the value changes. With 10,000 tasks that spares a cache miss per pause.
    ++m_total;
    if (ms > m_max) m_max = ms;
    if (ms == m_runMs) {
      ++m_runCount;
      return;
    }
    flushRun();
    m_runMs = ms;
    m_runCount = 1;
  }
  std::int64_t count() const { return m_total; }
  double max() const { return m_max; }
  /// The q-quantile (0..1), as the geometric middle of its bucket; 0 when empty.
  double quantile(double q) const {
    if (m_total == 0) return 0;
    const auto rank = static_cast<std::int64_t>(std::ceil(q * static_cast<double>(m_total)));
    const int runBucket = m_runCount > 0 ? bucketOf(m_runMs) : -1;
    std::int64_t seen = 0;
    for (int b = 0; b < kBuckets; ++b) {
      seen += m_counts[static_cast<std::size_t>(b)];
      if (b == runBucket) seen += m_runCount;
      if (seen >= std::max<std::int64_t>(rank, 1)) {
        if (b == 0) return 0.0005;
        const double lo = std::exp2((b - 1) / 4.0), hi = std::exp2(b / 4.0);
        return std::min(std::sqrt(lo * hi) / 1000.0, m_max);
      }
    }
    return m_max;
  }
  void merge(const PauseHistogram& o) {
    flushRun();
    for (int b = 0; b < kBuckets; ++b)
      m_counts[static_cast<std::size_t>(b)] += o.m_counts[static_cast<std::size_t>(b)];
    if (o.m_runCount > 0)
      m_counts[static_cast<std::size_t>(bucketOf(o.m_runMs))] +=
          static_cast<std::uint32_t>(o.m_runCount);
    m_total += o.m_total;
    m_max = std::max(m_max, o.m_max);
  }

 private:
  void flushRun() {
    if (m_runCount > 0)
      m_counts[static_cast<std::size_t>(bucketOf(m_runMs))] +=
          static_cast<std::uint32_t>(m_runCount);
    m_runCount = 0;
  }
  static int bucketOf(double ms) {
    // A pure function of ms, and the same few values recur: remember the last one instead of
    // calling log2() for every run that ends.
    thread_local double lastMs = -1;
    thread_local int lastBucket = 0;
    if (ms == lastMs) return lastBucket;
    const double us = ms * 1000.0;
    const int b = us < 1.0 ? 0 : std::min(kBuckets - 1, static_cast<int>(std::log2(us) * 4.0) + 1);
    lastMs = ms;
    lastBucket = b;
    return b;
  }

  // The header (one cache line) before the counts.
  std::int64_t m_total = 0;
  double m_max = 0;
  double m_runMs = -1;          ///< the value of the current run of equal pauses
  std::int64_t m_runCount = 0;  ///< its length, not yet in m_counts
  std::array<std::uint32_t, kBuckets> m_counts{};
};

}  // namespace throttlelab::engine
