// SPDX-License-Identifier: GPL-3.0-or-later
// The seed experiments: each is well formed (a machine with sources, valid scenarios, the
// mail's figures where it has them), runs in its reduced form, and its claims hold. The
// claims are judged from the simulated numbers only; a failure here means the model no longer
// reproduces the mail, which is news, not a test to loosen.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "throttlelab/engine/experiments.h"
#include "throttlelab/engine/simulator.h"

namespace te = throttlelab::engine;

namespace {

const std::vector<std::string> kNames{"morton2003", "wu2010", "arcangeli2002"};

te::ExperimentRunOptions seeds(int n) {
  te::ExperimentRunOptions o;
  o.seeds = n;
  return o;
}

te::Experiment make(const std::string& name, bool quick) {
  auto e = te::makeExperiment(name, quick);
  if (!e) {
    ADD_FAILURE() << "no experiment " << name;
    return {};
  }
  return *e;
}

/// Runs the quick form once per test binary and experiment (a few seconds at most).
const te::ExperimentResult& quickResult(const std::string& name) {
  static std::map<std::string, te::ExperimentResult> cache;
  auto it = cache.find(name);
  if (it == cache.end()) {
    const te::Experiment e = make(name, true);
    const auto start = std::chrono::steady_clock::now();
    it = cache.emplace(name, te::runExperiment(e, seeds(3))).first;
    const double wallS =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // The quick form is for tests: keep it well under ten seconds in an optimised build.
    ::testing::Test::RecordProperty(name + "_wall_s", std::to_string(wallS));
  }
  return it->second;
}

/// Claims the model is known not to reproduce, by the start of their text. Each is explained
/// in the README ("Where the model simplifies the kernel") and in the experiment's report;
/// if one starts to hold, this test fails so that the explanation is revisited.
const std::map<std::string, std::vector<std::string>> kKnownDisagreements = {
    {"wu2010",
     {"Ten writers: ioless roughly halves %system", "A hundred writers: ioless cuts %system",
      "A SCHED_FIFO writer beside 10 heavy dd is only lightly throttled"}},
};

bool knownDisagreement(const std::string& name, const std::string& claim) {
  const auto it = kKnownDisagreements.find(name);
  if (it == kKnownDisagreements.end()) return false;
  for (const auto& prefix : it->second)
    if (claim.rfind(prefix, 0) == 0) return true;
  return false;
}

void expectEveryClaimHolds(const std::string& name) {
  const te::ExperimentResult& r = quickResult(name);
  ASSERT_FALSE(r.verdicts.empty());
  for (const auto& v : r.verdicts) {
    if (knownDisagreement(name, v.claim)) {
      EXPECT_FALSE(v.holds) << "now reproduced, revisit the README and the report: " << v.claim;
      EXPECT_FALSE(v.detail.empty());
    } else {
      EXPECT_TRUE(v.holds) << v.claim << "\n  " << v.detail;
    }
  }
}

}  // namespace

TEST(Experiments, ListsTheThreeSeedMails) {
  EXPECT_EQ(te::experimentNames(), kNames);
  EXPECT_FALSE(te::makeExperiment("bogus").has_value());
  EXPECT_FALSE(te::makeExperiment("").has_value());
}

TEST(Experiments, AreWellFormedInBothForms) {
  for (const auto& name : kNames) {
    for (const bool quick : {false, true}) {
      SCOPED_TRACE(name + (quick ? " quick" : " full"));
      const te::Experiment e = make(name, quick);
      EXPECT_EQ(e.name, name);
      EXPECT_EQ(e.quick, quick);
      EXPECT_FALSE(e.title.empty());
      EXPECT_NE(e.mail.find(", 20"), std::string::npos);  // list, author, date, subject
      EXPECT_FALSE(e.messageId.empty());
      ASSERT_FALSE(e.machine.empty());
      for (const auto& f : e.machine) {
        EXPECT_FALSE(f.value.empty());
        EXPECT_FALSE(f.source.empty()) << f.value << " has no source";
      }
      ASSERT_FALSE(e.cases.empty());
      ASSERT_FALSE(e.claims.empty());
      std::set<std::string> caseNames;
      for (const auto& c : e.cases) {
        EXPECT_TRUE(caseNames.insert(c.name).second) << "case named twice: " << c.name;
        EXPECT_NO_THROW(te::validateScenario(c.scenario)) << c.name;
        EXPECT_FALSE(c.metrics.empty()) << c.name;
        for (const auto& m : c.metrics) {
          EXPECT_TRUE(static_cast<bool>(m.measure)) << c.name << " " << m.key;
          EXPECT_FALSE(m.unit.empty()) << c.name << " " << m.key;
        }
      }
      for (const auto& t : e.tables)
        for (const auto& c : t.caseNames) EXPECT_EQ(caseNames.count(c), 1u) << t.title << ": " << c;
    }
  }
}

TEST(Experiments, DescribeEachMachineOnceForEveryCase) {
  // The machine is the experiment's, not the case's: apart from what a case varies on purpose
  // (a policy, the tasks, the memory or speed it is about), the cases share it.
  const te::Experiment wu = make("wu2010", false);
  for (const auto& c : wu.cases) {
    EXPECT_EQ(c.scenario.machine, wu.cases.front().scenario.machine) << c.name;
    EXPECT_EQ(c.scenario.devices, wu.cases.front().scenario.devices) << c.name;
    EXPECT_EQ(c.scenario.vm, wu.cases.front().scenario.vm) << c.name;
  }
  const te::Experiment arc = make("arcangeli2002", false);
  for (const auto& c : arc.cases) {
    EXPECT_EQ(c.scenario.devices, arc.cases.front().scenario.devices) << c.name;
    EXPECT_EQ(c.scenario.machine.memoryMiB, arc.cases.front().scenario.machine.memoryMiB);
  }
}

TEST(Experiments, MortonSmallMachineIsBelowTheRtHeadroomBoundary) {
  // thresh/4 with 2.6.0's dirtyable memory (every page) and dirty_ratio 40 must be smaller than
  // the 16 MiB write on the small machine and larger on the 512 MiB one.
  const te::Experiment e = make("morton2003", false);
  std::set<std::int64_t> memories;
  for (const auto& c : e.cases)
    if (c.scenario.policy == "legacy-2.6.0-rt-bonus" && c.scenario.machine.swapMiB == 0)
      memories.insert(c.scenario.machine.memoryMiB);
  ASSERT_EQ(memories.size(), 2u);
  const auto headroomMiB = [&](std::int64_t memory) {
    return static_cast<double>(memory) * e.cases.front().scenario.vm.dirtyRatio / 100.0 / 4;
  };
  EXPECT_LT(headroomMiB(*memories.begin()), 16);
  EXPECT_GT(headroomMiB(*memories.rbegin()), 16);
}

TEST(Experiments, WuCarriesTheMailsRunOneFigures) {
  const te::Experiment e = make("wu2010", true);
  const auto seedOf = [&](const std::string& caseName, const std::string& metric) {
    for (const auto& c : e.cases)
      if (c.name == caseName)
        for (const auto& m : c.metrics)
          if (m.key == metric) return m.seedValue;
    return std::optional<double>();
  };
  EXPECT_EQ(seedOf("100dd perbdi-2.6.24", "system_pct"), 30.916);
  EXPECT_EQ(seedOf("100dd perbdi-2.6.24", "write_kbps"), 37843.000);
  EXPECT_EQ(seedOf("100dd perbdi-2.6.24", "avgrq_sz_sectors"), 748.670);
  EXPECT_EQ(seedOf("100dd ioless", "system_pct"), 3.079);
  EXPECT_EQ(seedOf("100dd ioless", "write_kbps"), 41654.853);
  EXPECT_EQ(seedOf("100dd ioless", "avgrq_sz_sectors"), 822.322);
  EXPECT_EQ(seedOf("1dd perbdi-2.6.24", "write_kbps"), 57357.468);
  EXPECT_FALSE(seedOf("10dd ioless", "rate_max_dev_pct").has_value());
}

TEST(Experiments, EveryRowOfTheQuickRunsHasItsCaseAndMetric) {
  for (const auto& name : kNames) {
    SCOPED_TRACE(name);
    const te::Experiment e = make(name, true);
    const te::ExperimentResult& r = quickResult(name);
    EXPECT_EQ(r.experiment, name);
    EXPECT_EQ(r.seeds, 3);
    EXPECT_TRUE(r.quick);
    std::size_t metrics = 0;
    for (const auto& c : e.cases) metrics += c.metrics.size();
    EXPECT_EQ(r.rows.size(), metrics);
    for (const auto& row : r.rows) {
      ASSERT_EQ(row.perSeed.size(), 3u);
      if (!std::isnan(row.simulated)) {
        EXPECT_LE(row.simulatedMin, row.simulated);
        EXPECT_GE(row.simulatedMax, row.simulated);
      }
      if (row.seedValue) {
        EXPECT_NE(row.note.find("the mail's"), std::string::npos) << row.note;
      }
    }
    EXPECT_EQ(r.verdicts.size(), e.claims.size());
  }
}

TEST(Experiments, Morton2003ClaimsHold) {
  expectEveryClaimHolds("morton2003");
}

TEST(Experiments, Wu2010ClaimsHold) {
  expectEveryClaimHolds("wu2010");
}

TEST(Experiments, Arcangeli2002ClaimsHold) {
  expectEveryClaimHolds("arcangeli2002");
}

TEST(Experiments, ReportsParseAndCarryTheMailsTable) {
  const te::Experiment e = make("wu2010", true);
  const te::ExperimentResult& r = quickResult("wu2010");
  const auto j = nlohmann::json::parse(te::experimentReportJson(r));
  EXPECT_EQ(j.at("experiment"), "wu2010");
  ASSERT_EQ(j.at("rows").size(), r.rows.size());
  for (const auto& row : j["rows"])
    for (const char* key : {"case", "metric", "unit", "seed_value", "simulated", "simulated_min",
                            "simulated_max", "note"})
      EXPECT_TRUE(row.contains(key)) << key;
  ASSERT_EQ(j.at("verdicts").size(), r.verdicts.size());
  EXPECT_TRUE(j["verdicts"][0].at("holds").is_boolean());

  const std::string md = te::experimentReportMarkdown(e, r);
  EXPECT_NE(md.find("| perbdi-2.6.24 %system (%) |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 1dd | 13.046 / "), std::string::npos) << md;
  EXPECT_NE(md.find("<20101118025039.GA15479@localhost>"), std::string::npos);
  EXPECT_NE(md.find("## Verdicts"), std::string::npos);
  const std::string text = te::experimentVerdictsText(r);
  EXPECT_NE(text.find("claims hold"), std::string::npos) << text;
}

TEST(Experiments, AreDeterministic) {
  const te::Experiment e = make("morton2003", true);
  const auto once = te::experimentReportJson(te::runExperiment(e, seeds(3)));
  EXPECT_EQ(once, te::experimentReportJson(quickResult("morton2003")));
}

TEST(Experiments, SeveralSeedsGiveMeanMinAndMax) {
  te::Experiment e = make("wu2010", true);
  e.cases.resize(1);  // 1dd perbdi-2.6.24
  e.claims.clear();
  const te::ExperimentResult r = te::runExperiment(e, seeds(3));
  ASSERT_FALSE(r.rows.empty());
  for (const auto& row : r.rows) {
    ASSERT_EQ(row.perSeed.size(), 3u);
    EXPECT_LE(row.simulatedMin, row.simulated);
    EXPECT_GE(row.simulatedMax, row.simulated);
    EXPECT_NEAR(row.simulated, (row.perSeed[0] + row.perSeed[1] + row.perSeed[2]) / 3, 1e-9);
  }
}

TEST(Experiments, RejectABadSeedCountAndCanBeCancelled) {
  const te::Experiment e = make("wu2010", true);
  EXPECT_THROW(te::runExperiment(e, seeds(0)), te::ScenarioError);
  te::ExperimentRunOptions cancel = seeds(1);
  std::stop_source stop;
  stop.request_stop();
  cancel.stop = stop.get_token();
  EXPECT_THROW(te::runExperiment(e, cancel), te::RunCancelled);
}

TEST(Experiments, MeasureTheWindowAfterTheWarmUp) {
  te::ExperimentCase c;
  c.name = "one dd";
  c.scenario.durationS = 20;
  c.scenario.tasks = {te::TaskSpec{.name = "dd", .fileMiB = 1 << 20, .loop = false, .device = {}}};
  c.measureFromS = 10;
  c.collectPauses = true;
  const te::CaseRun run = te::runCase(c, 1);
  EXPECT_DOUBLE_EQ(run.window.startS, 10);
  EXPECT_DOUBLE_EQ(run.window.endS, 20);
  EXPECT_FALSE(run.stoppedEarly);
  // One streaming dd: the disk is busy writing the whole window.
  EXPECT_NEAR(run.window.writeKBps, c.scenario.devices[0].writeMBps * 1e6 / 1024,
              0.1 * c.scenario.devices[0].writeMBps * 1e6 / 1024);
  EXPECT_GT(run.window.avgrqSzSectors, 0);
  EXPECT_GT(run.window.pauses, 0);
  EXPECT_GT(run.window.pauseMsP50, 0);
  ASSERT_EQ(run.group("dd").size(), 1u);
  ASSERT_EQ(run.groupAtWindowStart("dd").size(), 1u);
  EXPECT_GT(run.group("dd")[0]->dirtiedPages, run.groupAtWindowStart("dd")[0]->dirtiedPages);
}

TEST(Experiments, StopWhenTheNamedTasksHaveExited) {
  te::ExperimentCase c;
  c.name = "short dd";
  c.scenario.durationS = 600;
  c.scenario.tasks = {
      te::TaskSpec{.name = "loop", .fileMiB = 64, .loop = true, .device = {}},
      te::TaskSpec{.name = "once", .fileMiB = 16, .loop = false, .startS = 2, .device = {}}};
  c.stopWhenExited = "once";
  const te::CaseRun run = te::runCase(c, 1);
  EXPECT_TRUE(run.stoppedEarly);
  EXPECT_LT(run.endS, 60);
  ASSERT_EQ(run.group("once").size(), 1u);
  EXPECT_EQ(run.group("once")[0]->state, te::TaskState::Exited);
}
