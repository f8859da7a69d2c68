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

}  // namespace
}  // namespace throttlelab::engine
