// SPDX-License-Identifier: GPL-3.0-or-later
// The output writers: CSV columns and values, ftrace lines checked against a real kernel
// trace, provenance and the summary table.
#include <gtest/gtest.h>

#include <fstream>
#include <locale>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "throttlelab/engine/output.h"

namespace te = throttlelab::engine;

namespace {

std::vector<std::string> split(const std::string& line, char sep = ',') {
  std::vector<std::string> out;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, sep)) out.push_back(field);
  if (!line.empty() && line.back() == sep) out.emplace_back();
  return out;
}

std::string chomp(std::string s) {
  EXPECT_FALSE(s.empty());
  EXPECT_EQ(s.back(), '\n');
  if (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

std::string sampleRow(const te::Sample& s, std::size_t devices = 1) {
  std::ostringstream out;
  te::writeSampleCsvRow(out, s, devices);
  return chomp(out.str());
}

/// The row as column name -> text.
std::map<std::string, std::string> sampleRowByName(const te::Sample& s, std::size_t devices) {
  const auto names = te::sampleCsvColumns(devices);
  const auto values = split(sampleRow(s, devices));
  EXPECT_EQ(names.size(), values.size());
  std::map<std::string, std::string> row;
  for (std::size_t i = 0; i < names.size() && i < values.size(); ++i) row[names[i]] = values[i];
  return row;
}

std::string formatOne(double v) {
  te::Sample s;
  s.pauseMsMax = v;
  return sampleRowByName(s, 1).at("pause_ms_max");
}

std::vector<std::string> readLines(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << path;
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

const std::string kExcerpt =
    std::string(THROTTLELAB_SOURCE_DIR) + "/tests/data/real-trace-excerpt.txt";

std::uint64_t toU64(const std::string& s) {
  return std::stoull(s);
}
std::int64_t toI64(const std::string& s) {
  return std::stoll(s);
}

}  // namespace

// ---------------------------------------------------------------------------------------------

/// The sample CSV's columns in their documented order; `*` marks a device's column, which every
/// further device repeats with a `devN_` prefix.
const std::vector<std::string> kSampleColumns{"time_s",
                                              "dirty_pages",
                                              "writeback_pages",
                                              "bg_thresh_pages",
                                              "thresh_pages",
                                              "freerun_pages",
                                              "setpoint_pages",
                                              "limit_pages",
                                              "*write_bw_kbps",
                                              "*avg_write_bw_kbps",
                                              "*dirty_rate_kbps",
                                              "*dirty_ratelimit_kbps",
                                              "*balanced_dirty_ratelimit_kbps",
                                              "*device_write_kbps",
                                              "*avg_request_kib",
                                              "free_pages",
                                              "throttled_tasks",
                                              "pause_ms_max",
                                              "dirty_limit_pages",
                                              "avail_pages",
                                              "total_pages",
                                              "file_pages",
                                              "anon_pages",
                                              "wmark_min_pages",
                                              "wmark_low_pages",
                                              "wmark_high_pages",
                                              "dirtied_pages",
                                              "written_pages",
                                              "*task_ratelimit_kbps",
                                              "*pos_ratio",
                                              "*wb_dirty_pages",
                                              "*wb_writeback_pages",
                                              "*wb_thresh_pages",
                                              "*wb_setpoint_pages",
                                              "*seeks_per_s",
                                              "*util_pct",
                                              "*queue_depth",
                                              "*dirty_exceeded",
                                              "tasks",
                                              "runnable_tasks",
                                              "io_wait_tasks",
                                              "pauses",
                                              "pause_ms_min",
                                              "pause_ms_p50",
                                              "max_pause_ms",
                                              "system_pct",
                                              "user_pct",
                                              "swap_total_pages",
                                              "swap_used_pages",
                                              "pgscan_kswapd_per_s",
                                              "pgscan_direct_per_s",
                                              "pgsteal_per_s",
                                              "swap_out_kbps",
                                              "swap_in_kbps",
                                              "alloc_stalls",
                                              "alloc_stall_ms_max",
                                              "kswapd_active",
                                              "oom_kills",
                                              "*read_kbps"};

std::vector<std::string> sampleColumnNames(bool deviceOnly) {
  std::vector<std::string> names;
  for (const auto& c : kSampleColumns)
    if (!deviceOnly || c.front() == '*') names.push_back(c.front() == '*' ? c.substr(1) : c);
  return names;
}

TEST(SampleCsv, ColumnsAreTheDocumentedOnesInOrder) {
  const auto expected = sampleColumnNames(false);
  EXPECT_EQ(te::sampleCsvColumns(), expected);
  std::ostringstream header;
  te::writeSampleCsvHeader(header);
  EXPECT_EQ(split(chomp(header.str())), expected);
}

TEST(SampleCsv, EveryFurtherDeviceAddsPrefixedDeviceColumns) {
  const auto one = te::sampleCsvColumns(1);
  const auto three = te::sampleCsvColumns(3);
  const auto deviceColumns = sampleColumnNames(true);
  ASSERT_EQ(deviceColumns.size(), 18u);
  ASSERT_EQ(three.size(), one.size() + 2 * deviceColumns.size());
  EXPECT_TRUE(std::equal(one.begin(), one.end(), three.begin()));
  for (std::size_t k = 1; k <= 2; ++k)
    for (std::size_t i = 0; i < deviceColumns.size(); ++i)
      EXPECT_EQ(three[one.size() + (k - 1) * deviceColumns.size() + i],
                "dev" + std::to_string(k) + "_" + deviceColumns[i]);
  EXPECT_EQ(std::set<std::string>(three.begin(), three.end()).size(), three.size());
}

TEST(SampleCsv, RowHasOneFieldPerColumnWhateverTheSampleHolds) {
  te::Sample s;
  for (std::size_t devices : {1u, 2u, 4u}) {
    for (std::size_t held : {0u, 1u, 3u, 6u}) {
      s.devices.assign(held, te::DeviceSample{.writeBwKBps = 1});
      EXPECT_EQ(split(sampleRow(s, devices)).size(), te::sampleCsvColumns(devices).size())
          << devices << " devices, sample holds " << held;
    }
  }
}

/// A two-device sample with a value of its own in many columns.
te::Sample filledSample() {
  te::Sample s;
  s.time = te::SimTime{te::SimDuration{12'345'600'000}};
  s.dirtyPages = 123;
  s.writebackPages = 45;
  s.limitPages = 99999;
  s.freePages = 7;
  s.throttledTasks = 9;
  s.pauseMsMax = 187.5;
  s.maxPauseMs = 200;
  s.wmarkHighPages = 3000;
  s.systemPct = 13.046;
  s.userPct = 2.5;
  s.swapTotalPages = 262144;
  s.swapUsedPages = 1000;
  s.pgscanKswapdPerS = 12000;
  s.pgscanDirectPerS = 300.5;
  s.pgstealPerS = 6000;
  s.swapOutKBps = 4096;
  s.swapInKBps = 128;
  s.allocStalls = 7;
  s.allocStallMsMax = 123.25;
  s.kswapdActive = true;
  s.oomKills = 3;
  s.devices.resize(2);
  s.devices[0].writeBwKBps = 55664.125;
  s.devices[0].posRatio = 0.98765432;
  s.devices[0].dirtyExceeded = true;
  s.devices[0].queueDepth = 31;
  s.devices[0].reclaimablePages = 640;
  s.devices[0].readKBps = 11;
  s.devices[1].writeBwKBps = 1024;
  s.devices[1].avgRequestKiB = 455;
  s.devices[1].readKBps = 22;
  return s;
}

/// Checks the text of each named column of filledSample()'s row.
void expectCells(const std::vector<std::pair<std::string, std::string>>& cells) {
  const auto row = sampleRowByName(filledSample(), 2);
  for (const auto& [column, text] : cells) EXPECT_EQ(row.at(column), text) << column;
}

TEST(SampleCsv, ValuesLandInTheirColumns) {
  expectCells({{"time_s", "12.346"},
               {"dirty_pages", "123"},
               {"writeback_pages", "45"},
               {"limit_pages", "99999"},
               {"free_pages", "7"},
               {"throttled_tasks", "9"},
               {"pause_ms_max", "187.5"},
               {"max_pause_ms", "200"},
               {"wmark_high_pages", "3000"},
               {"write_bw_kbps", "55664.1"},
               {"pos_ratio", "0.987654"},
               {"dirty_exceeded", "1"},
               {"queue_depth", "31"},
               {"wb_dirty_pages", "640"},
               {"dev1_write_bw_kbps", "1024"},
               {"dev1_avg_request_kib", "455"},
               {"dev1_dirty_exceeded", "0"},
               {"avg_request_kib", "0"}});
}

TEST(SampleCsv, MemoryAndCpuValuesLandInTheirColumns) {
  expectCells({{"system_pct", "13.046"},
               {"user_pct", "2.5"},
               {"swap_total_pages", "262144"},
               {"swap_used_pages", "1000"},
               {"pgscan_kswapd_per_s", "12000"},
               {"pgscan_direct_per_s", "300.5"},
               {"pgsteal_per_s", "6000"},
               {"swap_out_kbps", "4096"},
               {"swap_in_kbps", "128"},
               {"alloc_stalls", "7"},
               {"alloc_stall_ms_max", "123.25"},
               {"kswapd_active", "1"},
               {"oom_kills", "3"},
               {"read_kbps", "11"},
               {"dev1_read_kbps", "22"}});
}

TEST(SampleCsv, NumbersHaveAtMostSixSignificantDigitsAndNoExponent) {
  EXPECT_EQ(formatOne(0), "0");
  EXPECT_EQ(formatOne(0.1), "0.1");
  EXPECT_EQ(formatOne(1234.56789), "1234.57");
  EXPECT_EQ(formatOne(1234567.8), "1234568");
  EXPECT_EQ(formatOne(0.000123456789), "0.000123");
  EXPECT_EQ(formatOne(-2.5), "-2.5");
  EXPECT_EQ(formatOne(1e-9), "0");
  EXPECT_EQ(formatOne(-1e-9), "0");
  EXPECT_EQ(formatOne(999999.7), "1000000");
}

TEST(SampleCsv, TimeHasThreeDecimals) {
  te::Sample s;
  s.time = te::atSeconds(60);
  EXPECT_EQ(sampleRowByName(s, 1).at("time_s"), "60.000");
  s.time = te::SimTime{te::SimDuration{100'000'000}};
  EXPECT_EQ(sampleRowByName(s, 1).at("time_s"), "0.100");
}

TEST(SampleCsv, IgnoresTheStreamLocale) {
  struct CommaDecimal : std::numpunct<char> {
    char do_decimal_point() const override { return ','; }
    char do_thousands_sep() const override { return '.'; }
    std::string do_grouping() const override { return "\3"; }
  };
  std::ostringstream out;
  out.imbue(std::locale(std::locale::classic(), new CommaDecimal));
  te::Sample s;
  s.time = te::SimTime{te::SimDuration{1'500'000'000}};
  s.dirtyPages = 1234567;
  s.pauseMsMax = 0.5;
  te::writeSampleCsvRow(out, s);
  const auto fields = split(chomp(out.str()));
  EXPECT_EQ(fields.at(0), "1.500");
  EXPECT_EQ(fields.at(1), "1234567");
  EXPECT_EQ(fields.size(), te::sampleCsvColumns().size());
}

// ---------------------------------------------------------------------------------------------

TEST(TaskCsv, HeaderIsTheDocumentedColumns) {
  std::ostringstream out;
  te::writeTaskCsvHeader(out);
  EXPECT_EQ(out.str(),
            "time_s,task,pid,sched,dirtied_pages,write_kbps,task_ratelimit_kbps,pause_ms,state,"
            "journal_wait_s,read_wait_s\n");
}

TEST(TaskCsv, RowCarriesSchedWithPriorityAndTheStateName) {
  std::ostringstream out;
  const te::TaskInfo info{
      .index = 3, .pid = 1234, .name = "rt-dd", .sched = te::SchedClass::Fifo, .rtPriority = 50};
  const te::TaskSample sample{.time = te::atSeconds(2.5),
                              .task = 3,
                              .dirtiedPages = 4096,
                              .writeKBps = 5700.25,
                              .taskRatelimitKBps = 6000,
                              .pauseMs = 12,
                              .state = te::TaskState::Paused,
                              .journalWaitS = 1.5,
                              .readWaitS = 0.25};
  te::writeTaskCsvRow(out, sample, info);
  EXPECT_EQ(out.str(), "2.500,rt-dd,1234,fifo:50,4096,5700.25,6000,12,paused,1.5,0.25\n");
}

TEST(TaskCsv, QuotesANameWithACommaAndTruncatesLikeTheKernel) {
  std::ostringstream out;
  const te::TaskInfo info{.pid = 1, .name = "a,b \"c\" and a very long tail"};
  te::writeTaskCsvRow(out, te::TaskSample{.state = te::TaskState::IoWait}, info);
  // TASK_COMM_LEN keeps 15 characters: `a,b "c" and a v`.
  EXPECT_EQ(out.str(), "0.000,\"a,b \"\"c\"\" and a v\",1,other,0,0,0,0,io_wait,0,0\n");
}

TEST(TaskState, NamesAreLowercaseAndDistinct) {
  std::set<std::string> names;
  for (const auto s : {te::TaskState::NotStarted, te::TaskState::Running, te::TaskState::Runnable,
                       te::TaskState::Paused, te::TaskState::IoWait, te::TaskState::Thinking,
                       te::TaskState::Exited}) {
    const std::string name(te::toString(s));
    EXPECT_TRUE(std::regex_match(name, std::regex("[a-z_]+"))) << name;
    names.insert(name);
  }
  EXPECT_EQ(names.size(), 7u);
}

TEST(Comm, KeepsFifteenCharactersAndATerminator) {
  const te::Comm c = te::makeComm("0123456789abcdefghij");
  EXPECT_EQ(std::string(c.data()), "0123456789abcde");
  EXPECT_EQ(std::string(te::makeComm("dd").data()), "dd");
}

// ---------------------------------------------------------------------------------------------

TEST(Provenance, WritesOneCommentLinePerFieldAndTheScenarioOnOneLine) {
  std::ostringstream out;
  te::writeCsvProvenance(out,
                         {.scenarioName = "ten\ndd",
                          .seed = 18446744073709551615u,
                          .version = "1.2.3",
                          .policy = "ioless",
                          .scenarioJson = "{\n  \"schemaVersion\": 1,\n  \"name\": \"x y\"\n}\n"});
  EXPECT_EQ(out.str(),
            "# throttlelab 1.2.3\n# scenario: ten dd\n# seed: 18446744073709551615\n"
            "# policy: ioless\n# scenario_json: {\"schemaVersion\":1,\"name\":\"x y\"}\n");
}

TEST(Provenance, OmitsTheScenarioWhenEmpty) {
  std::ostringstream out;
  te::Provenance p;
  p.scenarioName = "a";
  p.version = "v";
  p.policy = "p";
  te::writeCsvProvenance(out, p);
  EXPECT_EQ(out.str().find("scenario_json"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------

TEST(TraceFormat, HeaderMatchesTheKernelsColumnHeader) {
  const auto real = readLines(kExcerpt);
  ASSERT_GE(real.size(), 12u);
  std::ostringstream out;
  te::writeTraceHeader(out);
  std::string text = out.str();
  ASSERT_FALSE(text.empty());
  ASSERT_EQ(text.back(), '\n');
  text.pop_back();
  const auto ours = split(text, '\n');
  // The kernel's lines 3-4 ("# entries-in-buffer/...", "#") are left out on purpose.
  std::vector<std::string> expected{real[0], real[1]};
  expected.insert(expected.end(), real.begin() + 4, real.begin() + 12);
  EXPECT_EQ(ours, expected);
}

// Rebuilds every record of a real kernel trace from its fields and formats it again: the
// output must equal the kernel's line byte for byte (latency flags aside, which we always
// print as "....."). The excerpt has no bdi_dirty_ratelimit lines (the capture machine's disk
// was too fast for the throttle path to update the rate); that format is checked below.
TEST(TraceFormat, ReproducesRealKernelLinesExactly) {
  const std::regex line(R"(^(.{16})-(\d+) +\[(\d{3})\] (.{5}) +(\d+)\.(\d{6}): (\w+): (.*)$)");
  const std::regex kv(R"((\w+)=(-?\d+))");
  int checked = 0;
  for (const std::string& realLine : readLines(kExcerpt)) {
    if (realLine.empty() || realLine[0] == '#') continue;
    std::smatch m;
    ASSERT_TRUE(std::regex_match(realLine, m, line)) << realLine;
    te::TraceHeader h;
    std::string comm = m[1].str();
    comm.erase(0, comm.find_first_not_of(' '));
    h.comm = te::makeComm(comm);
    h.pid = std::stoi(m[2].str());
    h.cpu = std::stoi(m[3].str());
    h.time = te::SimTime{
        te::SimDuration{std::stoll(m[5].str()) * 1'000'000'000 + std::stoll(m[6].str()) * 1000}};
    const std::string event = m[7].str();
    const std::string fields = m[8].str();
    std::map<std::string, std::string> f;
    for (auto it = std::sregex_iterator(fields.begin(), fields.end(), kv);
         it != std::sregex_iterator(); ++it)
      f[(*it)[1].str()] = (*it)[2].str();
    std::string bdi;
    if (fields.rfind("bdi ", 0) == 0) bdi = fields.substr(4, fields.find(": ") - 4);

    // The fields by name, into the record's members in records.h order.
    const auto n = [&](const char* name) { return toI64(f.at(name)); };
    const auto u32 = [&](const char* name) {
      return static_cast<std::uint32_t>(toU64(f.at(name)));
    };
    te::TraceRecord record;
    if (event == "global_dirty_state") {
      record = te::GlobalDirtyState{h,           n("dirty"), n("writeback"), n("bg_thresh"),
                                    n("thresh"), n("limit"), n("dirtied"),   n("written")};
    } else if (event == "balance_dirty_pages") {
      // clang-format off
      record = te::BalanceDirtyPages{h, bdi, n("limit"), n("setpoint"), n("dirty"),
          n("wb_setpoint"), n("wb_dirty"), n("dirty_ratelimit"), n("task_ratelimit"),
          u32("dirtied"), u32("dirtied_pause"), n("paused"), n("pause"), n("period"), n("think"),
          toU64(f.at("cgroup_ino"))};
      // clang-format on
    } else {
      FAIL() << "unexpected event in the excerpt: " << event;
    }
    std::string expected = realLine;
    expected.replace(static_cast<std::size_t>(m.position(4)), 5, ".....");
    EXPECT_EQ(te::formatTraceLine(record), expected);
    ++checked;
  }
  EXPECT_GE(checked, 10);
}

TEST(TraceFormat, BdiDirtyRatelimitFollowsTheKernelsPrintFormat) {
  const te::TraceHeader h{te::SimTime{te::SimDuration{12'345'678'400}}, te::makeComm("dd"), 1234,
                          1};
  const te::BdiDirtyRatelimit r{h, "sda", 55664, 55000, 56000, 5566, 5570, 5560, 1};
  EXPECT_EQ(te::formatTraceLine(r),
            "              dd-1234    [001] .....    12.345678: bdi_dirty_ratelimit: bdi sda: "
            "write_bw=55664 awrite_bw=55000 dirty_rate=56000 dirty_ratelimit=5566 "
            "task_ratelimit=5570 balanced_dirty_ratelimit=5560 cgroup_ino=1");
}

TEST(TraceFormat, RoundsTheTimestampToTheMicrosecondAndKeepsLongFields) {
  te::GlobalDirtyState g;
  g.header.comm = te::makeComm("a-very-long-command-name");
  g.header.pid = 123456789;
  g.header.cpu = 1234;
  g.header.time = te::SimTime{te::SimDuration{123456'000000500}};
  const std::string line = te::formatTraceLine(g);
  EXPECT_EQ(line.substr(0, line.find(": global_dirty_state")),
            " a-very-long-com-123456789 [1234] ..... 123456.000001");
}

TEST(TraceFormat, PrintsNegativePauseAndThinkWithASign) {
  te::BalanceDirtyPages b;
  b.header.comm = te::makeComm("dd");
  b.bdi = "sda";
  b.pause = -4;
  b.think = -8;
  const std::string line = te::formatTraceLine(b);
  EXPECT_NE(line.find(" pause=-4 "), std::string::npos) << line;
  EXPECT_NE(line.find(" think=-8 "), std::string::npos) << line;
}

// ---------------------------------------------------------------------------------------------

TEST(Summary, ShowsTheRunTheTasksAndTheDevice) {
  te::Scenario scenario;
  scenario.name = "ten-dd";
  te::Summary s;
  s.simulatedS = 60;
  s.deviceWriteKBps = 55664;
  s.avgRequestKiB = 455;
  s.seeksPerS = 1.25;
  s.shareAboveFreerun = 0.853;
  s.shareAboveLimit = 0.01;
  s.pauseMsP50 = 12;
  s.pauseMsP99 = 96;
  s.pauseMsMax = 200;
  s.events = 424242;
  for (int i = 0; i < 25; ++i)
    s.tasks.push_back(te::TaskStats{.info = {.index = i, .pid = 1000 + i, .name = "dd"},
                                    .dirtiedPages = 256 * 10,
                                    .avgWriteKBps = 1000,
                                    .pauseMsMax = static_cast<double>(i),
                                    .runsCompleted = 1});
  std::ostringstream out;
  te::writeSummary(out, s, scenario);
  const std::string text = out.str();
  for (const char* needle : {"ten-dd", "ioless", "60.000 s", "424242", "57.00 MB/s", "55664 wkB/s",
                             "455.0 KiB", "avgrq-sz 910.0", "85.3 %", "1.0 %",
                             "p50 12.0 ms, p99 96.0 ms, max 200.0 ms", "... 5 more"})
    EXPECT_NE(text.find(needle), std::string::npos) << needle << " missing from\n" << text;
  // Twenty task rows, then the aggregate of the other five (5 × 1.024 MB/s, 5 × 10 MiB).
  EXPECT_NE(text.find("1019"), std::string::npos);  // pid of task 19 is shown
  EXPECT_EQ(text.find("1020"), std::string::npos);  // task 20 is folded into "... 5 more"
  const auto more = text.substr(text.find("... 5 more"));
  const auto moreLine = more.substr(0, more.find('\n'));
  EXPECT_NE(moreLine.find("5.12"), std::string::npos) << moreLine;
  EXPECT_NE(moreLine.find("50.0"), std::string::npos) << moreLine;
  EXPECT_NE(moreLine.find("24.0"), std::string::npos) << moreLine;
  // Nothing happened to memory: no such section.
  EXPECT_EQ(text.find("Memory"), std::string::npos) << text;
  EXPECT_EQ(text.find("OOM"), std::string::npos) << text;
}

TEST(Summary, ShowsCpuTimeOverallAndPerTask) {
  te::Scenario scenario;
  te::Summary s;
  s.systemPct = 30.916;
  s.userPct = 1.5;
  s.tasks.push_back(te::TaskStats{
      .info = {.index = 0, .pid = 1000, .name = "dd"}, .systemS = 12.345, .userS = 0.5});
  s.tasks.push_back(
      te::TaskStats{.info = {.index = 1, .pid = 1001, .name = "dd"}, .systemS = 1, .userS = 0.25});
  std::ostringstream out;
  te::writeSummary(out, s, scenario);
  const std::string text = out.str();
  for (const char* needle :
       {"sys s", "user s", "12.35", "0.50", "13.35", "0.75",
        "%system             30.92 % of all CPUs", "%user               1.50 %"})
    EXPECT_NE(text.find(needle), std::string::npos) << needle << " missing from\n" << text;
}

TEST(Summary, ShowsAllocationStallsSwapAndTheOomVictims) {
  te::Scenario scenario;
  scenario.machine.swapMiB = 64;
  te::Summary s;
  s.allocStalls = 42;
  s.allocMsP50 = 3;
  s.allocMsP99 = 80.5;
  s.allocMsMax = 250;
  s.swapOutKiB = 10 * 1024;
  s.swapInKiB = 512;
  s.oomKills = 2;
  for (int i = 0; i < 3; ++i)
    s.tasks.push_back(
        te::TaskStats{.info = {.index = i, .pid = 2000 + i, .name = "cc1"}, .oomKilled = i != 1});
  std::ostringstream out;
  te::writeSummary(out, s, scenario);
  const std::string text = out.str();
  for (const char* needle :
       {"Memory", "allocation stalls   42; latency p50 3.0 ms, p99 80.5 ms, max 250.0 ms",
        "swap                out 10.0 MiB, in 0.5 MiB (64 MiB configured)",
        "OOM kills           2: cc1 (pid 2000), cc1 (pid 2002)"})
    EXPECT_NE(text.find(needle), std::string::npos) << needle << " missing from\n" << text;
}

TEST(Summary, ShowsOnlyTheMemoryLinesOfWhatHappened) {
  te::Scenario scenario;  // no swap
  te::Summary s;
  s.allocStalls = 1;
  s.allocMsMax = 5;
  std::ostringstream out;
  te::writeSummary(out, s, scenario);
  const std::string text = out.str();
  EXPECT_NE(text.find("allocation stalls"), std::string::npos) << text;
  EXPECT_EQ(text.find("swap "), std::string::npos) << text;
  EXPECT_EQ(text.find("OOM kills"), std::string::npos) << text;
}
