// SPDX-License-Identifier: GPL-3.0-or-later
// The executable's outputs never damage what is not theirs: a device or a FIFO is written in
// place, a symbolic link's target is replaced, an output that names an input or another
// output is refused, signals remove the temporary files (and the next run those SIGKILL left),
// a failed write to standard output is an error, and a closed standard output is refused
// before a file can take its descriptor. The window's scripted mode stops at its
// --run-for time and refuses to export what did not load.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "executable_fixture.h"
#include "throttlelab/engine/output.h"

namespace fs = std::filesystem;
namespace te = throttlelab::engine;
using namespace throttlelab::cli::test;

namespace {

const std::vector<std::string> kWindow{"QT_QPA_PLATFORM=offscreen"};

void writeText(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

std::string builtinScenarioText(const std::string& name) {
  return readFile(fs::path(THROTTLELAB_SOURCE_DIR) / "resources" / "scenarios" / (name + ".json"));
}

mode_t fileType(const fs::path& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0 ? (st.st_mode & S_IFMT) : 0;
}

/// Polls `done` every 5 ms for up to 60 s; nothing asserts on the time it takes.
bool eventually(const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

/// SIGKILLs and reaps a spawned run the test did not get to end (a failed assertion).
struct Reaper {
  pid_t pid;
  bool reaped = false;
  ~Reaper() {
    if (reaped || pid <= 0) return;
    ::kill(pid, SIGKILL);
    int raw = 0;
    ::waitpid(pid, &raw, 0);
  }
};

/// A pid that is certainly no running process: a child that has exited and been reaped.
pid_t deadPid() {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  int raw = 0;
  ::waitpid(pid, &raw, 0);
  return pid;
}

std::string lastTime(const std::string& csv) {
  const auto rows = csvRows(csv);
  return rows.size() < 2 ? std::string() : split(rows.back()).front();
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// What kind of file an output names

TEST_F(Executable, ADeviceNodeIsWrittenInPlaceNeverReplaced) {
  // Our own node with /dev/null's numbers, never /dev/null itself.
  const fs::path node = m_dir / "null";
  const fs::path reportNode = m_dir / "null.md";
  if (::mknod(node.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0 ||
      ::mknod(reportNode.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0)
    GTEST_SKIP() << "cannot make a device node here: " << std::strerror(errno);
  Result r = run({"--headless", "--scenario", "ten-dd", "--duration", "2", "--csv", "null",
                  "--task-csv", "null", "--trace-out", "null"});
  ASSERT_EQ(r.status, 0) << r.err;
  r = run({"--headless", "--scenario", "one-dd", "--duration", "1", "--compare", "ioless,none",
           "--report", "null.md"});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const fs::path& p : {node, reportNode}) {
    struct stat st {};
    ASSERT_EQ(::lstat(p.c_str(), &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode)) << p << " is no longer a device node";
    EXPECT_EQ(st.st_rdev, makedev(1, 3));
  }
  EXPECT_EQ(filesHere(), (std::set<std::string>{"null", "null.md"}));
}

TEST_F(Executable, AFifoIsWrittenInPlaceAndItsReaderGetsTheCsv) {
  const fs::path fifo = m_dir / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0) << std::strerror(errno);
  // Open for reading first, without blocking: the run's open for writing then succeeds at
  // once, and this descriptor keeps the FIFO even if the run renamed something over its name.
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  const Result r = run({"--headless", "--scenario", "one-dd", "--duration", "1", "--csv", "pipe"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::string received;
  char buffer[4096];
  for (ssize_t n; (n = ::read(reader, buffer, sizeof buffer)) > 0;)
    received.append(buffer, static_cast<std::size_t>(n));  // the CSV fits in the pipe's buffer
  ::close(reader);
  EXPECT_EQ(fileType(fifo), static_cast<mode_t>(S_IFIFO)) << "the FIFO was replaced";
  const auto rows = csvRows(received);
  ASSERT_EQ(rows.size(), 11u) << received;  // header + 10 samples of 0.1 s
  EXPECT_EQ(split(rows[0]), te::sampleCsvColumns(1));
  EXPECT_EQ(split(rows.back()).front(), "1.000");
  EXPECT_EQ(filesHere(), std::set<std::string>{"pipe"});
}

TEST_F(Executable, ASymbolicLinksTargetIsReplacedAndTheLinkStays) {
  writeText(m_dir / "target.csv", "old\n");
  fs::create_symlink("target.csv", m_dir / "link.csv");
  fs::create_directory(m_dir / "sub");
  fs::create_symlink("sub/new.csv", m_dir / "dangling.csv");  // its target does not exist yet
  const Result r = run({"--headless", "--scenario", "one-dd", "--duration", "1", "--csv",
                        "link.csv", "--trace-out", "dangling.csv"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(fileType(m_dir / "link.csv"), static_cast<mode_t>(S_IFLNK));
  EXPECT_EQ(fs::read_symlink(m_dir / "link.csv"), "target.csv");
  EXPECT_TRUE(contains(readFile(m_dir / "target.csv"), "time_s,dirty_pages"));
  EXPECT_EQ(fileType(m_dir / "dangling.csv"), static_cast<mode_t>(S_IFLNK));
  EXPECT_TRUE(contains(readFile(m_dir / "sub" / "new.csv"), "balance_dirty_pages"));
  EXPECT_EQ(filesHere(), (std::set<std::string>{"dangling.csv", "link.csv", "sub", "target.csv"}));
}

TEST_F(Executable, ADirectoryOrAMissingDirectoryIsRefusedBeforeTheRun) {
  fs::create_directory(m_dir / "out");
  expectBadInput(run({"--headless", "--duration", "1", "--csv", "out"}),
                 {"--csv out", "it is a directory"});
  expectBadInput(run({"--headless", "--duration", "1", "--trace-out", "none/t.txt"}),
                 {"--trace-out none/t.txt", "its directory does not exist"});
  EXPECT_EQ(filesHere(), std::set<std::string>{"out"});
}

// ---------------------------------------------------------------------------------------------
// Outputs that name an input, or each other

TEST_F(Executable, AnOutputThatNamesTheScenarioIsRefused) {
  const std::string scenario = builtinScenarioText("one-dd");
  writeText(m_dir / "s.json", scenario);
  fs::create_symlink("s.json", m_dir / "alias.json");
  fs::create_hard_link(m_dir / "s.json", m_dir / "hard.json");
  const std::vector<std::vector<std::string>> attempts{{"--csv", "s.json"},
                                                       {"--task-csv", "./s.json"},
                                                       {"--trace-out", "alias.json"},
                                                       {"--csv", "hard.json"},
                                                       {"--csv", "sub/../s.json"}};
  fs::create_directory(m_dir / "sub");
  for (const auto& output : attempts) {
    std::vector<std::string> args{"--headless", "--scenario", "s.json", "--duration", "1"};
    args.insert(args.end(), output.begin(), output.end());
    expectBadInput(run(args), {output[0] + " " + output[1], "--scenario s.json"});
  }
  expectBadInput(run({"--headless", "--scenario", "s.json", "--duration", "1", "--compare",
                      "ioless,none", "--report", "alias.json"}),
                 {"--report alias.json", "--scenario s.json"});
  EXPECT_EQ(readFile(m_dir / "s.json"), scenario);
  EXPECT_EQ(fileType(m_dir / "alias.json"), static_cast<mode_t>(S_IFLNK));
  EXPECT_EQ(filesHere(), (std::set<std::string>{"alias.json", "hard.json", "s.json", "sub"}));
}

TEST_F(Executable, TwoOutputsThatNameOneFileAreRefused) {
  // Neither exists yet: compared by name.
  expectBadInput(run({"--headless", "--scenario", "one-dd", "--duration", "1", "--csv", "a.csv",
                      "--task-csv", "./a.csv"}),
                 {"--task-csv ./a.csv", "--csv a.csv"});
  EXPECT_EQ(filesHere(), std::set<std::string>{});
  // Both exist: compared by device and inode.
  writeText(m_dir / "a.csv", "old\n");
  fs::create_hard_link(m_dir / "a.csv", m_dir / "b.csv");
  expectBadInput(run({"--headless", "--scenario", "one-dd", "--duration", "1", "--csv", "a.csv",
                      "--trace-out", "b.csv"}),
                 {"--trace-out b.csv", "--csv a.csv"});
  EXPECT_EQ(readFile(m_dir / "a.csv"), "old\n");
  EXPECT_EQ(filesHere(), (std::set<std::string>{"a.csv", "b.csv"}));
}

// ---------------------------------------------------------------------------------------------
// Signals, and what they leave

TEST_F(Executable, SignalsRemoveTheTemporaryFilesAndLeaveTheOldOutputs) {
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
    SCOPED_TRACE(strsignal(sig));
    writeText(m_dir / "c.csv", "old csv\n");
    writeText(m_dir / "t.txt", "old trace\n");
    // Long enough never to end by itself; killed as soon as it is well under way.
    const pid_t pid = spawn({"--headless", "--scenario", "hundred-dd", "--duration", "100000",
                             "--csv", "c.csv", "--trace-out", "t.txt"});
    ASSERT_GT(pid, 0);
    Reaper reaper{pid};
    const fs::path csvTemp = m_dir / ("c.csv.tmp-" + std::to_string(pid));
    const fs::path traceTemp = m_dir / ("t.txt.tmp-" + std::to_string(pid));
    ASSERT_TRUE(eventually([&] {
      std::error_code ec;
      // file_size() of a missing file is -1 as an unsigned number: ask for the file first.
      const auto traceBytes = fs::file_size(traceTemp, ec);
      return fs::exists(csvTemp) && !ec && traceBytes > (1u << 20);
    }));
    ASSERT_EQ(::kill(pid, sig), 0);
    const int raw = wait(pid);
    reaper.reaped = true;
    ASSERT_TRUE(WIFSIGNALED(raw)) << "exit status " << WEXITSTATUS(raw);
    EXPECT_EQ(WTERMSIG(raw), sig) << "the exit status must say which signal ended it";
    EXPECT_EQ(readFile(m_dir / "c.csv"), "old csv\n");
    EXPECT_EQ(readFile(m_dir / "t.txt"), "old trace\n");
    fs::remove(m_dir / ".stdout");
    fs::remove(m_dir / ".stderr");
    EXPECT_EQ(filesHere(), (std::set<std::string>{"c.csv", "t.txt"}));
  }
}

TEST_F(Executable, ASignalTheMomentATemporaryAppearsStillRemovesIt) {
  // A signal between creating the temporary and telling the handler about it left the file
  // behind (one run in five, killed as soon as the CSV's temporary appeared). The window is
  // narrow, so the test tries it many times.
  for (int attempt = 0; attempt < 20; ++attempt) {
    SCOPED_TRACE("attempt " + std::to_string(attempt));
    const pid_t pid = spawn({"--headless", "--scenario", "hundred-dd", "--duration", "100000",
                             "--csv", "c.csv", "--trace-out", "t.txt"});
    ASSERT_GT(pid, 0);
    Reaper reaper{pid};
    const fs::path csvTemp = m_dir / ("c.csv.tmp-" + std::to_string(pid));
    while (!fs::exists(csvTemp)) {
      int raw = 0;
      ASSERT_EQ(::waitpid(pid, &raw, WNOHANG), 0) << "the run ended before it wrote anything";
    }
    ASSERT_EQ(::kill(pid, SIGTERM), 0);
    const int raw = wait(pid);
    reaper.reaped = true;
    ASSERT_TRUE(WIFSIGNALED(raw));
    fs::remove(m_dir / ".stdout");
    fs::remove(m_dir / ".stderr");
    ASSERT_EQ(filesHere(), std::set<std::string>{});
  }
}

TEST_F(Executable, ALaterRunRemovesOnlyTheTemporariesSigkillLeft) {
  const pid_t pid = spawn(
      {"--headless", "--scenario", "hundred-dd", "--duration", "100000", "--trace-out", "t.txt"});
  ASSERT_GT(pid, 0);
  Reaper reaper{pid};
  const std::string killed = "t.txt.tmp-" + std::to_string(pid);
  ASSERT_TRUE(eventually([&] { return fs::exists(m_dir / killed); }));
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  wait(pid);
  reaper.reaped = true;
  ASSERT_TRUE(fs::exists(m_dir / killed)) << "nothing can remove a file on SIGKILL";
  fs::remove(m_dir / ".stdout");
  fs::remove(m_dir / ".stderr");

  // What must stay: a live pid's file (this test's), names that only look alike, a link
  // and a directory with a dead pid's name, and another output's temporary.
  const std::string dead = std::to_string(deadPid());
  const std::string alsoDead = std::to_string(deadPid());
  const std::string live = std::to_string(::getpid());
  writeText(m_dir / "keep.txt", "keep\n");
  const std::set<std::string> kept{
      "t.txt.tmp-" + live,          "t.txt.tmp-0" + dead, "t.txt.tmp-" + dead + "x",
      "t.txt.tmp-" + dead + ".bak", "t.txt.tmp-",         "u.txt.tmp-" + dead,
      "xt.txt.tmp-" + dead};
  for (const auto& name : kept) writeText(m_dir / name, "not ours\n");
  fs::create_symlink("keep.txt", m_dir / ("t.txt.tmp-" + dead));
  fs::create_directory(m_dir / ("t.txt.tmp-" + alsoDead));

  const Result r =
      run({"--headless", "--scenario", "one-dd", "--duration", "1", "--trace-out", "t.txt"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(fs::exists(m_dir / killed)) << "the killed run's temporary file is still there";
  std::set<std::string> expected = kept;
  expected.insert({"keep.txt", "t.txt", "t.txt.tmp-" + dead, "t.txt.tmp-" + alsoDead});
  EXPECT_EQ(filesHere(), expected);
  for (const auto& name : kept) EXPECT_EQ(readFile(m_dir / name), "not ours\n") << name;
  EXPECT_EQ(readFile(m_dir / "keep.txt"), "keep\n");
  EXPECT_EQ(fileType(m_dir / ("t.txt.tmp-" + dead)), static_cast<mode_t>(S_IFLNK));
}

// ---------------------------------------------------------------------------------------------
// Standard output

TEST_F(Executable, AFailedWriteToStandardOutputIsAnError) {
  if (fileType("/dev/full") != S_IFCHR) GTEST_SKIP() << "no /dev/full";
  const std::string trace = (kDataDir / "real-trace-excerpt.txt").string();
  const std::vector<std::vector<std::string>> modes{
      {"--help"},
      {"--version"},
      {"--list-scenarios"},
      {"--experiment", "list"},
      {"--headless", "--scenario", "one-dd", "--duration", "1", "--summary"},
      {"--headless", "--scenario", "one-dd", "--duration", "1", "--csv", "-"},
      // More than one buffer: found while the run goes, not only at the end.
      {"--headless", "--scenario", "ten-dd", "--duration", "20", "--task-csv", "-"},
      {"--headless", "--scenario", "one-dd", "--duration", "1", "--compare", "ioless,none"},
      {"--import-trace", trace},
      {"--import-trace", trace, "--simulate"},
  };
  for (const auto& args : modes) {
    std::string shown;
    for (const auto& a : args) shown += " " + a;
    const Result r = run(args, {}, "/dev/full");
    EXPECT_EQ(r.status, 1) << shown << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "throttlelab: ")) << shown << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "standard output")) << shown << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "No space left on device")) << shown << ": " << r.err;
  }
  EXPECT_EQ(filesHere(), std::set<std::string>{});
}

// Standard output closed (`>&-`): descriptor 1 is the lowest free number, so the first file
// the program opened took it, and what was printed went into that file: `--csv - >&-` exited
// 0 with the CSV in the program's own temporary file. Every mode that prints there, and every
// output that can be "-", now fails with status 1 before anything is opened.
TEST_F(Executable, AClosedStandardOutputIsAnErrorBeforeAnythingIsOpened) {
  const std::string trace = (kDataDir / "real-trace-excerpt.txt").string();
  const std::vector<std::string> run{"--headless", "--scenario", "one-dd", "--duration", "2"};
  const auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = run;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  const std::vector<std::vector<std::string>> modes{
      {"--help"},
      {"--list-scenarios"},
      with({"--csv", "-"}),
      with({"--task-csv", "-"}),
      with({"--trace-out", "-"}),
      with({"--summary", "--csv", "c.csv"}),
      with({"--explain", "1000@1"}),
      with({"--branch-at", "1", "--branch-set", "vm.dirty_ratio=5", "--branch-csv", "-"}),
      with({"--branch-at", "1", "--branch-set", "vm.dirty_ratio=5", "--branch-csv", "b.csv",
            "--report", "-"}),
      with({"--compare", "ioless,none", "--report", "-"}),
      {"--experiment", "morton2003", "--quick", "--seeds", "1", "--report", "-"},
      {"--import-trace", trace, "--csv", "-"},
      {"--import-trace", trace, "--task-csv", "-"},
      {"--import-trace", trace, "--simulate", "--report", "-"},
      {"--headless", "--lesson", "one-to-a-thousand", "--step", "1"},
  };
  for (const auto& args : modes) {
    std::string shown;
    for (const auto& a : args) shown += " " + shellQuote(a);
    const Result r = runRedirected(shown + " >&- 2>.stderr");
    EXPECT_EQ(r.status, 1) << shown << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "throttlelab: standard output is closed"))
        << shown << ": " << r.err;
    EXPECT_EQ(filesHere(), std::set<std::string>{}) << shown;
  }
}

// The window prints nothing on standard output: it opens without it, and its exports never
// take the free descriptor (what a stray write there would then reach).
TEST_F(Executable, TheWindowRunsWithStandardOutputClosed) {
  const Result r =
      runRedirected("--scenario one-dd --run-for 1 --export-csv w.csv --quit >&- 2>.stderr",
                    "QT_QPA_PLATFORM=offscreen");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(csvRows(readFile(m_dir / "w.csv")).empty());
}

TEST_F(Executable, AClosedStandardInputIsNoTrace) {
  const Result r = runRedirected("--import-trace - --csv c.csv <&- >.stdout 2>.stderr");
  expectBadInput(r, {"--import-trace -", "standard input is closed"});
  EXPECT_EQ(filesHere(), std::set<std::string>{});
}

// Standard error closed (`2>&-`): an output file took descriptor 2, and every message written
// while the run went on would have been written into it.
TEST_F(Executable, AClosedStandardErrorIsNeverAnOutputFile) {
  const std::string exe = executablePath();
  const std::string dir = m_dir.string();
  std::vector<std::string> argvStrings{exe,          "--headless", "--scenario", "hundred-dd",
                                       "--duration", "100000",     "--csv",      "c.csv"};
  std::vector<char*> argv;
  for (auto& a : argvStrings) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int o = ::open("/dev/null", O_WRONLY);
    if (o < 0 || ::dup2(o, 1) < 0 || ::chdir(dir.c_str()) != 0) ::_exit(127);
    ::close(o);
    ::close(2);
    ::execv(exe.c_str(), argv.data());
    ::_exit(127);
  }
  ASSERT_GT(pid, 0);
  Reaper reaper{pid};
  const fs::path temp = m_dir / ("c.csv.tmp-" + std::to_string(pid));
  ASSERT_TRUE(eventually([&] { return fs::exists(temp); }));
  std::error_code ec;
  const fs::path err = fs::read_symlink("/proc/" + std::to_string(pid) + "/fd/2", ec);
  ASSERT_FALSE(ec) << ec.message();
  EXPECT_EQ(err, fs::path("/dev/null"));
  ASSERT_EQ(::kill(pid, SIGTERM), 0);
  wait(pid);
  reaper.reaped = true;
  EXPECT_EQ(filesHere(), std::set<std::string>{});
}

// ---------------------------------------------------------------------------------------------
// The window, scripted

TEST_F(Executable, AScriptedSessionAtFullSpeedStopsAtItsRunForTime) {
  nlohmann::json session;
  session["schemaVersion"] = 1;
  session["kind"] = "throttlelab-session";
  session["scenario"] = nlohmann::json::parse(builtinScenarioText("ten-dd"));
  session["window"] = {{"historyWindow", "everything"},
                       {"speed", "max"},
                       {"running", true},
                       {"visiblePlots", {"dirty-pages"}}};
  writeText(m_dir / "max.json", session.dump());
  const Result r =
      run({"--session", "max.json", "--run-for", "2", "--export-csv", "r.csv", "--quit"}, kWindow);
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string csv = readFile(m_dir / "r.csv");
  EXPECT_EQ(lastTime(csv), "2.000");
  EXPECT_EQ(csvRows(csv).size(), 1u + 20u);
}

TEST_F(Executable, AScriptedRunWhoseFilesDoNotLoadExportsNothing) {
  writeText(m_dir / "bad.json", "{bad");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"--scenario", "bad.json"}, "bad.json: JSON syntax error at line 1"},
      {{"--session", "bad.json"}, "--session: bad.json is not valid JSON"},
      {{"--open-trace", "missing.txt"}, "--open-trace: cannot open missing.txt"},
      {{"--open-trace", "/dev/zero"}, "--open-trace: /dev/zero is a device"},
  };
  for (const auto& [given, message] : cases) {
    std::vector<std::string> args = given;
    args.insert(args.end(), {"--run-for", "1", "--export-csv", "r.csv", "--quit"});
    const Result r = run(args, kWindow);
    EXPECT_EQ(r.status, 2) << given[0] << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "throttlelab: " + message)) << r.err;
    EXPECT_FALSE(fs::exists(m_dir / "r.csv")) << given[0] << ": a fallback was exported";
    fs::remove(m_dir / "r.csv");
  }
  // Without any export: --quit alone still says it failed.
  const Result r = run({"--open-trace", "/dev/zero", "--quit"}, kWindow);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "/dev/zero")) << r.err;
}

TEST_F(Executable, ScriptedExportsFollowTheOutputRules) {
  const std::string scenario = builtinScenarioText("one-dd");
  writeText(m_dir / "s.json", scenario);
  Result r =
      run({"--scenario", "s.json", "--run-for", "1", "--export-csv", "s.json", "--quit"}, kWindow);
  expectBadInput(r, {"--export-csv s.json", "--scenario s.json"});
  EXPECT_EQ(readFile(m_dir / "s.json"), scenario);
  r = run({"--run-for", "1", "--export-svg", "a.svg", "--export-pdf", "./a.svg", "--quit"},
          kWindow);
  expectBadInput(r, {"--export-pdf ./a.svg", "--export-svg a.svg"});
  EXPECT_EQ(filesHere(), std::set<std::string>{"s.json"});

  writeText(m_dir / "target.csv", "old\n");
  fs::create_symlink("target.csv", m_dir / "link.csv");
  r = run({"--scenario", "one-dd", "--run-for", "1", "--export-csv", "link.csv", "--quit"},
          kWindow);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(fileType(m_dir / "link.csv"), static_cast<mode_t>(S_IFLNK));
  EXPECT_EQ(lastTime(readFile(m_dir / "target.csv")), "1.000");
}
