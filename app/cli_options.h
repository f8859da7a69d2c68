// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The command line of `throttlelab`, parsed into a value. Pure C++ (no Qt) so that the
/// parser is tested on its own and the headless mode never loads the GUI libraries.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "throttlelab/engine/scenario.h"

namespace throttlelab::cli {

enum class Mode {
  Gui,            ///< open the window (the default)
  Headless,       ///< --headless: run to the end and write the outputs
  Help,           ///< --help
  Version,        ///< --version
  ListScenarios,  ///< --list-scenarios
  ListLessons,    ///< --list-lessons
  ListPolicies,   ///< --list-policies
  Experiment,     ///< --experiment NAME|list: a seed experiment, or the list of them
  ImportTrace,    ///< --import-trace FILE: convert a kernel trace (and --simulate it)
  RecordTrace,    ///< --record-trace FILE --duration S: record this machine's kernel
};

struct CliOptions {
  Mode mode = Mode::Gui;
  std::string scenario;                     ///< --scenario FILE|NAME; empty = the default
  std::vector<engine::Override> overrides;  ///< --set KEY=VALUE, in order
  std::optional<double> durationS;          ///< --duration S
  std::optional<std::uint64_t> seed;        ///< --seed N
  std::optional<std::string> policy;        ///< --policy NAME
  std::string lesson;                       ///< --lesson NAME|FILE
  std::optional<int> lessonStep;            ///< --step K (1-based)
  bool lessonUnanswered = false;            ///< --unanswered: export the question, not the answer
  bool lessonCheck = false;                 ///< --check: the lesson's keyed answers

  // Headless outputs; "-" is standard output.
  std::string csv;       ///< --csv FILE
  std::string taskCsv;   ///< --task-csv FILE
  std::string traceOut;  ///< --trace-out FILE
  bool summary = false;  ///< --summary
  std::string explain;   ///< --explain PID@SECONDS as given; empty if not asked
  int explainPid = 0;
  double explainS = 0;

  // Reports: policy comparison (headless) and seed experiments.
  std::vector<std::string> comparePolicies;  ///< --compare A,B[,C...]; non-empty = a comparison
  std::optional<int> seeds;                  ///< --seeds N
  std::string report;                        ///< --report FILE.md|FILE.json|-
  std::string experiment;                    ///< --experiment NAME|list
  bool quick = false;                        ///< --quick: the reduced form of an experiment

  // A branched run (headless): the scenario runs to --branch-at, then goes on twice from the
  // same state: unchanged (--csv) and with the --branch-set changes (--branch-csv).
  std::optional<double> branchAtS;                ///< --branch-at SECONDS
  std::vector<engine::Override> branchOverrides;  ///< --branch-set KEY=VALUE, in order
  std::string branchCsv;                          ///< --branch-csv FILE

  // Kernel traces.
  std::string importTrace;  ///< --import-trace FILE ("-" = standard input)
  bool simulate = false;    ///< --simulate: derive a scenario from the trace, run it, compare
  bool thisHost = false;    ///< --this-host: the trace is from this machine (CPUs, memory)
  /// --trace-cgroup INO: only this cgroup_ino's records of --import-trace or --open-trace
  std::optional<std::uint64_t> traceCgroup;
  std::string recordTrace;  ///< --record-trace FILE

  // Window options (GuiLaunchOptions).
  std::optional<double> runForS;         ///< --run-for S
  std::string exportPng;                 ///< --export-png FILE
  std::string exportSvg;                 ///< --export-svg FILE
  std::string exportPdf;                 ///< --export-pdf FILE
  std::string exportCsv;                 ///< --export-csv FILE
  std::string session;                   ///< --session FILE
  bool quit = false;                     ///< --quit
  bool presenter = false;                ///< --presenter
  std::optional<int> snapshotBudgetMiB;  ///< --snapshot-budget MIB
  std::string openTrace;    ///< --open-trace FILE: the Real kernel view with this trace
  bool watchHost = false;   ///< --watch-host: live host mode
  std::string watchCgroup;  ///< --watch-cgroup PATH: live host mode watching this cgroup

  /// Not an option: main() sets it when standard error is a terminal, where long work reports
  /// its progress (terminal_progress.h).
  bool progressOnTerminal = false;

  /// Qt's own single-dash options (-platform offscreen, -style Fusion, ...), passed through.
  std::vector<std::string> qtArguments;

  /// The headless run asked for no output at all, so the summary is printed.
  bool summaryImplied() const {
    return csv.empty() && taskCsv.empty() && traceOut.empty() && explain.empty() && !branching();
  }
  /// A branched run (--branch-at).
  bool branching() const { return branchAtS.has_value(); }
  /// A window option that only makes sense with a window was given.
  bool hasWindowOnlyOptions() const;
  /// The scenario overrides with --duration, --seed and --policy folded in as `--set`s.
  std::vector<engine::Override> allOverrides() const;
};

struct CliError {
  std::string message;  ///< one sentence naming the option and the problem
};

enum class ReportFormat { Markdown, Json };
/// The format a --report path asks for: "-", *.md and *.markdown are Markdown, *.json is
/// JSON; nullopt for anything else.
std::optional<ReportFormat> reportFormatOf(std::string_view path);

/// Parses the arguments after argv[0]. Accepts `--opt value` and `--opt=value`.
std::variant<CliOptions, CliError> parseCommandLine(const std::vector<std::string>& args);

/// The `--help` text; documents every option.
std::string helpText();

}  // namespace throttlelab::cli
