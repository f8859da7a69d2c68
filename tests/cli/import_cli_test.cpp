// SPDX-License-Identifier: GPL-3.0-or-later
// `throttlelab --import-trace` against input that is a trace only in part, or not at all, as
// a user sees it: the exit status, the import's summary, and the CSVs it writes.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "executable_fixture.h"

namespace fs = std::filesystem;
using namespace throttlelab::cli::test;

namespace {

const fs::path kFixture =
    fs::path(THROTTLELAB_SOURCE_DIR) / "tests" / "data" / "kernel-6.18" / "ftrace-10-dd.txt";

/// The CSV's data rows (after the `#` provenance and the header).
std::vector<std::string> dataRows(const std::string& csv) {
  std::vector<std::string> rows;
  std::istringstream in(csv);
  bool header = false;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    if (!header) {
      header = true;
      continue;
    }
    rows.push_back(line);
  }
  return rows;
}

std::string column(const std::string& row, std::size_t index) {
  std::istringstream in(row);
  std::string field;
  for (std::size_t i = 0; i <= index && std::getline(in, field, ','); ++i) {
  }
  return field;
}

using Outcome = Result;

/// Each test runs the executable in a directory of its own.
class ImportCli : public Executable {
 protected:
  ImportCli() : Executable("throttlelab-import-cli") {}

  /// Exit status 2, nothing on stdout, and one message naming the problem.
  static void expectRefused(const Outcome& r, const std::vector<std::string>& parts) {
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err.rfind("throttlelab: ", 0), 0u) << r.err;
    for (const auto& p : parts) EXPECT_TRUE(contains(r.err, p)) << p << " not in: " << r.err;
  }
};

TEST_F(ImportCli, ValuesOutOfRangeAreMalformedWithTheirLineAndNeverReachTheCsv) {
  std::string text = readFile(kFixture);
  // Line 13 is the first event, a global_dirty_state; 14 a balance_dirty_pages.
  const auto replaceOnLine = [&](int line, const std::string& from, const std::string& to) {
    std::size_t pos = 0;
    for (int i = 1; i < line; ++i) pos = text.find('\n', pos) + 1;
    const std::size_t at = text.find(from, pos);
    ASSERT_LT(at, text.find('\n', pos));
    text.replace(at, from.size(), to);
  };
  replaceOnLine(13, " dirty=8724 ", " dirty=18446744073709551615 ");
  replaceOnLine(14, " dirty=12328 ", " dirty=-5 ");
  write("t.txt", text);
  const Outcome r = runShell("--import-trace t.txt --csv out.csv");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "2 malformed (2 with a value out of range)")) << r.out;
  EXPECT_TRUE(contains(r.out, "line 13: dirty=18446744073709551615 is out of range")) << r.out;
  EXPECT_TRUE(contains(r.out, "line 14: dirty=-5 is out of range: a page count")) << r.out;
  const auto rows = dataRows(readFile(m_dir / "out.csv"));
  ASSERT_FALSE(rows.empty());
  for (const auto& row : rows) EXPECT_EQ(column(row, 1).find('-'), std::string::npos) << row;
}

TEST_F(ImportCli, ConcatenatedCopiesAreSegmentsOnOneTimeAxis) {
  const std::string one = readFile(kFixture);
  std::string text;
  for (int i = 0; i < 512; ++i) text += one;
  write("joined.txt", text);
  const Outcome r = runShell("--import-trace joined.txt --csv out.csv");
  ASSERT_EQ(r.status, 0) << r.err;
  // The old summary: "over 0.716 s", 8 rows, nothing said.
  EXPECT_TRUE(contains(r.out, "read as 512 segments")) << r.out;
  EXPECT_FALSE(contains(r.out, "over 0.716 s")) << r.out;
  const auto rows = dataRows(readFile(m_dir / "out.csv"));
  EXPECT_GT(rows.size(), 512u * 8u);
  for (std::size_t i = 1; i < rows.size(); ++i)
    ASSERT_LT(std::stod(column(rows[i - 1], 0)), std::stod(column(rows[i], 0))) << rows[i];
}

TEST_F(ImportCli, DevZeroIsRefusedPromptly) {
  const Outcome file = runShell("--import-trace /dev/zero --csv out.csv");
  expectRefused(file, {"/dev/zero is not a kernel trace", "binary data"});
  const Outcome piped = runShell("--import-trace - --csv out.csv < /dev/zero");
  expectRefused(piped, {"standard input is not a kernel trace", "binary data"});
  EXPECT_FALSE(fs::exists(m_dir / "out.csv"));
  // The old code never returned: `timeout` ended it after 60 s, with status 124.
  EXPECT_LT(file.seconds + piped.seconds, 20);
}

TEST_F(ImportCli, ABinaryTraceIsNamedWithTheCommandThatMakesText) {
  write("trace.dat", std::string("\x17\x08\x44tracing6\0\0\0\0", 15) + std::string(4096, '\0'));
  expectRefused(runShell("--import-trace trace.dat"),
                {"trace.dat is not a kernel trace but trace-cmd's binary trace.dat",
                 "trace-cmd report -i trace.dat"});
}

TEST_F(ImportCli, EventsHoursApartWriteRowsOnlyWhereThereIsData) {
  // 40 events 3,599 s apart: the old CSV had a row for every 0.1 s of the 39 hours, 299 MB.
  std::istringstream in(readFile(kFixture));
  std::string text;
  int n = 0;
  for (std::string line; std::getline(in, line) && n < 40;) {
    const std::size_t at = line.find("balance_dirty_pages:");
    if (at == std::string::npos) continue;
    const std::size_t stamp = line.rfind(' ', at - 2) + 1;
    text += line.substr(0, stamp) + std::to_string(1000 + 3599 * n) +
            ".000000: " + line.substr(at) + "\n";
    ++n;
  }
  write("sparse.txt", text);
  const Outcome r = runShell("--import-trace sparse.txt --csv out.csv --task-csv tasks.csv");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "39 gaps without events longer than 1 s")) << r.out;
  EXPECT_EQ(dataRows(readFile(m_dir / "out.csv")).size(), 40u);
  EXPECT_LT(fs::file_size(m_dir / "out.csv"), 100'000u);
}

TEST_F(ImportCli, CarriageReturnLineEndsAreLines) {
  std::string text = readFile(kFixture);
  std::replace(text.begin(), text.end(), '\n', '\r');
  write("mac.txt", text);
  const Outcome r = runShell("--import-trace mac.txt");
  ASSERT_EQ(r.status, 0) << r.err;  // the old code: "its 0 lines are headers or blank"
  EXPECT_TRUE(contains(r.out, "1,997 lines: 1,985 writeback events")) << r.out;
  EXPECT_TRUE(contains(r.out, "carriage return alone")) << r.out;
}

TEST_F(ImportCli, SimulateOfATraceBeyondTheSimulatorsLimitsIsBadInput) {
  // thresh of 2^40 pages: the derived machine would need 16 PiB of memory.
  std::string text = readFile(kFixture);
  for (std::size_t at = 0; (at = text.find(" thresh=16384 ", at)) != std::string::npos;)
    text.replace(at, 14, " thresh=1099511627776 ");
  write("huge.txt", text);
  const Outcome r = runShell("--import-trace huge.txt --simulate");
  EXPECT_EQ(r.status, 2) << r.err;  // the old code: 1, an internal error by --help
  EXPECT_TRUE(contains(r.err,
                       "--simulate: huge.txt describes a machine the simulator cannot "
                       "run: trace: machine.memoryMiB"))
      << r.err;
  EXPECT_TRUE(contains(r.err, "four times the traced threshold")) << r.err;
}

TEST_F(ImportCli, TraceCgroupKeepsOneCgroupsWritersAndRefusesAnInoNotTraced) {
  // A 3 GiB machine: the writer outside the 1 GiB cgroup passes the global freerun too, so
  // both cgroups' writers are throttled and traced.
  const Outcome sim = runShell(
      "--headless --scenario container-writer --duration 6 --set machine.memoryMiB=3072 "
      "--trace-out t.txt");
  ASSERT_EQ(sim.status, 0) << sim.err;
  const std::string trace = readFile(m_dir / "t.txt");
  ASSERT_TRUE(contains(trace, "cgroup_ino=4096")) << "the box's records";
  ASSERT_TRUE(contains(trace, "dd-host") && contains(trace, "cgroup_ino=1")) << "the host's";

  const auto writers = [&](const std::string& taskCsv) {
    std::set<std::string> names;
    for (const auto& row : dataRows(readFile(m_dir / taskCsv))) names.insert(column(row, 1));
    return names;
  };
  Outcome r =
      runShell("--import-trace t.txt --trace-cgroup 4096 --task-csv box.csv --csv rows.csv");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "Only cgroup_ino 4096")) << r.out;
  EXPECT_EQ(writers("box.csv"), std::set<std::string>{"dd-box"});
  EXPECT_TRUE(contains(readFile(m_dir / "box.csv"), "# cgroup_ino: 4096\n"));
  EXPECT_TRUE(contains(readFile(m_dir / "rows.csv"), "# cgroup_ino: 4096\n"));
  r = runShell("--import-trace t.txt --trace-cgroup 1 --task-csv host.csv");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(writers("host.csv"), std::set<std::string>{"dd-host"});
  r = runShell("--import-trace t.txt --task-csv all.csv");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(writers("all.csv"), (std::set<std::string>{"dd-box", "dd-host"}));

  r = runShell("--import-trace t.txt --trace-cgroup 77 --csv none.csv");
  expectRefused(r, {"t.txt", "cgroup_ino=77", "1 (", "4096 ("});
  EXPECT_FALSE(fs::exists(m_dir / "none.csv"));
  expectRefused(runShell("--import-trace t.txt --trace-cgroup box"), {"--trace-cgroup", "'box'"});
}

}  // namespace
