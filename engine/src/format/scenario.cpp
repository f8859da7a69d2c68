// SPDX-License-Identifier: GPL-3.0-or-later
// Scenario JSON (schemaVersion 1), the entry points: parse (through the JSON front door, the
// `--set` overrides, the reading of values and the validator), validate, load a file or a
// built-in scenario. The concerns live in files of their own (scenario_parts.h lists them).
#include "throttlelab/engine/scenario.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <span>

#include "scenario_parts.h"
#include "throttlelab/engine/enum_names.h"

namespace throttlelab::engine {

namespace detail {
// Defined in the file that cmake/EmbedScenarios.cmake generates from resources/scenarios/.
const std::vector<std::pair<std::string_view, std::string_view>>& embeddedScenarios();
}  // namespace detail

namespace {
constexpr std::size_t kMaxInputBytes = 16 * 1024 * 1024;
}  // namespace

namespace scenario_parts {

void Context::fail(const std::string& key, const std::string& reason) const {
  std::string message = fromOverride(key) ? std::string("command line") : m_origin;
  message += ": ";
  if (!key.empty()) message += key + ": ";
  message += reason;
  throw ScenarioError(key, message, reason);
}

bool Context::fromOverride(const std::string& key) const {
  return std::any_of(m_overridden.begin(), m_overridden.end(), [&](const std::string& p) {
    if (key.size() < p.size() || key.compare(0, p.size(), p) != 0) return false;
    return key.size() == p.size() || key[p.size()] == '.' || key[p.size()] == '[';
  });
}

Json parseDocument(std::string_view text, const Context& context) {
  if (text.size() > kMaxInputBytes)
    context.fail("", "larger than " + std::to_string(kMaxInputBytes / (1024 * 1024)) +
                         " MiB; a scenario is a small JSON file");
  static constexpr JsonField kDocument{
      .key = {}, .kind = JsonKind::Object, .children = schema::kRootFields};
  try {
    return input::readJson(text, kDocument);
  } catch (const JsonInputError& e) {
    context.fail(e.path(), e.reason());
  }
}

std::string keyPath(const std::string& prefix, std::string_view key) {
  return prefix.empty() ? std::string(key) : prefix + "." + std::string(key);
}

std::string rangeReason(std::int64_t lo, std::int64_t hi, const std::string& got) {
  return "must be between " + std::to_string(lo) + " and " + std::to_string(hi) + ", got " + got;
}

std::string deviceJsonPath(std::size_t index, bool arrayForm) {
  return arrayForm ? "devices[" + std::to_string(index) + "]" : std::string("device");
}

std::string cgroupJsonPath(std::size_t index) {
  return "cgroups[" + std::to_string(index) + "]";
}

std::string taskJsonPath(std::size_t index) {
  return "tasks[" + std::to_string(index) + "]";
}

}  // namespace scenario_parts

using input::printable;
using scenario_parts::Context;
using scenario_parts::joinNames;
using scenario_parts::taskJsonPath;

namespace {
constexpr EnumName<SchedClass> kSchedClassNames[] = {
    {SchedClass::Other, "other"}, {SchedClass::Fifo, "fifo"}, {SchedClass::RoundRobin, "rr"}};
constexpr EnumName<TaskKind> kTaskKindNames[] = {{TaskKind::Writer, "writer"},
                                                 {TaskKind::Compiler, "compiler"},
                                                 {TaskKind::Allocator, "allocator"}};
}  // namespace

std::string_view toString(SchedClass c) {
  return nameOf(c, kSchedClassNames, "other");
}

std::string_view toString(TaskKind k) {
  return nameOf(k, kTaskKindNames, "writer");
}

std::optional<TaskKind> taskKindFromString(std::string_view s) {
  return valueNamed(s, kTaskKindNames);
}

std::optional<SchedClass> schedClassFromString(std::string_view s) {
  return valueNamed(s, kSchedClassNames);
}

Scenario parseScenario(std::string_view json, std::string_view origin,
                       const std::vector<Override>& overrides) {
  Context context{std::string(origin.empty() ? std::string_view("scenario") : origin)};
  scenario_parts::Json doc = scenario_parts::parseDocument(json, context);
  // A path that does not fit the schema is the command line's fault, not the file's.
  const Context overrideContext{"command line"};
  if (!overrides.empty() && !doc.is_object())
    context.fail("", "the scenario must be a JSON object, got " + input::describe(doc));
  for (const auto& o : overrides)
    context.addOverridden(scenario_parts::applyOverride(doc, o, overrideContext));
  // Messages name a device the way the document does; a document with "devices" keeps that
  // form even when it lists one.
  const bool deviceArrayForm = doc.is_object() && doc.contains("devices");
  Scenario s = scenario_parts::readScenario(doc, context);
  scenario_parts::validate(s, context, deviceArrayForm);
  return s;
}

void validateScenario(const Scenario& s) {
  const Context context{s.name.empty() ? std::string("scenario") : printable(s.name)};
  scenario_parts::validate(s, context, false);
}

std::vector<std::string> builtinScenarioNames() {
  std::vector<std::string> names;
  for (const auto& [name, json] : detail::embeddedScenarios()) names.emplace_back(name);
  return names;
}

std::optional<std::string> builtinScenarioJson(std::string_view name) {
  for (const auto& [builtinName, json] : detail::embeddedScenarios())
    if (builtinName == name) return std::string(json);
  return std::nullopt;
}

Scenario loadScenario(std::string_view fileOrName, const std::vector<Override>& overrides) {
  namespace fs = std::filesystem;
  // An empty name means the scenario the app opens with, as in GuiLaunchOptions.
  const std::string given =
      fileOrName.empty() ? std::string(kDefaultScenarioName) : std::string(fileOrName);
  const std::string shown = printable(given, 200);
  std::error_code ec;
  const fs::path path(given);
  const auto status = fs::status(path, ec);
  if (!ec && fs::exists(status)) {
    if (fs::is_directory(status))
      throw ScenarioError("", shown + ": is a directory, not a scenario file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ScenarioError("", shown + ": cannot open the file: " + std::strerror(errno));
    std::string text;
    std::array<char, 65536> buf{};
    while (in.read(buf.data(), buf.size()) || in.gcount() > 0) {
      text.append(buf.data(), static_cast<std::size_t>(in.gcount()));
      if (text.size() > kMaxInputBytes)
        throw ScenarioError("", shown + ": larger than " +
                                    std::to_string(kMaxInputBytes / (1024 * 1024)) +
                                    " MiB; a scenario is a small JSON file");
    }
    if (in.bad()) throw ScenarioError("", shown + ": reading the file failed");
    return parseScenario(text, shown, overrides);
  }
  if (const auto json = builtinScenarioJson(given))
    return parseScenario(*json, given + " (built-in)", overrides);
  throw ScenarioError("", shown +
                              ": no such file, and no built-in scenario of that name (built-in: " +
                              joinNames(builtinScenarioNames()) + ")");
}

std::size_t deviceIndexOf(const Scenario& s, const TaskSpec& t) {
  if (t.device.empty()) {
    if (s.devices.empty()) throw ScenarioError("devices", "the scenario has no device");
    return 0;
  }
  for (std::size_t i = 0; i < s.devices.size(); ++i)
    if (s.devices[i].name == t.device) return i;
  std::string key = "tasks[].device";
  for (std::size_t i = 0; i < s.tasks.size(); ++i)
    if (&s.tasks[i] == &t) key = taskJsonPath(i) + ".device";
  throw ScenarioError(
      key, printable(s.name) + ": " + key + ": no device named \"" + printable(t.device) + "\"");
}

int cgroupIndexOf(const Scenario& s, const TaskSpec& t) {
  if (t.cgroup.empty()) return -1;
  for (std::size_t i = 0; i < s.cgroups.size(); ++i)
    if (s.cgroups[i].name == t.cgroup) return static_cast<int>(i);
  std::string key = "tasks[].cgroup";
  for (std::size_t i = 0; i < s.tasks.size(); ++i)
    if (&s.tasks[i] == &t) key = taskJsonPath(i) + ".cgroup";
  throw ScenarioError(
      key, printable(s.name) + ": " + key + ": no cgroup named \"" + printable(t.cgroup) + "\"");
}

}  // namespace throttlelab::engine
