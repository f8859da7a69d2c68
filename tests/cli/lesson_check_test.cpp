// SPDX-License-Identifier: GPL-3.0-or-later
// `throttlelab --headless --lesson NAME|FILE --check`: every shipped lesson's keyed answers
// hold in the run (a change to the model that makes one false fails here); a lesson whose
// check does not hold exits 1, naming the figures; a bad lesson exits 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "executable_fixture.h"
#include "throttlelab/engine/lesson.h"

namespace {

using throttlelab::cli::test::Executable;
using throttlelab::cli::test::Result;

TEST_F(Executable, EveryShippedLessonsKeyedAnswersHoldInTheRun) {
  const auto names = throttlelab::engine::builtinLessonNames();
  ASSERT_GE(names.size(), 6u);
  for (const auto& name : names) {
    SCOPED_TRACE(name);
    const Result r = run({"--headless", "--lesson", name, "--check"});
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_TRUE(r.out.find(" checks hold\n") != std::string::npos ||
                r.out.find(" check holds\n") != std::string::npos)
        << r.out;
    EXPECT_EQ(r.out.find("no check"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("does not hold"), std::string::npos) << r.out;
    // Each question is listed with its verdict.
    const auto lesson = throttlelab::engine::loadLesson(name);
    for (std::size_t i = 0; i < lesson.steps.size(); ++i)
      if (lesson.steps[i].question)
        EXPECT_NE(
            r.out.find("step " + std::to_string(i + 1) + ": " + lesson.steps[i].question->text),
            std::string::npos)
            << r.out;
  }
}

TEST_F(Executable, CheckPrintsEachConditionItsFiguresAndWhetherItHolds) {
  std::ofstream(m_dir / "mine.json") << R"({"name": "mine", "title": "Mine", "steps": [
      {"caption": "ten", "scenario": "ten-dd", "runFor": 15,
       "question": {"text": "Where are dirty pages?", "choices": ["between", "above"],
                    "answer": 0, "check": "freerun_mib < dirty_mib && dirty_mib < limit_mib",
                    "reveal": "{dirty_mib}"}},
      {"caption": "on", "runFor": 5,
       "question": {"text": "Over the limit?", "choices": ["yes", "no"], "answer": 0,
                    "check": "dirty_mib > limit_mib", "reveal": "r"}},
      {"caption": "count", "runFor": 1,
       "question": {"text": "How many writers?", "reveal": "r",
                    "numeric": {"figure": "tasks:dd", "unit": "writers", "expected": 10,
                                "tolerance": 1}}},
      {"caption": "unchecked", "runFor": 1,
       "question": {"text": "Guess?", "choices": ["a", "b"], "answer": 1, "reveal": "r"}}]})";
  const Result r = run({"--headless", "--lesson", "mine.json", "--check"});
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("step 1: Where are dirty pages?\n  keyed: A) between\n"
                       "  check: freerun_mib < dirty_mib && dirty_mib < limit_mib\n"
                       "    freerun_mib = "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("    dirty_mib = "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  check: dirty_mib > limit_mib\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  does not hold\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  numeric: tasks:dd, writers\n  check: tasks:dd within 1 of 10 "
                       "writers\n    tasks:dd = 10\n  holds\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("step 4: Guess?\n  keyed: B) b\n  no check: not verified\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("2 of 3 checks hold; 1 question has no check (not verified)"),
            std::string::npos)
      << r.out;
  // The same lesson with the failing question's key fixed passes.
  std::ifstream in(m_dir / "mine.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text.replace(text.find("dirty_mib > limit_mib"), 21, "dirty_mib > freerun_mib");
  std::ofstream(m_dir / "fixed.json") << text;
  const Result fixed = run({"--headless", "--lesson", "fixed.json", "--check"});
  EXPECT_EQ(fixed.status, 0) << fixed.out << fixed.err;
}

TEST_F(Executable, CheckOfABadLessonIsBadInputAndCheckNeedsAHeadlessLesson) {
  std::ofstream(m_dir / "bad.json") << R"({"name": "bad", "title": "Bad", "steps": [
      {"caption": "one", "scenario": "ten-dd", "runFor": 1,
       "question": {"text": "?", "choices": ["a", "b"], "answer": 0,
                    "check": "dirty_mib < limit_mb", "reveal": "r"}}]})";
  expectBadInput(run({"--headless", "--lesson", "bad.json", "--check"}),
                 {"bad.json", "step 1", "question.check", "limit_mb"});
  expectBadInput(run({"--headless", "--check"}), {"--check", "--lesson"});
  expectBadInput(run({"--lesson", "containers", "--check"}), {"--check"});
}

}  // namespace
