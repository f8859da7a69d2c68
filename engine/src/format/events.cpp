// SPDX-License-Identifier: GPL-3.0-or-later
// The run's timeline as text: CSV `# event:` lines and what a reconfiguration changed.
#include "throttlelab/engine/events.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <ostream>

#include "policy.h"
#include "throttlelab/engine/enum_names.h"

namespace throttlelab::engine {

namespace {

/// A JSON pointer (`/tasks/0/count`) as `--set` spells the key (`tasks[0].count`).
std::string keyOf(const std::string& pointer) {
  std::string out;
  std::size_t i = 1;
  while (i <= pointer.size()) {
    const std::size_t next = std::min(pointer.find('/', i), pointer.size());
    const std::string part = pointer.substr(i, next - i);
    const bool index = !part.empty() && std::all_of(part.begin(), part.end(), ::isdigit);
    if (index)
      out += "[" + part + "]";
    else
      out += (out.empty() ? "" : ".") + part;
    i = next + 1;
  }
  return out;
}

std::string valueText(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

}  // namespace

namespace {
using Kind = RunEvent::Kind;
constexpr EnumName<Kind> kKindNames[] = {
    {Kind::TaskStart, "start"}, {Kind::TaskStop, "stop"},
    {Kind::OomKill, "oom"},     {Kind::Reconfigure, "reconfigure"},
    {Kind::Policy, "policy"},   {Kind::Reset, "reset"},
    {Kind::Note, "note"},       {Kind::Adjusted, "adjusted"}};
}  // namespace

std::string_view toString(RunEvent::Kind k) {
  return nameOf(k, kKindNames, "note");
}

std::optional<RunEvent::Kind> runEventKindFromString(std::string_view s) {
  return valueNamed(s, kKindNames);
}

std::string describeChange(const Scenario& before, const Scenario& after) {
  const nlohmann::json a = nlohmann::json::parse(scenarioToJson(before)).flatten();
  const nlohmann::json b = nlohmann::json::parse(scenarioToJson(after)).flatten();
  std::string out;
  const auto add = [&](const std::string& pointer, const std::string& from, const std::string& to) {
    const std::string key = keyOf(pointer);
    if (key == "policy" || key == "seed" || key == "name" || key == "durationS" ||
        key == "description")
      return;
    if (!out.empty()) out += "; ";
    out += key + " " + from + " → " + to;
  };
  for (auto it = b.begin(); it != b.end(); ++it) {
    const auto old = a.find(it.key());
    if (old == a.end())
      add(it.key(), "(none)", valueText(*it));
    else if (*old != *it)
      add(it.key(), valueText(*old), valueText(*it));
  }
  for (auto it = a.begin(); it != a.end(); ++it)
    if (!b.contains(it.key())) add(it.key(), valueText(*it), "(none)");
  return out;
}

void writeCsvEvents(std::ostream& out, const std::vector<RunEvent>& events) {
  std::vector<const RunEvent*> sorted;
  for (const auto& e : events) sorted.push_back(&e);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const RunEvent* x, const RunEvent* y) { return x->timeS < y->timeS; });
  for (const RunEvent* e : sorted) {
    char t[32];
    std::snprintf(t, sizeof t, "%.3f", e->timeS);
    std::string text = e->text;
    for (char& c : text)
      if (c == '\n' || c == '\r') c = ' ';
    out << "# event: " << t << ' ' << text << '\n';
  }
}

std::string policyAt(const std::vector<RunEvent>& events, const std::string& initial, double t) {
  std::string p = initial;
  double at = -1;
  // A row sampled at the very time of a change was sampled before it (the run reaches that
  // time, then the change is applied): its policy is the one changed strictly before.
  for (const auto& e : events) {
    if (e.kind != RunEvent::Kind::Policy || e.timeS >= t || e.timeS < at) continue;
    const auto arrow = e.text.rfind("→ ");
    p = arrow == std::string::npos ? e.text : e.text.substr(arrow + std::string("→ ").size());
    at = e.timeS;
  }
  return p;
}

std::string initialPolicy(const std::vector<RunEvent>& events, const std::string& current) {
  const RunEvent* first = nullptr;
  for (const auto& e : events)
    if (e.kind == RunEvent::Kind::Policy && (!first || e.timeS < first->timeS)) first = &e;
  if (!first) return current;
  // "policy A → B"
  const std::string prefix = "policy ";
  const auto arrow = first->text.find(" → ");
  if (first->text.rfind(prefix, 0) != 0 || arrow == std::string::npos) return current;
  return first->text.substr(prefix.size(), arrow - prefix.size());
}

bool policyChanged(const std::vector<RunEvent>& events) {
  return std::any_of(events.begin(), events.end(),
                     [](const RunEvent& e) { return e.kind == RunEvent::Kind::Policy; });
}

std::string policyHistory(const std::vector<RunEvent>& events, const std::string& current) {
  std::vector<const RunEvent*> changes;
  for (const auto& e : events)
    if (e.kind == RunEvent::Kind::Policy) changes.push_back(&e);
  if (changes.empty()) return current;
  std::stable_sort(changes.begin(), changes.end(),
                   [](const RunEvent* x, const RunEvent* y) { return x->timeS < y->timeS; });
  std::string out = initialPolicy(events, current);
  for (const RunEvent* e : changes) out += " → " + policyAt({*e}, out, e->timeS + 1);
  return out;
}

bool policyHasPositionControl(std::string_view name) {
  // Asked per table cell: the answer per policy is made once.
  static const std::vector<std::pair<std::string, bool>> kTable = [] {
    std::vector<std::pair<std::string, bool>> t;
    for (const auto& n : policyNames()) t.emplace_back(n, makePolicy(n)->hasPositionControl());
    return t;
  }();
  for (const auto& [n, has] : kTable)
    if (n == name) return has;
  return false;
}

}  // namespace throttlelab::engine
