// SPDX-License-Identifier: GPL-3.0-or-later
// --explain PID@SECONDS against the run's own trace, and the run's timeline in its CSVs.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "executable_fixture.h"

using namespace throttlelab::cli::test;

namespace {

/// `  NAME = VALUE ...` lines of the breakdown: the first integer after the name.
std::map<std::string, long long> explainedValues(const std::string& text) {
  std::map<std::string, long long> v;
  const std::regex re(R"(^\s+([a-z_]+) = (-?\d+))");
  for (const auto& l : lines(text)) {
    std::smatch m;
    if (std::regex_search(l, m, re) && !v.contains(m[1])) v[m[1]] = std::stoll(m[2]);
  }
  return v;
}

struct TraceLine {
  int pid = 0;
  double timeS = 0;
  std::map<std::string, long long> fields;
};

/// The balance_dirty_pages lines of a trace file, their header's pid and time.
std::vector<TraceLine> balanceLines(const std::string& text) {
  std::vector<TraceLine> out;
  const std::regex head(R"(-(\d+)\s+\[\d+\][^0-9]*\s([0-9.]+): balance_dirty_pages:)");
  const std::regex field(R"(([a-z_]+)=(-?\d+))");
  for (const auto& l : lines(text)) {
    std::smatch m;
    if (!std::regex_search(l, m, head)) continue;
    TraceLine t;
    t.pid = std::stoi(m[1]);
    t.timeS = std::stod(m[2]);
    for (auto it = std::sregex_iterator(l.begin(), l.end(), field); it != std::sregex_iterator();
         ++it)
      t.fields[(*it)[1]] = std::stoll((*it)[2]);
    out.push_back(t);
  }
  return out;
}

class Explain : public Executable {};

// The breakdown is made of the numbers of the traced record: for two IO-less policies, three
// moments and two tasks each, the six values the record and the breakdown share are equal.
TEST_F(Explain, EqualsTheBalanceDirtyPagesRecordOfThatMoment) {
  for (const std::string policy : {"ioless", "ioless-3.2"}) {
    const Result first = run({"--headless", "--scenario", "default", "--policy", policy,
                              "--duration", "40", "--trace-out", "trace.txt"});
    ASSERT_EQ(first.status, 0) << first.err;
    const auto records = balanceLines(readFile(m_dir / "trace.txt"));
    ASSERT_FALSE(records.empty()) << policy;
    std::vector<int> pids;
    for (const auto& r : records)
      if (std::find(pids.begin(), pids.end(), r.pid) == pids.end()) pids.push_back(r.pid);
    ASSERT_GE(pids.size(), 2u);
    // The last pid to appear is the real-time writer that joins at 30 s: explain it too.
    for (const int pid : {pids.front(), pids.back()}) {
      for (const double t : {12.34, 31.0, 39.9}) {
        const TraceLine* want = nullptr;
        for (const auto& r : records)
          if (r.pid == pid && r.timeS <= t) want = &r;
        if (!want) continue;
        const std::string at = std::to_string(pid) + "@" + std::to_string(t);
        const Result r = run({"--headless", "--scenario", "default", "--policy", policy,
                              "--duration", "40", "--explain", at});
        ASSERT_EQ(r.status, 0) << at << ": " << r.err;
        EXPECT_TRUE(contains(r.out, "docs/model.md#position-control")) << r.out;
        const auto got = explainedValues(r.out);
        for (const std::string key :
             {"pause", "task_ratelimit", "dirty_ratelimit", "setpoint", "limit", "dirty"}) {
          ASSERT_TRUE(got.contains(key)) << policy << " " << at << " lacks " << key << "\n"
                                         << r.out;
          EXPECT_EQ(got.at(key), want->fields.at(key)) << policy << " " << at << " " << key << "\n"
                                                       << r.out;
        }
      }
    }
  }
}

// The IO-ful policies have no such record: the breakdown is the loop as it ran, a threshold
// check and then writing back or sleeping, and the whole call's delay.
TEST_F(Explain, ShowsTheLoopOfTheIoFulPolicies) {
  for (const std::string policy : {"legacy-2.6.0", "perbdi-2.6.24"}) {
    const Result first = run({"--headless", "--scenario", "ten-dd", "--policy", policy,
                              "--duration", "20", "--task-csv", "tasks.csv"});
    ASSERT_EQ(first.status, 0) << first.err;
    const auto rows = csvRows(readFile(m_dir / "tasks.csv"));
    ASSERT_GE(rows.size(), 2u);
    const auto header = split(rows[0]);
    const auto pidColumn = std::find(header.begin(), header.end(), "pid") - header.begin();
    const std::string pid = split(rows[1])[static_cast<std::size_t>(pidColumn)];
    const Result r = run({"--headless", "--scenario", "ten-dd", "--policy", policy, "--duration",
                          "20", "--explain", pid + "@19"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "balance_dirty_pages() loop")) << r.out;
    EXPECT_TRUE(contains(r.out, ": over, throttle")) << r.out;
    EXPECT_TRUE(contains(r.out, "writeback_inodes()") || contains(r.out, "io_schedule_timeout()") ||
                contains(r.out, "congestion_wait()"))
        << r.out;
    // The call that was going at 19 s says how long it has taken so far; a finished one, all.
    const std::regex delay(R"(delay( so far)? = ([0-9.]+) ms)");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.out, m, delay)) << r.out;
    EXPECT_GT(std::stod(m[2]), 0) << r.out;
  }
}

// A task that has no throttle call (the real-time writer, whose bonus keeps dirty under its
// freerun) is named with its own pid, the moment asked about and the policy, and why.
TEST_F(Explain, ATaskWithoutAThrottleCallSaysWhy) {
  const Result r = run({"--headless", "--scenario", "default", "--explain", "1003@35"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("rt-dd (pid 1003) at 35.000 s under ioless, real-time", 0), 0u) << r.out;
  EXPECT_TRUE(contains(r.out, "at or below freerun")) << r.out;
  EXPECT_FALSE(contains(r.out, "(pid 0)")) << r.out;
}

TEST_F(Explain, BadRequestsAreRefusedWithExitStatus2) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"1234", "PID@SECONDS"},
      {"x@3", "not a pid"},
      {"0@3", "not a pid"},
      {"1@soon", "not a time"},
      {"1@-2", "not a time"},
      {"1@500", "after the end of the run"},
      {"99999@5", "no task has pid 99999"},
  };
  for (const auto& [arg, message] : cases) {
    const Result r =
        run({"--headless", "--scenario", "ten-dd", "--duration", "10", "--explain", arg});
    EXPECT_EQ(r.status, 2) << arg << ": " << r.out;
    EXPECT_TRUE(contains(r.err, message)) << arg << ": " << r.err;
  }
  const Result r = run({"--scenario", "ten-dd", "--explain", "1@2"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "--headless")) << r.err;
}

// The default scenario's writers that join at 15 s and 30 s are events of the run: both CSVs
// carry them as `# event:` header lines, before the column names.
TEST_F(Explain, CsvsCarryTheRunsEventsInTheirHeader) {
  const Result r = run({"--headless", "--scenario", "default", "--duration", "40", "--csv", "s.csv",
                        "--task-csv", "t.csv"});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* file : {"s.csv", "t.csv"}) {
    const auto all = lines(readFile(m_dir / file));
    std::vector<double> times;
    bool headerSeen = false;
    for (const auto& l : all) {
      if (l.rfind("# event: ", 0) == 0) {
        EXPECT_FALSE(headerSeen) << file << ": an event after the column names: " << l;
        const std::string rest = l.substr(9);
        const auto space = rest.find(' ');
        ASSERT_NE(space, std::string::npos) << l;
        const std::string t = rest.substr(0, space);
        ASSERT_TRUE(isNumber(t)) << l;
        EXPECT_EQ(t.size() - t.find('.'), 4u) << "three decimals: " << l;
        times.push_back(std::stod(t));
        EXPECT_TRUE(contains(rest, "start")) << l;
      } else if (l.rfind("#", 0) != 0) {
        headerSeen = true;
      }
    }
    auto near = [&](double want) {
      return std::any_of(times.begin(), times.end(),
                         [&](double t) { return t >= want && t < want + 0.01; });
    };
    EXPECT_TRUE(near(0)) << file;
    EXPECT_TRUE(near(15)) << file;
    EXPECT_TRUE(near(30)) << file;
  }
}

}  // namespace
