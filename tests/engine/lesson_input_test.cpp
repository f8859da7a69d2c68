// SPDX-License-Identifier: GPL-3.0-or-later
// A lesson is a file teachers write by hand and share: untrusted input (issue #27). It goes
// through the JSON front door, so a number a double cannot hold, a value nested beyond the
// limit, a key given twice or an unknown key in a `set` object is a LessonError naming the
// file, the step and the key, never a crash; a placeholder naming a task group the run does not
// have is refused when the lesson is opened rather than shown as "n/a".
#include <gtest/gtest.h>

#include <string>

#include "throttlelab/engine/json_input.h"
#include "throttlelab/engine/lesson.h"

namespace te = throttlelab::engine;

namespace {

/// A lesson whose first step runs one-dd and whose second is `step2`.
std::string lessonWith(const std::string& step2) {
  return R"({"name": "t", "title": "T", "steps": [
      {"caption": "one", "scenario": "one-dd", "runFor": 2}, )" +
         step2 + "]}";
}

struct Refusal {
  int step = -1;
  std::string key;
  std::string what;
};

Refusal refusal(const std::string& json) {
  try {
    te::parseLesson(json, "lesson.json");
  } catch (const te::LessonError& e) {
    return {e.step(), e.key(), e.what()};
  }
  ADD_FAILURE() << "accepted: " << json.substr(0, 300);
  return {};
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string nested(std::size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

}  // namespace

TEST(LessonInput, ANumberTooLargeAnywhereIsRefusedNamingTheStepKeyAndNumber) {
  struct Case {
    std::string step, key, number;
  };
  for (const Case& c : {
           Case{R"({"caption": "two", "runFor": 1e400})", "runFor", "1e400"},
           Case{R"({"caption": "two", "runFor": -1e400})", "runFor", "-1e400"},
           Case{R"({"caption": "two", "highlight": {"plot": "dirty", "fromS": 1e400}})",
                "highlight.fromS", "1e400"},
           Case{R"({"caption": "two", "set": {"vm.dirty_ratio": 1e400}})", "set.vm.dirty_ratio",
                "1e400"},
           Case{R"({"caption": "two", "question": {"text": "q", "choices": ["a", "b"],
                  "answer": 1e400, "reveal": "r"}})",
                "question.answer", "1e400"},
       }) {
    SCOPED_TRACE(c.step);
    const Refusal r = refusal(lessonWith(c.step));
    EXPECT_EQ(r.step, 2);
    EXPECT_EQ(r.key, c.key);
    EXPECT_TRUE(contains(r.what, "lesson.json, step 2, key " + c.key + ": ")) << r.what;
    EXPECT_TRUE(contains(r.what, c.number)) << r.what;
  }
  // Outside the steps: the lesson's own key.
  const Refusal top = refusal(R"({"name": "t", "title": "T", "extra": 1e999, "steps": []})");
  EXPECT_EQ(top.step, 0);
  EXPECT_EQ(top.key, "extra");
}

TEST(LessonInput, AValueNestedTooDeepIsRefusedBeforeItIsWrittenBackAsText) {
  // 100,000 levels (0.2 MB, under the lesson size cap) overflowed the stack when the step's
  // inline scenario or set value was written back as text for the scenario reader.
  const Refusal inScenario = refusal(lessonWith(
      R"({"caption": "two", "scenario": {"schemaVersion": 1, "name": )" + nested(100000) + "}}"));
  EXPECT_EQ(inScenario.step, 2);
  EXPECT_EQ(inScenario.key, "scenario.name");
  EXPECT_TRUE(contains(inScenario.what, "nested deeper")) << inScenario.what;
  const Refusal inSet = refusal(
      lessonWith(R"({"caption": "two", "set": {"tasks[0].name": )" + nested(100000) + "}}"));
  EXPECT_EQ(inSet.step, 2);
  EXPECT_EQ(inSet.key, "set.tasks[0].name");
  EXPECT_TRUE(contains(inSet.what, "nested deeper")) << inSet.what;
}

TEST(LessonInput, AKeyGivenTwiceIsRefused) {
  const Refusal r = refusal(lessonWith(R"({"caption": "two", "runFor": 1, "runFor": 2})"));
  EXPECT_EQ(r.step, 2);
  EXPECT_EQ(r.key, "runFor");
  EXPECT_TRUE(contains(r.what, "duplicate key")) << r.what;
}

TEST(LessonInput, AnObjectValueOfSetHasItsKeysChecked) {
  const Refusal r = refusal(lessonWith(R"({"caption": "two", "set": {"vm": {"dirty_ratoi": 5}}})"));
  EXPECT_EQ(r.step, 2);
  EXPECT_EQ(r.key, "set.vm.dirty_ratoi");
  EXPECT_TRUE(contains(r.what, "did you mean 'dirty_ratio'")) << r.what;
  // An inline scenario's, at any depth.
  const Refusal inline_ = refusal(lessonWith(
      R"({"caption": "two", "scenario": {"schemaVersion": 1, "tasks": [{"nmae": "x"}]}})"));
  EXPECT_EQ(inline_.step, 2);
  EXPECT_EQ(inline_.key, "scenario.tasks[0].nmae");
}

TEST(LessonInput, APlaceholderNamingAGroupTheRunDoesNotHaveIsRefusedWhenOpened) {
  // one-dd's only group is "dd".
  const Refusal reveal = refusal(lessonWith(R"({"caption": "two", "runFor": 1,
      "question": {"text": "q", "choices": ["a", "b"], "answer": 0,
                   "reveal": "it paused {pause_ms_max:ddd} ms"}})"));
  EXPECT_EQ(reveal.step, 2);
  EXPECT_EQ(reveal.key, "question.reveal");
  EXPECT_TRUE(contains(reveal.what, "{pause_ms_max:ddd}")) << reveal.what;
  EXPECT_TRUE(contains(reveal.what, "did you mean 'dd'")) << reveal.what;
  const Refusal caption = refusal(lessonWith(R"({"caption": "{runs:cc} runs", "runFor": 1})"));
  EXPECT_EQ(caption.step, 2);
  EXPECT_EQ(caption.key, "caption");
  // A group the step's own changes bring is there.
  EXPECT_NO_THROW(te::parseLesson(lessonWith(R"({"caption": "{runs:cc} runs", "runFor": 1,
                     "set": {"tasks": [{"name": "cc", "kind": "writer"}]}})"),
                                  "lesson.json"));
  EXPECT_NO_THROW(
      te::parseLesson(lessonWith(R"({"caption": "{runs:dd} runs", "runFor": 1})"), "lesson.json"));
}

TEST(LessonInput, ASyntaxErrorNamesTheFileLineAndColumn) {
  const Refusal r = refusal(R"({"name": "t",
      "title": })");
  EXPECT_EQ(r.step, 0);
  EXPECT_TRUE(contains(r.what, "lesson.json: ")) << r.what;
  EXPECT_TRUE(contains(r.what, "line 2")) << r.what;
}
