// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The headless mode: runs a scenario to its end and streams the outputs to files.
#include <iosfwd>
#include <optional>

#include "cli_options.h"

namespace throttlelab::cli {

/// Exit statuses of the executable.
inline constexpr int kExitOk = 0;
/// An output could not be written (a full disk, a closed or full standard output), or an
/// internal error: the run may have been sound, its results did not all arrive.
inline constexpr int kExitWriteFailed = 1;
inline constexpr int kExitInternalError = 1;
/// Bad input: options, files that are read, output paths that cannot be outputs.
inline constexpr int kExitBadInput = 2;
/// --check: a lesson's keyed answer does not hold in the run.
inline constexpr int kExitCheckFailed = 1;

/// The scenario of `options` with its overrides; on bad input prints the reason to `err` and
/// returns nullopt.
std::optional<engine::Scenario> loadScenarioFor(const CliOptions& options, std::ostream& err);

/// Runs `options` (its scenario, overrides and outputs) to the end of the scenario. Output
/// files are written by the rules of output_file.h and all renamed into place together only
/// on success (commitAll); "-" is `out`. An output that names the scenario file or another
/// output is refused before anything is read. The summary goes to `out` (the caller checks
/// that it arrived), messages to `err`. Returns an exit status.
int runHeadless(const CliOptions& options, std::ostream& out, std::ostream& err);

/// --import-trace FILE: reads a kernel trace, writes --csv/--task-csv with a simulation's
/// columns (atomically), prints what was read (describe()) and, with --simulate, runs the
/// trace's scenario and compares (runTraceSimulation). A file that is no trace, or cannot be
/// read, is bad input (2) with one message naming it.
int runImportTrace(const CliOptions& options, std::ostream& out, std::ostream& err);

/// Prints the built-in scenarios, one per line, with their descriptions.
void listScenarios(std::ostream& out);
/// --list-lessons: the built-in lessons, one per line, with their titles.
void listLessons(std::ostream& out);
/// --list-policies: every policy, its kernels and what it does.
void listPolicies(std::ostream& out);
/// --headless --lesson NAME|FILE [--step K]: the lesson as text, every question with its
/// answer and the reveal filled in with the numbers its step's run measured. A lesson that
/// does not load is bad input (2), with the message naming the step and the key.
/// With --check: per question, its check with the figures it uses and whether it holds;
/// kExitCheckFailed (1) when one does not.
int runLessonText(const CliOptions& options, std::ostream& out, std::ostream& err);

}  // namespace throttlelab::cli
