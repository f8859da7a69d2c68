// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The report-writing modes of the command line: a policy comparison (--compare) and the seed
/// experiments (--experiment). The work is the engine's (compare.h, experiments.h); this is
/// the wiring to options, files and exit statuses.
#include <iosfwd>

#include "cli_options.h"
#include "throttlelab/traceio/trace_stats.h"

namespace throttlelab::cli {

/// --headless --compare A,B: runs the scenario per policy and seed, writes the report
/// (--report, default Markdown on `out`). Returns an exit status.
int runCompare(const CliOptions& options, std::ostream& out, std::ostream& err);

/// --experiment NAME|list: lists the experiments, or runs one, writes --report if given and
/// prints the verdicts on `out`. An unknown name lists the known ones on `err` and returns 2.
int runExperimentCommand(const CliOptions& options, std::ostream& out, std::ostream& err);

/// --import-trace FILE --simulate: derives a scenario from `measured` (HostFacts of this
/// machine with --this-host), simulates it for the trace's span after a warm-up, and prints
/// the comparison table and the derivation notes on `out`, or writes them to --report.
/// `traceName` names the trace in the report. `report` must already be open (or null).
int runTraceSimulation(const CliOptions& options, const traceio::TraceStats::Result& measured,
                       const std::string& traceName, std::ostream& out, std::ostream& err);

/// One line per experiment: name and title.
void listExperiments(std::ostream& out);

}  // namespace throttlelab::cli
