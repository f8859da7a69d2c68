// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The report-writing modes of the command line: a policy comparison (--compare) and the seed
/// experiments (--experiment). The work is the engine's (compare.h, experiments.h); this is
/// the wiring to options, files and exit statuses.
#include <iosfwd>

#include "cli_options.h"

namespace throttlelab::cli {

/// --headless --compare A,B: runs the scenario per policy and seed, writes the report
/// (--report, default Markdown on `out`). Returns an exit status.
int runCompare(const CliOptions& options, std::ostream& out, std::ostream& err);

/// --experiment NAME|list: lists the experiments, or runs one, writes --report if given and
/// prints the verdicts on `out`. An unknown name lists the known ones on `err` and returns 2.
int runExperimentCommand(const CliOptions& options, std::ostream& out, std::ostream& err);

/// One line per experiment: name and title.
void listExperiments(std::ostream& out);

}  // namespace throttlelab::cli
