// SPDX-License-Identifier: GPL-3.0-or-later
// Policy comparison: the runs (policy × seed), the means and changes against the first
// policy, and the two report forms.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "throttlelab/engine/compare.h"
#include "throttlelab/engine/simulator.h"

namespace te = throttlelab::engine;

namespace {

te::Scenario tenDd(double durationS) {
  te::Scenario s = te::loadScenario("ten-dd");
  s.durationS = durationS;
  return s;
}

te::CompareOptions options(std::vector<std::string> policies, int seeds) {
  te::CompareOptions o;
  o.policies = std::move(policies);
  o.seeds = seeds;
  return o;
}

std::size_t indexOf(std::string_view key) {
  const auto& m = te::comparisonMetrics();
  for (std::size_t i = 0; i < m.size(); ++i)
    if (m[i].key == key) return i;
  ADD_FAILURE() << "no metric " << key;
  return 0;
}

}  // namespace

TEST(Compare, MetricsAreTheDocumentedOnesInOrder) {
  std::vector<std::string> keys;
  for (const auto& m : te::comparisonMetrics()) {
    keys.emplace_back(m.key);
    EXPECT_FALSE(m.label.empty());
    EXPECT_FALSE(m.unit.empty());
    EXPECT_NE(m.read, nullptr);
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"system_pct", "user_pct", "write_kbps",
                                            "avgrq_sz_sectors", "seeks_per_s", "pause_ms_p50",
                                            "pause_ms_p99", "dirty_pages_p50", "pause_ms_max",
                                            "share_above_freerun", "share_above_limit",
                                            "alloc_ms_p99", "oom_kills", "swap_out_kib"}));
  te::Summary s;
  s.deviceWriteKBps = 41654.853;
  s.avgrqSzSectors = 822.322;
  EXPECT_EQ(te::comparisonMetrics()[indexOf("write_kbps")].read(s), 41654.853);
  EXPECT_EQ(te::comparisonMetrics()[indexOf("avgrq_sz_sectors")].read(s), 822.322);
}

TEST(Compare, RunsEveryPolicyWithEverySeed) {
  const te::CompareResult r =
      te::comparePolicies(tenDd(4), options({"perbdi-2.6.24", "ioless"}, 2));
  EXPECT_EQ(r.scenario, "ten-dd");
  EXPECT_EQ(r.seeds, 2);
  ASSERT_EQ(r.runs.size(), 4u);
  EXPECT_EQ(r.runs[0].policy, "perbdi-2.6.24");
  EXPECT_EQ(r.runs[0].seed, 1u);
  EXPECT_EQ(r.runs[1].seed, 2u);
  EXPECT_EQ(r.runs[2].policy, "ioless");
  EXPECT_EQ(r.runs[3].seed, 2u);
  for (const auto& run : r.runs) {
    EXPECT_DOUBLE_EQ(run.simulatedS, 4);
    ASSERT_EQ(run.metrics.size(), te::comparisonMetrics().size());
  }
  ASSERT_EQ(r.comparison.size(), te::comparisonMetrics().size());
  const auto& wkbps = r.comparison[indexOf("write_kbps")];
  EXPECT_EQ(wkbps.metric, "write_kbps");
  const std::size_t m = indexOf("write_kbps");
  EXPECT_NEAR(wkbps.mean[1], (r.runs[2].metrics[m] + r.runs[3].metrics[m]) / 2, 1e-9);
  EXPECT_EQ(wkbps.min[1], std::min(r.runs[2].metrics[m], r.runs[3].metrics[m]));
  EXPECT_EQ(wkbps.max[1], std::max(r.runs[2].metrics[m], r.runs[3].metrics[m]));
  ASSERT_TRUE(wkbps.changePct[0].has_value());
  EXPECT_EQ(*wkbps.changePct[0], 0);
  ASSERT_TRUE(wkbps.changePct[1].has_value());
  EXPECT_NEAR(*wkbps.changePct[1], (wkbps.mean[1] - wkbps.mean[0]) / wkbps.mean[0] * 100, 1e-9);
}

TEST(Compare, IsDeterministic) {
  const auto a =
      te::compareReportJson(te::comparePolicies(tenDd(3), options({"ioless", "none"}, 1)));
  const auto b =
      te::compareReportJson(te::comparePolicies(tenDd(3), options({"ioless", "none"}, 1)));
  EXPECT_EQ(a, b);
}

TEST(Compare, EndsARunWhenEveryTaskHasExited) {
  te::Scenario s;
  s.durationS = 600;
  s.tasks = {te::TaskSpec{.name = "dd", .fileMiB = 16, .loop = false, .device = {}}};
  const te::CompareResult r = te::comparePolicies(s, options({"ioless", "none"}, 1));
  for (const auto& run : r.runs) EXPECT_LT(run.simulatedS, 60) << run.policy;
}

TEST(Compare, ChangeAgainstZeroIsUnknownUnlessBothAreZero) {
  te::Scenario s = tenDd(2);
  const te::CompareResult r = te::comparePolicies(s, options({"ioless", "none"}, 1));
  const auto& oom = r.comparison[indexOf("oom_kills")];
  ASSERT_TRUE(oom.changePct[1].has_value());  // 0 kills both: no change
  EXPECT_EQ(*oom.changePct[1], 0);
}

TEST(Compare, RejectsABadPolicyListOrSeedCount) {
  EXPECT_NE(te::checkComparePolicies({"ioless"}).find("at least two"), std::string::npos);
  EXPECT_NE(te::checkComparePolicies({"ioless", "fair"}).find("unknown policy 'fair'"),
            std::string::npos);
  EXPECT_NE(te::checkComparePolicies({"ioless", "ioless"}).find("twice"), std::string::npos);
  EXPECT_EQ(te::checkComparePolicies({"ioless", "none"}), "");
  EXPECT_THROW(te::comparePolicies(tenDd(1), options({"ioless"}, 1)), te::ScenarioError);
  EXPECT_THROW(te::comparePolicies(tenDd(1), options({"ioless", "none"}, 0)), te::ScenarioError);
  te::Scenario bad = tenDd(1);
  bad.machine.cpus = 0;
  EXPECT_THROW(te::comparePolicies(bad, options({"ioless", "none"}, 1)), te::ScenarioError);
}

TEST(Compare, CanBeCancelledBetweenRuns) {
  te::CompareOptions o = options({"ioless", "none"}, 2);
  std::size_t calls = 0;
  std::stop_source stop;
  o.stop = stop.get_token();
  o.progress = [&](std::size_t done, std::size_t total) {
    EXPECT_EQ(total, 4u);
    EXPECT_EQ(done, ++calls);
    if (done == 2) stop.request_stop();
  };
  EXPECT_THROW(te::comparePolicies(tenDd(1), o), te::RunCancelled);
  EXPECT_EQ(calls, 2u);
}

TEST(Compare, JsonReportHasTheDocumentedShape) {
  const te::CompareResult r =
      te::comparePolicies(tenDd(2), options({"perbdi-2.6.24", "ioless"}, 2));
  // Ordered, to see the keys in the order they are written.
  const auto j = nlohmann::ordered_json::parse(te::compareReportJson(r));
  EXPECT_EQ(j.at("scenario"), "ten-dd");
  ASSERT_EQ(j.at("runs").size(), 4u);
  EXPECT_EQ(j["runs"][3]["policy"], "ioless");
  EXPECT_EQ(j["runs"][3]["seed"], 2);
  EXPECT_EQ(j["runs"][3]["metrics"].size(), te::comparisonMetrics().size());
  EXPECT_EQ(j["runs"][3]["metrics"].begin().key(), "system_pct");
  ASSERT_EQ(j.at("comparison").size(), te::comparisonMetrics().size());
  for (const auto& row : j["comparison"]) {
    EXPECT_TRUE(row.at("metric").is_string());
    EXPECT_EQ(row.at("values").size(), 2u);
    EXPECT_TRUE(row.at("change_pct").contains("perbdi-2.6.24"));
    EXPECT_TRUE(row.at("change_pct").contains("ioless"));
  }
}

TEST(Compare, MarkdownHasTheMailsTableAndTheSpread) {
  const te::CompareResult r =
      te::comparePolicies(tenDd(2), options({"perbdi-2.6.24", "ioless"}, 2));
  const std::string md = te::compareReportMarkdown(r);
  EXPECT_NE(md.find("| run | perbdi-2.6.24 %system | perbdi-2.6.24 wkB/s | perbdi-2.6.24 "
                    "avgrq-sz | ioless %system | ioless wkB/s | ioless avgrq-sz |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| seed 1 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| seed 2 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| mean |"), std::string::npos) << md;
  EXPECT_NE(md.find(" ± "), std::string::npos) << md;
  EXPECT_NE(md.find("relative to `perbdi-2.6.24`"), std::string::npos) << md;
  const std::string single =
      te::compareReportMarkdown(te::comparePolicies(tenDd(2), options({"ioless", "none"}, 1)));
  EXPECT_EQ(single.find(" ± "), std::string::npos) << single;
}
