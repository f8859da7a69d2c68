// SPDX-License-Identifier: GPL-3.0-or-later
// A device that stalls (docs/model.md, Eq. 65): the request in service makes no progress during
// a stall, so nothing is written back, and the writers' dirty pages pile up past the limit.
#include <gtest/gtest.h>

#include <algorithm>
#include <variant>
#include <vector>

#include "block_device.h"
#include "stall_timeline.h"
#include "throttlelab/engine/simulator.h"

namespace throttlelab::engine {
namespace {

SimTime at(double s) {
  return atSeconds(s);
}

StallTimeline timeline(const char* text, double periodS = 0) {
  std::vector<Stall> stalls;
  std::string error;
  EXPECT_TRUE(parseStalls(text, periodS, &stalls, &error)) << error;
  return StallTimeline(stalls, seconds(periodS));
}

TEST(StallTimeline, ServiceStopsDuringAStallAndGoesOnAfterIt) {
  const StallTimeline t = timeline("0.010+0.020");
  // 5 ms of service before the 20 ms stall, the other 5 ms after it.
  EXPECT_EQ(t.finishAfter(at(0.005), millis(10)), at(0.035));
  // Started inside the stall: it begins when the stall ends.
  EXPECT_EQ(t.finishAfter(at(0.015), millis(1)), at(0.031));
  // Done before the stall, and after it: untouched.
  EXPECT_EQ(t.finishAfter(at(0.001), millis(2)), at(0.003));
  EXPECT_EQ(t.finishAfter(at(0.030), millis(2)), at(0.032));
  EXPECT_TRUE(t.stalledAt(at(0.020)));
  EXPECT_FALSE(t.stalledAt(at(0.030)));
  EXPECT_EQ(StallTimeline{}.finishAfter(at(1), millis(3)), at(1) + millis(3));
}

TEST(StallTimeline, APeriodicTimelineRepeats) {
  // Stalled during the second half of every 100 ms.
  const StallTimeline t = timeline("0.05+0.05", 0.1);
  EXPECT_TRUE(t.stalledAt(at(0.27)));
  EXPECT_FALSE(t.stalledAt(at(0.21)));
  // 30 ms to 0.15, the stall to 0.2, the last 10 ms to 0.21.
  EXPECT_EQ(t.finishAfter(at(0.12), millis(40)), at(0.21));
  // A long request: 1 s of service in the free halves of twenty periods.
  EXPECT_EQ(t.finishAfter(SimTime{}, seconds(1)), at(1.95));
  // A stall over the whole period: never done.
  EXPECT_EQ(timeline("0+0.1", 0.1).finishAfter(at(0.5), millis(1)), SimTime::max());
}

TEST(StallTimeline, BadTimelinesAreRefusedWithTheStallNamed) {
  std::vector<Stall> stalls;
  std::string error;
  EXPECT_FALSE(parseStalls("0.1+0.2 0.2+0.1", 0, &stalls, &error));
  EXPECT_NE(error.find("stall 2 '0.2+0.1'"), std::string::npos) << error;
  EXPECT_NE(error.find("overlapping"), std::string::npos) << error;
  EXPECT_FALSE(parseStalls("0.1-0.2", 0, &stalls, &error));
  EXPECT_NE(error.find("START+LENGTH"), std::string::npos) << error;
  EXPECT_FALSE(parseStalls("0.1+0", 0, &stalls, &error));
  EXPECT_FALSE(parseStalls("0.5+0.6", 1.0, &stalls, &error));
  EXPECT_NE(error.find("stallPeriodS"), std::string::npos) << error;
  EXPECT_TRUE(parseStalls(" 0+0.5, 1+0.25 ", 0, &stalls, &error)) << error;
  ASSERT_EQ(stalls.size(), 2u);
  EXPECT_EQ(stalls[1].start, at(1));
  EXPECT_EQ(stalls[1].end, at(1.25));
}

TEST(BlockDevice, ARequestInServiceCompletesOnlyAfterTheStall) {
  DeviceConfig c{.name = "vda", .writeMBps = 100, .seekMs = 0, .maxRequestKiB = 4096};
  c.stalls = "0+0.5";
  BlockDevice dev(c, 1);
  // 100 pages = 409,600 bytes at 100 MB/s: 4.096 ms of service, after the 0.5 s stall.
  dev.submit(0, 0, 100, at(0.1));
  ASSERT_TRUE(dev.nextCompletion());
  EXPECT_EQ(*dev.nextCompletion(), at(0.504096));
  c.stalls = "0+1";
  c.stallPeriodS = 1;  // stalled all the time
  BlockDevice never(c, 1);
  never.submit(0, 0, 100, at(0.1));
  EXPECT_FALSE(never.nextCompletion());
  EXPECT_FALSE(never.idle());
}

// Ten dd on this project's 6.18 machine under 64 MiB dirty_bytes; the disk stalls from 2 s to
// 4 s.
Scenario stalledBox(const char* stalls) {
  Scenario s;
  s.name = "stall-box";
  s.durationS = 5;
  s.policy = "ioless";
  s.machine = MachineConfig{.memoryMiB = 8192, .cpus = 2, .hz = 250};
  s.vm.dirtyBytes = 64 << 20;
  s.vm.dirtyBackgroundBytes = 32 << 20;
  s.devices = {DeviceConfig{.name = "vda", .writeMBps = 900, .seekMs = 0, .maxRequestKiB = 4096}};
  s.devices[0].stalls = stalls;
  s.tasks = {
      TaskSpec{.name = "dd", .count = 10, .blockKiB = 1024, .fileMiB = 1 << 20, .copyMBps = 1500}};
  validateScenario(s);
  return s;
}

struct DirtyState : RecordSink {
  std::vector<GlobalDirtyState> gds;
  void onTrace(const TraceRecord& r) override {
    if (const auto* g = std::get_if<GlobalDirtyState>(&r)) gds.push_back(*g);
  }
};

DirtyState runBox(const char* stalls) {
  DirtyState r;
  Simulator sim(stalledBox(stalls));
  sim.setSink(&r, OutputOptions{.traces = true});
  sim.run();
  return r;
}

TEST(StallingDevice, KeepsWrittenFlatAndDirtyRisesOverTheLimit) {
  const DirtyState stalled = runBox("2+2");
  const DirtyState steady = runBox("");
  const auto inStall = [](const GlobalDirtyState& g) {
    const double t = toSeconds(g.header.time);
    return t > 2.0 && t < 4.0;
  };
  const auto summary = [&](const DirtyState& r) {
    Pages firstWritten = -1, lastWritten = -1, maxDirty = 0, limit = 0;
    for (const auto& g : r.gds) {
      if (!inStall(g)) continue;
      if (firstWritten < 0) firstWritten = g.written;
      lastWritten = g.written;
      maxDirty = std::max(maxDirty, g.dirty + g.writeback);
      limit = g.limit;
    }
    return std::array<Pages, 4>{firstWritten, lastWritten, maxDirty, limit};
  };
  const auto s = summary(stalled);
  const auto u = summary(steady);
  ASSERT_GE(s[0], 0) << "no global_dirty_state records during the stall";
  EXPECT_EQ(s[0], s[1]) << "a stalled device completes nothing";
  EXPECT_GT(s[2], s[3]) << "with nothing written back the ten writers go past the limit";
  // The same machine without the stall writes back all along, and its writers stop within a
  // folio of the limit (they check in once per folio).
  EXPECT_GT(u[1], u[0]);
  EXPECT_LE(u[2], u[3] + 256);
  EXPECT_GT(s[2], u[2]);
  // After the stall the backlog is written back.
  EXPECT_GT(stalled.gds.back().written, s[1]);
}

}  // namespace
}  // namespace throttlelab::engine
