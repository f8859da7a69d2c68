// SPDX-License-Identifier: GPL-3.0-or-later
// Large folios in the write path (docs/model.md, Eq. 51): what the throttle sees when a write()
// is dirtied folio by folio, as on 6.x, against single pages, as on the older kernels.
#include <gtest/gtest.h>

#include <algorithm>
#include <variant>
#include <vector>

#include "throttlelab/engine/simulator.h"

namespace throttlelab::engine {
namespace {

// This project's machine under the 64 MiB dirty_bytes of its 6.18 captures: 2 CPUs, a fast
// disk, writers of unlimited size.
Scenario box(int writers, std::int64_t blockKiB, std::string policy = "ioless",
             int maxFolioOrder = -1) {
  Scenario s;
  s.name = "folio-box";
  s.durationS = 20;
  s.policy = std::move(policy);
  s.machine = MachineConfig{.memoryMiB = 8192, .cpus = 2, .hz = 250};
  s.machine.maxFolioOrder = maxFolioOrder;
  s.vm.dirtyBytes = 64 << 20;
  s.vm.dirtyBackgroundBytes = 32 << 20;
  s.devices = {DeviceConfig{.name = "vda", .writeMBps = 900, .seekMs = 0, .maxRequestKiB = 4096}};
  s.tasks = {TaskSpec{.name = "dd",
                      .count = writers,
                      .blockKiB = blockKiB,
                      .fileMiB = 1 << 20,
                      .loop = false,
                      .copyMBps = 1500}};
  return s;
}

struct Records : RecordSink {
  std::vector<BalanceDirtyPages> bdp;
  std::vector<Sample> samples;
  void onTrace(const TraceRecord& r) override {
    if (const auto* b = std::get_if<BalanceDirtyPages>(&r)) bdp.push_back(*b);
  }
  void onSample(const Sample& s) override { samples.push_back(s); }
};

Records run(const Scenario& s) {
  Records r;
  Simulator sim(s);
  sim.setSink(&r, OutputOptions{.traces = true});
  sim.run();
  return r;
}

double medianDirty(const Records& r, double fromS) {
  std::vector<double> v;
  for (const auto& s : r.samples)
    if (toSeconds(s.time) >= fromS)
      v.push_back(static_cast<double>(s.dirtyPages + s.writebackPages));
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// The entry check of the IO-less policies wants nr_dirtied_pause pages (at least one, 8 while
// dirty_exceeded); a writer of single pages checks in at that page. Only the first pass of a
// call shows the quota it came in with: over the hard limit balance_dirty_pages() loops with
// the same `dirtied` and prints the nr_dirtied_pause its sleep has set since. A call that
// neither sleeps nor banks (period 0) keeps nr_dirtied, so the next one may carry a few pages
// more than its quota even with single pages.
std::int64_t quota(const BalanceDirtyPages& b) {
  return std::max<std::int64_t>(b.dirtiedPause, 1);
}
std::vector<std::int64_t> overshoots(const Records& r) {
  std::vector<std::int64_t> v;
  for (const auto& b : r.bdp)
    if (b.paused == 0) v.push_back(static_cast<std::int64_t>(b.dirtied) - quota(b));
  std::sort(v.begin(), v.end());
  return v;
}
std::int64_t median(const std::vector<std::int64_t>& v) {
  return v[v.size() / 2];
}
double shareAbove(const std::vector<std::int64_t>& v, std::int64_t x) {
  return static_cast<double>(std::count_if(v.begin(), v.end(), [x](auto o) { return o > x; })) /
         static_cast<double>(v.size());
}

TEST(Folios, OneMiBWritesCheckInOncePerFolioAndOvershootThePause) {
  const Records r = run(box(10, 1024));
  const auto over = overshoots(r);
  ASSERT_FALSE(over.empty());
  for (const auto& b : r.bdp) EXPECT_EQ(b.dirtied % 256, 0u) << "dirtied " << b.dirtied;
  // Most check-ins come a part of a folio late, and typically by less than a folio.
  EXPECT_GT(shareAbove(over, 0), 0.5);
  EXPECT_LT(median(over), 256);
}

void expectSinglePages(const Scenario& s) {
  const Records r = run(s);
  const auto over = overshoots(r);
  ASSERT_FALSE(over.empty()) << s.policy;
  EXPECT_LT(shareAbove(over, 0), 0.01) << s.policy;
  EXPECT_LT(over.back(), 256) << s.policy;
}

TEST(Folios, FourKiBWritesDirtySinglePagesEvenOnTodaysKernel) {
  expectSinglePages(box(10, 4));
}

TEST(Folios, OlderKernelsAndOrderZeroKeepFourKiBPages) {
  expectSinglePages(box(10, 1024, "ioless-3.2"));
  expectSinglePages(box(10, 1024, "ioless", 0));
}

TEST(Folios, AMappingOfOrderFourDirtiesSixteenPagesAtATime) {
  const Records r = run(box(10, 1024, "ioless", 4));
  const auto over = overshoots(r);
  ASSERT_FALSE(over.empty());
  for (const auto& b : r.bdp) EXPECT_EQ(b.dirtied % 16, 0u) << "dirtied " << b.dirtied;
  EXPECT_LT(median(over), 16);
}

TEST(Folios, AHundredWritersOfFoliosStandFurtherAboveTheLimitThanOfPages) {
  // Each of 100 writers can dirty a 256-page folio between two looks at the limit, where
  // single-page writers check in after every page once nr_dirtied_pause has fallen to 0.
  const Records folios = run(box(100, 1024));
  const Records pages = run(box(100, 1024, "ioless", 0));
  const double withFolios = medianDirty(folios, 10);
  const double withPages = medianDirty(pages, 10);
  EXPECT_GT(withFolios, withPages * 1.1) << withFolios << " against " << withPages;
}

// balance_dirty_pages_ratelimited_flags() 3.2+: besides its own quota a writer checks in when
// the CPU it runs on has dirtied ratelimit_pages since the last check-in there: dirty_thresh /
// (CPUs x 32) = 256 pages on this 2-CPU box, one 1 MiB folio. Ten dd on a disk as fast as the
// one of the 6.18 10-dd trace get quotas above a folio, and still check in after every folio,
// as that trace shows (`dirtied=256 dirtied_pause=415`); by their quota alone they would come
// in after two.
TEST(EntryCheck, ACpuThatDirtiedRatelimitPagesSendsItsNextWriterIn) {
  Scenario s = box(10, 1024);
  s.devices[0].writeMBps = 1400;
  const Records r = run(s);
  std::int64_t aboveAFolio = 0;
  for (const auto& b : r.bdp) {
    if (b.paused != 0 || b.dirtiedPause <= 256) continue;
    ++aboveAFolio;
    EXPECT_EQ(b.dirtied, 256u) << "dirtied_pause " << b.dirtiedPause;
  }
  EXPECT_GT(aboveAFolio, 100);
}

// dirty_throttle_leaks (3.2+): a writer that exits before its check-in leaves the pages it
// dirtied since the last one to the next writer checking in on its CPU. Four hundred dd of
// 1 MiB each: without the leaks the pages each dirtied after its last check-in (a fifth of
// them here) would never be counted at one; with them only the last few runs' are not.
TEST(EntryCheck, ShortLivedWritersAreThrottledForWhatTheyLeftUncounted) {
  Scenario s = box(400, 4);
  s.tasks[0].fileMiB = 1;
  struct Sink : RecordSink {
    std::int64_t checkedIn = 0;
    Pages firstDirtied = -1, lastDirtied = 0;
    void onTrace(const TraceRecord& r) override {
      if (const auto* b = std::get_if<BalanceDirtyPages>(&r)) {
        if (b->paused == 0) checkedIn += b->dirtied;
      } else if (const auto* g = std::get_if<GlobalDirtyState>(&r)) {
        if (g->dirty + g->writeback > (g->thresh + g->bgThresh) / 2) {
          if (firstDirtied < 0) firstDirtied = g->dirtied;
          lastDirtied = g->dirtied;
        }
      }
    }
  } sink;
  Simulator sim(s);
  sim.setSink(&sink, OutputOptions{.traces = true});
  sim.run();
  const Pages dirtied = sink.lastDirtied - sink.firstDirtied;
  ASSERT_GT(dirtied, 4 * 16384);
  EXPECT_GT(static_cast<double>(sink.checkedIn), 0.9 * static_cast<double>(dirtied))
      << sink.checkedIn << " of " << dirtied << " pages were counted at a check-in";
}

// The kernel keeps a bdi's bandwidth state for its lifetime: a run can start from the state
// earlier writes left (DeviceConfig::initial*KBps), or from INIT_BW as after boot.
TEST(EntryCheck, ADeviceStartsFromTheBandwidthStateItIsGiven) {
  const auto firstRatelimit = [](const Scenario& s) {
    const Records r = run(s);
    return r.bdp.empty() ? -1 : r.bdp.front().dirtyRatelimit;
  };
  Scenario s = box(10, 1024);
  s.durationS = 1;
  EXPECT_EQ(firstRatelimit(s), 102400);  // INIT_BW, 100 MB/s
  s.devices[0].initialDirtyRatelimitKBps = 212;
  s.devices[0].initialWriteBwKBps = 1'900'000;
  s.devices[0].initialAvgWriteBwKBps = 1'800'000;
  EXPECT_EQ(firstRatelimit(s), 212);
}

// A run can start with the page cache a trace began with (machine.initialDirtyPages,
// initialWritebackPages; docs/model.md, Eq. 68): the pages count where the thresholds read
// them from the first check-in on, and writers that meet a stalled device there add at most
// about a folio each, instead of all racing up from an empty cache.
TEST(EntryCheck, ARunStartsFromThePageCacheItIsGiven) {
  Scenario s = box(20, 1024);
  s.durationS = 1;
  s.devices[0].stalls = "0+10";  // nothing completes during the run
  constexpr Pages kDirty = 9000, kWriteback = 18000;
  const Records empty = run(s);
  ASSERT_FALSE(empty.bdp.empty());
  EXPECT_LT(empty.bdp.front().dirty, kDirty + kWriteback);  // from boot: an empty cache
  s.machine.initialDirtyPages = kDirty;
  s.machine.initialWritebackPages = kWriteback;
  const Records seeded = run(s);
  ASSERT_FALSE(seeded.bdp.empty());
  ASSERT_FALSE(seeded.samples.empty());
  EXPECT_GE(seeded.bdp.front().dirty, kDirty + kWriteback);
  EXPECT_GT(seeded.samples.front().writebackPages, 0);  // submitted at the start
  const double level = medianDirty(seeded, 0);
  EXPECT_GE(level, static_cast<double>(kDirty + kWriteback));
  EXPECT_LE(level, static_cast<double>(kDirty + kWriteback + 20 * 512));
}

}  // namespace
}  // namespace throttlelab::engine
