// SPDX-License-Identifier: GPL-3.0-or-later
// Whole files: the simulator's own trace read back record for record, real and hand-written
// traces of two kernel eras, and everything that is not a trace.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <regex>
#include <set>

#include "test_support.h"
#include "throttlelab/engine/simulator.h"
#include "throttlelab/traceio/trace_parser.h"
#include "trace_records.h"
#include "two_device_scenario.h"

namespace {

namespace fs = std::filesystem;
// te, ti, the sinks and the file helpers.
using namespace throttlelab::test;

struct Capture final : te::RecordSink {
  void onTrace(const te::TraceRecord& r) override { records.push_back(r); }
  std::vector<te::TraceRecord> records;
};

/// Ten dd writers on two devices with a low threshold, so that every event shows up often.
te::Scenario twoDeviceScenario() {
  te::Scenario s = throttlelab::test::twoDeviceScenario(6, 4, "cp");
  s.durationS = 12;
  s.vm.dirtyBytes = 100 << 20;
  s.vm.dirtyBackgroundBytes = 50 << 20;
  return s;
}

std::string traceText(const std::vector<te::TraceRecord>& records) {
  std::ostringstream out;
  te::writeTraceHeader(out);
  std::string text = out.str();
  for (const auto& r : records) {
    text += te::formatTraceLine(r);
    text += '\n';
  }
  return text;
}

/// The text format carries microseconds; the writer rounds to the nearest.
te::SimTime toMicros(te::SimTime t) {
  const std::int64_t ns = t.time_since_epoch().count();
  return te::SimTime{te::SimDuration{(ns + 500) / 1000 * 1000}};
}

te::TraceRecord withMicros(te::TraceRecord r) {
  std::visit([](auto& rec) { rec.header.time = toMicros(rec.header.time); }, r);
  return r;
}

void expectSameRecord(const te::TraceRecord& parsed, const te::TraceRecord& original,
                      std::size_t i) {
  SCOPED_TRACE("record " + std::to_string(i));
  throttlelab::test::expectSameRecord(parsed, withMicros(original));
}

class SimulatedTrace : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_sim = std::make_unique<te::Simulator>(twoDeviceScenario());
    s_capture = std::make_unique<Capture>();
    s_sim->setSink(s_capture.get(), tracesOnly());
    s_sim->run();
    s_sim->setSink(nullptr);
  }
  static void TearDownTestSuite() {
    s_capture.reset();
    s_sim.reset();  // owns the device names the records point at
  }
  static inline std::unique_ptr<te::Simulator> s_sim;
  static inline std::unique_ptr<Capture> s_capture;
};

TEST_F(SimulatedTrace, EveryRecordReadsBackIdentically) {
  const auto& original = s_capture->records;
  ASSERT_GT(original.size(), 1000u);
  std::map<std::size_t, int> kinds;
  for (const auto& r : original) ++kinds[r.index()];
  ASSERT_EQ(kinds.size(), 3u) << "the scenario should emit all three events";

  CollectSink sink;
  const auto result = ti::importTraceText(traceText(original), sink);
  ASSERT_TRUE(result.ok()) << result.error;
  EXPECT_EQ(result.stats.events, static_cast<std::int64_t>(original.size()));
  EXPECT_EQ(result.stats.malformed, 0);
  EXPECT_EQ(result.stats.garbage, 0);
  EXPECT_EQ(result.stats.other, 0);
  EXPECT_EQ(result.stats.format, ti::TraceFormat::Ftrace);
  EXPECT_EQ(result.stats.balanceDirtyPagesMissing, 0u);
  EXPECT_EQ(result.stats.bdiDirtyRatelimitMissing, 0u);
  EXPECT_EQ(result.stats.globalDirtyStateMissing, 0u);
  EXPECT_EQ(result.stats.lines, result.stats.events + result.stats.skipped());
  ASSERT_EQ(sink.records.size(), original.size());
  for (std::size_t i = 0; i < original.size(); ++i) {
    expectSameRecord(sink.records[i], original[i], i);
    if (HasFailure()) break;  // one broken field would otherwise repeat thousands of times
  }
}

TEST_F(SimulatedTrace, CsvFromTheParsedTraceEqualsCsvFromTheOriginalRecords) {
  CollectSink fromText;
  const auto result = ti::importTraceText(traceText(s_capture->records), fromText);
  ASSERT_TRUE(result.ok()) << result.error;

  CollectSink fromRecords;
  ti::TraceConverter converter(fromRecords);
  for (const auto& r : s_capture->records) converter.add(withMicros(r));
  converter.finish();

  ASSERT_GT(fromRecords.samples.size(), 100u);
  // Devices in order of their first record.
  std::vector<std::string> order;
  for (const auto& r : s_capture->records)
    std::visit(
        [&](const auto& rec) {
          if constexpr (!std::is_same_v<std::decay_t<decltype(rec)>, te::GlobalDirtyState>)
            if (std::find(order.begin(), order.end(), rec.bdi) == order.end())
              order.emplace_back(rec.bdi);
        },
        r);
  ASSERT_EQ(order.size(), 2u);
  EXPECT_EQ(fromRecords.devices, order);
  EXPECT_EQ(fromText.devices, fromRecords.devices);
  EXPECT_EQ(fromRecords.tasks.size(), 10u);
  EXPECT_EQ(fromText.sampleCsv(), fromRecords.sampleCsv());
  EXPECT_EQ(fromText.taskCsv(), fromRecords.taskCsv());
  // The CSV has the simulation's columns.
  std::ostringstream header;
  te::writeSampleCsvHeader(header, 2);
  EXPECT_EQ(fromText.sampleCsv().substr(0, header.str().size()), header.str());
}

TEST_F(SimulatedTrace, AFileReadInBlocksGivesWhatTheTextGives) {
  // Files are read in 2 MiB blocks whose halves are parsed on two threads when there are
  // two CPUs; the result must not depend on that.
  // The run's records repeated, each copy 20 s later, until the text spans several blocks.
  std::vector<te::TraceRecord> records;
  std::size_t bytes = 0;
  for (int copy = 0; bytes < (5u << 20); ++copy)
    for (te::TraceRecord r : s_capture->records) {
      std::visit([&](auto& rec) { rec.header.time += te::seconds(20.0 * copy); }, r);
      bytes += te::formatTraceLine(r).size() + 1;
      records.push_back(r);
    }
  const std::string text = traceText(records);
  ASSERT_GT(text.size(), 5u << 20);
  TempDir dir;
  writeFile(dir / "sim.txt", text);
  CollectSink fromFile, fromText;
  const auto a = ti::importTrace((dir / "sim.txt").string(), fromFile);
  const auto b = ti::importTraceText(text, fromText);
  ASSERT_TRUE(a.ok()) << a.error;
  EXPECT_EQ(a.stats.lines, b.stats.lines);
  EXPECT_EQ(a.stats.events, b.stats.events);
  EXPECT_EQ(a.stats.bytes, static_cast<std::int64_t>(text.size()));
  ASSERT_EQ(fromFile.records.size(), fromText.records.size());
  for (std::size_t i = 0; i < fromFile.records.size(); ++i) {
    expectSameRecord(fromFile.records[i], withMicros(fromText.records[i]), i);
    if (HasFailure()) break;
  }
  EXPECT_EQ(fromFile.sampleCsv(), fromText.sampleCsv());
  EXPECT_EQ(fromFile.taskCsv(), fromText.taskCsv());
}

TEST_F(SimulatedTrace, ConvertedRowsCarryTheTracedValues) {
  CollectSink sink;
  ti::TraceConverter converter(sink);
  const auto& records = s_capture->records;
  for (const auto& r : records) converter.add(r);
  converter.finish();
  ASSERT_FALSE(sink.samples.empty());

  // The last global_dirty_state before the end of the first interval with one.
  const std::int64_t t0 = std::visit([](const auto& r) { return r.header.time; }, records.front())
                              .time_since_epoch()
                              .count();
  const te::GlobalDirtyState* last = nullptr;
  std::size_t interval = 0;
  for (const auto& r : records) {
    const auto* g = std::get_if<te::GlobalDirtyState>(&r);
    const std::int64_t at =
        (std::visit([](const auto& x) { return x.header.time; }, r).time_since_epoch().count() -
         t0) /
        100'000'000;
    if (last && static_cast<std::size_t>(at) != interval) break;
    if (g) {
      last = g;
      interval = static_cast<std::size_t>(at);
    }
  }
  ASSERT_NE(last, nullptr);
  const te::Sample& s = sink.samples.at(interval);
  EXPECT_EQ(s.time,
            te::SimTime{te::SimDuration{(static_cast<std::int64_t>(interval) + 1) * 100'000'000}});
  EXPECT_EQ(s.dirtyPages, last->dirty);
  EXPECT_EQ(s.writebackPages, last->writeback);
  EXPECT_EQ(s.threshPages, last->thresh);
  EXPECT_EQ(s.bgThreshPages, last->bgThresh);
  EXPECT_EQ(s.freerunPages, (last->thresh + last->bgThresh) / 2);

  // Pauses: the number per interval equals the records with pause > 0 in it.
  std::map<std::int64_t, int> pauses;
  for (const auto& r : records)
    if (const auto* b = std::get_if<te::BalanceDirtyPages>(&r); b && b->pause > 0)
      ++pauses[(b->header.time.time_since_epoch().count() - t0) / 100'000'000];
  ASSERT_FALSE(pauses.empty());
  for (const auto& [k, n] : pauses)
    EXPECT_EQ(sink.samples.at(static_cast<std::size_t>(k)).pauses, n) << k;
}

// ---------------------------------------------------------------------------------------------
// Real and hand-written traces

/// pid of every line of `event` in a file, found with a regular expression (independent of
/// the parser under test).
std::set<int> pidsOf(const std::string& text, const std::string& event) {
  std::set<int> pids;
  const std::regex re("-([0-9]+) +\\[[0-9]+\\][^:]*: " + event + ":");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator();
       ++it)
    pids.insert(std::stoi((*it)[1]));
  return pids;
}

std::int64_t countLines(const std::string& text,
                        const std::function<bool(const std::string&)>& pred) {
  std::istringstream in(text);
  std::int64_t n = 0;
  for (std::string line; std::getline(in, line);) n += pred(line) ? 1 : 0;
  return n;
}

TEST(TraceImport, ReadsTheRealKernelExcerpt) {
  const fs::path path = dataDir() / "real-trace-excerpt.txt";
  const std::string text = readFile(path);
  CollectSink sink;
  const auto result = ti::importTrace(path.string(), sink);
  ASSERT_TRUE(result.ok()) << result.error;
  const auto& s = result.stats;
  EXPECT_EQ(s.format, ti::TraceFormat::Ftrace);
  EXPECT_EQ(s.comments,
            countLines(text, [](const std::string& l) { return l.rfind('#', 0) == 0; }));
  EXPECT_EQ(s.events, countLines(text, [](const std::string& l) { return l.rfind('#', 0) != 0; }));
  EXPECT_EQ(s.malformed + s.garbage + s.other, 0);
  EXPECT_EQ(s.balanceDirtyPagesMissing, 0u);
  EXPECT_FALSE(s.truncatedLastLine);
  EXPECT_EQ(s.devices, std::vector<std::string>{"254:0"});
  std::set<int> pids = pidsOf(text, "balance_dirty_pages");
  const auto bdr = pidsOf(text, "bdi_dirty_ratelimit");
  pids.insert(bdr.begin(), bdr.end());
  EXPECT_EQ(s.tasks, static_cast<int>(pids.size()));
  std::set<int> announced;
  for (const auto& t : sink.tasks) announced.insert(t.pid);
  EXPECT_EQ(announced, pids);
  EXPECT_DOUBLE_EQ(s.firstTimeS, 294.213189);
}

TEST(TraceImport, Reads32EraTraceWithOldFieldNamesAndTwoDevices) {
  const fs::path path = dataDir() / "trace-3.2-era.txt";
  const std::string text = readFile(path);
  CollectSink sink;
  const auto result = ti::importTrace(path.string(), sink);
  ASSERT_TRUE(result.ok()) << result.error;
  const auto& s = result.stats;
  EXPECT_EQ(s.malformed + s.garbage, 0);
  EXPECT_EQ(s.other, 1);  // writeback_pages_written
  EXPECT_EQ(s.balanceDirtyPages, countLines(text, [](const std::string& l) {
              return l.find(" balance_dirty_pages: ") != std::string::npos;
            }));
  EXPECT_EQ(s.bdiDirtyRatelimit, countLines(text, [](const std::string& l) {
              return l.find(" bdi_dirty_ratelimit: ") != std::string::npos;
            }));
  EXPECT_EQ(s.globalDirtyState, countLines(text, [](const std::string& l) {
              return l.find(" global_dirty_state: ") != std::string::npos;
            }));
  // period, think and cgroup_ino came after 3.2; bdi_dirty_ratelimit had no cgroup_ino.
  EXPECT_EQ(s.balanceDirtyPagesMissing, (1u << 11) | (1u << 12) | (1u << 13));
  EXPECT_EQ(s.bdiDirtyRatelimitMissing, 1u << 6);
  EXPECT_EQ(s.globalDirtyStateMissing, 0u);
  EXPECT_EQ(s.devices, (std::vector<std::string>{"8:0", "8:16"}));
  EXPECT_EQ(s.tasks, static_cast<int>(pidsOf(text, "balance_dirty_pages").size()));
  EXPECT_FALSE(sink.deviceOrderBroken);
  // bdi_setpoint/bdi_dirty land in wbSetpoint/wbDirty.
  const auto& first = std::get<te::BalanceDirtyPages>(sink.records.at(2));
  EXPECT_EQ(first.wbSetpoint, 104999);
  EXPECT_EQ(first.wbDirty, 104120);
  const std::string d = ti::describe(s);
  EXPECT_NE(d.find("period"), std::string::npos) << d;
}

TEST(TraceImport, ReadsEachLayoutOfTheSameEvents) {
  const std::string ftrace =
      "# tracer: nop\n"
      "              dd-4288    [000] .....   294.213189: balance_dirty_pages: bdi 254:0: "
      "limit=9766 setpoint=7568 dirty=6674 wb_setpoint=7567 wb_dirty=6674 dirty_ratelimit=102400 "
      "task_ratelimit=109300 dirtied=256 dirtied_pause=200 paused=0 pause=4 period=8 think=8 "
      "cgroup_ino=1\n";
  const std::string traceCmd =
      "cpus=2\n"
      "CPU 1 is empty\n"
      "              dd-4288  [000]   294.213189: balance_dirty_pages:  bdi 254:0: limit=9766 "
      "setpoint=7568 dirty=6674 wb_setpoint=7567 wb_dirty=6674 dirty_ratelimit=102400 "
      "task_ratelimit=109300 dirtied=256 dirtied_pause=200 paused=0 pause=4 period=8 think=8 "
      "cgroup_ino=1\n";
  const std::string perf =
      "              dd  4288 [000]   294.213189: writeback:balance_dirty_pages: bdi 254:0: "
      "limit=9766 setpoint=7568 dirty=6674 wb_setpoint=7567 wb_dirty=6674 dirty_ratelimit=102400 "
      "task_ratelimit=109300 dirtied=256 dirtied_pause=200 paused=0 pause=4 period=8 think=8 "
      "cgroup_ino=1\n";
  const std::pair<std::string, ti::TraceFormat> cases[] = {{ftrace, ti::TraceFormat::Ftrace},
                                                           {traceCmd, ti::TraceFormat::TraceCmd},
                                                           {perf, ti::TraceFormat::PerfScript}};
  for (const auto& [text, format] : cases) {
    CollectSink sink;
    const auto r = ti::importTraceText(text, sink);
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.stats.format, format) << text;
    ASSERT_EQ(sink.records.size(), 1u);
    const auto& b = std::get<te::BalanceDirtyPages>(sink.records[0]);
    EXPECT_EQ(b.header.pid, 4288);
    EXPECT_EQ(b.pause, 4);
    EXPECT_EQ(b.bdi, "254:0");
    ASSERT_EQ(sink.samples.size(), 1u);
    EXPECT_EQ(sink.samples[0].pauses, 1);
    EXPECT_EQ(sink.samples[0].pauseMsMax, 4.0);
  }
}

TEST(TraceImport, CountsAndReportsGarbageInsideARealTraceAndGoesOn) {
  std::string text = readFile(dataDir() / "real-trace-excerpt.txt");
  CollectSink clean;
  const auto before = ti::importTraceText(text, clean);
  ASSERT_TRUE(before.ok());
  // Insert three bad lines after the header: a CSV row, a cut event and binary noise.
  const std::size_t at = text.find("              dd-4288");
  text.insert(at,
              "time_s,dirty_pages\n"
              "              dd-4288    [000] .....   294.213100: balance_dirty_pages: bdi 254:0: "
              "limit=97x6 dirty=1 pause=1\n"
              "\x01\x02\x03 binary\n");
  CollectSink sink;
  const auto r = ti::importTraceText(text, sink);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.stats.events, before.stats.events);
  EXPECT_EQ(r.stats.garbage, 2);
  EXPECT_EQ(r.stats.malformed, 1);
  EXPECT_EQ(r.stats.lines, before.stats.lines + 3);
  ASSERT_EQ(r.stats.problems.size(), 3u);
  const std::int64_t firstBad = before.stats.comments + 1;
  EXPECT_EQ(r.stats.problems[0].line, firstBad);
  EXPECT_EQ(r.stats.problems[1].line, firstBad + 1);
  EXPECT_NE(r.stats.problems[1].reason.find("limit="), std::string::npos)
      << r.stats.problems[1].reason;
  const std::string d = ti::describe(r.stats);
  EXPECT_NE(d.find("1 malformed"), std::string::npos) << d;
  EXPECT_NE(d.find("2 not trace lines"), std::string::npos) << d;
  EXPECT_NE(d.find("line " + std::to_string(firstBad)), std::string::npos) << d;
  EXPECT_EQ(sink.sampleCsv(), clean.sampleCsv());
}

TEST(TraceImport, ATruncatedLastLineIsLeftOutAndIsNoError) {
  const std::string text = readFile(dataDir() / "real-trace-excerpt.txt");
  ASSERT_EQ(text.back(), '\n');
  const std::size_t lastStart = text.rfind('\n', text.size() - 2) + 1;
  const std::string cut = text.substr(0, lastStart + (text.size() - lastStart) / 2);
  CollectSink whole, partial;
  const auto a = ti::importTraceText(text, whole);
  const auto b = ti::importTraceText(cut, partial);
  ASSERT_TRUE(b.ok()) << b.error;
  EXPECT_TRUE(b.stats.truncatedLastLine);
  EXPECT_FALSE(a.stats.truncatedLastLine);
  EXPECT_EQ(b.stats.events, a.stats.events - 1);
  EXPECT_EQ(b.stats.lines, a.stats.lines - 1);
  EXPECT_EQ(b.stats.malformed, 0);
  EXPECT_NE(ti::describe(b.stats).find("no newline"), std::string::npos);

  // The same through a file.
  TempDir dir;
  writeFile(dir / "cut.txt", cut);
  CollectSink fromFile;
  const auto c = ti::importTrace((dir / "cut.txt").string(), fromFile);
  ASSERT_TRUE(c.ok()) << c.error;
  EXPECT_TRUE(c.stats.truncatedLastLine);
  EXPECT_EQ(c.stats.events, b.stats.events);
}

TEST(TraceImport, FileAndTextGiveTheSameResult) {
  const fs::path path = dataDir() / "trace-3.2-era.txt";
  CollectSink a, b;
  const auto fromFile = ti::importTrace(path.string(), a);
  const auto fromText = ti::importTraceText(readFile(path), b);
  EXPECT_EQ(fromFile.stats.lines, fromText.stats.lines);
  EXPECT_EQ(fromFile.stats.bytes, fromText.stats.bytes);
  EXPECT_EQ(fromFile.stats.bytes, static_cast<std::int64_t>(fs::file_size(path)));
  EXPECT_EQ(a.sampleCsv(), b.sampleCsv());
  EXPECT_EQ(a.taskCsv(), b.taskCsv());
}

// ---------------------------------------------------------------------------------------------
// Not a trace

TEST(TraceImport, AnEmptyFileGetsAClearMessage) {
  TempDir dir;
  writeFile(dir / "empty.txt", "");
  CollectSink sink;
  const auto r = ti::importTrace((dir / "empty.txt").string(), sink);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error.find((dir / "empty.txt").string()), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("empty"), std::string::npos) << r.error;
  EXPECT_TRUE(sink.samples.empty());
}

TEST(TraceImport, AMissingFileNamesTheFileAndTheReason) {
  CollectSink sink;
  const auto r = ti::importTrace("/nonexistent/trace.txt", sink);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.error, "cannot open /nonexistent/trace.txt: No such file or directory");
}

TEST(TraceImport, ADirectoryIsRefused) {
  TempDir dir;
  CollectSink sink;
  const auto r = ti::importTrace(dir.path().string(), sink);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error.find("directory"), std::string::npos) << r.error;
}

TEST(TraceImport, APngIsNotATrace) {
  TempDir dir;
  std::string png("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16);
  for (int i = 0; i < 200000; ++i) png += static_cast<char>((i * 7919) & 0xff);
  writeFile(dir / "picture.png", png);
  CollectSink sink;
  const auto r = ti::importTrace((dir / "picture.png").string(), sink);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error.find("picture.png is not a kernel trace"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("balance_dirty_pages"), std::string::npos) << r.error;
  // Refused for its NUL bytes before a line of it is read as text.
  EXPECT_NE(r.error.find("binary data (a NUL byte at offset 8, line 3)"), std::string::npos)
      << r.error;
  EXPECT_EQ(r.stats.lines, 0);
  EXPECT_EQ(r.stats.events, 0);
}

TEST(TraceImport, ACsvIsNotATrace) {
  TempDir dir;
  std::string csv = "time_s,dirty_pages,writeback_pages\n";
  for (int i = 0; i < 50; ++i) csv += std::to_string(i) + ".1,100,20\n";
  writeFile(dir / "run.csv", csv);
  CollectSink sink;
  const auto r = ti::importTrace((dir / "run.csv").string(), sink);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error.find("run.csv is not a kernel trace: none of its 51 lines"), std::string::npos)
      << r.error;
  EXPECT_NE(r.error.find("line 1: time_s,dirty_pages"), std::string::npos) << r.error;
}

TEST(TraceImport, ABigFileOfGarbageIsGivenUpEarly) {
  std::string junk;
  for (int i = 0; i < 5000; ++i) junk += "this is line " + std::to_string(i) + " of a novel\n";
  CollectSink sink;
  const auto r = ti::importTraceText(junk, sink);
  EXPECT_FALSE(r.ok());
  EXPECT_LT(r.stats.lines, 5000);
  EXPECT_NE(r.error.find("none of its first"), std::string::npos) << r.error;
}

TEST(TraceImport, AHeaderWithoutEventsSaysSo) {
  std::ostringstream header;
  te::writeTraceHeader(header);
  CollectSink sink;
  const auto r = ti::importTraceText(header.str(), sink);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error.find("holds no events"), std::string::npos) << r.error;
}

TEST(TraceImport, ATraceOfOtherEventsSaysWhatIsMissing) {
  const std::string text =
      "# tracer: nop\n"
      "          <idle>-0       [001] d..2.   295.000012: sched_switch: prev_comm=swapper/1 "
      "prev_pid=0\n"
      "              dd-4288    [000] .....   295.000100: writeback_dirty_inode: bdi 254:0: "
      "ino=12\n";
  CollectSink sink;
  const auto r = ti::importTraceText(text, sink);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error.find("2 other events, the first at line 2"), std::string::npos) << r.error;
}

TEST(TraceImport, ATraceOfUnreadableEventsNamesTheFirstProblem) {
  const std::string text =
      "  dd-1 [000] ..... 1.0: balance_dirty_pages: bdi 8:0: dirty=x pause=1\n"
      "  dd-1 [000] ..... 1.1: balance_dirty_pages: bdi 8:0: dirty=y pause=1\n";
  CollectSink sink;
  const auto r = ti::importTraceText(text, sink);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(
      r.error.find(
          "none of its 2 writeback event lines could be read (line 1: dirty=x is not a number "
          "as the kernel prints one (decimal digits))"),
      std::string::npos)
      << r.error;
}

TEST(TraceImport, AFileOfOneLineWithoutNewlineSaysWhatItIs) {
  CollectSink a, b;
  const auto cut = ti::importTraceText(
      "  dd-1 [000] ..... 1.0: balance_dirty_pages: bdi 8:0: dirty=5 pause=1", a);
  EXPECT_FALSE(cut.ok());
  EXPECT_TRUE(cut.stats.truncatedLastLine);
  EXPECT_NE(cut.error.find("cut off"), std::string::npos) << cut.error;
  const auto text = ti::importTraceText("just some words", b);
  EXPECT_FALSE(text.ok());
  EXPECT_NE(text.error.find("is not a kernel trace"), std::string::npos) << text.error;
  EXPECT_NE(text.error.find("line 1: just some words"), std::string::npos) << text.error;
}

TEST(TraceImport, StopsWhenCancelled) {
  const std::string text = readFile(dataDir() / "real-trace-excerpt.txt");
  std::stop_source stop;
  stop.request_stop();
  ti::ImportOptions options;
  options.stop = stop.get_token();
  CollectSink sink;
  const auto r = ti::importTraceText(text, sink, options);
  EXPECT_TRUE(r.cancelled);
  EXPECT_FALSE(r.ok());
}

TEST(TraceImport, AGapOfManyIntervalsIsFilledWithRows) {
  const std::string text =
      "  dd-1 [000] ..... 10.000000: global_dirty_state: dirty=100 writeback=5 bg_thresh=50 "
      "thresh=200 limit=200 dirtied=1 written=1\n"
      "  dd-1 [000] ..... 10.950000: global_dirty_state: dirty=300 writeback=5 bg_thresh=50 "
      "thresh=200 limit=200 dirtied=1 written=1\n";
  CollectSink sink;
  const auto r = ti::importTraceText(text, sink);
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(sink.samples.size(), 10u);  // intervals 0..9 of 0.1 s
  for (std::size_t i = 0; i + 1 < sink.samples.size(); ++i)
    EXPECT_EQ(sink.samples[i].dirtyPages, 100) << i;
  EXPECT_EQ(sink.samples.back().dirtyPages, 300);
  EXPECT_EQ(sink.samples.back().time, te::atSeconds(1.0));
}

}  // namespace
