// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// What the fuzz targets check beyond "no crash": a refusal says something, and an accepted
/// scenario validates and survives a save and a re-read. A broken promise aborts, which
/// libFuzzer reports with the input that did it.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "throttlelab/engine/scenario.h"

namespace throttlelab::fuzz {

inline std::string_view asText(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

[[noreturn]] inline void fail(const char* what, std::string_view detail = {}) {
  std::fprintf(stderr, "fuzz: %s%s%.*s\n", what, detail.empty() ? "" : ": ",
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

/// A refusal must name what is wrong: an empty message is a finding.
inline void requireMessage(std::string_view message) {
  if (message.empty()) fail("an input was refused with an empty message");
}

/// A scenario that was accepted must validate, and its saved form must read back equal.
/// Names must be UTF-8, but a description may hold any bytes, and JSON is UTF-8: the writer
/// replaces bytes that are not UTF-8 by U+FFFD on purpose, so for such a scenario the promise
/// is that the saved form reads back to the same saved form.
inline void requireRoundTrip(const engine::Scenario& scenario) {
  std::string json;
  try {
    engine::validateScenario(scenario);
    json = engine::scenarioToJson(scenario);
  } catch (const engine::ScenarioError& e) {
    fail("an accepted scenario does not validate", e.what());
  }
  try {
    const engine::Scenario again = engine::parseScenario(json, "round-trip.json");
    if (again == scenario) return;
    const std::string json2 = engine::scenarioToJson(again);
    constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
    if (json.find(kReplacement) != std::string::npos && json2 == json) return;
    fail("a saved scenario reads back different",
         "saved:\n" + json + "\nread back and saved again:\n" + json2);
  } catch (const engine::ScenarioError& e) {
    fail("a saved scenario cannot be read back", std::string(e.what()) + "\n" + json);
  }
}

}  // namespace throttlelab::fuzz
