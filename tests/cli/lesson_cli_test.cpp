// SPDX-License-Identifier: GPL-3.0-or-later
// --list-lessons, --list-policies and --lesson on the command line: a bad lesson file is bad
// input naming its step and key, and nothing is written.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "executable_fixture.h"
#include "throttlelab/engine/lesson.h"
#include "throttlelab/engine/simulator.h"

namespace {

using throttlelab::cli::test::Executable;
using throttlelab::cli::test::Result;

TEST_F(Executable, ListsEveryBuiltinLessonWithItsTitle) {
  const Result r = run({"--list-lessons"});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const auto& name : throttlelab::engine::builtinLessonNames()) {
    EXPECT_NE(r.out.find(name), std::string::npos) << name;
    EXPECT_NE(r.out.find(throttlelab::engine::loadLesson(name).title), std::string::npos) << name;
  }
  EXPECT_EQ(r.out.find("does not load"), std::string::npos) << r.out;
}

TEST_F(Executable, ListsEveryPolicyWithItsKernels) {
  const Result r = run({"--list-policies"});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const auto& p : throttlelab::engine::Simulator::policyDescriptions()) {
    EXPECT_NE(r.out.find(p.name + " (" + p.kernels + ")"), std::string::npos) << p.name;
    EXPECT_NE(r.out.find(p.details), std::string::npos) << p.name;
  }
}

TEST_F(Executable, HeadlessLessonPrintsTheAnswerWithMeasuredNumbers) {
  const Result r = run({"--headless", "--lesson", "one-to-a-thousand", "--step", "2"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("## Step 2 of"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("## Step 1 of"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("<- answer"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find('{'), std::string::npos) << r.out;
}

TEST_F(Executable, ABadLessonFileNamesTheStepAndKeyAndExitsWith2) {
  std::ofstream(m_dir / "bad.json") << R"({"name": "bad", "title": "Bad", "steps": [
           {"caption": "one", "scenario": "ten-dd", "runFor": 1},
           {"caption": "two", "set": {"vm.dirty_ratio": 500}}]})";
  // The window form refuses it before opening anything; the headless form too.
  for (const bool headless : {false, true}) {
    std::vector<std::string> args = {"--lesson", "bad.json", "--export-png", "out.png", "--quit"};
    if (headless) args = {"--headless", "--lesson", "bad.json"};
    expectBadInput(run(args), {"bad.json", "step 2", "set.vm.dirty_ratio"});
    EXPECT_FALSE(std::filesystem::exists(m_dir / "out.png"));
  }
  expectBadInput(run({"--headless", "--lesson", "no-such-lesson"}), {"no-such-lesson", "built-in"});
  expectBadInput(run({"--headless", "--lesson", "tune-this-machine", "--step", "9"}),
                 {"--step 9", "3 steps"});
  expectBadInput(run({"--step", "2"}), {"--step", "--lesson"});
  expectBadInput(run({"--lesson", "tune-this-machine", "--scenario", "ten-dd"}), {"--lesson"});
}

TEST_F(Executable, AHighlightCurveNoPlotDrawsIsBadInputNamingTheStepAndKey) {
  std::ofstream(m_dir / "curve.json") << R"({"name": "curve", "title": "Curve", "steps": [
           {"caption": "one", "scenario": "ten-dd", "runFor": 1},
           {"caption": "two", "runFor": 1,
            "highlight": {"plot": "memory", "curves": ["wmark_min", "low"]}}]})";
  expectBadInput(run({"--headless", "--lesson", "curve.json"}),
                 {"curve.json", "step 2", "highlight.curves[1]", "'low'", "wmark_low"});
  expectBadInput(run({"--lesson", "curve.json", "--export-png", "out.png", "--quit"}),
                 {"curve.json", "step 2", "highlight.curves[1]"});
  EXPECT_FALSE(std::filesystem::exists(m_dir / "out.png"));
}

TEST_F(Executable, ABadSetInALessonNamesTheFileStepAndKeyOnce) {
  std::ofstream(m_dir / "set.json") << R"({"name": "set", "title": "Set", "steps": [
           {"caption": "one", "scenario": "ten-dd", "runFor": 1},
           {"caption": "two", "set": {"vm.dirty_ratoi": 10}}]})";
  const Result r = run({"--headless", "--lesson", "set.json"});
  expectBadInput(r, {"set.json, step 2, key set.vm.dirty_ratoi: unknown key", "dirty_ratio"});
  EXPECT_EQ(r.err.find("command line"), std::string::npos) << r.err;
}

}  // namespace
