// SPDX-License-Identifier: GPL-3.0-or-later
// A branched headless run (--branch-at, --branch-set, --branch-csv, --report): the branch's
// rows up to the branch time are the run's, after it they follow the changed scenario; the
// run itself is what it is without a branch; the report carries --compare's metrics; bad
// input is refused with status 2 before anything is written.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "executable_fixture.h"
#include "throttlelab/engine/compare.h"
#include "throttlelab/engine/output.h"

namespace te = throttlelab::engine;
using namespace throttlelab::cli::test;

namespace {

std::size_t columnOf(const std::string& name) {
  const auto columns = te::sampleCsvColumns(1);
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i] == name) return i;
  ADD_FAILURE() << "no column " << name;
  return 0;
}

double timeOf(const std::string& row) {
  return std::strtod(split(row).at(0).c_str(), nullptr);
}

const std::vector<std::string> kBranch{
    "--headless",       "--scenario", "ten-dd",       "--duration",       "20",
    "--branch-at",      "8.05",       "--branch-set", "vm.dirty_ratio=5", "--branch-set",
    "tasks[0].count=4", "--csv",      "A.csv",        "--branch-csv",     "B.csv"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

}  // namespace

TEST_F(Executable, BranchRowsAreTheRunsUntilTheBranchThenFollowTheChange) {
  const Result r = run(with(kBranch, {"--report", "cmp.md"}));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto a = csvRows(readFile(m_dir / "A.csv"));
  const auto b = csvRows(readFile(m_dir / "B.csv"));
  ASSERT_GT(a.size(), 150U);
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(a[0], b[0]);  // the header

  const std::size_t thresh = columnOf("thresh_pages");
  const std::size_t dirty = columnOf("dirty_pages");
  std::size_t before = 0, after = 0, lowerThresh = 0, differentDirty = 0;
  for (std::size_t i = 1; i < a.size(); ++i) {
    const double t = timeOf(a[i]);
    ASSERT_EQ(t, timeOf(b[i]));
    if (t <= 8.05) {
      EXPECT_EQ(a[i], b[i]) << "row at " << t << " s";
      ++before;
    } else {
      ++after;
      const auto ra = split(a[i]);
      const auto rb = split(b[i]);
      if (std::stod(rb[thresh]) < std::stod(ra[thresh])) ++lowerThresh;
      if (rb[dirty] != ra[dirty]) ++differentDirty;
    }
  }
  EXPECT_EQ(before, 80U);
  EXPECT_GT(after, 100U);
  // dirty_ratio 5 instead of 20 lowers thresh at once and for good; the dirty level follows.
  EXPECT_EQ(lowerThresh, after);
  EXPECT_GT(differentDirty, after * 9 / 10);

  // The branch's header says where it branched and what it changed.
  const std::string bText = readFile(m_dir / "B.csv");
  EXPECT_TRUE(contains(bText, "# branch_of: ten-dd\n"));
  EXPECT_TRUE(contains(bText, "# branch_at_s: 8.05\n"));
  EXPECT_TRUE(contains(bText, "# branch_set: vm.dirty_ratio=5\n"));
  EXPECT_TRUE(contains(bText, "# branch_set: tasks[0].count=4\n"));

  // The report compares the two with every metric of --compare.
  const std::string report = readFile(m_dir / "cmp.md");
  EXPECT_TRUE(contains(report, "original")) << report;
  EXPECT_TRUE(contains(report, "branch (change)")) << report;
  EXPECT_TRUE(contains(report, "8.05 s")) << report;
  for (const auto& m : te::comparisonMetrics())
    EXPECT_TRUE(contains(report, "`" + std::string(m.key) + "`")) << m.key;
}

TEST_F(Executable, BranchingLeavesTheRunItselfAsItIsWithoutABranch) {
  ASSERT_EQ(run(kBranch).status, 0);
  const Result plain =
      run({"--headless", "--scenario", "ten-dd", "--duration", "20", "--csv", "plain.csv"});
  ASSERT_EQ(plain.status, 0) << plain.err;
  EXPECT_EQ(readFile(m_dir / "A.csv"), readFile(m_dir / "plain.csv"));
}

TEST_F(Executable, BranchCanChangeThePolicy) {
  const Result r =
      run({"--headless", "--scenario", "one-dd", "--duration", "10", "--branch-at", "0.05",
           "--branch-set", "policy=\"none\"", "--branch-csv", "B.csv", "--csv", "A.csv"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(csvRows(readFile(m_dir / "A.csv")), csvRows(readFile(m_dir / "B.csv")));
  // The header names both policies the branch ran under, not the last alone.
  EXPECT_TRUE(contains(readFile(m_dir / "B.csv"), "# policy: ioless → none\n"));
  EXPECT_TRUE(contains(readFile(m_dir / "A.csv"), "# policy: ioless\n"));
}

// Each row of a branch that changed the policy says which policy it ran under, as the window's
// CSV does; under one without position control that control's fields are empty, not the
// numbers the engine left behind (a frozen dirty_ratelimit, a pos_ratio nothing used).
TEST_F(Executable, ABranchThatChangesThePolicyNamesItInEveryRow) {
  const Result r =
      run({"--headless", "--scenario", "ten-dd", "--duration", "4", "--branch-at", "2",
           "--branch-set", "policy=perbdi-2.6.24", "--branch-csv", "B.csv", "--csv", "A.csv"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto rows = csvRows(readFile(m_dir / "B.csv"));
  ASSERT_GT(rows.size(), 30u);
  const auto header = split(rows[0]);
  ASSERT_EQ(header.back(), "policy");
  const auto column = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  const std::vector<std::string> position{"pos_ratio", "task_ratelimit_kbps", "setpoint_pages",
                                          "freerun_pages", "dirty_ratelimit_kbps"};
  int before = 0, after = 0;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto row = split(rows[i]);
    ASSERT_EQ(row.size(), header.size()) << rows[i];
    const double t = std::strtod(row[0].c_str(), nullptr);
    const bool ioless = t <= 2.0;
    EXPECT_EQ(row.back(), ioless ? "ioless" : "perbdi-2.6.24") << rows[i];
    for (const auto& name : position)
      EXPECT_EQ(row[column(name)].empty(), !ioless) << name << " at " << t;
    (ioless ? before : after)++;
  }
  EXPECT_EQ(before, 20);
  EXPECT_EQ(after, 20);
  // The run itself never changed policy: no column, numbers in every row, as before.
  const auto a = csvRows(readFile(m_dir / "A.csv"));
  EXPECT_NE(split(a[0]).back(), "policy");
  EXPECT_FALSE(split(a.back())[column("pos_ratio")].empty());
}

TEST_F(Executable, BranchReportAsJson) {
  const Result r = run(with(kBranch, {"--report", "cmp.json"}));
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string json = readFile(m_dir / "cmp.json");
  EXPECT_TRUE(contains(json, "\"note\"")) << json;
  EXPECT_TRUE(contains(json, "\"original\"")) << json;
  EXPECT_TRUE(contains(json, "\"branch\"")) << json;
}

TEST_F(Executable, RejectsABranchAtOrAfterTheEnd) {
  auto args = kBranch;
  args[6] = "20";
  expectBadInput(run(args), {"--branch-at", "before the end"});
  EXPECT_FALSE(fs::exists(m_dir / "A.csv"));
  EXPECT_FALSE(fs::exists(m_dir / "B.csv"));
}

TEST_F(Executable, RejectsABadBranchTime) {
  auto args = kBranch;
  args[6] = "soon";
  expectBadInput(run(args), {"--branch-at", "soon"});
  args[6] = "-3";
  expectBadInput(run(args), {"--branch-at", "-3"});
}

TEST_F(Executable, RejectsABadBranchChangeNamingTheKey) {
  expectBadInput(run(with(kBranch, {"--branch-set", "vm.dirty_ratio=120"})),
                 {"--branch-set", "vm.dirty_ratio", "120"});
  expectBadInput(run(with(kBranch, {"--branch-set", "nonsense"})), {"--branch-set", "KEY=VALUE"});
  expectBadInput(run(with(kBranch, {"--branch-set", "seed=7"})), {"--branch-set", "seed"});
  expectBadInput(run(with(kBranch, {"--branch-set", "durationS=5"})),
                 {"--branch-set", "durationS", "before --branch-at"});
  expectBadInput(run(with(kBranch, {"--branch-set", "machine.hz=100"})), {"--branch-set", "hz"});
  EXPECT_FALSE(fs::exists(m_dir / "A.csv"));
  EXPECT_FALSE(fs::exists(m_dir / "B.csv"));
}

TEST_F(Executable, RejectsBranchOptionsOutOfPlace) {
  expectBadInput(run({"--headless", "--scenario", "ten-dd", "--branch-set", "vm.dirty_ratio=5"}),
                 {"--branch-set", "--branch-at"});
  expectBadInput(run({"--headless", "--scenario", "ten-dd", "--branch-csv", "B.csv"}),
                 {"--branch-csv", "--branch-at"});
  expectBadInput(
      run({"--headless", "--scenario", "ten-dd", "--branch-at", "3", "--branch-csv", "B.csv"}),
      {"--branch-at", "--branch-set"});
  expectBadInput(run({"--headless", "--scenario", "ten-dd", "--branch-at", "3", "--branch-set",
                      "vm.dirty_ratio=5"}),
                 {"--branch-at", "--branch-csv"});
  expectBadInput(run({"--scenario", "ten-dd", "--branch-at", "3", "--branch-set",
                      "vm.dirty_ratio=5", "--branch-csv", "B.csv"}),
                 {"--branch-at", "--headless"});
  expectBadInput(run({"--headless", "--scenario", "ten-dd", "--branch-at", "3", "--branch-set",
                      "vm.dirty_ratio=5", "--report", "cmp.md", "--compare", "ioless,none"}),
                 {"--compare", "--branch-at"});
  expectBadInput(run(with(kBranch, {"--branch-csv", "C.csv"})), {"--branch-csv", "more than once"});
  expectBadInput(
      run({"--headless", "--scenario", "ten-dd", "--duration", "20", "--branch-at", "3",
           "--branch-set", "vm.dirty_ratio=5", "--csv", "same.csv", "--branch-csv", "same.csv"}),
      {"same.csv"});
}

TEST_F(Executable, RejectsABranchInTheWindowWithoutALaterRunForOrWithHeadlessOutputs) {
  // In the window the run goes to --run-for and branches at --branch-at: it must be later.
  const std::vector<std::string> branch{"--scenario", "ten-dd",       "--branch-at",
                                        "3",          "--branch-set", "vm.dirty_ratio=5"};
  expectBadInput(run(with(branch, {"--export-png", "x.png"})), {"--branch-at", "--run-for"});
  expectBadInput(run(with(branch, {"--run-for", "2", "--export-png", "x.png"})),
                 {"--branch-at", "--run-for"});
  expectBadInput(run(with(branch, {"--run-for", "5", "--report", "cmp.md"})),
                 {"--report", "--headless"});
  EXPECT_FALSE(fs::exists(m_dir / "x.png"));
}

// The run's own trace is the same with a branch as without: block and jbd2 records before the
// branch time were lost (the run's sink split in two passed on writeback records only).
TEST_F(Executable, ABranchedRunsTraceIsTheRunsTraceWithoutABranch) {
  const std::vector<std::string> plain{"--headless", "--scenario", "ten-dd",
                                       "--duration", "20",         "--trace-out"};
  const Result alone = run(with(plain, {"alone.txt"}));
  ASSERT_EQ(alone.status, 0) << alone.err;
  const Result branched = run(with(plain, {"branched.txt", "--branch-at", "10", "--branch-set",
                                           "vm.dirty_ratio=5", "--branch-csv", "B.csv"}));
  ASSERT_EQ(branched.status, 0) << branched.err;
  const std::string expected = readFile(m_dir / "alone.txt");
  ASSERT_TRUE(contains(expected, "block_rq_")) << "the scenario traces no block requests";
  EXPECT_EQ(readFile(m_dir / "branched.txt"), expected);
}
