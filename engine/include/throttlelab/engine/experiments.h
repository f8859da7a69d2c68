// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The seed experiments (docs/model.md, The seed experiments): each reproduces the measurement of
/// one mailing-list message on a machine written down once, with the source of every value, and
/// judges the mail's claims from the simulated numbers. Nothing is fitted to the mail: where the
/// model disagrees with it, the report says so. Qt-free; the command line and the window share it.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "throttlelab/engine/compare.h"
#include "throttlelab/engine/records.h"
#include "throttlelab/engine/scenario.h"

namespace throttlelab::engine {

/// One value of the experiment's machine and where it comes from:
/// {"4 GiB RAM, 4 CPUs", "Wu's test box (mail 2010-11-18)"}.
struct MachineFact {
  std::string value;
  std::string source;
};

/// Figures over the measurement window [startS, endS] of one run: counters differenced between
/// Simulator::summary() at the window's start and at its end, pauses from the
/// balance_dirty_pages records that started inside it.
struct WindowStats {
  double startS = 0;
  double endS = 0;
  double systemPct = 0;  ///< iostat %system: kernel CPU time, % of all CPUs
  double userPct = 0;
  double writeKBps = 0;       ///< iostat wkB/s (KiB/s), every device
  double avgrqSzSectors = 0;  ///< iostat avgrq-sz over the requests completed in the window
  double seeksPerS = 0;
  double pauseMsP50 = 0;  ///< median pause (ms, > 0) in the window; NaN if none or not collected
  std::int64_t pauses = 0;
};

/// One finished run of one case with one seed: what a metric is computed from.
struct CaseRun {
  std::uint64_t seed = 0;
  double endS = 0;            ///< simulated time at which the run stopped
  bool stoppedEarly = false;  ///< it stopped because its tasks had exited
  Summary atWindowStart;      ///< the whole run up to the window (empty if it starts at 0)
  Summary atEnd;              ///< the whole run
  WindowStats window;
  int cpus = 1;  ///< the machine's CPUs (for utilisation)
  /// The tasks of the group named `name` at the end (empty if none).
  std::vector<const TaskStats*> group(std::string_view name) const;
  /// The same tasks at the window's start (parallel to group(name)).
  std::vector<const TaskStats*> groupAtWindowStart(std::string_view name) const;
};

/// A figure a case reports, with the mail's value beside it.
struct MetricSpec {
  std::string key;                  ///< "system_pct"
  std::string label;                ///< "%system"
  std::string unit;                 ///< "%", "KiB/s", "sectors", "s", "ms", "MiB", "count"
  std::optional<double> seedValue;  ///< the mail's figure; nullopt where it has none
  std::string note;                 ///< where the figure or its comparison needs a word
  std::function<double(const CaseRun&)> measure;
};

/// One scenario the experiment runs, and where it sits in the mail's table.
struct ExperimentCase {
  std::string name;         ///< unique in the experiment: "100dd perbdi-2.6.24"
  std::string row;          ///< the mail's row: "100dd"
  std::string column;       ///< the mail's column: "perbdi-2.6.24"; empty when there is one
  Scenario scenario;        ///< the machine + a policy + tasks; its seed is the first seed run
  double measureFromS = 0;  ///< the measurement window starts here (a warm-up before it)
  bool stopWhenAllExited = false;  ///< end the run once every task has exited
  std::string stopWhenExited;      ///< end once every task of this group name has exited
  bool collectPauses = false;      ///< collect the balance_dirty_pages pauses of the window
  /// Tasks of this group start up to `startSpreadS` later, by an offset drawn from the seed:
  /// a measurement that lands at an arbitrary phase of a periodic background load ("rm 1;
  /// sleep 3; time dd") is then averaged over phases by running several seeds.
  std::string startSpreadGroup;
  double startSpreadS = 0;
  /// With a spread: the phases each seed runs and averages (a low-discrepancy sequence over
  /// all seeds), so that a few seeds do not leave the verdict to where they happen to land.
  int phasesPerSeed = 1;
  std::vector<MetricSpec> metrics;
};

/// One row of the report: a case's metric over the seeds.
struct MetricResult {
  std::string caseName;
  std::string metric;
  std::string label;
  std::string unit;
  std::optional<double> seedValue;
  double simulated = 0;  ///< mean over seeds (NaN if a seed gave no value)
  double simulatedMin = 0;
  double simulatedMax = 0;
  std::vector<double> perSeed;
  std::string note;  ///< the metric's note, and how far the mean is from the mail's value
};

struct Verdict {
  std::string claim;
  bool holds = false;
  std::string detail;  ///< the numbers the verdict was computed from
};

struct ExperimentResult {
  std::string experiment;
  std::string title;
  int seeds = 0;
  bool quick = false;
  std::vector<MetricResult> rows;
  std::vector<Verdict> verdicts;
  /// The row of a case's metric, or nullptr.
  const MetricResult* find(std::string_view caseName, std::string_view metric) const;
  /// Its mean, or NaN if there is no such row.
  double value(std::string_view caseName, std::string_view metric) const;
};

/// A statement of the mail, judged from the simulated numbers.
struct Claim {
  std::string text;
  std::function<Verdict(const ExperimentResult&)> evaluate;
};

/// A table of the Markdown report, laid out like the mail's: one line per distinct case row,
/// for each case column the listed metrics as "mail / simulated".
struct ReportTable {
  std::string title;
  std::vector<std::string> metrics;    ///< MetricSpec keys
  std::vector<std::string> caseNames;  ///< cases shown, in order (their row/column place them)
};

struct Experiment {
  std::string name;   ///< "wu2010"
  std::string title;  ///< one line
  std::string
      mail;  ///< the mail, cited by list, author, date and subject (docs/model.md, The seed mails)
  std::string messageId;             ///< as in docs/model.md, The seed mails
  std::string mailSummary;           ///< what the mail measured, in one or two sentences
  std::vector<MachineFact> machine;  ///< written down once, each with its source
  std::vector<std::string> method;   ///< how the cases are run and measured, what the model lacks
  std::vector<ExperimentCase> cases;
  /// The case to watch live while the whole experiment runs (the window loads it): the one
  /// that shows the mail's point best. A name in `cases`.
  std::string liveCase;
  std::vector<ReportTable> tables;
  std::vector<Claim> claims;
  bool quick = false;  ///< this is the reduced form (shorter runs, fewer cases)
};

/// The experiments, in the order `--experiment list` shows them: morton2003, wu2010,
/// arcangeli2002.
std::vector<std::string> experimentNames();
/// Builds an experiment by name (the reduced form with `quick`); nullopt if unknown.
std::optional<Experiment> makeExperiment(std::string_view name, bool quick = false);

struct ExperimentRunOptions {
  int seeds = 3;              ///< seeds scenario.seed .. seed + seeds - 1 for every case
  ProgressCallback progress;  ///< after each case × seed
  /// Optional: simulated seconds of all the runs together, after every simulated second.
  SimulatedProgress simulated;
  std::stop_token stop;  ///< a stop request ends the run (RunCancelled)
};

/// Runs every case for every seed, sequentially, then computes the rows and the verdicts.
/// Throws ScenarioError if a case's scenario is invalid (a bug), RunCancelled on cancel.
ExperimentResult runExperiment(const Experiment& experiment, const ExperimentRunOptions& options);

/// Runs one scenario as a case would (exposed for the tests and the window). `phase` picks
/// the start offset of the spread group (0 = the one the seed itself gives).
/// `afterSlice` (optional) is called after every simulated second (a progress report).
CaseRun runCase(const ExperimentCase& c, std::uint64_t seed, std::uint64_t phase = 0,
                const std::function<void(double runS)>& afterSlice = {});

/// The report as Markdown: the mail, the machine with sources, the tables laid out like the
/// mail's with its value beside the simulated one, every row with min–max and notes, and the
/// verdicts.
std::string experimentReportMarkdown(const Experiment& experiment, const ExperimentResult& result);
/// The report as JSON: {"experiment", "rows": [{"case", "metric", "unit", "seed_value",
/// "simulated", "simulated_min", "simulated_max", "note"}], "verdicts": [{"claim", "holds",
/// "detail"}]}.
std::string experimentReportJson(const ExperimentResult& result);
/// A few lines for a terminal: one per verdict, and the count that hold.
std::string experimentVerdictsText(const ExperimentResult& result);

}  // namespace throttlelab::engine
