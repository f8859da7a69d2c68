// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// A timeline event in words for the window. The engine's text names what changed as `--set`
/// spells the key ("tasks[2].rtPriority 50 → 49", "tasks[0] dd ×2 start"): that stable form is
/// what CSVs carry in their `# event:` lines and sessions keep. The window reads it to a student
/// as the task group's name and the setting's ("rt-dd: rt priority 50 → 49", "dd ×2 start").
#include <QString>
#include <string>

#include "throttlelab/engine/events.h"
#include "throttlelab/engine/scenario.h"

namespace throttlelab::ui {

struct EventText {
  QString label;  ///< short: what a plot's mark says (a change of several keys: the first)
  QString full;   ///< every change, in words
};

/// The most characters of an event's text that the window shows (the Timeline list, the plots'
/// labels, the hover readout, tooltips): a note is a line someone wrote, and a session may hold
/// one of any length (a 20 MB note took 46 s and 984 MiB to lay out). Longer text is cut there
/// and says how long it is; sessions and CSVs keep it whole.
inline constexpr int kShownEventChars = 1000;

/// The event's own text as the window shows it: whole up to kShownEventChars characters, else
/// the first kShownEventChars and "… (N characters in all)". Linear in what is shown, not in
/// the text's length (only its characters are counted).
QString shownEventText(const std::string& text);
/// Whether shownEventText(text) is the whole text.
bool shownWhole(const std::string& text);

/// `scenario` names the task groups and cgroups (null: they are called "group 1" and so on).
/// Both texts are at most about kShownEventChars characters (shownEventText).
EventText describeEvent(const engine::RunEvent& event, const engine::Scenario* scenario);

/// One `--set` key ("tasks[2].rtPriority", "vm.dirty_ratio") in words ("rt-dd: rt priority").
QString describeKey(const QString& key, const engine::Scenario* scenario);

}  // namespace throttlelab::ui
