// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// What the scenario's files share (engine/src/format/): scenario.cpp (the entry points:
/// parse, validate, load, the built-ins), scenario_read.cpp (the document's values into a
/// Scenario), scenario_set.cpp (the `--set` path language), scenario_validate.cpp (the value
/// rules), scenario_write.cpp (the JSON a scenario saves as) and scenario_doc.cpp (the key
/// tables of docs/scenario-format.md). The key table itself is throttlelab/engine/scenario_keys.h;
/// the JSON front door is json_reader.h.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "json_reader.h"
#include "throttlelab/engine/scenario.h"
#include "throttlelab/engine/scenario_keys.h"

namespace throttlelab::engine::scenario_parts {

using input::Json;

/// Where messages come from: "ten-dd.json: vm.dirty_ratio: ..." or, when the key at fault was
/// set by an override, "command line: vm.dirty_ratio: ...", because the file is not to blame.
class Context {
 public:
  explicit Context(std::string origin) : m_origin(std::move(origin)) {}

  void addOverridden(std::string path) { m_overridden.push_back(std::move(path)); }

  /// Throws ScenarioError naming the origin, `key` and `reason`.
  [[noreturn]] void fail(const std::string& key, const std::string& reason) const;

 private:
  bool fromOverride(const std::string& key) const;

  std::string m_origin;
  std::vector<std::string> m_overridden;
};

/// The scenario document of `text`, through the JSON front door with the scenario's keys.
Json parseDocument(std::string_view text, const Context& context);
/// Applies one `--set` override to the document; returns the path it set, spelled as the
/// document now spells it (scenario_set.cpp).
std::string applyOverride(Json& doc, const Override& o, const Context& context);
/// Reads the document's values into a Scenario: each key's JSON type, and whether its value
/// can be stored at all (scenario_read.cpp). The ranges are the validator's.
Scenario readScenario(const Json& doc, const Context& context);
/// The value rules, whether the scenario came from JSON or from the window
/// (scenario_validate.cpp). `deviceArrayForm`: messages name devices[0] rather than device.
void validate(const Scenario& s, const Context& context, bool deviceArrayForm);

// Paths and words of messages.
std::string keyPath(const std::string& prefix, std::string_view key);
std::string deviceJsonPath(std::size_t index, bool arrayForm);
std::string cgroupJsonPath(std::size_t index);
std::string taskJsonPath(std::size_t index);
std::string rangeReason(std::int64_t lo, std::int64_t hi, const std::string& got);

template <class Names>
std::string joinNames(const Names& names) {
  std::string out;
  for (const auto& n : names) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}

template <class E>
std::string enumNames() {
  std::string out;
  for (const E e : schema::EnumInfo<E>::kAll) {
    if (!out.empty()) out += ", ";
    out += toString(e);
  }
  return out;
}

}  // namespace throttlelab::engine::scenario_parts
