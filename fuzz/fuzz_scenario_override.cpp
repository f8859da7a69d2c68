// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: `--set KEY=VALUE` overrides (JSON paths with [index], values read as JSON
// or as a bare string) applied to the built-in default scenario. One override per input line,
// split at the first '='. The promises are those of fuzz_scenario.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_support.h"
#include "throttlelab/engine/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace throttlelab::engine;
  static const std::string base = *builtinScenarioJson(kDefaultScenarioName);
  std::string_view text = throttlelab::fuzz::asText(data, size);
  std::vector<Override> overrides;
  while (!text.empty()) {
    const auto end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    const auto eq = line.find('=');
    overrides.push_back({std::string(line.substr(0, eq)), eq == std::string_view::npos
                                                              ? std::string{}
                                                              : std::string(line.substr(eq + 1))});
  }
  Scenario scenario;
  try {
    scenario = parseScenario(base, "default", overrides);
  } catch (const ScenarioError& e) {
    throttlelab::fuzz::requireMessage(e.what());
    return 0;
  }
  throttlelab::fuzz::requireRoundTrip(scenario);
  return 0;
}
