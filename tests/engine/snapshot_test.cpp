// SPDX-License-Identifier: GPL-3.0-or-later
// Snapshots of a run: a run continued from a snapshot writes, bit for bit, what the
// uninterrupted run writes (samples, task rows, trace lines, the summary), under every policy
// and every built-in scenario; snapshots are independent of the simulator they came from;
// the store thins by age within its capacity and its byte budget and rewinds to any moment,
// live changes included.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "throttlelab/engine/output.h"
#include "throttlelab/engine/simulator.h"
#include "throttlelab/engine/snapshot_store.h"

namespace te = throttlelab::engine;

namespace {

/// Every output of a run as the CSV and trace writers format it, folded into a digest (and
/// counted), so that two runs are compared output for output.
class DigestSink final : public te::RecordSink {
 public:
  void onSample(const te::Sample& s) override {
    std::ostringstream row;
    te::writeSampleCsvRow(row, s, s.devices.size());
    add(row.str());
    ++samples;
  }
  void onTaskSample(const te::TaskSample& s) override {
    std::ostringstream row;
    te::writeTaskCsvRow(row, s, te::TaskInfo{});
    add(row.str());
    ++taskRows;
  }
  void onTrace(const te::TraceRecord& r) override {
    add(te::formatTraceLine(r));
    ++traces;
  }
  void add(const std::string& text) {
    for (const unsigned char c : text) digest = (digest ^ c) * 0x100000001b3ULL;  // FNV-1a
    digest = (digest ^ 0xffU) * 0x100000001b3ULL;  // record separator
  }
  std::uint64_t digest = 0xcbf29ce484222325ULL;
  std::int64_t samples = 0, taskRows = 0, traces = 0;
};

te::OutputOptions everything() {
  te::OutputOptions o;
  o.taskSamples = true;
  o.taskSampleLimit = 64;
  o.traces = true;
  return o;
}

std::string summaryText(const te::Simulator& sim) {
  std::ostringstream out;
  te::writeSummary(out, sim.summary(), sim.scenario());
  return out.str();
}

/// One sink over two simulators: the part before a snapshot and the part after it.
struct Outcome {
  DigestSink sink;
  std::string summary;
  std::int64_t events = 0;
};

Outcome uninterrupted(const te::Scenario& s, double untilS) {
  Outcome o;
  te::Simulator sim(s);
  sim.setSink(&o.sink, everything());
  sim.runUntil(te::atSeconds(untilS));
  o.summary = summaryText(sim);
  o.events = sim.eventsProcessed();
  return o;
}

void expectSame(const Outcome& a, const Outcome& b) {
  EXPECT_GT(a.sink.samples, 0);
  EXPECT_EQ(a.sink.samples, b.sink.samples);
  EXPECT_EQ(a.sink.taskRows, b.sink.taskRows);
  EXPECT_EQ(a.sink.traces, b.sink.traces);
  EXPECT_EQ(a.sink.digest, b.sink.digest);
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(a.summary, b.summary);
}

struct Case {
  std::string scenario;
  std::string policy;
};
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.scenario << " under " << c.policy;
}

std::vector<Case> everyCase() {
  std::vector<Case> out;
  for (const auto& s : te::builtinScenarioNames())
    for (const auto& p : te::Simulator::policyNames()) out.push_back({s, p});
  return out;
}

te::Scenario scenarioOf(const Case& c, double durationS) {
  te::Scenario s = te::loadScenario(c.scenario);
  s.policy = c.policy;
  s.durationS = durationS;
  return s;
}

class SnapshotEveryCase : public ::testing::TestWithParam<Case> {};

std::string caseName(const ::testing::TestParamInfo<Case>& info) {
  std::string n = info.param.scenario + "_" + info.param.policy;
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

}  // namespace

// The run is cut at a moment that is no sample boundary; the original then runs on past the
// end before the copy continues, so the copy shares nothing with it.
TEST_P(SnapshotEveryCase, ContinuingFromASnapshotIsTheUninterruptedRun) {
  constexpr double kCutS = 2.437, kEndS = 5.0;
  const te::Scenario s = scenarioOf(GetParam(), kEndS);
  const Outcome whole = uninterrupted(s, kEndS);

  Outcome cut;
  std::optional<te::SimulatorSnapshot> snap;
  {
    te::Simulator first(s);
    first.setSink(&cut.sink, everything());
    first.runUntil(te::atSeconds(kCutS));
    snap = first.snapshot();
    first.setSink(nullptr);
    first.runUntil(te::atSeconds(kEndS + 1));
  }
  EXPECT_EQ(snap->time(), te::atSeconds(kCutS));
  te::Simulator second(*snap);
  EXPECT_EQ(second.now(), te::atSeconds(kCutS));
  second.setSink(&cut.sink, everything());
  second.runUntil(te::atSeconds(kEndS));
  cut.summary = summaryText(second);
  cut.events = second.eventsProcessed();
  expectSame(whole, cut);
}

INSTANTIATE_TEST_SUITE_P(BuiltinScenariosAndPolicies, SnapshotEveryCase,
                         ::testing::ValuesIn(everyCase()), caseName);

// A simulator handed on whole (its state moved into the snapshot, nothing copied) goes on as
// the uninterrupted run, in every built-in scenario.
TEST(Snapshot, ASnapshotMadeByMovingTheRunGoesOnAsTheUninterruptedRun) {
  constexpr double kCutS = 1.713, kEndS = 4.0;
  for (const auto& name : te::builtinScenarioNames()) {
    SCOPED_TRACE(name);
    te::Scenario s = te::loadScenario(name);
    s.durationS = kEndS;
    const Outcome whole = uninterrupted(s, kEndS);
    Outcome cut;
    te::Simulator first(s);
    first.setSink(&cut.sink, everything());
    first.runUntil(te::atSeconds(kCutS));
    first.setSink(nullptr);
    const te::SimulatorSnapshot moved = std::move(first).snapshot();
    EXPECT_EQ(moved.time(), te::atSeconds(kCutS));
    te::Simulator second(moved);
    second.setSink(&cut.sink, everything());
    second.runUntil(te::atSeconds(kEndS));
    cut.summary = summaryText(second);
    cut.events = second.eventsProcessed();
    expectSame(whole, cut);
  }
}

TEST(Snapshot, RestoreInPlaceKeepsTheSinkAndGoesBack) {
  te::Scenario s = te::loadScenario("ten-dd");
  s.durationS = 6;
  const Outcome whole = uninterrupted(s, 6);

  te::Simulator sim(s);
  Outcome o;
  DigestSink wasted;
  sim.setSink(&o.sink, everything());
  sim.runUntil(te::atSeconds(1.5));
  const te::SimulatorSnapshot at15 = sim.snapshot();
  sim.setSink(&wasted, everything());
  sim.runUntil(te::atSeconds(4));  // a future that is thrown away
  sim.restore(at15);
  EXPECT_EQ(sim.now(), te::atSeconds(1.5));
  EXPECT_GT(wasted.samples, 0);
  const std::int64_t wastedSamples = wasted.samples;
  sim.setSink(&o.sink, everything());
  sim.runUntil(te::atSeconds(6));
  o.summary = summaryText(sim);
  o.events = sim.eventsProcessed();
  expectSame(whole, o);
  EXPECT_EQ(wasted.samples, wastedSamples);  // restore() went on with the sink it had
}

TEST(Snapshot, ABranchWithAChangeDiffersOnlyAfterTheBranch) {
  te::Scenario s = te::loadScenario("ten-dd");
  te::Simulator original(s);
  original.runUntil(te::atSeconds(3));
  te::Simulator branch(original.snapshot());
  te::Scenario changed = s;
  changed.vm.dirtyRatio = 5;
  changed.vm.dirtyBackgroundRatio = 2;
  branch.reconfigure(changed);
  EXPECT_EQ(original.scenario().vm.dirtyRatio, s.vm.dirtyRatio);  // the original is untouched
  original.runUntil(te::atSeconds(12));
  branch.runUntil(te::atSeconds(12));
  EXPECT_LT(branch.summary().dirtyPagesP50, original.summary().dirtyPagesP50);
}

TEST(SnapshotStore, HoldsAtMostItsCapacityDenseRecentlySparseLongAgo) {
  te::Scenario s = te::loadScenario("one-dd");
  te::SnapshotStore store({.intervalS = 0.5, .capacity = 12});
  te::Simulator sim(s);
  int taken = 0;
  for (double t = 0; t <= 60; t += 0.1) {
    sim.runUntil(te::atSeconds(t));
    taken += store.offer(sim) ? 1 : 0;
  }
  EXPECT_GT(taken, 100);
  ASSERT_EQ(store.size(), 12U);
  const auto times = store.times();
  EXPECT_EQ(times.front(), te::SimTime{});  // the start stays reachable
  EXPECT_GE(te::toSeconds(times.back()), 59.5);
  // Gaps grow with age: the oldest gap is several times the newest.
  const double newest = te::toSeconds(times[times.size() - 1] - times[times.size() - 2]);
  const double oldest = te::toSeconds(times[1] - times[0]);
  EXPECT_LT(newest, 1.01);
  EXPECT_GT(oldest, 4 * newest);
  for (std::size_t i = 1; i < times.size(); ++i) EXPECT_LT(times[i - 1], times[i]);
}

/// The run `s`, changed live to `checked` at 7.25 s, recorded for 20 s into `store`.
void record(te::SnapshotStore& store, const te::Scenario& s, const te::CheckedScenario& checked) {
  te::Simulator live(s);
  for (double t = 0; t < 20; t += 0.25) {
    const te::SimTime at = te::atSeconds(t);
    live.runUntil(at);
    store.offer(live);
    if (t == 7.25) {
      live.reconfigure(checked);
      store.recordChange(at, checked);
    }
  }
}

/// Rewinding `store` (made by record()) to moments of the run, before and after its live
/// change, and running on to 25 s writes exactly what the uninterrupted run writes.
void expectRewindsMatch(const te::SnapshotStore& store, const te::Scenario& s,
                        const te::CheckedScenario& checked) {
  for (const double target : {0.0, 3.05, 7.25, 9.9, 15.0, 19.75}) {
    SCOPED_TRACE(target);
    // The same run uninterrupted, to the target and on to 25 s.
    te::Simulator reference(s);
    Outcome expected;
    reference.runUntil(te::atSeconds(std::min(target, 7.25)));
    if (target >= 7.25) {
      reference.runUntil(te::atSeconds(7.25));
      reference.reconfigure(checked);
    }
    reference.runUntil(te::atSeconds(target));
    reference.setSink(&expected.sink, everything());
    reference.runUntil(te::atSeconds(25));
    expected.summary = summaryText(reference);
    expected.events = reference.eventsProcessed();

    te::Simulator rewound = store.rewind(te::atSeconds(target));
    EXPECT_EQ(rewound.now(), te::atSeconds(target));
    Outcome got;
    rewound.setSink(&got.sink, everything());
    rewound.runUntil(te::atSeconds(25));
    got.summary = summaryText(rewound);
    got.events = rewound.eventsProcessed();
    expectSame(expected, got);
  }
}

struct ChangedRun {
  te::Scenario s;
  te::CheckedScenario checked;
};
ChangedRun changedTenDd() {
  te::Scenario s = te::loadScenario("ten-dd");
  s.durationS = 30;
  te::Scenario changed = s;
  changed.vm.dirtyRatio = 8;
  changed.tasks[0].count = 4;
  return {s, te::CheckedScenario(changed)};
}

TEST(SnapshotStore, RewindReachesAnyMomentWithTheLiveChangesReplayed) {
  const ChangedRun run = changedTenDd();
  // The recorded run: changed live at 7.3 s.
  te::SnapshotStore store({.intervalS = 2, .capacity = 5});
  record(store, run.s, run.checked);
  EXPECT_EQ(store.size(), 5U);
  expectRewindsMatch(store, run.s, run.checked);
  EXPECT_THROW((void)store.rewind(te::atSeconds(-1)), std::out_of_range);
}

TEST(SnapshotStore, UnderATightBudgetRewindsReplayFromFurtherBackAndStillMatch) {
  const ChangedRun run = changedTenDd();
  te::Simulator probe(run.s);
  probe.runUntil(te::atSeconds(10));
  const std::size_t one = probe.snapshot().bytes();
  // Room for three of them: every moment is then reached from a snapshot seconds earlier
  // than the store of the test above would use, and the replay must still be exact.
  te::SnapshotStore store({.intervalS = 2, .budgetBytes = one * 7 / 2});
  record(store, run.s, run.checked);
  EXPECT_GE(store.size(), 2U);
  EXPECT_LE(store.size(), 3U);
  EXPECT_LE(store.bytes(), store.options().budgetBytes);
  expectRewindsMatch(store, run.s, run.checked);
}

TEST(SnapshotStore, WithAnOriginRewindsBeforeTheOldestSnapshotReplayFromTheStart) {
  const ChangedRun run = changedTenDd();
  te::Simulator probe(run.s);
  probe.runUntil(te::atSeconds(10));
  // Room for one snapshot only: the newest. Every earlier moment is replayed from time 0.
  te::SnapshotStore store({.intervalS = 2, .budgetBytes = probe.snapshot().bytes() * 3 / 2});
  store.setOrigin(run.s);
  record(store, run.s, run.checked);
  ASSERT_EQ(store.size(), 1U);
  EXPECT_GT(te::toSeconds(store.times().front()), 19.75 - 2);
  EXPECT_EQ(store.earliest(), te::SimTime{});
  expectRewindsMatch(store, run.s, run.checked);
  EXPECT_THROW((void)store.rewind(te::atSeconds(-1)), std::out_of_range);
  store.clear();  // forgets the origin with the snapshots
  EXPECT_THROW((void)store.rewind(te::atSeconds(1)), std::out_of_range);
}

/// `n` writers that exist from the start (every table the kernel keeps for them is there, so
/// a snapshot is as big as with running writers) but start only after the hour: an hour of
/// them simulates fast.
te::Scenario waitingWriters(int n) {
  te::Scenario s = te::loadScenario("ten-dd");
  s.tasks[0].count = n;
  s.tasks[0].startS = 4000;
  s.durationS = 7200;
  return s;
}

TEST(SnapshotStore, HoldsItsByteBudgetThroughAnHourOfAThousandAndTenThousandWriters) {
  for (const int n : {1000, 10000}) {
    SCOPED_TRACE(n);
    // The default budget; one snapshot every minute (five with 10,000, to keep the test fast).
    te::SnapshotStore store({.intervalS = n < 10000 ? 60.0 : 300.0});
    const std::size_t budget = store.options().budgetBytes;
    EXPECT_EQ(budget, te::SnapshotStoreOptions::kDefaultBudgetBytes);
    const te::Scenario s = waitingWriters(n);
    store.setOrigin(s);  // as the window's run, made from its scenario
    te::Simulator sim(s);
    std::size_t one = 0;
    for (int t = 0; t <= 3600; t += n < 10000 ? 60 : 300) {
      sim.runUntil(te::atSeconds(t));
      ASSERT_TRUE(store.offer(sim));
      if (one == 0) one = store.bytes();
      EXPECT_LE(store.bytes(), budget) << "at " << t << " s";
      EXPECT_EQ(store.times().back(), te::atSeconds(t));  // the newest is kept
      EXPECT_EQ(store.earliest(), te::SimTime{});         // and the start stays reachable
    }
    // The budget binds: a snapshot of n writers is n × several KiB, and the count bound alone
    // (48) would hold far more than the budget.
    EXPECT_GT(one, static_cast<std::size_t>(n) * 2048);
    EXPECT_GT(one * store.options().capacity, budget);
    EXPECT_GE(store.size(), 1U);
    EXPECT_LT(store.size(), store.options().capacity);
  }
}

TEST(SnapshotStore, TheDefaultBudgetIsAFixedFigureOrAThirtySecondOfASmallMachine) {
  using O = te::SnapshotStoreOptions;
  EXPECT_EQ(O::budgetFor(std::size_t{16} << 30), O::kDefaultBudgetBytes);
  EXPECT_EQ(O::budgetFor(std::size_t{4} << 30), O::kDefaultBudgetBytes);
  EXPECT_EQ(O::budgetFor(std::size_t{1} << 30), std::size_t{32} << 20);
}

TEST(SnapshotStore, ThinningToABudgetKeepsTheNewestAndSpreadsTheRestByAge) {
  te::Simulator sim(waitingWriters(1000));
  const std::size_t one = sim.snapshot().bytes();
  te::SnapshotStore store({.intervalS = 10, .budgetBytes = one * 12});
  for (int t = 0; t <= 3600; t += 10) {
    sim.runUntil(te::atSeconds(t));
    ASSERT_TRUE(store.offer(sim));
    ASSERT_LE(store.bytes(), store.options().budgetBytes);
  }
  const auto times = store.times();
  ASSERT_GE(times.size(), 10U);
  ASSERT_LE(times.size(), 12U);
  EXPECT_EQ(times.front(), te::SimTime{});
  EXPECT_EQ(times.back(), te::atSeconds(3600));
  // Dense recently, sparse long ago: the newest gap is one interval, the oldest many.
  const double newest = te::toSeconds(times[times.size() - 1] - times[times.size() - 2]);
  const double oldest = te::toSeconds(times[1] - times[0]);
  EXPECT_DOUBLE_EQ(newest, 10);
  EXPECT_GT(oldest, 20 * newest);
  // Every moment of the hour has a snapshot at most a fixed share of its age before it.
  for (std::size_t i = 2; i < times.size(); ++i)
    EXPECT_LT(te::toSeconds(times[i] - times[i - 1]),
              0.8 * te::toSeconds(times.back() - times[i - 1]) + 10)
        << "gap before " << te::toSeconds(times[i]) << " s";
}
