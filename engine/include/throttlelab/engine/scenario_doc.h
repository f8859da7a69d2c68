// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The key tables of docs/scenario-format.md, generated (engine/src/format/scenario_doc.cpp)
/// from the scenario's key table, throttlelab/engine/scenario_keys.h: the rows parseScenario,
/// validateScenario, scenarioToJson and `--set` follow. app/scenario_format_doc.cpp rewrites
/// the document; a test checks it.
#include <string>
#include <string_view>

namespace throttlelab::engine {

/// `markdown` with every block between a line `<!-- scenario-keys: SECTION -->` and the next
/// `<!-- /scenario-keys -->` replaced by SECTION's table (top, machine, device, vm, tasks).
/// Throws std::invalid_argument for an unknown section, a table without its end line, or a
/// section that the document lacks.
std::string withScenarioKeyTables(std::string_view markdown);

}  // namespace throttlelab::engine
