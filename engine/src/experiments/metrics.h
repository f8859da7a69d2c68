// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Building blocks of the experiments' metrics and claims: how a figure is read from a run, and
// how a claim's detail line is written.
#include <string>
#include <string_view>
#include <vector>

#include "throttlelab/engine/experiments.h"

namespace throttlelab::engine::experiments {

// ---- Reading a run -------------------------------------------------------------------------

/// Mean of TaskStats::lastRunS over the group's tasks that finished a run; NaN if none did.
double groupLastRunS(const CaseRun& run, std::string_view group);
/// Largest TaskStats::allocMsMax in the group (ms); NaN if the group is empty.
double groupAllocMsMax(const CaseRun& run, std::string_view group);
/// Mean over the group of the pages it dirtied inside the window, as KiB/s.
double groupWindowWriteKBps(const CaseRun& run, std::string_view group);
/// Mean over the group of the share of the window spent asleep in balance_dirty_pages.
double groupWindowPausedShare(const CaseRun& run, std::string_view group);
/// max over the group's tasks of |rate − fair| / fair × 100, fair = window wkB/s ÷ group size.
double groupWindowRateMaxDeviationPct(const CaseRun& run, std::string_view group);
/// When the last task exited (s); NaN if some task was still alive when the run ended.
double wallS(const CaseRun& run);
/// (user + system CPU time of every task) / (CPUs × wall time) × 100, as `time` reports it.
double cpuUtilisationPct(const CaseRun& run);
/// Runs completed by every task together.
double runsCompleted(const CaseRun& run);

// ---- Metric specifications -----------------------------------------------------------------

MetricSpec metric(std::string key, std::string label, std::string unit,
                  std::function<double(const CaseRun&)> measure);
MetricSpec withSeed(MetricSpec m, double seedValue, std::string note = {});
MetricSpec withNote(MetricSpec m, std::string note);

// ---- Claims --------------------------------------------------------------------------------

/// "name 1.23 unit" for a detail line.
std::string figure(std::string_view name, double v, std::string_view unit = {});
/// True if every value is a number (no missing case, no NaN).
bool allKnown(const std::vector<double>& values);
/// The detail for a claim that could not be judged because a figure is missing.
Verdict notJudged(std::string claim, std::string_view what);

}  // namespace throttlelab::engine::experiments

namespace throttlelab::engine {
// The experiment definitions (one file each).
Experiment makeMorton2003(bool quick);
Experiment makeWu2010(bool quick);
Experiment makeArcangeli2002(bool quick);
}  // namespace throttlelab::engine
