// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: the scenario reader (engine::parseScenario), the format of every scenario
// file a user writes. Each input must either be refused with a ScenarioError that says
// something, or parse into a scenario that validates and reads back unchanged from its own
// JSON (what "File → Save" writes). Any other exception, a crash or undefined behaviour is a
// finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "fuzz_support.h"
#include "throttlelab/engine/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace throttlelab::engine;
  const std::string_view text = throttlelab::fuzz::asText(data, size);
  Scenario scenario;
  try {
    scenario = parseScenario(text, "fuzz-input.json");
  } catch (const ScenarioError& e) {
    throttlelab::fuzz::requireMessage(e.what());
    return 0;
  }
  throttlelab::fuzz::requireRoundTrip(scenario);
  return 0;
}
