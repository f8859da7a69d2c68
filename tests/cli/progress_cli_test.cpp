// SPDX-License-Identifier: GPL-3.0-or-later
// Long work says how far it has got: a run, a branch, a comparison, an experiment and a
// trace's simulation print one progress line on standard error when it is a terminal (a
// pseudo-terminal here), rewritten in place and cleared at the end, and nothing into a pipe;
// what they print on standard output is the same either way. THROTTLELAB_PROGRESS_DELAY=0
// shows the line however short the work; without it, only work of more than about two
// seconds shows one.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

#include "executable_fixture.h"

using namespace throttlelab::cli::test;

namespace {

struct TermRun {
  int status = -1;
  std::string err;  ///< what reached standard error: the terminal, or the pipe
  std::string out;  ///< standard output (a file)
};

class Progress : public Executable {
 protected:
  /// Runs the executable with standard error on a pseudo-terminal (`terminal`) or a pipe,
  /// standard output to a file; `env` is added to the environment.
  TermRun start(const std::vector<std::string>& args, bool terminal,
                const std::vector<std::string>& env = {"THROTTLELAB_PROGRESS_DELAY=0"}) {
    const std::string exe = executablePath();
    const std::string dir = m_dir.string();
    const std::string outPath = (m_dir / ".stdout").string();
    std::vector<std::string> argvStrings{exe};
    argvStrings.insert(argvStrings.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argvStrings) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> envStrings = env;
    int reader = -1;
    pid_t pid = -1;
    if (terminal) {
      pid = ::forkpty(&reader, nullptr, nullptr, nullptr);
    } else {
      int fds[2];
      if (::pipe(fds) != 0) return {};
      pid = ::fork();
      if (pid == 0) {
        ::dup2(fds[1], 2);
        ::close(fds[0]);
        ::close(fds[1]);
      } else {
        ::close(fds[1]);
        reader = fds[0];
      }
    }
    if (pid == 0) {
      ::unsetenv("THROTTLELAB_PROGRESS_DELAY");
      for (auto& e : envStrings) ::putenv(e.data());
      const int out = ::open(outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (out < 0 || ::dup2(out, 1) < 0 || ::chdir(dir.c_str()) != 0) ::_exit(127);
      ::execv(exe.c_str(), argv.data());
      ::_exit(127);
    }
    TermRun r;
    if (pid < 0) return r;
    char buffer[4096];
    for (;;) {
      const ssize_t n = ::read(reader, buffer, sizeof buffer);
      if (n > 0) {
        r.err.append(buffer, static_cast<std::size_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      break;  // end of the pipe, or EIO once the terminal's last writer has gone
    }
    ::close(reader);
    const int raw = wait(pid);
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    r.out = readFile(m_dir / ".stdout");
    return r;
  }

  /// The same work on a terminal and into a pipe: a progress line (starting with `what`) on
  /// the one, nothing on the other, the same standard output.
  void expectProgressOnTheTerminalOnly(const std::vector<std::string>& args,
                                       const std::string& what) {
    std::string shown;
    for (const auto& a : args) shown += " " + a;
    SCOPED_TRACE(shown);
    const TermRun piped = start(args, false);
    const TermRun tty = start(args, true);
    ASSERT_EQ(piped.status, 0) << piped.err;
    ASSERT_EQ(tty.status, 0) << tty.err;
    EXPECT_FALSE(contains(piped.err, "simulated")) << piped.err;
    EXPECT_EQ(piped.err.find('\r'), std::string::npos) << piped.err;
    EXPECT_TRUE(contains(tty.err, "\rthrottlelab: " + what + "simulated ")) << tty.err;
    EXPECT_TRUE(contains(tty.err, "real time, about ")) << tty.err;
    // Cleared at the end: what comes after starts at the margin.
    const auto last = tty.err.rfind("throttlelab: " + what + "simulated ");
    ASSERT_NE(last, std::string::npos);
    EXPECT_TRUE(contains(tty.err.substr(last), "\r\x1b[K")) << tty.err;
    EXPECT_EQ(tty.out, piped.out);
    EXPECT_FALSE(tty.out.empty());
  }
};

TEST_F(Progress, ALesson) {
  expectProgressOnTheTerminalOnly({"--headless", "--lesson", "about-throttling"},
                                  "--lesson about-throttling: ");
}

TEST_F(Progress, OneStepOfALessonAndItsCheck) {
  expectProgressOnTheTerminalOnly({"--headless", "--lesson", "about-throttling", "--step", "3"},
                                  "--lesson about-throttling: ");
  expectProgressOnTheTerminalOnly({"--headless", "--lesson", "about-throttling", "--check"},
                                  "--lesson about-throttling: ");
}

TEST_F(Progress, ARun) {
  expectProgressOnTheTerminalOnly(
      {"--headless", "--scenario", "ten-dd", "--duration", "30", "--summary"}, "");
}

TEST_F(Progress, ABranchedRun) {
  expectProgressOnTheTerminalOnly(
      {"--headless", "--scenario", "ten-dd", "--duration", "30", "--branch-at", "10",
       "--branch-set", "vm.dirty_ratio=5", "--branch-csv", "b.csv", "--report", "-"},
      "--branch-at: ");
}

TEST_F(Progress, AComparison) {
  expectProgressOnTheTerminalOnly(
      {"--headless", "--scenario", "ten-dd", "--duration", "10", "--compare", "ioless,none"},
      "--compare: ");
}

TEST_F(Progress, AnExperiment) {
  expectProgressOnTheTerminalOnly({"--experiment", "wu2010", "--quick", "--seeds", "1"},
                                  "--experiment wu2010: ");
}

TEST_F(Progress, ATracesSimulation) {
  expectProgressOnTheTerminalOnly(
      {"--import-trace", (kDataDir / "kernel-6.18" / "ftrace-1-dd.txt").string(), "--simulate"},
      "--simulate: ");
}

// Only work that lasts longer than the delay shows a line: a run of a few milliseconds shows
// none with the default delay (about two seconds); with a delay of 0.3 s, a run of about 2 to
// 4 s of this machine's time (more under a sanitizer) shows one. (The default's value itself
// is tested on a clock the test moves, in terminal_progress_test.cpp: a machine's speed must
// not decide this test.)
TEST_F(Progress, OnlyWorkLongerThanTheDelayShowsALine) {
  const TermRun quick = start({"--headless", "--scenario", "one-dd", "--duration", "1"}, true, {});
  ASSERT_EQ(quick.status, 0) << quick.err;
  EXPECT_EQ(quick.err, "");
  const TermRun slow =
      start({"--headless", "--duration", "20000"}, true, {"THROTTLELAB_PROGRESS_DELAY=0.3"});
  ASSERT_EQ(slow.status, 0) << slow.err;
  EXPECT_TRUE(contains(slow.err, "\rthrottlelab: simulated ")) << slow.err;
  EXPECT_TRUE(contains(slow.err, " of 20000 s (")) << slow.err;
}

}  // namespace

namespace {

// The bounds of docs/long-work.md: an hour of 100,000 writers is accepted (it would run, with
// its progress); beyond the bounds the run is refused at once, exit 2, the message giving the
// bound.
TEST_F(Progress, BeyondTheBoundsIsRefusedWithTheBound) {
  const TermRun longRun = start({"--headless", "--set", "durationS=2e7", "--summary"}, false, {});
  EXPECT_EQ(longRun.status, 2) << longRun.err;
  EXPECT_TRUE(contains(longRun.err, "durationS")) << longRun.err;
  EXPECT_TRUE(contains(longRun.err, "at most 1e+07")) << longRun.err;
  const TermRun many =
      start({"--headless", "--scenario", "one-dd", "--set", "tasks[0].count=100001", "--summary"},
            false, {});
  EXPECT_EQ(many.status, 2) << many.err;
  EXPECT_TRUE(contains(many.err, "count")) << many.err;
  EXPECT_TRUE(contains(many.err, "100000")) << many.err;
  EXPECT_EQ(many.out, "");
}

}  // namespace
