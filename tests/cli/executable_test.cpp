// SPDX-License-Identifier: GPL-3.0-or-later
// Smoke tests of the built `throttlelab` executable: what a user or a script sees.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "all_options.h"
#include "executable_fixture.h"
#include "throttlelab/engine/experiments.h"
#include "throttlelab/engine/output.h"
#include "throttlelab/engine/scenario.h"

namespace fs = std::filesystem;
namespace te = throttlelab::engine;
using namespace throttlelab::cli::test;

namespace {}  // namespace

TEST_F(Executable, VersionPrintsTheProjectVersion) {
  const Result r = run({"--version"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, std::string("throttlelab ") + THROTTLELAB_PROJECT_VERSION + "\n");
  EXPECT_EQ(r.err, "");
}

TEST_F(Executable, HelpDocumentsEveryOption) {
  const Result r = run({"--help"});
  EXPECT_EQ(r.status, 0);
  for (const auto& option : kAllOptions) EXPECT_TRUE(contains(r.out, option)) << option;
}

TEST_F(Executable, ListsTheBuiltinScenariosWithTheirDescriptions) {
  const Result r = run({"--list-scenarios"});
  EXPECT_EQ(r.status, 0);
  for (const auto& name : te::builtinScenarioNames()) {
    const te::Scenario s = te::parseScenario(*te::builtinScenarioJson(name), name);
    EXPECT_TRUE(contains(r.out, "  " + name + " ")) << name;
    EXPECT_TRUE(contains(r.out, s.description.substr(0, 40))) << name;
  }
}

TEST_F(Executable, HeadlessCsvHasTheColumnsAndOneRowPerInterval) {
  const Result r =
      run({"--headless", "--scenario", "ten-dd", "--duration", "2", "--csv", "out.csv"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const auto all = lines(readFile(m_dir / "out.csv"));
  std::vector<std::string> comments, rows;
  for (const auto& l : all) (l.rfind("#", 0) == 0 ? comments : rows).push_back(l);
  ASSERT_GE(comments.size(), 4u);
  EXPECT_EQ(comments[0], std::string("# throttlelab ") + THROTTLELAB_PROJECT_VERSION);
  EXPECT_EQ(comments[1], "# scenario: ten-dd");
  ASSERT_FALSE(rows.empty());
  const auto header = split(rows[0]);
  EXPECT_EQ(header, te::sampleCsvColumns(1));
  EXPECT_EQ(
      std::vector<std::string>(header.begin(), header.begin() + 4),
      (std::vector<std::string>{"time_s", "dirty_pages", "writeback_pages", "bg_thresh_pages"}));
  const std::size_t intervals = 20;  // 2 s at the default 100 ms
  ASSERT_EQ(rows.size() - 1, intervals);
  double previous = 0;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto fields = split(rows[i]);
    ASSERT_EQ(fields.size(), header.size()) << rows[i];
    for (const auto& f : fields) EXPECT_TRUE(isNumber(f)) << "'" << f << "' in " << rows[i];
    const double t = std::stod(fields[0]);
    EXPECT_GT(t, previous);
    previous = t;
  }
  EXPECT_EQ(split(rows.back())[0], "2.000");
  EXPECT_EQ(r.out, "");  // an output file was asked for, so no implied summary
}

TEST_F(Executable, CsvCanGoToStandardOutput) {
  const Result r = run({"--headless", "--scenario", "one-dd", "--duration", "1", "--csv", "-"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto out = lines(r.out);
  ASSERT_GT(out.size(), 5u);
  EXPECT_TRUE(contains(r.out, "\ntime_s,dirty_pages,"));
  EXPECT_FALSE(contains(r.out, "ThrottleLab summary"));
  EXPECT_EQ(filesHere(), std::set<std::string>{});
}

TEST_F(Executable, TaskCsvHasOneRowPerTaskPerInterval) {
  // The real-time writer normally joins at 10 s; start it at once so every task has rows.
  const Result r = run({"--headless", "--scenario", "rt-beside-dd", "--duration", "1", "--set",
                        "tasks[1].startS=0", "--task-csv", "tasks.csv"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<std::string> rows;
  for (const auto& l : lines(readFile(m_dir / "tasks.csv")))
    if (l.rfind("#", 0) != 0) rows.push_back(l);
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows[0],
            "time_s,task,pid,sched,dirtied_pages,write_kbps,task_ratelimit_kbps,pause_ms,state,"
            "journal_wait_s,read_wait_s");
  const std::regex sched("other|fifo:[0-9]+|rr:[0-9]+");
  const std::set<std::string> states{"not_started", "running",  "runnable", "paused",
                                     "io_wait",     "thinking", "exited"};
  std::set<std::string> pidsSeen;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto f = split(rows[i]);
    ASSERT_EQ(f.size(), 11u) << rows[i];
    EXPECT_TRUE(isNumber(f[0]) && isNumber(f[2]) && isNumber(f[4]) && isNumber(f[5]) &&
                isNumber(f[6]) && isNumber(f[7]) && isNumber(f[9]) && isNumber(f[10]))
        << rows[i];
    EXPECT_TRUE(std::regex_match(f[3], sched)) << rows[i];
    EXPECT_EQ(states.count(f[8]), 1u) << rows[i];
    pidsSeen.insert(f[2]);
  }
  // rt-beside-dd: 4 dd + 1 rt-dd, 10 intervals in 1 s.
  EXPECT_EQ(pidsSeen.size(), 5u);
  EXPECT_EQ(rows.size() - 1, 5u * 10u);
  EXPECT_TRUE(contains(readFile(m_dir / "tasks.csv"), ",rt-dd,"));
  EXPECT_TRUE(contains(readFile(m_dir / "tasks.csv"), ",fifo:50,"));
}

TEST_F(Executable, TraceOutWritesKernelFormattedLines) {
  const Result r =
      run({"--headless", "--scenario", "ten-dd", "--duration", "5", "--trace-out", "trace.txt"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto all = lines(readFile(m_dir / "trace.txt"));
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(all[0], "# tracer: nop");
  const std::regex prefix(
      R"(^ *[^ ].{0,15}-[0-9]+ +\[[0-9]{3,}\] \.{5} +[0-9]+\.[0-9]{6}: (\w+): (.*)$)");
  const std::regex global(
      R"(dirty=\d+ writeback=\d+ bg_thresh=\d+ thresh=\d+ limit=\d+ dirtied=\d+ written=\d+)");
  const std::regex ratelimit(
      R"(bdi sda: write_bw=\d+ awrite_bw=\d+ dirty_rate=\d+ dirty_ratelimit=\d+ )"
      R"(task_ratelimit=\d+ balanced_dirty_ratelimit=\d+ cgroup_ino=\d+)");
  const std::regex balance(
      R"(bdi sda: limit=\d+ setpoint=\d+ dirty=\d+ wb_setpoint=\d+ wb_dirty=\d+ )"
      R"(dirty_ratelimit=\d+ task_ratelimit=\d+ dirtied=\d+ dirtied_pause=\d+ paused=\d+ )"
      R"(pause=-?\d+ period=\d+ think=-?\d+ cgroup_ino=\d+)");
  const std::regex issue(R"(\d+,\d+ [RW]S? \d+ \(\) \d+ \+ \d+ \[.+\])");
  const std::regex complete(R"(\d+,\d+ [RW]S? \(\) \d+ \+ \d+ \[0\])");
  std::set<std::string> events;
  for (const auto& l : all) {
    if (l.rfind("#", 0) == 0) continue;
    std::smatch m;
    ASSERT_TRUE(std::regex_match(l, m, prefix)) << l;
    const std::string event = m[1].str();
    const std::string fields = m[2].str();
    events.insert(event);
    if (event == "global_dirty_state")
      EXPECT_TRUE(std::regex_match(fields, global)) << l;
    else if (event == "bdi_dirty_ratelimit")
      EXPECT_TRUE(std::regex_match(fields, ratelimit)) << l;
    else if (event == "balance_dirty_pages")
      EXPECT_TRUE(std::regex_match(fields, balance)) << l;
    else if (event == "block_rq_issue")
      EXPECT_TRUE(std::regex_match(fields, issue)) << l;
    else if (event == "block_rq_complete")
      EXPECT_TRUE(std::regex_match(fields, complete)) << l;
    else
      ADD_FAILURE() << "unexpected event: " << l;
  }
  // Ten writers fill the page cache past freerun within 5 s, so all three tracepoints fire,
  // and the device serves requests (no file system in ten-dd: no jbd2 lines).
  EXPECT_EQ(events,
            (std::set<std::string>{"global_dirty_state", "bdi_dirty_ratelimit",
                                   "balance_dirty_pages", "block_rq_issue", "block_rq_complete"}));
}

TEST_F(Executable, SummaryIsATableOnStandardOutput) {
  const Result r = run({"--headless", "--scenario", "ten-dd", "--duration", "1", "--summary"});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* part : {"ThrottleLab summary", "ten-dd", "ioless", "MB/s", "wkB/s", "avgrq-sz",
                           "above freerun", "above limit", "p99"})
    EXPECT_TRUE(contains(r.out, part)) << part << " not in:\n" << r.out;
}

TEST_F(Executable, RejectsAnUnknownOption) {
  expectBadInput(run({"--headless", "--bogus"}), {"--bogus"});
}

TEST_F(Executable, RejectsAMalformedScenarioFileNamingTheLine) {
  std::ofstream(m_dir / "broken.json") << "{\n  \"schemaVersion\": 1,\n  \"vm\": {\n}}}\n";
  expectBadInput(run({"--headless", "--scenario", "broken.json"}),
                 {"broken.json", "syntax error", "line 4"});
}

TEST_F(Executable, RejectsAnImpossibleOverrideNamingTheKey) {
  expectBadInput(run({"--headless", "--scenario", "ten-dd", "--set", "vm.dirty_ratio=120"}),
                 {"vm.dirty_ratio", "120"});
}

TEST_F(Executable, RejectsAnOverrideIndexOutOfRange) {
  expectBadInput(run({"--headless", "--scenario", "ten-dd", "--set", "tasks[5].count=1"}),
                 {"tasks[5]", "out of range"});
}

TEST_F(Executable, RejectsAnUnknownScenarioListingTheBuiltins) {
  expectBadInput(run({"--headless", "--scenario", "eleven-dd"}),
                 {"eleven-dd", "ten-dd", "default"});
}

TEST_F(Executable, RejectsAnUnknownPolicy) {
  expectBadInput(run({"--headless", "--policy", "nope"}), {"policy", "nope"});
}

TEST_F(Executable, RejectsABadNumber) {
  expectBadInput(run({"--headless", "--duration", "soon"}), {"--duration", "soon"});
}

TEST_F(Executable, RejectsAnUnwritableOutputPath) {
  expectBadInput(run({"--headless", "--duration", "1", "--csv", "no-such-dir/out.csv"}),
                 {"no-such-dir/out.csv"});
  EXPECT_EQ(filesHere(), std::set<std::string>{});
}

TEST_F(Executable, RejectsTwoOutputsOnStandardOutput) {
  expectBadInput(run({"--headless", "--duration", "1", "--csv", "-", "--trace-out", "-"}),
                 {"standard output"});
}

TEST_F(Executable, LeavesAnExistingFileAloneWhenTheRunFails) {
  std::ofstream(m_dir / "out.csv") << "precious\n";
  expectBadInput(run({"--headless", "--scenario", "ten-dd", "--set", "vm.dirty_ratio=120", "--csv",
                      "out.csv"}),
                 {"vm.dirty_ratio"});
  // A second output that cannot be written must not cost the first file either.
  expectBadInput(run({"--headless", "--scenario", "ten-dd", "--duration", "1", "--csv", "out.csv",
                      "--trace-out", "no-such-dir/t.txt"}),
                 {"no-such-dir/t.txt"});
  EXPECT_EQ(readFile(m_dir / "out.csv"), "precious\n");
  EXPECT_EQ(filesHere(), std::set<std::string>{"out.csv"});
}

TEST_F(Executable, ReplacesAnExistingFileWhenTheRunSucceeds) {
  std::ofstream(m_dir / "out.csv") << "old\n";
  const Result r =
      run({"--headless", "--scenario", "one-dd", "--duration", "1", "--csv", "out.csv"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(readFile(m_dir / "out.csv"), "time_s,"));
  EXPECT_EQ(filesHere(), std::set<std::string>{"out.csv"});
}

TEST_F(Executable, WithoutADisplayRunsHeadlessWithASummary) {
  const Result r =
      run({"--duration", "1"}, {"-u", "DISPLAY", "-u", "WAYLAND_DISPLAY", "-u", "QT_QPA_PLATFORM"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err,
            "throttlelab: no display found (DISPLAY and WAYLAND_DISPLAY are unset); running "
            "headless instead. Use xvfb-run for the window, or --headless.\n");
  EXPECT_TRUE(contains(r.out, "ThrottleLab summary"));
  EXPECT_TRUE(contains(r.out, std::string(te::kDefaultScenarioName)));
}

TEST_F(Executable, WithoutADisplayRefusesWindowExports) {
  expectBadInput(run({"--export-png", "a.png"},
                     {"-u", "DISPLAY", "-u", "WAYLAND_DISPLAY", "-u", "QT_QPA_PLATFORM"}),
                 {"no display"});
}

TEST_F(Executable, WithoutADisplayPointsTheTraceViewerAtTheTextForm) {
  const Result r = run({"--open-trace", "t.txt"},
                       {"-u", "DISPLAY", "-u", "WAYLAND_DISPLAY", "-u", "QT_QPA_PLATFORM"});
  expectBadInput(r, {"no display"});
  EXPECT_TRUE(contains(r.err, "--import-trace t.txt --simulate")) << r.err;
  expectBadInput(
      run({"--watch-host"}, {"-u", "DISPLAY", "-u", "WAYLAND_DISPLAY", "-u", "QT_QPA_PLATFORM"}),
      {"no display"});
}

TEST_F(Executable, AWatchCgroupThatIsNoMemoryCgroupIsRefusedBeforeAnyWindow) {
  // With or without a display: the path is checked first, by name.
  const Result missing = run({"--watch-cgroup", "no-such-cgroup-here"},
                             {"-u", "DISPLAY", "-u", "WAYLAND_DISPLAY", "-u", "QT_QPA_PLATFORM"});
  expectBadInput(missing,
                 {"--watch-cgroup", "'no-such-cgroup-here'", "/sys/fs/cgroup/no-such-cgroup-here"});
  fs::create_directory(m_dir / "plain");
  expectBadInput(run({"--watch-cgroup", (m_dir / "plain").string()}, {"QT_QPA_PLATFORM=offscreen"}),
                 {"is not a memory cgroup", (m_dir / "plain").string()});
}

// ---------------------------------------------------------------------------------------------
// Policy comparison and seed experiments

TEST_F(Executable, CompareWritesTheJsonReport) {
  const Result r = run({"--headless", "--scenario", "ten-dd", "--compare", "perbdi-2.6.24,ioless",
                        "--seeds", "2", "--duration", "5", "--report", "cmp.json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(filesHere(), (std::set<std::string>{"cmp.json"}));
  const auto j = nlohmann::json::parse(readFile(m_dir / "cmp.json"));
  EXPECT_EQ(j.at("scenario"), "ten-dd");
  ASSERT_EQ(j.at("runs").size(), 4u);
  EXPECT_EQ(j["runs"][0]["policy"], "perbdi-2.6.24");
  EXPECT_EQ(j["runs"][1]["seed"], 2);
  EXPECT_EQ(j["runs"][2]["policy"], "ioless");
  for (const char* key :
       {"system_pct", "user_pct", "write_kbps", "avgrq_sz_sectors", "seeks_per_s", "pause_ms_p50",
        "pause_ms_p99", "dirty_pages_p50", "pause_ms_max", "share_above_freerun",
        "share_above_limit", "alloc_ms_p99", "oom_kills", "swap_out_kib"})
    EXPECT_TRUE(j["runs"][0]["metrics"].contains(key)) << key;
  ASSERT_FALSE(j.at("comparison").empty());
  const auto& row = j["comparison"][0];
  EXPECT_EQ(row.at("metric"), "system_pct");
  EXPECT_TRUE(row.at("values").contains("ioless"));
  EXPECT_EQ(row.at("change_pct").at("perbdi-2.6.24"), 0.0);
}

TEST_F(Executable, CompareWritesMarkdownToStandardOutput) {
  const Result r = run({"--headless", "--scenario", "ten-dd", "--compare", "ioless,none",
                        "--duration", "3", "--report", "-"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "| run | ioless %system | ioless wkB/s | ioless avgrq-sz |"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "change")) << r.out;
  // Without --report, the same goes to standard output.
  const Result implicit =
      run({"--headless", "--scenario", "ten-dd", "--compare", "ioless,none", "--duration", "3"});
  EXPECT_EQ(implicit.out, r.out);
}

TEST_F(Executable, CompareRejectsBadInputBeforeRunning) {
  expectBadInput(run({"--headless", "--compare", "ioless,fair"}), {"unknown policy 'fair'"});
  expectBadInput(run({"--headless", "--compare", "ioless,none", "--report", "r.csv"}),
                 {"--report", ".json"});
  expectBadInput(run({"--headless", "--compare", "ioless,none", "--report", "no/such/dir/r.md"}),
                 {"--report", "cannot write"});
  expectBadInput(run({"--headless", "--compare", "ioless,none", "--set", "machine.cpus=0"}),
                 {"machine.cpus"});
}

TEST_F(Executable, ExperimentListNamesAllThree) {
  const Result r = run({"--experiment", "list"});
  EXPECT_EQ(r.status, 0) << r.err;
  for (const char* name : {"morton2003", "wu2010", "arcangeli2002"})
    EXPECT_TRUE(contains(r.out, std::string("  ") + name + " ")) << r.out;
  EXPECT_EQ(lines(r.out).size(), 3u) << r.out;
}

TEST_F(Executable, UnknownExperimentListsTheValidOnes) {
  const Result r = run({"--experiment", "bogus"});
  expectBadInput(r, {"unknown experiment 'bogus'", "morton2003", "wu2010", "arcangeli2002"});
}

TEST_F(Executable, ExperimentWritesAJsonReportAndPrintsTheVerdicts) {
  const Result r = run({"--experiment", "wu2010", "--quick", "--report", "wu.json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "claims hold")) << r.out;
  EXPECT_TRUE(contains(r.out, "Report: wu.json")) << r.out;
  EXPECT_EQ(filesHere(), (std::set<std::string>{"wu.json"}));
  const auto j = nlohmann::json::parse(readFile(m_dir / "wu.json"));
  EXPECT_EQ(j.at("experiment"), "wu2010");
  ASSERT_FALSE(j.at("rows").empty());
  for (const auto& row : j["rows"])
    for (const char* key :
         {"case", "metric", "unit", "seed_value", "simulated", "simulated_min", "simulated_max"})
      EXPECT_TRUE(row.contains(key)) << key << " in " << row.dump();
  ASSERT_FALSE(j.at("verdicts").empty());
  for (const auto& v : j["verdicts"]) {
    EXPECT_TRUE(v.at("claim").is_string());
    EXPECT_TRUE(v.at("holds").is_boolean());
    EXPECT_TRUE(v.at("detail").is_string());
  }
  // The mail's figure beside the simulated one: 100 dd under 2.6.37-rc2, run 1.
  bool found = false;
  for (const auto& row : j["rows"])
    if (row["case"] == "100dd perbdi-2.6.24" && row["metric"] == "system_pct") {
      EXPECT_DOUBLE_EQ(row["seed_value"].get<double>(), 30.916);
      found = true;
    }
  EXPECT_TRUE(found);
}

TEST_F(Executable, ExperimentMarkdownHasTheMailsTable) {
  const Result r = run({"--experiment", "wu2010", "--quick", "--report", "wu.md"});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string md = readFile(m_dir / "wu.md");
  EXPECT_TRUE(contains(md,
                       "| perbdi-2.6.24 %system (%) | perbdi-2.6.24 wkB/s (KiB/s) | "
                       "perbdi-2.6.24 avgrq-sz (sectors) | ioless %system (%) |"))
      << md;
  EXPECT_TRUE(contains(md, "| 100dd | 30.916 / ")) << md;
  EXPECT_TRUE(contains(md, "## Verdicts")) << md;
  EXPECT_TRUE(contains(md, "## The machine")) << md;
  // Markdown on standard output replaces the verdict lines.
  const Result toStdout = run({"--experiment", "wu2010", "--quick", "--report", "-"});
  ASSERT_EQ(toStdout.status, 0) << toStdout.err;
  EXPECT_EQ(toStdout.out, md);
}

TEST_F(Executable, ExperimentLeavesTheOldReportWhenItCannotRun) {
  std::ofstream(m_dir / "old.md") << "old";
  expectBadInput(run({"--experiment", "wu2010", "--report", "old.txt"}), {".md or .json"});
  EXPECT_EQ(readFile(m_dir / "old.md"), "old");
  EXPECT_EQ(filesHere(), (std::set<std::string>{"old.md"}));
}

TEST_F(Executable, QuickExperimentsRunHeadlessAndReportEveryVerdict) {
  for (const auto& name : te::experimentNames()) {
    SCOPED_TRACE(name);
    const Result r = run({"--experiment", name, "--quick", "--report", name + ".json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(readFile(m_dir / (name + ".json")));
    EXPECT_EQ(j.at("experiment"), name);
    ASSERT_FALSE(j.at("verdicts").empty());
    // Every verdict is a boolean with an explanation; which claims hold is the engine tests'
    // business (tests/engine/experiments_test.cpp), this checks the headless report.
    for (const auto& v : j["verdicts"]) {
      EXPECT_TRUE(v.at("holds").is_boolean()) << v.at("claim").get<std::string>();
      EXPECT_FALSE(v.at("detail").get<std::string>().empty()) << v.at("claim").get<std::string>();
    }
    EXPECT_FALSE(j.at("rows").empty());
  }
}

// ---------------------------------------------------------------------------------------------
// Kernel traces

TEST_F(Executable, ImportTraceWritesTheColumnsOfASimulation) {
  const std::string trace = (kDataDir / "real-trace-excerpt.txt").string();
  const Result r = run({"--import-trace", trace, "--csv", "out.csv", "--task-csv", "tasks.csv"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(contains(r.out, "Read " + trace + ": ftrace text")) << r.out;
  EXPECT_TRUE(contains(r.out, "from 4 pids on 1 device (254:0)")) << r.out;

  const std::string csv = readFile(m_dir / "out.csv");
  EXPECT_EQ(lines(csv).at(0), std::string("# throttlelab ") + THROTTLELAB_PROJECT_VERSION);
  EXPECT_TRUE(contains(csv, "# scenario: kernel trace " + trace + "\n"));
  const auto rows = csvRows(csv);
  ASSERT_GE(rows.size(), 2u);
  EXPECT_EQ(split(rows[0]), te::sampleCsvColumns(1));
  // 294.213189 .. 294.245015: the first interval of 0.1 s.
  ASSERT_EQ(rows.size(), 2u);
  const auto fields = split(rows[1]);
  ASSERT_EQ(fields.size(), rows.size() > 1 ? split(rows[0]).size() : 0u);
  for (const auto& f : fields) EXPECT_TRUE(isNumber(f)) << f;
  EXPECT_EQ(fields[0], "0.100");
  // The last global_dirty_state of the excerpt: dirty=776 writeback=5386.
  EXPECT_EQ(fields[1], "776");
  EXPECT_EQ(fields[2], "5386");

  const auto taskRows = csvRows(readFile(m_dir / "tasks.csv"));
  ASSERT_EQ(taskRows.size(), 1u + 4u);  // header + the four dd pids in the one interval
  EXPECT_EQ(split(taskRows[0]), te::taskCsvColumns());
  std::set<std::string> pids;
  for (std::size_t i = 1; i < taskRows.size(); ++i) pids.insert(split(taskRows[i]).at(2));
  EXPECT_EQ(pids, (std::set<std::string>{"4287", "4288", "4289", "4290"}));
  EXPECT_EQ(filesHere(), (std::set<std::string>{"out.csv", "tasks.csv"}));
}

TEST_F(Executable, ImportTraceOfARealCaptureHasOneRowPerInterval) {
  const fs::path trace = kDataDir / "kernel-6.18" / "ftrace-10-dd.txt";
  if (!fs::exists(trace)) GTEST_SKIP() << "no 6.18 capture";
  const Result r = run({"--import-trace", trace.string(), "--csv", "-"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "Read ")) << "the summary moves to stderr when stdout has the CSV";
  const auto rows = csvRows(r.out);
  ASSERT_GT(rows.size(), 2u);
  EXPECT_EQ(split(rows[0]), te::sampleCsvColumns(1));
  for (std::size_t i = 1; i < rows.size(); ++i)
    EXPECT_EQ(split(rows[i]).size(), split(rows[0]).size()) << rows[i];
}

TEST_F(Executable, ImportTraceRefusesAFileThatIsNotATrace) {
  std::string png("\x89PNG\r\n\x1a\n", 8);
  for (int i = 0; i < 5000; ++i) png += static_cast<char>(i * 31);
  { std::ofstream(m_dir / "picture.png", std::ios::binary) << png; }
  const Result r = run({"--import-trace", "picture.png", "--csv", "out.csv"});
  expectBadInput(r, {"--import-trace", "picture.png is not a kernel trace", "balance_dirty_pages"});
  EXPECT_EQ(filesHere(), std::set<std::string>{"picture.png"});  // no half-written out.csv
}

TEST_F(Executable, ImportTraceRefusesACsv) {
  { std::ofstream(m_dir / "run.csv") << "time_s,dirty_pages\n0.1,5\n0.2,6\n"; }
  const Result r = run({"--import-trace", "run.csv"});
  expectBadInput(r, {"run.csv is not a kernel trace", "line 1: time_s,dirty_pages"});
}

TEST_F(Executable, ImportTraceRefusesAMissingFile) {
  const Result r = run({"--import-trace", "nothing.txt", "--csv", "out.csv"});
  expectBadInput(r, {"cannot open nothing.txt: No such file or directory"});
  EXPECT_EQ(filesHere(), std::set<std::string>{});
}

TEST_F(Executable, ImportTraceRefusesAnEmptyFile) {
  { std::ofstream(m_dir / "empty.txt"); }
  const Result r = run({"--import-trace", "empty.txt"});
  expectBadInput(r, {"empty.txt is empty"});
}

TEST_F(Executable, ImportTraceReportsGarbageLinesAndGoesOn) {
  std::string text = readFile(kDataDir / "real-trace-excerpt.txt");
  text.insert(text.find("              dd-4288"), "this line is no trace\n");
  { std::ofstream(m_dir / "dirty.txt") << text; }
  const Result r = run({"--import-trace", "dirty.txt", "--csv", "out.csv"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "1 not trace lines")) << r.out;
  EXPECT_TRUE(contains(r.out, "line 13: no [cpu] column")) << r.out;
}

TEST_F(Executable, ImportTraceSimulateComparesAndWritesAReport) {
  const std::string trace = (kDataDir / "real-trace-excerpt.txt").string();
  const Result r =
      run({"--import-trace", trace, "--simulate", "--this-host", "--report", "cmp.json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "| metric | measured | simulated | off % |")) << r.out;
  EXPECT_TRUE(contains(r.out, "vm.dirty_bytes 40001536")) << r.out;  // thresh 9766 x 4096
  EXPECT_TRUE(contains(r.out, "this host")) << r.out;
  const auto doc = nlohmann::json::parse(readFile(m_dir / "cmp.json"));
  ASSERT_TRUE(doc.contains("comparison"));
  ASSERT_TRUE(doc.contains("notes"));
  std::set<std::string> metrics;
  for (const auto& row : doc["comparison"]) {
    metrics.insert(row["metric"].get<std::string>());
    EXPECT_TRUE(row["simulated"].is_number());
  }
  EXPECT_TRUE(metrics.count("pause p50 (ms)"));
  EXPECT_TRUE(metrics.count("writers"));
  EXPECT_EQ(doc["scenario"]["policy"], "ioless");
  EXPECT_EQ(doc["scenario"]["vm"]["dirty_bytes"], 9766 * 4096);
}

TEST_F(Executable, TraceOptionsRejectBadCombinations) {
  expectBadInput(run({"--simulate"}), {"--simulate needs --import-trace FILE"});
  expectBadInput(run({"--import-trace", "t.txt", "--this-host"}),
                 {"--this-host belongs to --simulate"});
  expectBadInput(run({"--import-trace", "t.txt", "--report", "r.md"}),
                 {"--report belongs to --simulate"});
  expectBadInput(run({"--import-trace", "t.txt", "--scenario", "ten-dd"}),
                 {"--scenario cannot be combined with --import-trace"});
  expectBadInput(run({"--import-trace", "t.txt", "--csv", "-", "--simulate"}),
                 {"would both write to standard output"});
  expectBadInput(run({"--record-trace", "t.txt"}), {"--record-trace needs --duration S"});
  expectBadInput(run({"--record-trace", "t.txt", "--duration", "1", "--csv", "x.csv"}),
                 {"--csv cannot be combined with --record-trace"});
}

// A CSV exported from the window and one from --headless, for the same scenario and seed,
// carry the same provenance, line for line. The window's used to pass the scenario through
// QJsonDocument, which sorts its keys, so its `# scenario_json:` line differed.
TEST_F(Executable, WindowAndHeadlessCsvHaveTheSameHeaderLines) {
  const auto commentLines = [](const std::string& text) {
    std::vector<std::string> out;
    for (const auto& line : lines(text))
      if (line.starts_with('#')) out.push_back(line);
    return out;
  };
  const Result window = run({"--scenario", "one-dd", "--seed", "7", "--duration", "1", "--run-for",
                             "1", "--export-csv", "window.csv", "--quit"},
                            {"QT_QPA_PLATFORM=offscreen"});
  ASSERT_EQ(window.status, 0) << window.err;
  const Result headless = run(
      {"--headless", "--scenario", "one-dd", "--seed", "7", "--duration", "1", "--csv", "cli.csv"});
  ASSERT_EQ(headless.status, 0) << headless.err;
  const auto fromWindow = commentLines(readFile(m_dir / "window.csv"));
  const auto fromHeadless = commentLines(readFile(m_dir / "cli.csv"));
  ASSERT_GE(fromHeadless.size(), 5u);  // version, scenario, seed, policy, scenario_json
  // After the provenance come the run's `# event:` lines (the writer starting at 0 s).
  std::vector<std::string> provenance;
  for (const auto& l : fromHeadless)
    if (!l.starts_with("# event: ")) provenance.push_back(l);
  EXPECT_TRUE(provenance.back().starts_with("# scenario_json: {\"schemaVersion\":1,"))
      << provenance.back();
  EXPECT_GT(fromHeadless.size(), provenance.size());
  EXPECT_EQ(fromWindow, fromHeadless);
}
