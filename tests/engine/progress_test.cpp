// SPDX-License-Identifier: GPL-3.0-or-later
// Long work's progress: the rate and the estimate of what is left (ProgressMeter), the words
// for a wall-clock span, a run in slices (the same run, event for event), and the simulated
// seconds a comparison and an experiment report against their whole.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <vector>

#include "throttlelab/engine/compare.h"
#include "throttlelab/engine/experiments.h"
#include "throttlelab/engine/output.h"
#include "throttlelab/engine/progress.h"
#include "throttlelab/engine/simulator.h"

namespace throttlelab::engine {
namespace {

TEST(ProgressMeter, RateAndWhatIsLeftFollowTheWorkSoFar) {
  ProgressMeter m(3600);
  EXPECT_EQ(m.rate(), 0);
  EXPECT_FALSE(m.remainingS());
  m.update(900, 3);  // a quarter in 3 s: 300 simulated seconds a second, 9 s left
  EXPECT_DOUBLE_EQ(m.rate(), 300);
  ASSERT_TRUE(m.remainingS());
  EXPECT_DOUBLE_EQ(*m.remainingS(), 9);
  EXPECT_EQ(m.line(), "simulated 900 of 3600 s (25 %), 300× real time, about 9 s left");
  m.update(1800, 20);  // slower since: the estimate follows the whole average
  EXPECT_DOUBLE_EQ(m.rate(), 90);
  EXPECT_DOUBLE_EQ(*m.remainingS(), 20);
  m.update(5000, 21);  // never past the whole
  EXPECT_EQ(m.doneS(), 3600);
  EXPECT_DOUBLE_EQ(*m.remainingS(), 0);
}

TEST(ProgressMeter, SaysWhetherTheWorkWillOutlastAThreshold) {
  ProgressMeter quick(10);
  quick.update(1, 0.1);  // too early to tell
  EXPECT_FALSE(quick.expectedLongerThan(2));
  quick.update(9, 0.6);  // 15 s/s: done in about 0.67 s
  EXPECT_FALSE(quick.expectedLongerThan(2));

  ProgressMeter slow(100);
  slow.update(10, 0.6);  // 16.7 s/s: about 6 s in all
  EXPECT_TRUE(slow.expectedLongerThan(2));

  ProgressMeter stuck(100);
  stuck.update(0, 0.6);  // nothing done yet: nothing says it will end soon
  EXPECT_TRUE(stuck.expectedLongerThan(2));
  ProgressMeter late(100);
  late.update(99, 2.5);  // already longer, whatever is left
  EXPECT_TRUE(late.expectedLongerThan(2));
}

TEST(ProgressMeter, SmallFiguresKeepTheirDecimals) {
  ProgressMeter m(60);
  m.update(1.5, 3);
  EXPECT_EQ(m.line(), "simulated 1.5 of 60.0 s (2 %), 0.50× real time, about 1 min 57 s left");
}

TEST(DurationWords, SecondsMinutesHours) {
  EXPECT_EQ(durationWords(0.4), "0 s");
  EXPECT_EQ(durationWords(59.4), "59 s");
  EXPECT_EQ(durationWords(200), "3 min 20 s");
  EXPECT_EQ(durationWords(7500), "2 h 05 min");
  EXPECT_EQ(durationWords(-3), "0 s");
}

Scenario builtin(const char* name) {
  return parseScenario(*builtinScenarioJson(name), name);
}

/// Everything a run reports, as text.
struct Everything final : RecordSink {
  std::ostringstream text;
  void onSample(const Sample& s) override { writeSampleCsvRow(text, s, 1); }
  void onTrace(const TraceRecord& r) override { text << formatTraceLine(r) << '\n'; }
};

TEST(RunInSlices, IsTheSameRunEventForEvent) {
  Scenario s = builtin("default");
  s.durationS = 40;
  Everything whole, sliced;
  Simulator a(s), b(s);
  a.setSink(&whole, OutputOptions{.traces = true});
  b.setSink(&sliced, OutputOptions{.traces = true});
  a.runUntil(atSeconds(33.3333));
  std::vector<double> reported;
  runInSlices(b, atSeconds(33.3333), [&] { reported.push_back(toSeconds(b.now())); });
  EXPECT_EQ(whole.text.str(), sliced.text.str());
  EXPECT_EQ(a.eventsProcessed(), b.eventsProcessed());
  EXPECT_EQ(a.now(), b.now());
  // A report after every tenth of a simulated second, the last at the end.
  ASSERT_EQ(reported.size(), 334u);
  EXPECT_NEAR(reported.front(), 0.1, 1e-9);
  EXPECT_NEAR(reported.back(), 33.3333, 1e-9);
}

TEST(SimulatedProgress, AComparisonCountsEveryRunAgainstTheWhole) {
  Scenario s = builtin("one-dd");
  s.durationS = 5;
  CompareOptions options;
  options.policies = {"ioless", "none"};
  options.seeds = 2;
  std::vector<double> done;
  double total = 0;
  options.simulated = [&](double d, double t) {
    done.push_back(d);
    total = t;
  };
  comparePolicies(s, options);
  EXPECT_DOUBLE_EQ(total, 20);
  ASSERT_FALSE(done.empty());
  EXPECT_TRUE(std::is_sorted(done.begin(), done.end()));
  EXPECT_DOUBLE_EQ(done.back(), 20);
  EXPECT_GT(done.size(), 20u) << "within each run too, not only after it";
}

TEST(SimulatedProgress, AnExperimentCountsEveryCaseSeedAndPhase) {
  const auto experiment = makeExperiment("morton2003", true);
  ASSERT_TRUE(experiment);
  double expected = 0;
  for (const auto& c : experiment->cases)
    expected += c.scenario.durationS * (c.startSpreadS > 0 ? std::max(1, c.phasesPerSeed) : 1);
  ExperimentRunOptions options;
  options.seeds = 1;
  double last = -1, total = 0;
  bool ordered = true;
  options.simulated = [&](double d, double t) {
    ordered = ordered && d >= last;
    last = d;
    total = t;
  };
  runExperiment(*experiment, options);
  EXPECT_TRUE(ordered);
  EXPECT_DOUBLE_EQ(total, expected);
  EXPECT_DOUBLE_EQ(last, expected);
}

}  // namespace
}  // namespace throttlelab::engine
