// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Entry point of the window, called by app/main.cpp once a display is known to exist.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "throttlelab/engine/scenario.h"

namespace throttlelab::ui {

struct GuiLaunchOptions {
  std::string scenario;                     ///< file or built-in name; empty = default
  std::vector<engine::Override> overrides;  ///< --set KEY=VALUE
  std::optional<std::string> policy;        ///< --policy
  std::optional<std::uint64_t> seed;        ///< --seed
  std::optional<double> runForS;            ///< --run-for S: simulated seconds, as fast as possible
  std::string exportPng;                    ///< --export-png FILE (whole dashboard)
  std::string exportSvg;                    ///< --export-svg FILE
  std::string exportPdf;                    ///< --export-pdf FILE
  std::string exportCsv;                    ///< --export-csv FILE
  std::string session;                      ///< --session FILE to open
  bool quit = false;                        ///< --quit after the exports
  bool presenter = false;                   ///< --presenter
  std::size_t snapshotBudgetBytes = 0;      ///< --snapshot-budget; 0: the machine's default
  std::string importTrace;                  ///< --import-trace FILE: opens the real-kernel view
  std::optional<std::uint64_t> traceCgroup;  ///< --trace-cgroup INO: only that cgroup's records
  bool watchHost = false;                    ///< --watch-host: opens live host mode
  std::string watchCgroup;                   ///< --watch-cgroup PATH: and watches this cgroup
  std::string lesson;                        ///< --lesson NAME|FILE (loaded once already)
  int lessonStep = 1;                        ///< --step K, 1-based
  /// --unanswered: a scripted run exports the step's question before its answer.
  bool lessonUnanswered = false;
  int explainPid = 0;   ///< --explain PID@SECONDS: 0 if not given; the
  double explainS = 0;  ///< PNG export is then the whole window
  /// --branch-at S with --run-for: the run goes to --run-for, branches at S with the
  /// --branch-set changes, and the exports show both futures (the compare view) at --run-for.
  std::optional<double> branchAtS;
  std::vector<engine::Override> branchOverrides;  ///< --branch-set KEY=VALUE

  /// A scripted run: --run-for, --quit or an export. It starts paused, runs only as the job
  /// says, prints its messages instead of showing dialogs, and exits with a status (--quit).
  bool scripted() const {
    return runForS.has_value() || quit || !exportPng.empty() || !exportSvg.empty() ||
           !exportPdf.empty() || !exportCsv.empty();
  }
};

/// Creates the QApplication and the main window; returns the process exit status. A scripted
/// run whose exports could not be outputs (a directory, an export that names the scenario,
/// session or trace being read, two exports naming one file) is refused first: a message on
/// standard error and status 2, before anything is loaded.
int runGui(int& argc, char** argv, const GuiLaunchOptions& options);

}  // namespace throttlelab::ui
