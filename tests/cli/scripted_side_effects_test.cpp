// SPDX-License-Identifier: GPL-3.0-or-later
// A scripted run of the window (--quit, the exports, --session F ... --quit) touches nothing but
// its named outputs: no recent file and no setting reaches the user's ~/.config/ThrottleLab,
// and nothing else appears in the working directory. Each run here has HOME and
// XDG_CONFIG_HOME of its own, with the user's settings already there (a recent file, a window
// state), so a write of any kind shows as a changed tree.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "executable_fixture.h"

namespace fs = std::filesystem;
using namespace throttlelab::cli::test;

namespace {

/// Every entry below `root` with what would show a write: its type, size, modification time
/// and, for files, its text.
std::map<std::string, std::string> snapshot(const fs::path& root) {
  std::map<std::string, std::string> entries;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    const auto time = e.last_write_time().time_since_epoch().count();
    std::string what = e.is_directory() ? "dir " : "file ";
    what += std::to_string(time);
    if (e.is_regular_file()) what += " " + std::to_string(e.file_size()) + " " + readFile(e.path());
    entries[fs::relative(e.path(), root).string()] = what;
  }
  return entries;
}

std::string builtinScenarioText(const std::string& name) {
  return readFile(fs::path(THROTTLELAB_SOURCE_DIR) / "resources" / "scenarios" / (name + ".json"));
}

class ScriptedRun : public Executable {
 protected:
  ScriptedRun() : Executable("throttlelab-scripted") {}

  void SetUp() override {
    Executable::SetUp();
    m_home = m_dir / "home";
    m_config = m_dir / "config";
    // The user's settings as the window leaves them: a recent file and a window state. The
    // home's own ~/.config is where a run would write with XDG_CONFIG_HOME unset.
    fs::create_directories(m_home / ".config" / "ThrottleLab");
    fs::create_directories(m_config / "ThrottleLab");
    const std::string settings =
        "[files]\nrecent=/home/teacher/lecture.json\n\n[view]\nhistoryWindow=1min\n";
    std::ofstream(m_config / "ThrottleLab" / "ThrottleLab.conf") << settings;
    std::ofstream(m_home / ".config" / "ThrottleLab" / "ThrottleLab.conf") << settings;

    nlohmann::json session;
    session["schemaVersion"] = 1;
    session["kind"] = "throttlelab-session";
    session["scenario"] = nlohmann::json::parse(builtinScenarioText("one-dd"));
    session["window"] = {{"historyWindow", "everything"},
                         {"speed", 1},
                         {"running", true},
                         {"visiblePlots", {"dirty-pages", "pauses"}}};
    write("s.json", session.dump());
    write("scenario.json", builtinScenarioText("ten-dd"));
    write("bad.json", "{bad");
  }

  /// Runs the window, scripted, with HOME and XDG_CONFIG_HOME of its own; expects `status`,
  /// the settings as they were, and no file in the working directory but `outputs`.
  void expectOnlyOutputs(const std::vector<std::string>& args, int status,
                         const std::set<std::string>& outputs) {
    std::string shown;
    for (const auto& a : args) shown += a + " ";
    const auto home = snapshot(m_home);
    const auto config = snapshot(m_config);
    std::set<std::string> expected = filesHere();
    const Result r = run(args, {"QT_QPA_PLATFORM=offscreen", "HOME=" + m_home.string(),
                                "XDG_CONFIG_HOME=" + m_config.string()});
    EXPECT_EQ(r.status, status) << shown << r.err;
    EXPECT_EQ(snapshot(m_config), config) << shown << "changed XDG_CONFIG_HOME";
    EXPECT_EQ(snapshot(m_home), home) << shown << "changed HOME";
    expected.insert(outputs.begin(), outputs.end());
    EXPECT_EQ(filesHere(), expected) << shown;
    for (const auto& o : outputs) fs::remove(m_dir / o);
  }

  fs::path m_home;
  fs::path m_config;
};

}  // namespace

TEST_F(ScriptedRun, QuitAloneWritesNothing) {
  expectOnlyOutputs({"--quit"}, 0, {});
  expectOnlyOutputs({"--scenario", "scenario.json", "--quit"}, 0, {});
}

TEST_F(ScriptedRun, ExportsWriteOnlyTheirFiles) {
  expectOnlyOutputs({"--run-for", "1", "--export-png", "f.png", "--export-csv", "f.csv",
                     "--export-svg", "f.svg", "--quit"},
                    0, {"f.png", "f.csv", "f.svg"});
  expectOnlyOutputs(
      {"--scenario", "scenario.json", "--run-for", "1", "--export-pdf", "t.pdf", "--quit"}, 0,
      {"t.pdf"});
}

TEST_F(ScriptedRun, ASessionIsNotARecentFile) {
  // Today's code added s.json to the recent files in ThrottleLab.conf.
  expectOnlyOutputs({"--session", "s.json", "--quit"}, 0, {});
  expectOnlyOutputs({"--session", "s.json", "--run-for", "1", "--export-csv", "s.csv", "--quit"}, 0,
                    {"s.csv"});
}

TEST_F(ScriptedRun, ARunThatFailsWritesNothingEither) {
  expectOnlyOutputs({"--session", "bad.json", "--run-for", "1", "--export-csv", "b.csv", "--quit"},
                    2, {});
  expectOnlyOutputs(
      {"--open-trace", "/dev/zero", "--run-for", "1", "--export-png", "z.png", "--quit"}, 2, {});
}
