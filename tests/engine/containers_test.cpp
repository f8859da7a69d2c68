// SPDX-License-Identifier: GPL-3.0-or-later
// The engine's own containers, against plain reference implementations: the pause histogram
// (with its run-length header), the calendar event queue, and the huge-page table allocator.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <queue>
#include <random>
#include <vector>

#include "event_queue.h"
#include "huge_page_allocator.h"
#include "pause_histogram.h"

namespace throttlelab::engine {
namespace {

// The bucket rule of the histogram, written out independently: four per doubling from 1 µs.
int referenceBucket(double ms) {
  const double us = ms * 1000.0;
  return us < 1.0
             ? 0
             : std::min(PauseHistogram::kBuckets - 1, static_cast<int>(std::log2(us) * 4.0) + 1);
}

double referenceQuantile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::vector<int> buckets;
  for (double v : values) buckets.push_back(referenceBucket(v));
  std::sort(buckets.begin(), buckets.end());
  const auto rank = std::max<std::int64_t>(
      static_cast<std::int64_t>(std::ceil(q * static_cast<double>(values.size()))), 1);
  const int b = buckets[static_cast<std::size_t>(rank - 1)];
  if (b == 0) return 0.0005;
  const double mid = std::sqrt(std::exp2((b - 1) / 4.0) * std::exp2(b / 4.0)) / 1000.0;
  return std::min(mid, *std::max_element(values.begin(), values.end()));
}

TEST(PauseHistogram, RunsOfEqualPausesCountLikeSeparateOnes) {
  // Long runs (a writer at the hard limit), alternation, and a run still open when asked.
  std::vector<double> values;
  for (int i = 0; i < 500; ++i) values.push_back(20.0);
  for (int i = 0; i < 300; ++i) values.push_back(i % 2 ? 4.0 : 200.0);
  for (int i = 0; i < 50; ++i) values.push_back(0.0004);
  for (int i = 0; i < 700; ++i) values.push_back(12.0);
  PauseHistogram h;
  for (double v : values) h.add(v);
  EXPECT_EQ(h.count(), static_cast<std::int64_t>(values.size()));
  EXPECT_DOUBLE_EQ(h.max(), 200.0);
  for (double q : {0.01, 0.05, 0.3, 0.5, 0.6, 0.9, 0.99, 1.0})
    EXPECT_DOUBLE_EQ(h.quantile(q), referenceQuantile(values, q)) << "q=" << q;
}

TEST(PauseHistogram, MergeIncludesBothOpenRuns) {
  PauseHistogram a, b;
  std::vector<double> all;
  for (int i = 0; i < 90; ++i) {
    a.add(1.0);
    all.push_back(1.0);
  }
  for (int i = 0; i < 10; ++i) {
    b.add(300.0);
    all.push_back(300.0);
  }
  a.merge(b);
  EXPECT_EQ(a.count(), 100);
  EXPECT_DOUBLE_EQ(a.quantile(0.95), referenceQuantile(all, 0.95));
  EXPECT_DOUBLE_EQ(a.quantile(0.5), referenceQuantile(all, 0.5));
  // Adding after the merge still counts into the right bucket.
  for (int i = 0; i < 200; ++i) {
    a.add(300.0);
    all.push_back(300.0);
  }
  EXPECT_DOUBLE_EQ(a.quantile(0.5), referenceQuantile(all, 0.5));
}

struct RefLater {
  bool operator()(const Event& a, const Event& b) const {
    return a.time != b.time ? a.time > b.time : a.seq > b.seq;
  }
};

TEST(EventQueue, PopsInTheOrderOfAHeap) {
  // Ascending bursts (wakes after equal pauses), random spreads, far events and pushes into the
  // current slot while it drains: the pop order must be the heap's order on (time, seq).
  EventQueue q;
  std::priority_queue<Event, std::vector<Event>, RefLater> ref;
  std::mt19937_64 rng(7);
  std::uint64_t seq = 0;
  SimTime now{};
  const auto push = [&](SimTime t, int id) {
    q.push(t, EventKind::TaskWake, id);
    ref.push(Event{t, seq++, EventKind::TaskWake, id, 0});
  };
  for (int i = 0; i < 2000; ++i) push(now + std::chrono::microseconds(20'000 + i), i);  // ascending
  for (int i = 0; i < 2000; ++i)
    push(now + std::chrono::microseconds(static_cast<std::int64_t>(rng() % 400'000)), 10'000 + i);
  int popped = 0;
  while (!q.empty()) {
    ASSERT_FALSE(ref.empty());
    const Event e = q.pop();
    const Event r = ref.top();
    ref.pop();
    ASSERT_EQ(e.time, r.time) << "pop " << popped;
    ASSERT_EQ(e.id, r.id) << "pop " << popped;
    now = e.time;
    if (popped < 3000 && popped % 3 == 0) push(now, 20'000 + popped);  // into the current slot
    if (popped < 3000 && popped % 5 == 0)
      push(now + std::chrono::microseconds(static_cast<std::int64_t>(rng() % 30'000)),
           30'000 + popped);
    ++popped;
  }
  EXPECT_TRUE(ref.empty());
  EXPECT_GT(popped, 5000);
}

TEST(HugePageAllocator, LargeTablesAreAlignedAndHoldTheirContents) {
  std::vector<std::int64_t, HugePageAllocator<std::int64_t>> table;
  for (std::int64_t i = 0; i < 1'000'000; ++i) table.push_back(i * 3);  // grows past 2 MiB
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(table.data()) % (std::uintptr_t{2} << 20), 0u);
  std::int64_t sum = 0;
  for (std::int64_t v : table) sum += v;
  EXPECT_EQ(sum, 3 * (999'999LL * 1'000'000LL / 2));
  std::vector<int, HugePageAllocator<int>> small{1, 2, 3};  // ordinary memory below 2 MiB
  EXPECT_EQ(small[2], 3);
}

}  // namespace
}  // namespace throttlelab::engine
