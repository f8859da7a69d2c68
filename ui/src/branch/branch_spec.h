// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// How the window names a branch (BranchSpec: a moment of a run and the changes made there),
/// the CSV lines that say what it is, and the changes between two scenarios.
#include <QString>
#include <string>
#include <vector>

#include "session_state.h"
#include "throttlelab/engine/scenario.h"

namespace throttlelab::ui {

/// "vm.dirty_ratio=10, tasks[0].count=4" (or "no change").
QString changesText(const std::vector<engine::Override>& changes);
/// The branch run's name in legends, titles and tables: "branch: vm.dirty_ratio=10 at 600 s".
QString branchRunName(const BranchSpec& branch);
/// The original run's name beside it.
QString originalRunName();
/// The CSV header lines of a branch's rows, as the headless --branch-csv writes them:
/// "# branch_of: NAME", "# branch_at_s: S", one "# branch_set: KEY=VALUE" per change.
std::string branchCsvLines(const std::string& originalName, const BranchSpec& branch);

/// The KEY=VALUE changes that turn `base` into `edited` (leaves that differ; a list whose
/// length changed is set whole). Applying them to `base` by the rules of --set gives `edited`.
std::vector<engine::Override> scenarioChanges(const engine::Scenario& base,
                                              const engine::Scenario& edited);
/// `now` with the keys `before` had first, in its order (a branch's changes keep the order
/// they were made in), then the others.
std::vector<engine::Override> inOrderOf(const std::vector<engine::Override>& before,
                                        std::vector<engine::Override> now);

}  // namespace throttlelab::ui
