// SPDX-License-Identifier: GPL-3.0-or-later
// The substrate: CPU sharing, the block device, the page cache of a file, floating proportions.
#include <gtest/gtest.h>

#include "block_device.h"
#include "cpu_scheduler.h"
#include "flex_proportions.h"
#include "page_cache.h"

namespace throttlelab::engine {
namespace {

// Runs the scheduler to completion and returns each task's finish time in seconds.
std::vector<double> finishTimes(CpuScheduler& cpu, int tasks) {
  std::vector<double> done(static_cast<std::size_t>(tasks), -1);
  SimTime now{};
  while (auto next = cpu.nextCompletion(now)) {
    now = next->first;
    cpu.complete(next->second, now);
    done[static_cast<std::size_t>(next->second)] = toSeconds(now);
  }
  return done;
}

TEST(CpuScheduler, FourTasksOnTwoCpusGetHalfACpuEach) {
  CpuScheduler cpu(2);
  for (int i = 0; i < 4; ++i) cpu.start(i, 1.0, 0, 0, SimTime{});
  for (double t : finishTimes(cpu, 4)) EXPECT_NEAR(t, 2.0, 1e-6);
}

TEST(CpuScheduler, FewerTasksThanCpusGetAWholeCpuEachAndNoMore) {
  CpuScheduler cpu(64);
  for (int i = 0; i < 3; ++i) cpu.start(i, 1.0, 0, 0, SimTime{});
  for (double t : finishTimes(cpu, 3)) EXPECT_NEAR(t, 1.0, 1e-6);
}

TEST(CpuScheduler, RealTimeTasksTakeAWholeCpuFirst) {
  CpuScheduler cpu(2);
  cpu.start(0, 1.0, 50, 0, SimTime{});  // SCHED_FIFO
  cpu.start(1, 1.0, 0, 0, SimTime{});
  cpu.start(2, 1.0, 0, 0, SimTime{});
  const auto t = finishTimes(cpu, 3);
  EXPECT_NEAR(t[0], 1.0, 1e-6);
  // The two normal tasks share one CPU while the rt task runs, then get one each.
  EXPECT_NEAR(t[1], 1.5, 1e-6);
  EXPECT_NEAR(t[2], 1.5, 1e-6);
}

TEST(CpuScheduler, RealTimeTasksStarveNormalOnesWhenTheyFillEveryCpu) {
  CpuScheduler cpu(1);
  cpu.start(0, 2.0, 10, 0, SimTime{});
  cpu.start(1, 1.0, 0, 0, SimTime{});
  const auto t = finishTimes(cpu, 2);
  EXPECT_NEAR(t[0], 2.0, 1e-6);
  EXPECT_NEAR(t[1], 3.0, 1e-6);
}

TEST(CpuScheduler, NiceLevelsSplitTheCpuByWeight) {
  CpuScheduler cpu(1);
  cpu.start(0, 1.0, 0, 0, SimTime{});   // weight 1024
  cpu.start(1, 1.0, 0, 5, SimTime{});   // weight 335
  const auto t = finishTimes(cpu, 2);
  EXPECT_NEAR(t[0], (1024.0 + 335.0) / 1024.0, 1e-3);
  EXPECT_NEAR(t[1], 2.0, 1e-6);
  EXPECT_EQ(niceToWeight(0), 1024);
  EXPECT_EQ(niceToWeight(-20), 88761);
}

TEST(CpuScheduler, CancelReturnsTheWorkDoneSoFar) {
  CpuScheduler cpu(1);
  cpu.start(0, 1.0, 0, 0, SimTime{});
  cpu.start(1, 1.0, 0, 0, SimTime{});
  EXPECT_NEAR(cpu.cancel(1, atSeconds(0.5)), 0.25, 1e-6);
  EXPECT_FALSE(cpu.isRunning(1));
  const auto next = cpu.nextCompletion(atSeconds(0.5));
  ASSERT_TRUE(next.has_value());
  EXPECT_NEAR(toSeconds(next->first), 1.25, 1e-6);
}

DeviceConfig disk() {
  DeviceConfig c;
  c.writeMBps = 100;
  c.seekMs = 0;
  c.maxRequestKiB = 512;  // 128 pages
  c.nrRequests = 4;
  return c;
}

TEST(BlockDevice, MergesContiguousPagesUpToTheMaximumRequest) {
  BlockDevice dev(disk(), 1);
  EXPECT_EQ(dev.submit(7, 0, 300, SimTime{}), 300);  // 128 + 128 + 44; the first is in service
  EXPECT_EQ(dev.allocated(), 3);
  EXPECT_EQ(dev.submit(7, 300, 50, SimTime{}), 50);  // merges into the 44-page tail
  EXPECT_EQ(dev.allocated(), 3);
  EXPECT_EQ(dev.submit(8, 0, 10, SimTime{}), 10);    // another file: a new request
  EXPECT_EQ(dev.allocated(), 4);
  EXPECT_TRUE(dev.full());
  EXPECT_EQ(dev.submit(9, 0, 10, SimTime{}), 0);     // no slot left
}

TEST(BlockDevice, ServiceTimeIsSizeOverBandwidthPlusASeekWhenTheStreamChanges) {
  DeviceConfig c = disk();
  c.seekMs = 10;
  BlockDevice dev(c, 1);
  dev.submit(1, 0, 128, SimTime{});
  // 512 KiB at 100 MB/s = 5.24 ms, plus a seek of 5..15 ms (the first request always seeks)
  const double first = toSeconds(*dev.nextCompletion());
  EXPECT_GT(first, 0.00524 + 0.005 - 1e-6);
  EXPECT_LT(first, 0.00524 + 0.015 + 1e-6);
  dev.submit(1, 128, 128, SimTime{});
  const SimTime t1 = *dev.nextCompletion();
  dev.completeCurrent(t1);
  // contiguous: no seek
  EXPECT_NEAR(toSeconds(*dev.nextCompletion() - t1), 0.0052429, 1e-6);
  dev.completeCurrent(*dev.nextCompletion());
  EXPECT_EQ(dev.counters().requests, 2);
  EXPECT_EQ(dev.counters().seeks, 1);
  EXPECT_EQ(dev.counters().sectors, 256 * 8);
  EXPECT_TRUE(dev.idle());
}

TEST(BlockDevice, CongestionHasHysteresis) {
  DeviceConfig c = disk();
  c.nrRequests = 128;  // on at 113, off below 103
  BlockDevice dev(c, 1);
  for (int i = 0; i < 113; ++i) dev.submit(i, 0, 1, SimTime{});
  EXPECT_TRUE(dev.congested());
  while (dev.allocated() > 105) dev.completeCurrent(*dev.nextCompletion());
  EXPECT_TRUE(dev.congested());
  while (dev.allocated() > 101) dev.completeCurrent(*dev.nextCompletion());
  EXPECT_FALSE(dev.congested());
}

TEST(CachedFile, RewritingDirtyPagesDirtiesNothingNew) {
  CachedFile f(0, 0, 100);
  auto r = f.write(60, SimTime{});
  EXPECT_EQ(r.newlyDirtied, 60);
  EXPECT_EQ(r.allocated, 60);
  r = f.write(60, atSeconds(1));  // only 40 pages are not dirty yet
  EXPECT_EQ(r.newlyDirtied, 40);
  EXPECT_EQ(f.dirty(), 100);
}

TEST(CachedFile, WritebackTakesTheOldestPagesAndCompletionLeavesThemCachedClean) {
  CachedFile f(0, 0, 100);
  f.write(10, atSeconds(1));
  f.write(10, atSeconds(2));
  EXPECT_EQ(f.dirtyOlderThan(atSeconds(1)), 10);
  EXPECT_EQ(f.startWriteback(15, atSeconds(5)), 15);
  EXPECT_EQ(f.dirtiedWhen(), atSeconds(2));
  f.completeWriteback(15);
  EXPECT_EQ(f.clean(), 15);
  EXPECT_EQ(f.resident(), 20);
  // Rewriting: the clean pages ahead need no allocation, evicted ones do.
  EXPECT_EQ(f.evictClean(5), 5);
  const auto plan = f.planWrite(100);
  EXPECT_EQ(plan.newlyDirtied, 95);
  EXPECT_EQ(plan.allocated, 85);
}

TEST(FlexProportions, ShareFollowsRecentCompletionsAndAgesByHalving) {
  FlexProportions p(2);
  std::int64_t n = 0, d = 0;
  p.fraction(0, SimTime{}, n, d);
  EXPECT_EQ(n, 0);
  p.add(0, 300, SimTime{});
  p.add(1, 100, SimTime{});
  p.fraction(0, SimTime{}, n, d);
  EXPECT_DOUBLE_EQ(static_cast<double>(n) / static_cast<double>(d), 0.75);
  // One period later device 1 alone completes 300: (150 + 0) / (200 + 300)
  p.add(1, 300, atSeconds(3.5));
  p.fraction(0, atSeconds(3.5), n, d);
  EXPECT_EQ(n, 150);
  EXPECT_EQ(d, 500);
}

}  // namespace
}  // namespace throttlelab::engine
