// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Policy comparison: one scenario run under several throttling policies and seeds, with the
/// figures iostat and the kernel's traces would give, set side by side the way Wu Fengguang's
/// 2010 mail compared two kernels (%system, wkB/s, avgrq-sz per case). Qt-free; the command
/// line and the window share it.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "throttlelab/engine/progress.h"
#include "throttlelab/engine/records.h"
#include "throttlelab/engine/scenario.h"

namespace throttlelab::engine {

/// One figure a comparison reports, read from a run's Summary.
struct ComparisonMetric {
  std::string_view key;    ///< JSON key, snake_case with the unit: "write_kbps"
  std::string_view label;  ///< table heading, iostat's name where it has one: "wkB/s"
  std::string_view unit;   ///< "%", "KiB/s", "sectors", "ms", "pages", "fraction", "count", "KiB"
  double (*read)(const Summary&);
};

/// The metrics in report order: system_pct, user_pct, write_kbps, avgrq_sz_sectors,
/// seeks_per_s, pause_ms_p50, pause_ms_p99, dirty_pages_p50, pause_ms_max,
/// share_above_freerun, share_above_limit, alloc_ms_p99, oom_kills, swap_out_kib.
const std::vector<ComparisonMetric>& comparisonMetrics();

/// Called after each run with (runs done, runs in all). The GUI uses it for a progress bar.
using ProgressCallback = std::function<void(std::size_t done, std::size_t total)>;

/// A long call that was stopped through its std::stop_token (checked after each run).
class RunCancelled : public std::runtime_error {
 public:
  RunCancelled() : std::runtime_error("cancelled") {}
};

struct CompareOptions {
  std::vector<std::string> policies;  ///< two or more names from Simulator::policyNames()
  int seeds = 1;                      ///< runs the seeds scenario.seed .. seed + seeds - 1
  ProgressCallback progress;          ///< optional
  /// Optional: simulated seconds of all the runs together, after every simulated second.
  SimulatedProgress simulated;
  std::stop_token stop;  ///< a stop request ends the call (RunCancelled)
};

/// One policy × seed.
struct CompareRun {
  std::string policy;
  std::uint64_t seed = 0;
  double simulatedS = 0;        ///< where the run stopped (durationS, or when every task exited)
  std::vector<double> metrics;  ///< in comparisonMetrics() order
};

/// One metric across the policies; vectors are indexed like CompareResult::policies.
struct CompareRow {
  std::string metric;        ///< ComparisonMetric::key
  std::vector<double> mean;  ///< over seeds
  std::vector<double> min;   ///< over seeds
  std::vector<double> max;   ///< over seeds
  /// (mean − mean of the first policy) / mean of the first policy × 100; nullopt when the
  /// first policy's mean is 0 and this one's is not (0 when both are 0).
  std::vector<std::optional<double>> changePct;
};

struct CompareResult {
  std::string heading = "Policy comparison";  ///< the report's title
  std::string note;      ///< a paragraph under the title (what the runs are); empty for none
  std::string scenario;  ///< Scenario::name
  std::vector<std::string> policies;  ///< as asked, the first is the baseline
  int seeds = 1;
  std::vector<CompareRun> runs;        ///< policy-major: every seed of policy 0, then policy 1...
  std::vector<CompareRow> comparison;  ///< one per comparisonMetrics() entry
};

/// Checks a policy list: at least two, each known, none twice. Returns an empty string when it
/// is fine, else one sentence naming the problem (and the known policies).
std::string checkComparePolicies(const std::vector<std::string>& policies);

/// Runs `scenario` under each policy for each seed, sequentially and deterministically. A run
/// lasts durationS of simulated time, or ends earlier once every task has exited (a finite job
/// such as make -jN). Throws ScenarioError for a bad policy list, seed count or scenario, and
/// RunCancelled when a stop was requested.
CompareResult comparePolicies(const Scenario& scenario, const CompareOptions& options);

/// Runs made elsewhere, one seed each, compared like policies: `runs` are (label, summary)
/// pairs, the first is the baseline (a branched run beside its original, for example).
CompareResult compareSummaries(std::string scenario,
                               const std::vector<std::pair<std::string, Summary>>& runs);

/// The report as Markdown: a table laid out like the mail's (one line per seed, %system,
/// wkB/s and avgrq-sz per policy), then every metric with its change against the first
/// policy, and mean ± half the range over the seeds when there are several.
std::string compareReportMarkdown(const CompareResult& result);
/// The report as JSON: {"scenario", "runs": [{"policy", "seed", "metrics": {...}}],
/// "comparison": [{"metric", "values": {policy: mean}, "change_pct": {policy: %}}]}.
std::string compareReportJson(const CompareResult& result);

}  // namespace throttlelab::engine
