// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// A timeline event in words for the window. The engine's text names what changed as `--set`
/// spells the key ("tasks[2].rtPriority 50 → 49", "tasks[0] dd ×2 start"): that stable form is
/// what CSVs carry in their `# event:` lines and sessions keep. The window reads it to a student
/// as the task group's name and the setting's ("rt-dd: rt priority 50 → 49", "dd ×2 start").
#include <QString>

#include "throttlelab/engine/events.h"
#include "throttlelab/engine/scenario.h"

namespace throttlelab::ui {

struct EventText {
  QString label;  ///< short: what a plot's mark says (a change of several keys: the first)
  QString full;   ///< every change, in words
};

/// `scenario` names the task groups and cgroups (null: they are called "group 1" and so on).
EventText describeEvent(const engine::RunEvent& event, const engine::Scenario* scenario);

/// One `--set` key ("tasks[2].rtPriority", "vm.dirty_ratio") in words ("rt-dd: rt priority").
QString describeKey(const QString& key, const engine::Scenario* scenario);

}  // namespace throttlelab::ui
