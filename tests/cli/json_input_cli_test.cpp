// SPDX-License-Identifier: GPL-3.0-or-later
// Issue #27 as a user meets it on the command line: every JSON the program reads comes through
// one door, so an object given to --set or --branch-set has its keys checked, a lesson with a
// number a double cannot hold is bad input (exit 2, the file, step and key named) rather than
// an abort, and a session whose branch the window could not have made does not load.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "executable_fixture.h"
#include "throttlelab/engine/scenario.h"

namespace {

using throttlelab::cli::test::Executable;
using throttlelab::cli::test::Result;
using throttlelab::test::contains;

const std::vector<std::string> kWindow{"QT_QPA_PLATFORM=offscreen"};

TEST_F(Executable, AnObjectGivenToSetHasItsKeysChecked) {
  // It ran with every vm key back at its default, and no word of the typo.
  expectBadInput(run({"--headless", "--scenario", "one-dd", "--duration", "1", "--summary", "--set",
                      R"(vm={"dirty_ratoi": 5})"}),
                 {"command line: vm.dirty_ratoi: unknown key", "did you mean 'dirty_ratio'"});
  expectBadInput(run({"--headless", "--scenario", "one-dd", "--duration", "1", "--summary", "--set",
                      R"(tasks[0]={"cuont": 5})"}),
                 {"tasks[0].cuont", "did you mean 'count'"});
  expectBadInput(run({"--headless", "--scenario", "one-dd", "--duration", "4", "--branch-at", "2",
                      "--branch-set", R"(machine={"memoryMB": 1024})", "--branch-csv", "B.csv"}),
                 {"machine.memoryMB", "did you mean 'memoryMiB'"});
  EXPECT_FALSE(std::filesystem::exists(m_dir / "B.csv"));
  // A number too large for a double names itself, not "must be a number, got the string".
  expectBadInput(
      run({"--headless", "--scenario", "one-dd", "--summary", "--set", "durationS=1e400"}),
      {"durationS", "1e400", "out of range"});
}

TEST_F(Executable, ALessonWithANumberTooLargeIsBadInputNotAnAbort) {
  write("big.json", R"({"name": "big", "title": "Big", "steps": [
           {"caption": "one", "scenario": "one-dd", "runFor": 1},
           {"caption": "two", "highlight": {"plot": "dirty", "fromS": -1e400}}]})");
  expectBadInput(run({"--headless", "--lesson", "big.json"}),
                 {"big.json, step 2, key highlight.fromS", "-1e400"});
  expectBadInput(run({"--lesson", "big.json", "--export-png", "out.png", "--quit"}, kWindow),
                 {"big.json", "step 2", "highlight.fromS"});
  EXPECT_FALSE(std::filesystem::exists(m_dir / "out.png"));
}

TEST_F(Executable, ASessionWithABranchTheWindowCouldNotHaveMadeDoesNotLoad) {
  nlohmann::json session;
  session["schemaVersion"] = 1;
  session["kind"] = "throttlelab-session";
  session["scenario"] = nlohmann::json::parse(*throttlelab::engine::builtinScenarioJson("one-dd"));
  session["window"] = {{"historyWindow", "everything"},
                       {"speed", "max"},
                       {"running", false},
                       {"visiblePlots", {"dirty-pages"}}};
  for (const std::string change : {"vm.dirty_ratoi=10", "seed=5"}) {
    SCOPED_TRACE(change);
    session["window"]["branch"] = {{"atS", 1}, {"set", {change}}, {"originalS", 2}, {"branchS", 2}};
    write("s.json", session.dump());
    // It loaded with exit 0 and exported the run without its branch.
    // The window's platform may say things of its own on stderr first: look for the line.
    const Result r =
        run({"--session", "s.json", "--run-for", "3", "--export-csv", "r.csv", "--quit"}, kWindow);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_TRUE(contains(r.err,
                         "throttlelab: --session: s.json cannot be used: "
                         "\"window.branch.set"))
        << r.err;
    EXPECT_FALSE(std::filesystem::exists(m_dir / "r.csv"));
  }
}

}  // namespace
