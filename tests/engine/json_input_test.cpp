// SPDX-License-Identifier: GPL-3.0-or-later
// The one JSON front door (throttlelab/engine/json_input.h), as a scenario file and `--set`
// meet it: numbers a double cannot hold are refused with the key path and the number's text,
// nesting names the key it is under, and an object given as a `--set` value has its keys
// checked at any depth as the same object in a file would (issue #27: `--set
// 'vm={"dirty_ratoi":5}'` ran with every vm key at its default).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "throttlelab/engine/json_input.h"
#include "throttlelab/engine/scenario.h"
#include "throttlelab/engine/scenario_keys.h"

namespace te = throttlelab::engine;

namespace {

/// The error parsing `json` (with `overrides`) gives; fails the test if it parses.
te::ScenarioError refusal(const std::string& json,
                          const std::vector<te::Override>& overrides = {}) {
  try {
    te::parseScenario(json, "t.json", overrides);
  } catch (const te::ScenarioError& e) {
    return e;
  }
  ADD_FAILURE() << "accepted: " << json;
  return te::ScenarioError("<accepted>", "<accepted>");
}

std::string withBody(const std::string& body) {
  return R"({"schemaVersion": 1, )" + body + "}";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// A scenario with one device (written as "device") and one task group, and one override.
te::ScenarioError setRefusal(const std::string& path, const std::string& value) {
  return refusal(withBody(R"("device": {"name": "sda"}, "tasks": [{"name": "dd"}])"),
                 {{path, value}});
}

}  // namespace

TEST(JsonInput, ANumberTooLargeForADoubleNamesTheKeyAndTheNumber) {
  for (const std::string number : {"1e400", "-1e400", "123456789e999"}) {
    SCOPED_TRACE(number);
    const te::ScenarioError e = refusal(withBody(R"("vm": {"dirty_ratio": )" + number + "}"));
    EXPECT_EQ(e.key(), "vm.dirty_ratio");
    EXPECT_TRUE(contains(e.what(), "t.json: vm.dirty_ratio: ")) << e.what();
    EXPECT_TRUE(contains(e.what(), number)) << e.what();
    EXPECT_TRUE(contains(e.what(), "out of range")) << e.what();
  }
  // In an array too, with its index.
  const te::ScenarioError e = refusal(withBody(R"("tasks": [{}, {"thinkMs": 2e308}])"));
  EXPECT_EQ(e.key(), "tasks[1].thinkMs");
}

TEST(JsonInput, ANumberThatWouldReadAsZeroIsRefusedToo) {
  const te::ScenarioError e = refusal(withBody(R"("tasks": [{"thinkMs": 1e-400}])"));
  EXPECT_EQ(e.key(), "tasks[0].thinkMs");
  EXPECT_TRUE(contains(e.what(), "1e-400")) << e.what();
  // Zero written any way is zero.
  EXPECT_NO_THROW(te::parseScenario(withBody(R"("tasks": [{"thinkMs": 0.0e-400}])"), "t.json"));
}

TEST(JsonInput, NestingTooDeepNamesTheKeyItIsUnder) {
  const std::string deep = std::string(100, '[') + std::string(100, ']');
  const te::ScenarioError e = refusal(withBody(R"("tasks": [{"name": )" + deep + "}]"));
  EXPECT_EQ(e.key(), "tasks[0].name");
  EXPECT_TRUE(contains(e.what(), std::to_string(te::kMaxJsonDepth))) << e.what();
}

TEST(JsonInput, AnObjectValueOfSetHasItsKeysChecked) {
  // As the same object in the file would be: refused, with the closest key suggested.
  const te::ScenarioError inFile = refusal(withBody(R"("vm": {"dirty_ratoi": 5})"));
  EXPECT_TRUE(contains(inFile.what(), "did you mean 'dirty_ratio'")) << inFile.what();

  const te::ScenarioError e = setRefusal("vm", R"({"dirty_ratoi": 5})");
  EXPECT_EQ(e.key(), "vm.dirty_ratoi");
  EXPECT_TRUE(contains(e.what(), "command line: vm.dirty_ratoi: unknown key 'dirty_ratoi'"))
      << e.what();
  EXPECT_TRUE(contains(e.what(), "did you mean 'dirty_ratio'")) << e.what();

  struct Case {
    std::string path, value, key;
  };
  for (const Case& c : std::vector<Case>{
           {"machine", R"({"memoryMB": 1024})", "machine.memoryMB"},
           {"device", R"({"writeMBs": 10})", "device.writeMBs"},
           {"devices[0]", R"({"writeMBs": 10})", "device.writeMBs"},
           {"devices", R"([{"name": "a"}, {"nmae": "b"}])", "devices[1].nmae"},
           {"tasks[0]", R"({"cuont": 2})", "tasks[0].cuont"},
           {"tasks", R"([{"name": "a", "kind": "writer"}, {"blockKB": 4}])", "tasks[1].blockKB"},
           {"cgroups", R"([{"name": "a", "memoryMaxMB": 4}])", "cgroups[0].memoryMaxMB"},
       }) {
    SCOPED_TRACE(c.path + "=" + c.value);
    const te::ScenarioError r = setRefusal(c.path, c.value);
    EXPECT_EQ(r.key(), c.key);
    EXPECT_TRUE(contains(r.what(), "unknown key")) << r.what();
    EXPECT_TRUE(contains(r.what(), "command line")) << r.what();
  }
}

TEST(JsonInput, ASetValueBreakingTheNumberOrKeyRulesIsNotTakenAsText) {
  // Once it was taken as the string "1e400", and the reader said a number was wanted.
  const te::ScenarioError big = setRefusal("durationS", "1e400");
  EXPECT_EQ(big.key(), "durationS");
  EXPECT_TRUE(contains(big.what(), "1e400")) << big.what();
  EXPECT_TRUE(contains(big.what(), "out of range")) << big.what();
  const te::ScenarioError twice = setRefusal("vm", R"({"dirty_ratio": 5, "dirty_ratio": 6})");
  EXPECT_EQ(twice.key(), "vm.dirty_ratio");
  EXPECT_TRUE(contains(twice.what(), "duplicate key")) << twice.what();
  const te::ScenarioError deep =
      setRefusal("tasks[0].name", std::string(40, '[') + std::string(40, ']'));
  EXPECT_EQ(deep.key(), "tasks[0].name");
  EXPECT_TRUE(contains(deep.what(), "nested deeper")) << deep.what();
  // Text that is no JSON at all is still a bare string.
  te::Scenario s;
  ASSERT_NO_THROW(s = te::parseScenario(withBody(R"("tasks": [{"name": "dd"}])"), "t.json",
                                        {{"tasks[0].name", "writer one"}, {"policy", "none"}}));
  EXPECT_EQ(s.tasks[0].name, "writer one");
  EXPECT_EQ(s.policy, "none");
}

TEST(JsonInput, AValidObjectValueOfSetStillReplacesTheWholeObject) {
  const te::Scenario s =
      te::parseScenario(withBody(R"("vm": {"dirty_ratio": 30, "dirty_background_ratio": 3})"),
                        "t.json", {{"vm", R"({"dirty_ratio": 5})"}});
  EXPECT_EQ(s.vm.dirtyRatio, 5);
  EXPECT_EQ(s.vm.dirtyBackgroundRatio, te::VmConfig{}.dirtyBackgroundRatio);
}

TEST(JsonInput, CheckJsonGivesThePathAndTheKindOfProblem) {
  static constexpr te::JsonField kInner[] = {{.key = "a"}};
  static constexpr te::JsonField kKeys[] = {
      {.key = "known", .kind = te::JsonKind::ObjectArray, .children = kInner},
      {.key = "scenario", .kind = te::JsonKind::Object, .children = te::schema::kRootFields},
      {.key = "free", .kind = te::JsonKind::Object, .open = true}};
  static constexpr te::JsonField kRoot{.key = {}, .kind = te::JsonKind::Object, .children = kKeys};
  const auto problem =
      [](const std::string& text) -> std::pair<te::JsonInputError::Kind, std::string> {
    try {
      te::checkJson(text, kRoot);
    } catch (const te::JsonInputError& e) {
      return {e.kind(), e.path()};
    }
    return {te::JsonInputError::Kind::Syntax, "<accepted>"};
  };
  using K = te::JsonInputError::Kind;
  EXPECT_EQ(problem(R"({"known": [{"a": 1}, {"b": 2}]})"),
            std::pair(K::UnknownKey, std::string("known[1].b")));
  EXPECT_EQ(problem(R"({"scenario": {"vm": {"dirty": 1}}})"),
            std::pair(K::UnknownKey, std::string("scenario.vm.dirty")));
  EXPECT_EQ(problem(R"({"free": {"x": {"y": 1e999}}})"),
            std::pair(K::Number, std::string("free.x.y")));
  EXPECT_EQ(problem(R"({"free": {"x": 1, "x": 2}})"),
            std::pair(K::DuplicateKey, std::string("free.x")));
  EXPECT_EQ(problem(R"({"free": )"), std::pair(K::Syntax, std::string()));
  EXPECT_EQ(problem(R"({"nope": 1})"), std::pair(K::UnknownKey, std::string("nope")));
  EXPECT_EQ(problem(R"({"free": {"x": [1, 2, {"y": 3}]}})"),
            std::pair(K::Syntax, std::string("<accepted>")));
  // A file that is no JSON is reported as that, whatever comes before its syntax error; of
  // the other problems the first one in the text.
  EXPECT_EQ(problem("{\"nope\": 1, \"free\": }"), std::pair(K::Syntax, std::string()));
  EXPECT_EQ(problem("{\"nope\": 1, \"free\": {\"x\": 1e999}}"),
            std::pair(K::UnknownKey, std::string("nope")));
  EXPECT_EQ(problem("{\"free\": {\"x\": 1, \"x\": 2}, \"nope\": 1}"),
            std::pair(K::DuplicateKey, std::string("free.x")));
  EXPECT_EQ(problem("{\"free\": " + std::string(100, '[') + "}"),
            std::pair(K::Syntax, std::string()));
}

TEST(ScenarioKeys, AControlFindsItsKeysRowByName) {
  // What the window's Parameters panel reads a control's range, unit and meaning from.
  const auto* ratio = te::schema::findKey(te::schema::kVmKeys, "dirty_ratio");
  ASSERT_NE(ratio, nullptr);
  EXPECT_EQ(ratio->range.lo, 0);
  EXPECT_EQ(ratio->range.hi, 100);
  EXPECT_EQ(ratio->unit, "%");
  EXPECT_EQ(te::schema::findKey(te::schema::kVmKeys, "dirty_ratoi"), nullptr);
  static_assert(te::schema::findKey(te::schema::kTaskKeys, "thinkMs")->range.hi == 1e9);
}
