// SPDX-License-Identifier: GPL-3.0-or-later
// Names must be UTF-8. A `--set name=...` value that is not JSON is taken as it is, bytes and
// all; the scenario writer replaces bytes that are not UTF-8 by U+FFFD (3 bytes each), so a
// saved scenario named something else and could no longer be opened once the name passed its
// length limit. Found by fuzz/fuzz_scenario_override.
#include <gtest/gtest.h>

#include <string>

#include "throttlelab/engine/scenario.h"

namespace {

namespace te = throttlelab::engine;

te::Scenario withName(const std::string& name) {
  return te::parseScenario(*te::builtinScenarioJson("default"), "default", {{"name", name}});
}

std::string refusal(const std::string& name) {
  try {
    withName(name);
  } catch (const te::ScenarioError& e) {
    EXPECT_EQ(e.key(), "name");
    return e.what();
  }
  ADD_FAILURE() << "accepted the name \"" << name << "\"";
  return {};
}

TEST(ScenarioNames, RefuseBytesThatAreNotUtf8) {
  for (const std::string bad :
       {"\xff", "dd\xc3", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82", "caf\xe9"}) {
    EXPECT_NE(refusal(bad).find("must be UTF-8 text"), std::string::npos) << bad;
  }
}

TEST(ScenarioNames, KeepUtf8NamesThroughASaveAndARead) {
  // Two-, three- and four-byte characters, and a name of 256 bytes (the limit) made of them.
  std::string longest;
  while (longest.size() + 4 <= 252) longest += "\xf0\x9f\x93\x88";  // U+1F4C8
  longest += "\xc3\xa9\xc3\xa9";                                    // 2 x U+00E9
  ASSERT_EQ(longest.size(), 256u);
  for (const std::string& good :
       {std::string("caf\xc3\xa9"), std::string("\xe2\x82\xac-run"), longest}) {
    const te::Scenario s = withName(good);
    EXPECT_EQ(s.name, good);
    EXPECT_EQ(te::parseScenario(te::scenarioToJson(s), "saved.json"), s);
  }
}

}  // namespace
