// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: the command line (cli::parseCommandLine), one argument per input line.
// It is parsed, never run, so no input opens or writes a file. A bad command line is refused
// with a message; a good one's scenario overrides (--set, --duration, --seed, --policy) are
// applied to the default scenario under fuzz_scenario's promises, as `--headless` would.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "cli_options.h"
#include "fuzz_support.h"
#include "throttlelab/engine/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace engine = throttlelab::engine;
  namespace cli = throttlelab::cli;
  static const std::string base = *engine::builtinScenarioJson(engine::kDefaultScenarioName);
  std::string_view text = throttlelab::fuzz::asText(data, size);
  std::vector<std::string> args;
  while (!text.empty()) {
    const auto end = text.find('\n');
    args.emplace_back(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
  }
  const auto parsed = cli::parseCommandLine(args);
  if (const auto* error = std::get_if<cli::CliError>(&parsed)) {
    throttlelab::fuzz::requireMessage(error->message);
    return 0;
  }
  const auto& options = std::get<cli::CliOptions>(parsed);
  (void)options.hasWindowOnlyOptions();
  (void)options.summaryImplied();
  if (!options.report.empty()) (void)cli::reportFormatOf(options.report);
  engine::Scenario scenario;
  try {
    scenario = engine::parseScenario(base, "default", options.allOverrides());
  } catch (const engine::ScenarioError& e) {
    throttlelab::fuzz::requireMessage(e.what());
    return 0;
  }
  throttlelab::fuzz::requireRoundTrip(scenario);
  return 0;
}
