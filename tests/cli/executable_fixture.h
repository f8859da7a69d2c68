// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Running the built `throttlelab` executable from a test, in a directory of its own.
// THROTTLELAB_TEST_EXECUTABLE, when set, names another build to run instead (how these tests
// are checked to fail on an older executable).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "file_text.h"
#include "test_dir.h"

namespace throttlelab::cli::test {

namespace fs = std::filesystem;

struct Result {
  int status = -1;  ///< the exit status, or -1 if the process was killed by a signal
  std::string out;
  std::string err;
  double seconds = 0;  ///< how long runShell() took
};

inline std::string shellQuote(const std::string& s) {
  std::string q = "'";
  for (const char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

using throttlelab::test::contains;
using throttlelab::test::readFile;

inline std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

inline std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string f; std::getline(in, f, ',');) out.push_back(f);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

inline bool isNumber(const std::string& s) {
  if (s.empty()) return false;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

inline const fs::path kDataDir = fs::path(THROTTLELAB_SOURCE_DIR) / "tests" / "data";

/// The rows of a CSV written by throttlelab: provenance comments dropped.
inline std::vector<std::string> csvRows(const std::string& text) {
  std::vector<std::string> rows;
  for (const auto& l : lines(text))
    if (l.rfind("#", 0) != 0) rows.push_back(l);
  return rows;
}

inline std::string executablePath() {
  const char* other = std::getenv("THROTTLELAB_TEST_EXECUTABLE");
  return other && *other ? std::string(other) : std::string(THROTTLELAB_EXECUTABLE);
}

/// Each test gets its own empty directory, which is also the working directory of the runs.
class Executable : public throttlelab::test::TestDirFixture {
 protected:
  explicit Executable(const std::string& prefix = "throttlelab-cli") : TestDirFixture(prefix) {}

  /// Runs the executable with `args`; `env` is prepended as `env ...` arguments. Standard
  /// output goes to `stdoutPath` when given (e.g. /dev/full), else it is captured.
  Result run(const std::vector<std::string>& args, const std::vector<std::string>& env = {},
             const std::string& stdoutPath = {}) {
    std::string command = "cd " + shellQuote(m_dir.string()) + " && env";
    for (const auto& e : env) command += " " + shellQuote(e);
    command += " " + shellQuote(executablePath());
    for (const auto& a : args) command += " " + shellQuote(a);
    command += " >" + shellQuote(stdoutPath.empty() ? (m_dir / ".stdout").string() : stdoutPath) +
               " 2>" + shellQuote((m_dir / ".stderr").string());
    return outcome(std::system(command.c_str()));
  }

  /// Runs the executable with `shell`, the command line after its name as a shell reads it
  /// (so that it can redirect stdin); `timeout` ends a hang as a failure, not a stuck test.
  Result runShell(const std::string& shell) {
    const std::string command = "cd " + shellQuote(m_dir.string()) + " && timeout 60 " +
                                shellQuote(executablePath()) + " " + shell + " >.stdout 2>.stderr";
    const auto start = std::chrono::steady_clock::now();
    Result r = outcome(std::system(command.c_str()));
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
  }

  /// runShell() with the redirections `shell` itself gives (`>&-`, `2>.stderr`): nothing is
  /// added, so what it does not redirect is the test's own descriptor. `env`: VAR=VALUE ...
  Result runRedirected(const std::string& shell, const std::string& env = {}) {
    const std::string command = "cd " + shellQuote(m_dir.string()) + " && " + env + " timeout 60 " +
                                shellQuote(executablePath()) + " " + shell;
    return outcome(std::system(command.c_str()));
  }

  /// Writes `text` to `name` in the test directory.
  void write(const std::string& name, const std::string& text) {
    std::ofstream(m_dir / name, std::ios::binary) << text;
  }

  /// Starts the executable in the test directory without a shell, with every signal at its
  /// default action (a shell running a background job ignores SIGINT), output to files.
  /// Returns its pid; wait() reaps it.
  pid_t spawn(const std::vector<std::string>& args) {
    const std::string exe = executablePath();
    const std::string out = (m_dir / ".stdout").string();
    const std::string err = (m_dir / ".stderr").string();
    const std::string dir = m_dir.string();
    std::vector<std::string> argvStrings{exe};
    argvStrings.insert(argvStrings.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argvStrings) argv.push_back(a.data());
    argv.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {
      for (int sig = 1; sig < NSIG; ++sig) std::signal(sig, SIG_DFL);
      sigset_t none;
      sigemptyset(&none);
      ::sigprocmask(SIG_SETMASK, &none, nullptr);
      const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (o < 0 || e < 0 || ::dup2(o, 1) < 0 || ::dup2(e, 2) < 0 || ::chdir(dir.c_str()) != 0)
        ::_exit(127);
      ::execv(exe.c_str(), argv.data());
      ::_exit(127);
    }
    return pid;
  }

  /// Reaps `pid`; returns the raw wait status.
  static int wait(pid_t pid) {
    int raw = 0;
    while (::waitpid(pid, &raw, 0) < 0 && errno == EINTR) {
    }
    return raw;
  }

  /// Expects exit status 2 and one line on stderr that contains every `parts`.
  void expectBadInput(const Result& r, const std::vector<std::string>& parts) {
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_EQ(r.out, "");
    const auto errLines = lines(r.err);
    ASSERT_FALSE(errLines.empty());
    EXPECT_EQ(errLines[0].rfind("throttlelab: ", 0), 0u) << r.err;
    for (const auto& p : parts) EXPECT_TRUE(contains(errLines[0], p)) << p << " not in: " << r.err;
  }

  /// The result of a run that `std::system` returned `raw` for, its outputs read and removed.
  Result outcome(int raw) {
    Result r;
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    r.out = readFile(m_dir / ".stdout");
    r.err = readFile(m_dir / ".stderr");
    fs::remove(m_dir / ".stdout");
    fs::remove(m_dir / ".stderr");
    return r;
  }

  /// Files in the test directory, to prove that nothing (like a temporary file) was left.
  std::set<std::string> filesHere() const {
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(m_dir)) names.insert(e.path().filename().string());
    return names;
  }
};

}  // namespace throttlelab::cli::test
