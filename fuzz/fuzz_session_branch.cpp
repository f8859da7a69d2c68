// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: the branch and the notes of a session (ui::SessionFile::fromJson, Qt Core
// only), the two parts of a session a user edits by hand and the window then applies to a run.
// The input is the text of `window.branch`, then, after a line "@@", the text of
// `window.events`; either may be empty (the key is then left out). Both go into a session of
// the built-in one-dd scenario as they are, syntax errors included. The promises are
// fuzz_session's: a refusal says why, a session read is saved and read back unchanged, and a
// branch that is read applies to the session's scenario.
#include <QByteArray>
#include <QString>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_support.h"
#include "session_file.h"
#include "session_fuzz_support.h"
#include "throttlelab/engine/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using throttlelab::ui::SessionFile;
  static const std::string scenario = *throttlelab::engine::builtinScenarioJson("one-dd");
  const std::string_view text = throttlelab::fuzz::asText(data, size);
  const std::size_t split = text.find("\n@@\n");
  const std::string_view branch = text.substr(0, split);
  const std::string_view events =
      split == std::string_view::npos ? std::string_view{} : text.substr(split + 4);
  std::string session = R"({"schemaVersion": 1, "kind": "throttlelab-session", "scenario": )" +
                        scenario +
                        R"(, "window": {"historyWindow": "10min", "speed": 1, "visiblePlots": [])";
  if (!branch.empty()) session += ", \"branch\": " + std::string(branch);
  if (!events.empty()) session += ", \"events\": " + std::string(events);
  session += "}}";

  const QByteArray bytes = QByteArray::fromStdString(session);
  const SessionFile::ReadResult read = SessionFile::fromJson(bytes, QStringLiteral("fuzz.json"));
  if (!read.state) {
    throttlelab::fuzz::requireMessage(read.error.toStdString());
    return 0;
  }
  if (read.state->branch) {
    try {
      (void)throttlelab::engine::parseScenario(
          throttlelab::engine::scenarioToJson(read.state->scenario), "branch",
          read.state->branch->spec.changes);
    } catch (const throttlelab::engine::ScenarioError& e) {
      throttlelab::fuzz::fail("a session's branch was read but does not apply", e.what());
    }
  }
  throttlelab::fuzz::requireSessionRoundTrip(*read.state);
  return 0;
}
