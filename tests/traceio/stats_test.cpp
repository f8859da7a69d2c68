// SPDX-License-Identifier: GPL-3.0-or-later
// "Simulate this trace": what TraceStats measures, the scenario derived from it, and the
// comparison rows. Expected values are worked out by hand from the records given.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "test_support.h"
#include "throttlelab/engine/simulator.h"
#include "throttlelab/traceio/trace_stats.h"

namespace {

// te, ti, the sinks and the file helpers.
using namespace throttlelab::test;

te::TraceHeader at(double s, int pid, std::string_view comm = "dd") {
  return te::TraceHeader{
      .time = te::atSeconds(s), .comm = te::makeComm(comm), .pid = pid, .cpu = 0};
}

te::BalanceDirtyPages pauseOf(double s, int pid, std::int64_t pauseMs,
                              std::string_view bdi = "8:0") {
  // limit, setpoint, dirty, wb_setpoint, wb_dirty, the two ratelimits, dirtied, dirtied_pause,
  // paused, pause, period, think, cgroup_ino.
  return te::BalanceDirtyPages{at(s, pid), bdi, 1000, 800, 880,     0,       0, 400,
                               200,        32,  0,    0,   pauseMs, pauseMs, 0, 1};
}

/// A global_dirty_state of this project's 6.18 machine under 64 MiB dirty_bytes.
te::GlobalDirtyState dirtyStateOf(double s, std::int64_t dirty, std::int64_t writeback,
                                  std::int64_t written) {
  return te::GlobalDirtyState{.header = at(s, 33),
                              .dirty = dirty,
                              .writeback = writeback,
                              .bgThresh = 8192,
                              .thresh = 16384,
                              .limit = 16384,
                              .written = written};
}

TEST(TraceStats, MeasuresPausesRatesAndThresholds) {
  ti::TraceStats stats;
  // Two pids on 8:0, one on 8:16; pauses 4, 8, ..., 40 ms (ten values), plus two zero pauses.
  for (int i = 0; i < 10; ++i) stats.add(pauseOf(1.0 + i * 0.1, 100 + i % 2, 4 * (i + 1)));
  stats.add(pauseOf(2.0, 100, 0));
  stats.add(pauseOf(3.0, 200, 0, "8:16"));
  for (int i = 0; i < 5; ++i)
    stats.add(te::GlobalDirtyState{.header = at(1.0 + i, 1),
                                   .dirty = 700 + 10 * i,
                                   .writeback = 100,
                                   .bgThresh = 500,
                                   .thresh = 1000 + i,
                                   .limit = 1000});
  stats.add(te::BdiDirtyRatelimit{
      .header = at(1.5, 100), .bdi = "8:0", .awriteBw = 50000, .dirtyRatelimit = 400});
  stats.add(te::BdiDirtyRatelimit{
      .header = at(2.5, 100), .bdi = "8:0", .awriteBw = 70000, .dirtyRatelimit = 600});
  stats.add(te::BdiDirtyRatelimit{
      .header = at(2.6, 100), .bdi = "8:0", .awriteBw = 60000, .dirtyRatelimit = 500});

  const auto r = stats.result();
  EXPECT_EQ(r.records, 10 + 2 + 5 + 3);
  EXPECT_DOUBLE_EQ(r.spanS, 4.0);  // 1.0 .. 5.0
  EXPECT_EQ(r.pauseMs.count, 10);
  EXPECT_DOUBLE_EQ(r.pauseMs.p50, 20.0);  // nearest rank 5 of 4..40
  EXPECT_DOUBLE_EQ(r.pauseMs.p90, 36.0);
  EXPECT_DOUBLE_EQ(r.pauseMs.max, 40.0);
  EXPECT_DOUBLE_EQ(r.pauseMs.mean, 22.0);
  EXPECT_DOUBLE_EQ(r.dirtyOverSetpoint.p50, 1.1);
  EXPECT_DOUBLE_EQ(r.dirtyPages.p50, 820.0);  // 800, 810, 820, 830, 840
  EXPECT_EQ(r.threshPages, 1002);
  EXPECT_EQ(r.bgThreshPages, 500);
  EXPECT_DOUBLE_EQ(r.writeBwKBps.at("8:0"), 60000.0);
  EXPECT_DOUBLE_EQ(r.dirtyRatelimitKBps.at("8:0"), 500.0);
  ASSERT_EQ(r.writers, 3);
  ASSERT_EQ(r.tasks.size(), 3u);
  EXPECT_EQ(r.tasks[0].pid, 100);
  EXPECT_EQ(r.tasks[0].bdi, "8:0");
  EXPECT_EQ(r.tasks[0].dirtiedPages, 6 * 32);  // 5 pausing records + the zero pause
  EXPECT_EQ(r.tasks[0].pauses, 5);
  EXPECT_DOUBLE_EQ(r.tasks[0].activeS, 1.0);  // 1.0 .. 2.0
  EXPECT_DOUBLE_EQ(r.tasks[0].rateKBps, 6 * 32 * 4 / 1.0);
  EXPECT_EQ(r.tasks[2].pid, 200);
  EXPECT_EQ(r.tasks[2].bdi, "8:16");
  EXPECT_EQ(r.hz, 250);  // 4, 8, ..., 40 ms: multiples of 4, not of 10
}

TEST(TraceStats, LeavesOutRecordsBeforeTheStart) {
  ti::TraceStats stats(2.0);
  stats.add(pauseOf(1.0, 1, 100));
  stats.add(pauseOf(2.5, 1, 10));
  const auto r = stats.result();
  EXPECT_EQ(r.records, 1);
  EXPECT_DOUBLE_EQ(r.pauseMs.max, 10.0);
}

TEST(TraceStats, GuessesHzFromThePauseGranularity) {
  const auto guess = [](std::initializer_list<std::int64_t> pauses) {
    ti::TraceStats stats;
    double t = 0;
    for (const auto p : pauses) stats.add(pauseOf(t += 0.1, 1, p));
    return stats.result().hz;
  };
  EXPECT_EQ(guess({10, 20, 40, 100}), 100);
  EXPECT_EQ(guess({4, 8, 12, 44}), 250);
  EXPECT_EQ(guess({3, 6, 10, 13}), 300);  // floor(j·1000/300) for j = 1, 2, 3, 4
  EXPECT_EQ(guess({1, 2, 3, 7}), 1000);
  EXPECT_EQ(guess({8, 8}), 0);  // too few distinct values
}

TEST(TraceStats, DerivesAValidScenarioAndSaysHow) {
  ti::TraceStats stats;
  for (int i = 0; i < 12; ++i) {
    stats.add(pauseOf(i * 0.1, 4287 + i % 3, 4 * (1 + i % 4), "254:0"));
    stats.add(te::GlobalDirtyState{.header = at(i * 0.1, 33),
                                   .dirty = 5000,
                                   .writeback = 1000,
                                   .bgThresh = 977,
                                   .thresh = 9766,
                                   .limit = 9766});
  }
  stats.add(pauseOf(1.3, 5000, 8, "8:0"));
  stats.add(te::BdiDirtyRatelimit{
      .header = at(0.5, 4287), .bdi = "254:0", .awriteBw = 102400, .dirtyRatelimit = 25600});
  const auto measured = stats.result();

  std::vector<std::string> notes;
  ti::HostFacts host;
  host.cpus = 2;
  host.memoryMiB = 3900;
  host.queues["254:0"] = {4096, 256};  // this host's sysfs: only for a bdi the trace names
  host.queues["9:9"] = {64, 8};
  const te::Scenario s = ti::deriveScenario(measured, host, &notes);
  EXPECT_NO_THROW(te::validateScenario(s));
  EXPECT_EQ(s.policy, "ioless");
  EXPECT_EQ(s.vm.dirtyBytes, 9766 * 4096);
  EXPECT_EQ(s.vm.dirtyBackgroundBytes, 977 * 4096);
  EXPECT_EQ(s.machine.cpus, 2);
  EXPECT_EQ(s.machine.memoryMiB, 3900);
  EXPECT_EQ(s.machine.hz, 250);
  ASSERT_EQ(s.devices.size(), 2u);
  const auto dev = std::find_if(s.devices.begin(), s.devices.end(),
                                [](const te::DeviceConfig& d) { return d.name == "254:0"; });
  ASSERT_NE(dev, s.devices.end());
  EXPECT_DOUBLE_EQ(dev->writeMBps, 102400 * 1.024 / 1000);
  EXPECT_EQ(dev->maxRequestKiB, 4096);
  EXPECT_EQ(dev->nrRequests, 256);
  // The traced bandwidth already holds the disk's positioning; none is added on top.
  EXPECT_EQ(dev->seekMs, 0.0);
  const auto other = std::find_if(s.devices.begin(), s.devices.end(),
                                  [](const te::DeviceConfig& d) { return d.name == "8:0"; });
  ASSERT_NE(other, s.devices.end());
  const te::DeviceConfig defaults;
  EXPECT_EQ(other->maxRequestKiB, defaults.maxRequestKiB);  // no queue facts for 8:0
  EXPECT_EQ(other->seekMs, defaults.seekMs);                // no traced bandwidth: the default disk
  int writers = 0;
  for (const auto& t : s.tasks) {
    EXPECT_TRUE(t.loop);
    EXPECT_EQ(t.kind, te::TaskKind::Writer);
    writers += t.count;
    if (t.device == "254:0") {
      EXPECT_EQ(t.count, 3);
    }
    if (t.device == "8:0") {
      EXPECT_EQ(t.count, 1);
    }
  }
  EXPECT_EQ(writers, 4);
  const auto mentions = [&](const std::string& what) {
    return std::any_of(notes.begin(), notes.end(),
                       [&](const std::string& n) { return n.find(what) != std::string::npos; });
  };
  EXPECT_TRUE(mentions("vm.dirty_bytes 40001536"));
  EXPECT_TRUE(mentions("vm.dirty_background_bytes 4001792"));
  EXPECT_TRUE(mentions("CPUs 2: this host"));
  EXPECT_TRUE(mentions("HZ 250"));
  EXPECT_TRUE(mentions("104.86 MB/s"));
  EXPECT_TRUE(mentions("no bdi_dirty_ratelimit record"));  // 8:0 keeps the default speed
  EXPECT_TRUE(mentions("requests up to 4096 KiB"));
  EXPECT_TRUE(mentions("queue depth 256"));
}

TEST(TraceStats, WithoutHostFactsTheScenarioKeepsDefaultsAndSaysSo) {
  ti::TraceStats stats;
  stats.add(pauseOf(0.1, 7, 10));
  std::vector<std::string> notes;
  const te::Scenario s = ti::deriveScenario(stats.result(), ti::HostFacts{}, &notes);
  EXPECT_NO_THROW(te::validateScenario(s));
  EXPECT_EQ(s.machine.cpus, te::MachineConfig{}.cpus);
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
    return n.find("a trace does not say") != std::string::npos;
  }));
}

// 6.x checks in once per folio: writers whose `dirtied` passes `dirtied_pause` by a folio wrote
// that much per write(); writers that stop at `dirtied_pause` wrote single pages.
TEST(TraceStats, TheWriteSizeComesFromWhereDirtiedStops) {
  const auto derivedBlockKiB = [](std::uint32_t dirtied, std::uint32_t dirtiedPause) {
    ti::TraceStats stats;
    for (int i = 0; i < 20; ++i) {
      te::BalanceDirtyPages b = pauseOf(1.0 + i * 0.01, 100 + i % 4, 8);
      b.dirtied = i % 2 == 0 || dirtied == dirtiedPause ? dirtied : 2 * dirtied;  // 1 or 2 folios
      b.dirtiedPause = dirtiedPause;
      stats.add(b);
    }
    std::vector<std::string> notes;
    const te::Scenario s = ti::deriveScenario(stats.result(), ti::HostFacts{}, &notes);
    EXPECT_EQ(s.tasks.size(), 1u);
    return s.tasks.empty() ? 0 : s.tasks[0].blockKiB;
  };
  EXPECT_EQ(derivedBlockKiB(256, 64), 1024);  // a folio of 256 pages past a pause of 64
  EXPECT_EQ(derivedBlockKiB(256, 0), 1024);
  EXPECT_EQ(derivedBlockKiB(16, 0), 64);
  EXPECT_EQ(derivedBlockKiB(64, 64), 4);       // stopped at the pause: single pages
  EXPECT_EQ(derivedBlockKiB(2048, 0), 2048);   // at most the 512-page folio of x86-64
  EXPECT_EQ(derivedBlockKiB(256, 320), 1024);  // past a large pause by whole folios
}

TEST(TraceStats, ComparesMeasuredAndSimulated) {
  ti::TraceStats::Result m, s;
  m.pauseMs.p50 = 10;
  s.pauseMs.p50 = 12;
  m.writeBwKBps["8:0"] = 1000;
  s.writeBwKBps["8:0"] = 900;
  m.writers = s.writers = 4;
  const auto rows = ti::compare(m, s);
  const auto find = [&](const std::string& metric) {
    const auto it = std::find_if(rows.begin(), rows.end(),
                                 [&](const ti::ComparisonRow& r) { return r.metric == metric; });
    EXPECT_NE(it, rows.end()) << metric;
    return it == rows.end() ? ti::ComparisonRow{} : *it;
  };
  EXPECT_DOUBLE_EQ(find("pause p50 (ms)").offPct.value_or(0), 20.0);
  EXPECT_DOUBLE_EQ(find("awrite_bw 8:0 (KB/s)").offPct.value_or(0), -10.0);
  EXPECT_DOUBLE_EQ(find("writers").offPct.value_or(-1), 0.0);
  EXPECT_DOUBLE_EQ(find("dirty pages p50").offPct.value_or(-1), 0.0);  // both 0: no change
  // Measured 0 and simulated not: no finite percentage.
  m.pauseMs.p90 = 0;
  s.pauseMs.p90 = 5;
  const auto again = ti::compare(m, s);
  const auto p90 = std::find_if(again.begin(), again.end(), [](const ti::ComparisonRow& r) {
    return r.metric == "pause p90 (ms)";
  });
  ASSERT_NE(p90, again.end());
  EXPECT_FALSE(p90->offPct.has_value());
}

TEST(TraceStats, TheSimulationOfADerivedScenarioFeedsTheSameAccumulator) {
  // Measured and simulated go through one code path: a simulated run's records give
  // statistics in the scenario's own terms.
  te::Scenario sc = te::parseScenario(*te::builtinScenarioJson("ten-dd"), "ten-dd");
  sc.durationS = 8;
  sc.vm.dirtyBytes = 100 << 20;
  sc.vm.dirtyBackgroundBytes = 50 << 20;
  struct Feed final : te::RecordSink {
    ti::TraceStats stats;
    void onTrace(const te::TraceRecord& r) override { stats.add(r); }
  } feed;
  te::Simulator sim(sc);
  sim.setSink(&feed, tracesOnly());
  sim.run();
  const auto r = feed.stats.result();
  EXPECT_EQ(r.writers, 10);
  EXPECT_EQ(r.threshPages, (100 << 20) / 4096);
  EXPECT_EQ(r.bgThreshPages, (50 << 20) / 4096);
  EXPECT_EQ(r.hz, 250);
  EXPECT_GT(r.pauseMs.count, 0);
  ASSERT_EQ(r.writeBwKBps.count("sda"), 1u);
  EXPECT_GT(r.writeBwKBps.at("sda"), 0);
}

}  // namespace

TEST(TraceStats, WarmsUpOnlyForATraceThatBeginsWithTheWritersRunning) {
  const auto startingAt = [](te::Pages dirty) {
    ti::TraceStats stats;
    stats.add(te::GlobalDirtyState{.header = at(0.0, 33),
                                   .dirty = dirty,
                                   .writeback = 100,
                                   .bgThresh = 977,
                                   .thresh = 9766,
                                   .limit = 9766});
    // Later records do not change how the trace began.
    stats.add(te::GlobalDirtyState{.header = at(0.5, 33),
                                   .dirty = 9000 - dirty,
                                   .writeback = 100,
                                   .bgThresh = 977,
                                   .thresh = 9766,
                                   .limit = 9766});
    return stats.result();
  };
  const auto quiet = startingAt(500);
  EXPECT_FALSE(quiet.startsBusy);
  EXPECT_EQ(ti::simulationWarmupS(quiet), 0.0);
  const auto busy = startingAt(5000);
  EXPECT_TRUE(busy.startsBusy);
  EXPECT_EQ(ti::simulationWarmupS(busy), ti::kBusyTraceWarmupS);
  EXPECT_GT(ti::kBusyTraceWarmupS, 0.0);
}

TEST(TraceStats, ABusyTraceGivesTheDiskItsWrittenRateAndTheBdiItsStartingState) {
  // One bdi, the writers running from the start: 100,000 pages written back in 2 s, while the
  // kernel's smoothed estimate still said 440,000 KB/s.
  ti::TraceStats stats;
  for (int i = 0; i <= 4; ++i)
    stats.add(dirtyStateOf(10.0 + 0.5 * i, 9000, 3000, 500'000 + 25'000 * i));
  te::BalanceDirtyPages first = pauseOf(10.1, 7, 8, "254:0");
  first.dirtyRatelimit = 141'948;
  stats.add(first);
  stats.add(te::BdiDirtyRatelimit{.header = at(10.4, 7),
                                  .bdi = "254:0",
                                  .writeBw = 711'232,
                                  .awriteBw = 440'400,
                                  .dirtyRatelimit = 124'204});
  stats.add(te::BdiDirtyRatelimit{.header = at(10.6, 8),
                                  .bdi = "254:0",
                                  .writeBw = 708'940,
                                  .awriteBw = 473'268,
                                  .dirtyRatelimit = 108'676});
  const auto m = stats.result();
  EXPECT_DOUBLE_EQ(m.writtenPagesPerS, 50'000);
  ASSERT_TRUE(ti::startsFromTracedState(m));
  EXPECT_EQ(ti::simulationWarmupS(m), 0.0);  // it starts from that state, not from boot
  std::vector<std::string> notes;
  const te::Scenario s = ti::deriveScenario(m, ti::HostFacts{}, &notes);
  ASSERT_EQ(s.devices.size(), 1u);
  const te::DeviceConfig& d = s.devices.front();
  EXPECT_DOUBLE_EQ(d.writeMBps, 50'000 * 4096 / 1e6);
  EXPECT_EQ(d.initialWriteBwKBps, 711'232);
  EXPECT_EQ(d.initialAvgWriteBwKBps, 440'400);
  EXPECT_EQ(d.initialDirtyRatelimitKBps, 141'948);  // the first record's, before any update
  // The page cache the trace began with: the first global_dirty_state's.
  EXPECT_EQ(s.machine.initialDirtyPages, 9000);
  EXPECT_EQ(s.machine.initialWritebackPages, 3000);
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
    return n.find("what it wrote back during the trace") != std::string::npos;
  }));
  EXPECT_NO_THROW(te::validateScenario(s));
}

namespace {

TEST(TraceStats, ALongTraceIsSimulatedForABoundedTimeAndSaysSo) {
  // Two records 40 hours apart: the old derivation simulated all 40 hours.
  ti::TraceStats stats;
  stats.add(pauseOf(100, 7, 10));
  stats.add(pauseOf(100 + 40 * 3600.0, 7, 10));
  std::vector<std::string> notes;
  const te::Scenario s = ti::deriveScenario(stats.result(), ti::HostFacts{}, &notes);
  EXPECT_EQ(s.durationS, ti::kMaxSimulatedS);
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
    return n.find("duration 3600 s of the trace's 144000.000 s") != std::string::npos;
  }));

  // The more writers, the fewer seconds: 50,000 pids get 12 s.
  ti::TraceStats many;
  for (int pid = 1; pid <= 50'000; ++pid) many.add(pauseOf(1 + pid * 0.001, pid, 10));
  const te::Scenario m = ti::deriveScenario(many.result(), ti::HostFacts{});
  EXPECT_EQ(m.durationS, ti::kMaxSimulatedWriterSeconds / 50'000);

  // A short trace keeps its span.
  ti::TraceStats shortTrace;
  shortTrace.add(pauseOf(1, 7, 10));
  shortTrace.add(pauseOf(31.2, 7, 10));
  EXPECT_EQ(ti::deriveScenario(shortTrace.result(), ti::HostFacts{}).durationS, 30);
}

TEST(TraceStats, AMachineBeyondTheSimulatorsLimitsIsAScenarioError) {
  // 2^40 pages of threshold: a valid page count, but 4 PiB of dirty memory.
  ti::TraceStats stats;
  te::GlobalDirtyState g;
  g.header = at(1, 7);
  g.thresh = std::int64_t{1} << 40;
  g.bgThresh = std::int64_t{1} << 39;
  stats.add(g);
  stats.add(pauseOf(1.5, 7, 10));
  std::vector<std::string> notes;
  EXPECT_THROW(ti::deriveScenario(stats.result(), ti::HostFacts{}, &notes), te::ScenarioError);
  EXPECT_FALSE(notes.empty());  // how the values came about, for the message
}

}  // namespace

namespace {

/// DeviceConfig::stalls read back: (start, end) in seconds.
std::vector<std::pair<double, double>> stallsOf(const std::string& text) {
  std::vector<std::pair<double, double>> out;
  std::istringstream in(text);
  for (std::string item; in >> item;) {
    const auto plus = item.find('+');
    const double start = std::stod(item.substr(0, plus));
    out.emplace_back(start, start + std::stod(item.substr(plus + 1)));
  }
  return out;
}

TEST(TraceStats, TheDisksStallsComeFromRunsOfAnUnchangedWrittenCounter) {
  // A disk that completes in two bursts of 1,000 pages, at 50 and 150 ms, and nothing in
  // between: a global_dirty_state every millisecond for 0.2 s. Right after the first burst
  // nothing is in flight until the flusher submits again, at 51 ms.
  ti::TraceStats stats;
  for (int i = 0; i <= 200; ++i) {
    const std::int64_t written = 10'000 + (i >= 50 ? 1000 : 0) + (i >= 150 ? 1000 : 0);
    stats.add(dirtyStateOf(5.0 + 0.001 * i, 9000, i == 50 ? 0 : 3000, written));
  }
  stats.add(pauseOf(5.1, 7, 8, "254:0"));  // one writer on the one bdi
  const auto m = stats.result();
  EXPECT_EQ(m.writtenPages, 2000);
  ASSERT_EQ(m.writtenSpells.size(), 3u);
  EXPECT_NEAR(m.writtenSpells[1].inFlightFromS, 0.051, 1e-9);
  EXPECT_NEAR(m.writtenSpells[1].lastS, 0.149, 1e-9);
  EXPECT_NEAR(m.writtenSpells[1].nextS, 0.150, 1e-9);
  EXPECT_EQ(m.writtenSpells[1].pages, 1000);
  std::vector<std::string> notes;
  const te::Scenario s = ti::deriveScenario(m, ti::HostFacts{}, &notes);
  ASSERT_EQ(s.devices.size(), 1u);
  const te::DeviceConfig& d = s.devices.front();
  // Each burst of 1,000 pages fits into the 1 ms before the next record: 10^6 pages/s.
  EXPECT_NEAR(d.writeMBps, 1e6 * 4096 / 1e6, 1e-6);
  // The stalls: from the first record of a `written` value (nothing completed from there on,
  // even at 50 ms, where nothing was in flight) to the last one of the same value (the burst
  // takes the 1 ms after it), repeating with the trace's span.
  const auto stalls = stallsOf(d.stalls);
  ASSERT_EQ(stalls.size(), 3u) << d.stalls << " period " << d.stallPeriodS;
  EXPECT_NEAR(d.stallPeriodS, 0.2, 1e-9);
  EXPECT_NEAR(stalls[0].first, 0.0, 1e-6);
  EXPECT_NEAR(stalls[0].second, 0.049, 1e-6);
  EXPECT_NEAR(stalls[1].first, 0.050, 1e-6);
  EXPECT_NEAR(stalls[1].second, 0.149, 1e-6);
  EXPECT_NEAR(stalls[2].second, 0.2, 1e-6);
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
    return n.find("stalls 3 times") != std::string::npos;
  }));
  EXPECT_NO_THROW(te::validateScenario(s));
}

TEST(TraceStats, BetweenTheStallsTheDiskHasTheRoomForWhatTheTraceWrote) {
  // Records every 0.5 ms over 0.1 s; bursts of 1,000 pages at 30 ms and 3,000 at 70 ms, each
  // 1 ms after the previous record, and nothing in flight for 5 ms after each burst. The one
  // rate is 4,000 pages in 2 ms, 2·10^6 pages/s: the second burst needs 1.5 ms, more than its
  // gap, and the 5 ms without pages in flight completed nothing either.
  ti::TraceStats stats;
  double t = 2.0;
  std::int64_t written = 50'000;
  std::int64_t idleUntilMs = -1;
  for (int i = 0; i <= 200; ++i) {
    const double ms = 0.5 * i;
    if (ms == 30.0 || ms == 70.0) {
      t += 0.0005;  // the gap before the burst's record: 1 ms
      written += ms == 30.0 ? 1000 : 3000;
      idleUntilMs = static_cast<std::int64_t>(ms) + 5;
    }
    const bool inFlight = idleUntilMs < 0 || ms >= static_cast<double>(idleUntilMs);
    stats.add(dirtyStateOf(t, 9000, inFlight ? 3000 : 0, written));
    t += 0.0005;
  }
  stats.add(pauseOf(2.05, 7, 8, "254:0"));
  const auto m = stats.result();
  ASSERT_EQ(m.writtenPages, 4000);
  const te::Scenario s = ti::deriveScenario(m, ti::HostFacts{});
  const te::DeviceConfig& d = s.devices.front();
  const double pagesPerS = d.writeMBps * 1e6 / 4096;
  EXPECT_NEAR(pagesPerS, 2e6, 1.0);
  double stalledS = 0;
  for (const auto& [a, b] : stallsOf(d.stalls)) stalledS += b - a;
  // The room between the stalls is what the trace wrote: 4,000 pages. (The old derivation
  // began each stall at the first record with pages in flight and ended it no earlier than
  // the run's last record: room for about 10,000 more in the 5 ms after each burst and 1,000 fewer
  // in the second burst's gap, 23,000 in all.)
  EXPECT_NEAR((d.stallPeriodS - stalledS) * pagesPerS, 4000, 1.0) << d.stalls;
}

TEST(TraceStats, ATraceThatWroteNothingBackIsOneStallAndTheDeviceNeverCompletes) {
  // As the 100-dd capture: every record shows the same `written` with pages in flight.
  ti::TraceStats stats;
  for (int i = 0; i <= 10; ++i) stats.add(dirtyStateOf(1.0 + 0.018 * i, 20000, 6751, 777));
  stats.add(pauseOf(1.1, 7, 16, "254:0"));
  const te::Scenario s = ti::deriveScenario(stats.result(), ti::HostFacts{});
  const te::DeviceConfig& d = s.devices.front();
  const auto stalls = stallsOf(d.stalls);
  ASSERT_EQ(stalls.size(), 1u) << d.stalls;
  EXPECT_NEAR(d.stallPeriodS, 0.18, 1e-9);
  // Stalled over the whole period: the device of this scenario never completes a write.
  EXPECT_NEAR(stalls[0].first, 0.0, 1e-9);
  EXPECT_NEAR(stalls[0].second, d.stallPeriodS, 1e-9);
  EXPECT_NO_THROW(te::validateScenario(s));
}

}  // namespace

namespace {

/// One balance_dirty_pages() call of `pid` at `s`: its global_dirty_state, then its record
/// with `dirtied` pages since the previous call and the pause it slept (0: none).
void checkIn(ti::TraceStats& stats, double s, int pid, std::int64_t dirtied, std::int64_t pauseMs) {
  te::GlobalDirtyState g = dirtyStateOf(s, 9000, 4000, 1000);
  g.header = at(s, pid);
  stats.add(g);
  te::BalanceDirtyPages b = pauseOf(s + 1e-6, pid, pauseMs, "254:0");
  b.dirtied = dirtied;
  stats.add(b);
}

TEST(TraceStats, TheTimeToDirtyAPageIsMeasuredBetweenCheckInsWithoutASleep) {
  ti::TraceStats stats;
  // pid 7 dirties a 256-page folio in 0.512 ms (2 us a page) three times without sleeping;
  // then it sleeps 8 ms, and the interval after that sleep says nothing about copying.
  checkIn(stats, 1.0, 7, 256, 0);
  checkIn(stats, 1.000512, 7, 256, 0);
  // The flusher's global_dirty_state in between belongs to another pid.
  stats.add(dirtyStateOf(1.0006, 9000, 4000, 1000));
  checkIn(stats, 1.001024, 7, 256, 0);
  checkIn(stats, 1.001536, 7, 256, 8);
  checkIn(stats, 1.010000, 7, 256, 0);
  // pid 8 is slower: 512 pages in 2.048 ms, 4 us a page.
  checkIn(stats, 1.0, 8, 256, 0);
  checkIn(stats, 1.002048, 8, 512, 0);
  const auto r = stats.result();
  ASSERT_EQ(r.dirtyingPageS.count, 4);  // 3 of pid 7 (not the one after the sleep), 1 of pid 8
  EXPECT_NEAR(r.dirtyingPageS.p10, 2e-6, 1e-10);  // the timestamps are whole nanoseconds
  EXPECT_NEAR(r.dirtyingPageS.max, 4e-6, 1e-10);
}

TEST(TraceStats, TheWritersCopySpeedComesFromTheTrace) {
  // 30 intervals of 2 us a page and 10 of 6 us: the lower tenth is 2 us, 2048 MB/s.
  ti::TraceStats stats;
  double s = 1.0;
  for (int i = 0; i <= 40; ++i) {
    checkIn(stats, s, 7, 256, 0);
    s += 256 * (i % 4 == 3 ? 6e-6 : 2e-6);
  }
  std::vector<std::string> notes;
  const te::Scenario derived = ti::deriveScenario(stats.result(), ti::HostFacts{}, &notes);
  ASSERT_EQ(derived.tasks.size(), 1u);
  EXPECT_NEAR(derived.tasks[0].copyMBps, 4096 / 2e-6 / 1e6, 1e-3);
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
    return n.find("copying 2048 MB/s (2.00 us per page dirtied") != std::string::npos;
  }));

  // Too few intervals: the default copy speed, and the notes say why.
  ti::TraceStats few;
  for (int i = 0; i < 5; ++i) checkIn(few, 1.0 + i * 0.001, 7, 256, 0);
  const te::Scenario fallback = ti::deriveScenario(few.result(), ti::HostFacts{}, &notes);
  EXPECT_EQ(fallback.tasks[0].copyMBps, te::TaskSpec{}.copyMBps);
}

}  // namespace
