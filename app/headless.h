// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The headless mode: runs a scenario to its end and streams the outputs to files.
#include <iosfwd>

#include "cli_options.h"

namespace throttlelab::cli {

/// Exit statuses of the executable.
inline constexpr int kExitOk = 0;
inline constexpr int kExitInternalError = 1;
inline constexpr int kExitBadInput = 2;

/// Runs `options` (its scenario, overrides and outputs) to the end of the scenario. Output
/// files are written next to their final name and renamed into place only on success; "-"
/// is `out`. The summary goes to `out`, messages to `err`. Returns an exit status.
int runHeadless(const CliOptions& options, std::ostream& out, std::ostream& err);

/// --import-trace FILE: reads a kernel trace, writes --csv/--task-csv with a simulation's
/// columns (atomically), prints what was read (describe()) and, with --simulate, runs the
/// trace's scenario and compares (runTraceSimulation). A file that is no trace, or cannot be
/// read, is bad input (2) with one message naming it.
int runImportTrace(const CliOptions& options, std::ostream& out, std::ostream& err);

/// Prints the built-in scenarios, one per line, with their descriptions.
void listScenarios(std::ostream& out);

}  // namespace throttlelab::cli
