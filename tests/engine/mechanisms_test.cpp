// SPDX-License-Identifier: GPL-3.0-or-later
// The substrate: CPU sharing, the block device, the page cache of a file, floating proportions.
#include <gtest/gtest.h>

#include <algorithm>

#include "block_device.h"
#include "cpu_scheduler.h"
#include "flex_proportions.h"
#include "page_allocator.h"
#include "page_cache.h"

namespace throttlelab::engine {
namespace {

// Runs the scheduler to completion and returns each task's finish time in seconds (slice
// ends and kernel threads, reported with negative ids, are retired on the way).
std::vector<double> finishTimes(CpuScheduler& cpu, int tasks) {
  std::vector<double> done(static_cast<std::size_t>(tasks), -1);
  SimTime now{};
  while (auto next = cpu.nextCompletion(now)) {
    now = next->first;
    cpu.complete(next->second, now);
    if (next->second >= 0) done[static_cast<std::size_t>(next->second)] = toSeconds(now);
  }
  return done;
}

// CPU hogs share by turns of a time slice (12 ms on two CPUs): over a second they come out
// even, to within a slice.
constexpr double kSlice = 0.013;

TEST(CpuScheduler, FourTasksOnTwoCpusGetHalfACpuEach) {
  CpuScheduler cpu(2);
  for (int i = 0; i < 4; ++i) cpu.start(i, 1.0, 0, 0, SimTime{});
  for (double t : finishTimes(cpu, 4)) EXPECT_NEAR(t, 2.0, kSlice);
}

TEST(CpuScheduler, FewerTasksThanCpusGetAWholeCpuEachAndNoMore) {
  CpuScheduler cpu(64);
  for (int i = 0; i < 3; ++i) cpu.start(i, 1.0, 0, 0, SimTime{});
  for (double t : finishTimes(cpu, 3)) EXPECT_NEAR(t, 1.0, 1e-6);
}

TEST(CpuScheduler, MoreTasksThanCpusTakeTurnsAndAShortPieceRunsInOneGo) {
  // 1,000 pieces of 0.1 ms on 2 CPUs: a CPU runs one piece at full speed, then the next (a
  // fluid share would finish every piece together after 50 ms).
  CpuScheduler cpu(2);
  for (int i = 0; i < 1000; ++i) cpu.start(i, 1e-4, 0, 0, SimTime{});
  auto t = finishTimes(cpu, 1000);
  std::sort(t.begin(), t.end());
  EXPECT_NEAR(t[0], 1e-4, 1e-9);
  EXPECT_NEAR(t[1], 1e-4, 1e-9);
  EXPECT_NEAR(t[2], 2e-4, 1e-9);
  EXPECT_NEAR(t[999], 0.05, 1e-6);
}

TEST(CpuScheduler, ATaskThatGoesOnAtOnceKeepsItsCpu) {
  // Task 0 completes a piece and starts the next at the same instant (a writer copying on
  // after a throttle check): task 1, queued, does not get its CPU in between.
  CpuScheduler cpu(1);
  cpu.start(0, 1e-3, 0, 0, SimTime{});
  cpu.start(1, 1e-3, 0, 0, SimTime{});
  auto next = cpu.nextCompletion(SimTime{});
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->second, 0);
  cpu.complete(0, next->first);
  cpu.start(0, 1e-3, 0, 0, next->first);
  next = cpu.nextCompletion(next->first);
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->second, 0);
  EXPECT_NEAR(toSeconds(next->first), 2e-3, 1e-9);
  // One that does not go on (it went to sleep) hands its CPU to the queue.
  cpu.complete(0, next->first);
  next = cpu.nextCompletion(next->first);
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->second, 1);
  EXPECT_NEAR(toSeconds(next->first), 3e-3, 1e-9);
}

TEST(CpuScheduler, RealTimeTasksTakeAWholeCpuFirst) {
  CpuScheduler cpu(2);
  cpu.start(0, 1.0, 50, 0, SimTime{});  // SCHED_FIFO
  cpu.start(1, 1.0, 0, 0, SimTime{});
  cpu.start(2, 1.0, 0, 0, SimTime{});
  const auto t = finishTimes(cpu, 3);
  EXPECT_NEAR(t[0], 1.0, 1e-6);
  // The two normal tasks take turns on one CPU while the rt task runs, then get one each.
  EXPECT_NEAR(t[1], 1.5, kSlice);
  EXPECT_NEAR(t[2], 1.5, kSlice);
}

TEST(CpuScheduler, RealTimeTasksStarveNormalOnesWhenTheyFillEveryCpu) {
  CpuScheduler cpu(1);
  cpu.start(0, 2.0, 10, 0, SimTime{});
  cpu.start(1, 1.0, 0, 0, SimTime{});
  const auto t = finishTimes(cpu, 2);
  EXPECT_NEAR(t[0], 2.0, 1e-6);
  EXPECT_NEAR(t[1], 3.0, 1e-6);
}

TEST(CpuScheduler, KernelThreadsTakeACpuBeforeNormalTasksAndAfterRealTimeOnes) {
  CpuScheduler cpu(1);
  cpu.start(0, 1.0, 0, 0, SimTime{});
  cpu.addKernelWork(0, 0.5, SimTime{});
  EXPECT_NEAR(cpu.kernelBacklog(atSeconds(0.2)), 0.3, 1e-9);
  auto t = finishTimes(cpu, 1);
  EXPECT_NEAR(t[0], 1.5, 1e-6);
  EXPECT_NEAR(cpu.kernelBacklog(atSeconds(1.5)), 0, 1e-12);
  // A real-time task keeps its CPU: the kernel thread waits.
  CpuScheduler rt(1);
  rt.start(0, 1.0, 50, 0, SimTime{});
  rt.addKernelWork(0, 0.5, SimTime{});
  EXPECT_NEAR(rt.kernelBacklog(atSeconds(0.9)), 0.5, 1e-9);
  const auto done = rt.nextCompletion(atSeconds(0.9));
  ASSERT_TRUE(done.has_value());
  EXPECT_EQ(done->second, 0);
  rt.complete(0, done->first);
  EXPECT_NEAR(rt.kernelBacklog(atSeconds(1.2)), 0.3, 1e-6);
}

TEST(CpuScheduler, NiceLevelsSplitTheCpuByWeight) {
  CpuScheduler cpu(1);
  cpu.start(0, 1.0, 0, 0, SimTime{});  // weight 1024
  cpu.start(1, 1.0, 0, 5, SimTime{});  // weight 335
  const auto t = finishTimes(cpu, 2);
  EXPECT_NEAR(t[0], (1024.0 + 335.0) / 1024.0, kSlice);
  EXPECT_NEAR(t[1], 2.0, 1e-6);
  EXPECT_EQ(niceToWeight(0), 1024);
  EXPECT_EQ(niceToWeight(-20), 88761);
}

TEST(CpuScheduler, CancelReturnsTheWorkDoneSoFar) {
  CpuScheduler cpu(1);
  cpu.start(0, 1.0, 0, 0, SimTime{});
  cpu.start(1, 1.0, 0, 0, SimTime{});
  SimTime now{};
  // Run the slices up to 0.5 s.
  while (auto next = cpu.nextCompletion(now)) {
    if (next->first > atSeconds(0.5)) break;
    now = next->first;
    cpu.complete(next->second, now);
  }
  EXPECT_NEAR(cpu.usedSoFar(1, atSeconds(0.5)), 0.25, kSlice);
  EXPECT_NEAR(cpu.cancel(1, atSeconds(0.5)), 0.25, kSlice);
  EXPECT_FALSE(cpu.isRunning(1));
  const auto t = finishTimes(cpu, 1);
  EXPECT_NEAR(t[0], 1.25, kSlice);
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
  EXPECT_EQ(dev.submit(8, 0, 10, SimTime{}), 10);  // another file: a new request
  EXPECT_EQ(dev.allocated(), 4);
  EXPECT_TRUE(dev.full());
  EXPECT_EQ(dev.submit(9, 0, 10, SimTime{}), 0);  // no slot left
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

// Eq. 51, the kernel's rules worked by hand: fgf_set_order() of the chunk left in the write,
// capped at the mapping's order, lowered to the alignment of the index.
TEST(WriteFolio, FollowsTheWritesSizeTheMappingsOrderAndTheAlignment) {
  EXPECT_EQ(writeFolioPages(0, 1, 9), 1);      // a 4 KiB write: one page
  EXPECT_EQ(writeFolioPages(0, 16, 9), 16);    // 64 KiB: order 4
  EXPECT_EQ(writeFolioPages(0, 256, 9), 256);  // 1 MiB: order 8
  EXPECT_EQ(writeFolioPages(256, 256, 9), 256);
  EXPECT_EQ(writeFolioPages(0, 1024, 9), 512);  // 4 MiB: chunks of the largest folio
  EXPECT_EQ(writeFolioPages(0, 24, 9), 16);     // 96 KiB: the largest power of two in it...
  EXPECT_EQ(writeFolioPages(16, 8, 9), 8);      // ...then what is left
  EXPECT_EQ(writeFolioPages(4, 256, 9), 4);     // index 4 is aligned to 4 pages only
  EXPECT_EQ(writeFolioPages(3, 256, 9), 1);     // odd index: a single page
  EXPECT_EQ(writeFolioPages(510, 256, 9), 2);   // chunk boundary at 512: 2 pages left in it
  EXPECT_EQ(writeFolioPages(0, 256, 4), 16);    // a mapping whose largest order is 4
  EXPECT_EQ(writeFolioPages(0, 256, 0), 1);     // no large folios: 4 KiB pages
}

// Eq. 70: __filemap_get_folio() (6.x) asks for the orders above 0 with __GFP_NORETRY, from
// the highest down, so a write's folio is the largest that fits above the min watermark (the
// allocator's mark once kswapd is woken) after what the write has taken already; order 0 is
// asked for anyway, and allocate() may stall for it.
TEST(WriteFolio, FallsBackToTheLargestOrderTheAllocatorGivesWithoutReclaim) {
  Scenario s;
  s.machine.allocator = "6.x";
  PageAllocator a;
  a.configure(s);
  Memory mem;
  mem.wmarkMin = 512;
  mem.wmarkLow = 640;
  mem.wmarkHigh = 768;
  Task dd;
  mem.free = 100000;
  EXPECT_EQ(a.folioWithoutReclaim(mem, dd, 256, 0), 256);  // plenty: order 8
  mem.free = 512 + 256;
  EXPECT_EQ(a.folioWithoutReclaim(mem, dd, 256, 0), 256);  // exactly fits above min
  mem.free = 512 + 255;
  EXPECT_EQ(a.folioWithoutReclaim(mem, dd, 256, 0), 128);   // one page short: order 7
  EXPECT_EQ(a.folioWithoutReclaim(mem, dd, 256, 200), 32);  // 55 left after the write's 200
  EXPECT_EQ(a.folioWithoutReclaim(mem, dd, 16, 0), 16);     // a smaller folio is not raised
  mem.free = 512;
  EXPECT_EQ(a.folioWithoutReclaim(mem, dd, 256, 0), 1);  // nothing above min: a single page
  // A real-time writer's mark is lower (ALLOC_MIN_RESERVE, 6.3+: half of min).
  Task rt;
  rt.info.sched = SchedClass::Fifo;
  EXPECT_EQ(a.folioWithoutReclaim(mem, rt, 256, 0), 256);
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
