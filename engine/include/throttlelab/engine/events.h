// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The timeline of a run: what changed and when (docs/model.md, Outputs). The engine records
/// task groups starting and stopping, OOM kills, live reconfigurations (with what changed) and
/// policy changes, and what it could not start as asked; the window adds resets and the user's
/// notes to the same list. CSVs carry them as `# event: SECONDS TEXT` header lines. Plain values:
/// others add a Kind.
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "throttlelab/engine/scenario.h"

namespace throttlelab::engine {

struct RunEvent {
  /// Adjusted: the run began from less than the scenario asked for (an initial page cache
  /// larger than the machine can hold), with what was asked and what was done.
  enum class Kind : std::uint8_t {
    TaskStart,
    TaskStop,
    OomKill,
    Reconfigure,
    Policy,
    Reset,
    Note,
    Adjusted
  };
  double timeS = 0;  ///< simulated seconds
  Kind kind = Kind::Note;
  std::string text;  ///< one line, no newline
  bool operator==(const RunEvent&) const = default;
};

/// "start", "stop", "oom", "reconfigure", "policy", "reset", "note", "adjusted" (sessions use
/// these names).
std::string_view toString(RunEvent::Kind k);
std::optional<RunEvent::Kind> runEventKindFromString(std::string_view s);

/// What a live reconfiguration from `before` to `after` changed, as `key old → new` pairs
/// joined by "; " (keys as `--set` names them); empty if nothing did. The policy is left out
/// (it is an event of its own).
std::string describeChange(const Scenario& before, const Scenario& after);

/// `# event: SECONDS TEXT` lines, in time order (seconds with 3 decimals; newlines in the
/// text become spaces).
void writeCsvEvents(std::ostream& out, const std::vector<RunEvent>& events);
/// The policy a row at time `t` ran under: `initial`, then each Policy event's new name
/// ("a → b" texts end with the new one) after its time (a row at the time of the change was
/// sampled before it).
std::string policyAt(const std::vector<RunEvent>& events, const std::string& initial, double t);
/// The policy the run began with: the "from" of its first Policy event, else `current`.
std::string initialPolicy(const std::vector<RunEvent>& events, const std::string& current);
/// Whether any Policy event is in the list (such runs' CSVs get a `policy` column).
bool policyChanged(const std::vector<RunEvent>& events);
/// The policies the run ran under, in order: `current` if it never changed, else the first
/// and each Policy event's new one joined by " → " ("ioless → perbdi-2.6.24"), what a CSV's
/// `# policy:` line says of a run whose rows name theirs in a `policy` column.
std::string policyHistory(const std::vector<RunEvent>& events, const std::string& current);
/// Whether the named policy has position control (pos_ratio, setpoint, task_ratelimit).
bool policyHasPositionControl(std::string_view name);

}  // namespace throttlelab::engine
