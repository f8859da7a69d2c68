// SPDX-License-Identifier: GPL-3.0-or-later
// Policy comparison: the same scenario under several policies and seeds, reported the way
// Wu Fengguang compared 2.6.37-rc2 with his IO-less series (per case: %system, wkB/s,
// avgrq-sz, and the change).
#include "throttlelab/engine/compare.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "report_format.h"
#include "run_loop.h"
#include "throttlelab/engine/simulator.h"
#include "throttlelab/engine/statistics.h"

namespace throttlelab::engine {

namespace {

constexpr int kMaxSeeds = 1000;

// The metrics of the mail's table, in its order.
constexpr std::string_view kMailColumns[] = {"system_pct", "write_kbps", "avgrq_sz_sectors"};

std::string joinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::size_t metricIndex(std::string_view key) {
  const auto& metrics = comparisonMetrics();
  for (std::size_t i = 0; i < metrics.size(); ++i)
    if (metrics[i].key == key) return i;
  return metrics.size();
}

}  // namespace

const std::vector<ComparisonMetric>& comparisonMetrics() {
  static const std::vector<ComparisonMetric> kMetrics{
      {"system_pct", "%system", "%", [](const Summary& s) { return s.systemPct; }},
      {"user_pct", "%user", "%", [](const Summary& s) { return s.userPct; }},
      {"write_kbps", "wkB/s", "KiB/s", [](const Summary& s) { return s.deviceWriteKBps; }},
      {"avgrq_sz_sectors", "avgrq-sz", "sectors",
       [](const Summary& s) { return s.avgrqSzSectors; }},
      {"seeks_per_s", "seeks/s", "1/s", [](const Summary& s) { return s.seeksPerS; }},
      {"pause_ms_p50", "pause p50", "ms", [](const Summary& s) { return s.pauseMsP50; }},
      {"pause_ms_p99", "pause p99", "ms", [](const Summary& s) { return s.pauseMsP99; }},
      {"dirty_pages_p50", "dirty p50", "pages", [](const Summary& s) { return s.dirtyPagesP50; }},
      {"pause_ms_max", "pause max", "ms", [](const Summary& s) { return s.pauseMsMax; }},
      {"share_above_freerun", "above freerun", "fraction",
       [](const Summary& s) { return s.shareAboveFreerun; }},
      {"share_above_limit", "above limit", "fraction",
       [](const Summary& s) { return s.shareAboveLimit; }},
      {"alloc_ms_p99", "alloc p99", "ms", [](const Summary& s) { return s.allocMsP99; }},
      {"oom_kills", "OOM kills", "count",
       [](const Summary& s) { return static_cast<double>(s.oomKills); }},
      {"swap_out_kib", "swap out", "KiB", [](const Summary& s) { return s.swapOutKiB; }},
  };
  return kMetrics;
}

std::string checkComparePolicies(const std::vector<std::string>& policies) {
  const std::vector<std::string> known = Simulator::policyNames();
  if (policies.size() < 2)
    return "needs at least two policies separated by commas, like perbdi-2.6.24,ioless (known: " +
           joinNames(known) + ")";
  std::set<std::string> seen;
  for (const auto& p : policies) {
    if (p.empty()) return "has an empty policy name (two commas in a row?)";
    if (std::find(known.begin(), known.end(), p) == known.end())
      return "unknown policy '" + p + "' (known: " + joinNames(known) + ")";
    if (!seen.insert(p).second) return "names policy '" + p + "' twice";
  }
  return {};
}

namespace {
/// The rows of a comparison from its runs (policy-major, `seeds` per policy).
void fillComparison(CompareResult& result) {
  const auto& metrics = comparisonMetrics();
  const auto seeds = static_cast<std::size_t>(std::max(result.seeds, 1));
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    CompareRow row;
    row.metric = std::string(metrics[m].key);
    for (std::size_t p = 0; p < result.policies.size(); ++p) {
      std::vector<double> values;
      for (std::size_t i = 0; i < seeds; ++i)
        values.push_back(result.runs[p * seeds + i].metrics[m]);
      const report::Spread sp = report::spread(values);
      row.mean.push_back(sp.mean);
      row.min.push_back(sp.min);
      row.max.push_back(sp.max);
    }
    for (std::size_t p = 0; p < result.policies.size(); ++p)
      row.changePct.push_back(percentChange(row.mean[p], row.mean[0]));
    result.comparison.push_back(std::move(row));
  }
}
}  // namespace

CompareResult comparePolicies(const Scenario& scenario, const CompareOptions& options) {
  if (const std::string problem = checkComparePolicies(options.policies); !problem.empty())
    throw ScenarioError("policy", "--compare: " + problem);
  if (options.seeds < 1 || options.seeds > kMaxSeeds)
    throw ScenarioError("seed", "the number of seeds must be between 1 and " +
                                    std::to_string(kMaxSeeds) + ", got " +
                                    std::to_string(options.seeds));
  validateScenario(scenario);

  const auto& metrics = comparisonMetrics();
  CompareResult result;
  result.scenario = scenario.name;
  result.policies = options.policies;
  result.seeds = options.seeds;
  const std::size_t total = options.policies.size() * static_cast<std::size_t>(options.seeds);
  const bool finiteJobs = detail::hasTasks(scenario);
  detail::ProgressTally tally(options.simulated, static_cast<double>(total) * scenario.durationS);
  for (const auto& policy : options.policies) {
    for (int i = 0; i < options.seeds; ++i) {
      Scenario s = scenario;
      s.policy = policy;
      s.seed = scenario.seed + static_cast<std::uint64_t>(i);  // wraps like the kernel's u64
      Simulator sim(s);
      detail::runSliced(
          sim, s.durationS, [&] { return finiteJobs && sim.allTasksExited(); },
          [&] { tally.at(toSeconds(sim.now())); });
      tally.endRun(s.durationS);
      const Summary summary = sim.summary();
      CompareRun run;
      run.policy = policy;
      run.seed = s.seed;
      run.simulatedS = summary.simulatedS;
      for (const auto& m : metrics) run.metrics.push_back(m.read(summary));
      result.runs.push_back(std::move(run));
      if (options.progress) options.progress(result.runs.size(), total);
      if (options.stop.stop_requested()) throw RunCancelled();
    }
  }

  fillComparison(result);
  return result;
}

CompareResult compareSummaries(std::string scenario,
                               const std::vector<std::pair<std::string, Summary>>& runs) {
  CompareResult result;
  result.scenario = std::move(scenario);
  for (const auto& [label, summary] : runs) {
    result.policies.push_back(label);
    CompareRun run;
    run.policy = label;
    run.simulatedS = summary.simulatedS;
    for (const auto& m : comparisonMetrics()) run.metrics.push_back(m.read(summary));
    result.runs.push_back(std::move(run));
  }
  fillComparison(result);
  return result;
}

std::string compareReportMarkdown(const CompareResult& r) {
  using report::cell;
  using report::number;
  const auto& metrics = comparisonMetrics();
  const std::size_t seeds = static_cast<std::size_t>(std::max(r.seeds, 1));
  std::string out = "# " + r.heading + ": " + cell(r.scenario) + "\n\n";
  if (!r.note.empty()) out += r.note + "\n\n";
  if (r.policies.empty() || r.runs.size() != r.policies.size() * seeds) return out;

  const CompareRun& first = r.runs.front();
  out += "Scenario `" + cell(r.scenario) + "`, " + number(first.simulatedS) +
         " s of simulated time per run";
  if (std::any_of(r.runs.begin(), r.runs.end(),
                  [&](const CompareRun& x) { return x.simulatedS != first.simulatedS; }))
    out += " (some runs ended earlier, when all their tasks had exited)";
  out += ", " + std::to_string(seeds) + (seeds == 1 ? " seed (" : " seeds (") +
         std::to_string(first.seed);
  if (seeds > 1) out += " .. " + std::to_string(r.runs[seeds - 1].seed);
  out += "). Changes are relative to `" + cell(r.policies.front()) + "`.\n\n";

  // The mail's layout: a line per run, %system / wkB/s / avgrq-sz for each policy.
  out += "## As in Wu Fengguang's 2010 table\n\n";
  std::vector<std::string> head{"run"};
  for (const auto& p : r.policies)
    for (const auto key : kMailColumns)
      head.push_back(cell(p) + " " + std::string(metrics[metricIndex(key)].label));
  out += report::tableRow(head) + report::tableRule(head.size());
  for (std::size_t i = 0; i < seeds; ++i) {
    std::vector<std::string> line{"seed " + std::to_string(r.runs[i].seed)};
    for (std::size_t p = 0; p < r.policies.size(); ++p)
      for (const auto key : kMailColumns)
        line.push_back(number(r.runs[p * seeds + i].metrics[metricIndex(key)]));
    out += report::tableRow(line);
  }
  if (seeds > 1) {
    std::vector<std::string> line{"mean"};
    for (std::size_t p = 0; p < r.policies.size(); ++p)
      for (const auto key : kMailColumns)
        line.push_back(number(r.comparison[metricIndex(key)].mean[p]));
    out += report::tableRow(line);
  }
  {
    std::vector<std::string> line{"change"};
    for (std::size_t p = 0; p < r.policies.size(); ++p)
      for (const auto key : kMailColumns)
        line.push_back(p == 0 ? std::string("")
                              : report::percentChange(r.comparison[metricIndex(key)].changePct[p]));
    out += report::tableRow(line);
  }

  out += "\n## Every metric\n\n";
  std::vector<std::string> head2{"metric", "unit"};
  for (std::size_t p = 0; p < r.policies.size(); ++p)
    head2.push_back(cell(r.policies[p]) + (p == 0 ? "" : " (change)"));
  out += report::tableRow(head2) + report::tableRule(head2.size(), 2);
  for (std::size_t m = 0; m < metrics.size() && m < r.comparison.size(); ++m) {
    const CompareRow& row = r.comparison[m];
    std::vector<std::string> line{
        std::string(metrics[m].label) + " (`" + std::string(metrics[m].key) + "`)",
        std::string(metrics[m].unit)};
    for (std::size_t p = 0; p < r.policies.size(); ++p) {
      std::string v = number(row.mean[p]);
      if (seeds > 1) v += " ± " + number((row.max[p] - row.min[p]) / 2);
      if (p > 0) v += " (" + report::percentChange(row.changePct[p]) + ")";
      line.push_back(v);
    }
    out += report::tableRow(line);
  }
  if (seeds > 1)
    out +=
        "\nValues are means over the seeds; ± is half the range between the lowest and the "
        "highest seed.\n";
  return out;
}

std::string compareReportJson(const CompareResult& r) {
  using Json = nlohmann::ordered_json;
  const auto& metrics = comparisonMetrics();
  Json j;
  j["scenario"] = r.scenario;
  if (!r.note.empty()) j["note"] = r.note;
  j["runs"] = Json::array();
  for (const auto& run : r.runs) {
    Json m = Json::object();
    for (std::size_t i = 0; i < metrics.size() && i < run.metrics.size(); ++i)
      m[std::string(metrics[i].key)] = run.metrics[i];
    j["runs"].push_back({{"policy", run.policy}, {"seed", run.seed}, {"metrics", std::move(m)}});
  }
  j["comparison"] = Json::array();
  for (const auto& row : r.comparison) {
    Json values = Json::object();
    Json change = Json::object();
    for (std::size_t p = 0; p < r.policies.size() && p < row.mean.size(); ++p) {
      values[r.policies[p]] = row.mean[p];
      change[r.policies[p]] = row.changePct[p] ? Json(*row.changePct[p]) : Json(nullptr);
    }
    j["comparison"].push_back(
        {{"metric", row.metric}, {"values", std::move(values)}, {"change_pct", std::move(change)}});
  }
  // NaN (a metric without data) is written as null.
  return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace throttlelab::engine
