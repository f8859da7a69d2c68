// SPDX-License-Identifier: GPL-3.0-or-later
// Input that is a trace only in part, or not at all: values the kernel cannot print, time
// that goes backwards, binary data and files without line ends, events hours apart, old Mac
// line ends, more devices than a row can carry. Each must end promptly with what was done
// said in the import's summary, and leave memory and output bounded.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "test_support.h"
#include "throttlelab/traceio/trace_parser.h"

namespace {

// te, ti, the sinks and the file helpers.
using namespace throttlelab::test;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string fixture() {
  return readFile(dataDir() / "kernel-6.18" / "ftrace-10-dd.txt");
}

std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  for (std::size_t nl; (nl = text.find('\n', pos)) != std::string::npos; pos = nl + 1)
    out.push_back(text.substr(pos, nl - pos));
  return out;
}

/// A global_dirty_state line at `seconds` with dirty=`dirty` (text, so that it may be junk).
std::string gds(double seconds, const std::string& dirty) {
  char time[32];
  std::snprintf(time, sizeof time, "%.6f", seconds);
  return std::string("  dd-1 [000] ..... ") + time + ": global_dirty_state: dirty=" + dirty +
         " writeback=5 bg_thresh=50 thresh=200 limit=200 dirtied=1 written=1\n";
}

std::string bdp(double seconds, const std::string& bdi, int pid = 1) {
  char time[32];
  std::snprintf(time, sizeof time, "%.6f", seconds);
  return "  dd-" + std::to_string(pid) + " [000] ..... " + time + ": balance_dirty_pages: bdi " +
         bdi +
         ": limit=200 setpoint=150 dirty=120 wb_setpoint=150 wb_dirty=120 dirty_ratelimit=1000 "
         "task_ratelimit=900 dirtied=32 dirtied_pause=32 paused=0 pause=8 period=8 think=0 "
         "cgroup_ino=1\n";
}

double seconds(const te::TraceRecord& r) {
  return te::toSeconds(std::visit([](const auto& rec) { return rec.header.time; }, r));
}

void expectRecordsInTimeOrder(const CollectSink& sink) {
  for (std::size_t i = 1; i < sink.records.size(); ++i)
    ASSERT_LE(seconds(sink.records[i - 1]), seconds(sink.records[i])) << "record " << i;
  for (std::size_t i = 1; i < sink.samples.size(); ++i)
    ASSERT_LT(sink.samples[i - 1].time, sink.samples[i].time) << "row " << i;
}

// ---------------------------------------------------------------------------------------------
// Values out of range

TEST(HostileInput, ValuesTheKernelCannotPrintAreMalformedWithTheirLineAndField) {
  const std::string text = gds(1.0, "100") + gds(1.01, "18446744073709551615") + gds(1.02, "-5") +
                           gds(1.03, "1e400") + gds(1.04, "12345678901234567890") +
                           gds(1.05, "300");
  CollectSink sink;
  const auto r = ti::importTraceText(text, sink);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.stats.events, 2);  // the records with bad values are skipped
  EXPECT_EQ(r.stats.malformed, 4);
  EXPECT_EQ(r.stats.outOfRange, 4);
  ASSERT_EQ(r.stats.problems.size(), 4u);
  const std::vector<std::pair<std::int64_t, std::string>> expected{
      {2, "dirty=18446744073709551615 is out of range"},
      {3, "dirty=-5 is out of range"},
      {4, "dirty=1e400 is out of range"},
      {5, "dirty=12345678901234567890 is out of range"}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(r.stats.problems[i].line, expected[i].first);
    EXPECT_EQ(r.stats.problems[i].reason.rfind(expected[i].second, 0), 0u)
        << r.stats.problems[i].reason;
  }
  for (const auto& s : sink.samples) EXPECT_GE(s.dirtyPages, 0);
  const std::string summary = ti::describe(r.stats);
  EXPECT_TRUE(contains(summary, "4 malformed (4 with a value out of range)")) << summary;
  EXPECT_TRUE(contains(summary, "line 3: dirty=-5 is out of range")) << summary;
}

// ---------------------------------------------------------------------------------------------
// Time order

TEST(HostileInput, ConcatenatedCopiesAreSegmentsLaidEndToEnd) {
  const std::string one = fixture();
  CollectSink single;
  const auto r1 = ti::importTraceText(one, single);
  ASSERT_TRUE(r1.ok()) << r1.error;
  EXPECT_EQ(r1.stats.segments, 1);

  constexpr int kCopies = 5;
  std::string text;
  for (int i = 0; i < kCopies; ++i) text += one;
  CollectSink sink;
  const auto r = ti::importTraceText(text, sink);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.stats.events, kCopies * r1.stats.events);
  EXPECT_EQ(r.stats.segments, kCopies);
  ASSERT_EQ(r.stats.segmentLines.size(), kCopies - 1u);
  EXPECT_EQ(r.stats.segmentLines[0], r1.stats.lines + 13);  // the copy's header, then its event
  expectRecordsInTimeOrder(sink);
  // Every copy converted, one after another on the time axis.
  const double spanOne = r1.stats.lastTimeS - r1.stats.firstTimeS;
  EXPECT_GT(r.stats.lastTimeS - r.stats.firstTimeS, kCopies * spanOne);
  EXPECT_GE(sink.samples.size(), kCopies * single.samples.size());
  EXPECT_LE(sink.samples.size(), kCopies * (single.samples.size() + 2));
  const std::string summary = ti::describe(r.stats);
  EXPECT_TRUE(contains(summary, "read as 5 segments")) << summary;
  EXPECT_FALSE(contains(summary, "not in time order")) << summary;
}

TEST(HostileInput, AFileReadInBlocksIsPutInOrderAsTheTextIs) {
  // The file's events wait in the window across the ends of its 2 MiB blocks.
  std::string text;
  const std::string one = fixture();
  for (int i = 0; i < 12; ++i) text += one;
  std::vector<std::string> lines = splitLines(one);
  std::mt19937 random(5);
  std::shuffle(lines.begin() + 500, lines.begin() + 900, random);
  for (const auto& l : lines) text += l + "\n";
  TempDir dir;
  writeFile(dir / "trace", text);
  CollectSink fromFile, fromText;
  const auto f = ti::importTrace((dir / "trace").string(), fromFile);
  const auto t = ti::importTraceText(text, fromText);
  ASSERT_TRUE(f.ok()) << f.error;
  EXPECT_EQ(f.stats.segments, t.stats.segments);
  EXPECT_EQ(f.stats.reordered, t.stats.reordered);
  EXPECT_GT(f.stats.reordered, 0);
  expectRecordsInTimeOrder(fromFile);
  EXPECT_EQ(fromFile.sampleCsv(), fromText.sampleCsv());
  EXPECT_EQ(fromFile.taskCsv(), fromText.taskCsv());
  ASSERT_EQ(fromFile.records.size(), fromText.records.size());
  for (std::size_t i = 0; i < fromFile.records.size(); ++i)
    ASSERT_EQ(te::formatTraceLine(fromFile.records[i]), te::formatTraceLine(fromText.records[i]))
        << i;
}

TEST(HostileInput, EventsSlightlyOutOfOrderArePutInOrder) {
  // CPU 1's event printed after CPU 0's later one, as trace_pipe can.
  const std::string text = bdp(5.000000, "8:0", 1) + bdp(5.000400, "8:0", 2) +
                           bdp(5.000100, "8:0", 3) + bdp(5.000500, "8:0", 1) +
                           gds(5.000300, "100") + bdp(5.2, "8:0", 2);
  CollectSink sink;
  const auto r = ti::importTraceText(text, sink);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.stats.segments, 1);
  EXPECT_EQ(r.stats.reordered, 2);
  ASSERT_EQ(sink.records.size(), 6u);
  expectRecordsInTimeOrder(sink);
  EXPECT_DOUBLE_EQ(seconds(sink.records[1]), 5.0001);  // pid 3's record moved up
  EXPECT_TRUE(contains(ti::describe(r.stats), "2 events out of time order by less than 10 ms"))
      << ti::describe(r.stats);
}

TEST(HostileInput, AShuffledTraceIsSaidToBeOutOfOrder) {
  std::vector<std::string> lines = splitLines(fixture());
  std::mt19937 random(11);
  std::shuffle(lines.begin(), lines.end(), random);
  std::string text;
  for (const auto& l : lines) text += l + "\n";
  CollectSink sink;
  const auto r = ti::importTraceText(text, sink);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_GT(r.stats.segments, 100);
  expectRecordsInTimeOrder(sink);
  EXPECT_TRUE(contains(ti::describe(r.stats), "not in time order: sort them by timestamp"))
      << ti::describe(r.stats);
}

TEST(HostileInput, AnEventLaterThanTheWindowHoldsCountsAtTheTimeBefore) {
  // More events within the window than it holds: the earliest go out before an event that
  // belongs among them arrives.
  std::string text;
  const std::size_t n = ti::ImportStats::kReorderCapacity + 100;
  for (std::size_t i = 0; i < n; ++i) text += gds(1.0 + static_cast<double>(i) * 1e-6, "100");
  text += gds(1.00001, "200");  // behind the newest by 4 ms, but the window is full
  CollectSink sink;
  const auto r = ti::importTraceText(text, sink);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.stats.segments, 1);
  EXPECT_EQ(r.stats.lateEvents, 1);
  expectRecordsInTimeOrder(sink);
  EXPECT_TRUE(contains(ti::describe(r.stats), "1 event came after 4096 later ones"))
      << ti::describe(r.stats);
}

// ---------------------------------------------------------------------------------------------
// Binary data, lines without end

/// The fd that importTrace("-") reads, pointed at `path` for the lifetime of this object.
class StdinFrom {
 public:
  explicit StdinFrom(const char* path) : m_saved(::dup(0)) {
    const int fd = ::open(path, O_RDONLY);
    ::dup2(fd, 0);
    ::close(fd);
  }
  ~StdinFrom() {
    ::dup2(m_saved, 0);
    ::close(m_saved);
  }
  StdinFrom(const StdinFrom&) = delete;
  StdinFrom& operator=(const StdinFrom&) = delete;

 private:
  int m_saved;
};

TEST(HostileInput, DevZeroIsRefusedAsBinaryAtOnce) {
  for (const char* path : {"/dev/zero", "-"}) {
    CollectSink sink;
    std::optional<StdinFrom> stdinFromZero;
    if (std::string(path) == "-") stdinFromZero.emplace("/dev/zero");
    const auto r = ti::importTrace(path, sink);  // on the old code: never returns
    EXPECT_FALSE(r.ok());
    EXPECT_TRUE(contains(r.error, std::string(path) == "-" ? "standard input" : "/dev/zero"))
        << r.error;
    EXPECT_TRUE(contains(r.error, "binary data (a NUL byte at offset 0, line 1)")) << r.error;
    EXPECT_EQ(r.stats.lines, 0);
  }
}

TEST(HostileInput, AFileOfZerosIsRefusedWithoutReadingIt) {
  TempDir dir;
  writeFile(dir / "zeros", std::string(8 << 20, '\0'));
  CollectSink sink;
  const auto r = ti::importTrace((dir / "zeros").string(), sink);
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(contains(r.error, "zeros is not a kernel trace: it holds binary data")) << r.error;
  EXPECT_EQ(r.stats.bytes, 0);  // on the old code: all 8 MiB read, then "not a kernel trace"
}

TEST(HostileInput, BinaryTraceFormatsAreNamedWithTheCommandThatMakesText) {
  TempDir dir;
  struct Case {
    std::string bytes;
    std::string says;
  };
  const std::vector<Case> cases{
      {std::string("\x17\x08\x44tracing6\0\0\0", 14), "trace-cmd report -i"},
      {"PERFILE2" + std::string(100, '\1'), "perf script -i"},
      {std::string("\x1f\x8b\x08\x00", 4), "zcat"},
  };
  for (const auto& c : cases) {
    writeFile(dir / "data", c.bytes);
    CollectSink sink;
    const auto r = ti::importTrace((dir / "data").string(), sink);
    EXPECT_FALSE(r.ok());
    EXPECT_TRUE(contains(r.error, "is not a kernel trace but")) << r.error;
    EXPECT_TRUE(contains(r.error, c.says)) << r.error;
  }
}

TEST(HostileInput, ALineWithoutEndAfterATraceStopsTheReadingButKeepsTheTrace) {
  // The text of a trace, then more than 16 MiB without a line end (a zeroed tail, /dev/zero
  // appended): the trace is imported, the rest not read.
  TempDir dir;
  const std::string text = fixture();
  ASSERT_GT(static_cast<std::int64_t>(text.size()), ti::kSniffBytes);
  writeFile(dir / "trace", text + std::string(ti::kMaxStoppingLineBytes + (8 << 20), '\0'));
  CollectSink sink;
  const auto r = ti::importTrace((dir / "trace").string(), sink);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.stats.events, 1985);
  EXPECT_EQ(r.stats.overlong, 1);
  // Stopped within a few read blocks past 16 MiB, short of the end.
  EXPECT_LT(r.stats.bytes,
            static_cast<std::int64_t>(text.size()) + ti::kMaxStoppingLineBytes + (4 << 20));
  EXPECT_TRUE(contains(r.stats.stoppedEarly, "line 1998 is longer than 16 MiB"))
      << r.stats.stoppedEarly;
  EXPECT_TRUE(contains(ti::describe(r.stats), "Reading stopped: line 1998"))
      << ti::describe(r.stats);
}

TEST(HostileInput, ALongLineIsMalformedAndTheLinesAfterItAreRead) {
  TempDir dir;
  const std::string text = gds(1.0, "100") + std::string(200 * 1024, 'x') + "\n" +
                           std::string(3 << 20, 'y') + "\n" + gds(1.05, "300");
  writeFile(dir / "trace", text);
  for (const bool file : {true, false}) {
    CollectSink sink;
    const auto r =
        file ? ti::importTrace((dir / "trace").string(), sink) : ti::importTraceText(text, sink);
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.stats.events, 2);
    EXPECT_EQ(r.stats.lines, 4);
    EXPECT_EQ(r.stats.overlong, 2);
    EXPECT_EQ(r.stats.malformed, 2);
    ASSERT_EQ(r.stats.problems.size(), 2u);
    EXPECT_EQ(r.stats.problems[0].line, 2);
    EXPECT_TRUE(contains(r.stats.problems[0].reason, "longer than 64 KiB"));
    EXPECT_EQ(r.stats.problems[1].line, 3);
  }
}

// ---------------------------------------------------------------------------------------------
// Gaps

TEST(HostileInput, EventsHoursApartGiveRowsOnlyWhereThereIsData) {
  std::string text;
  constexpr int kEvents = 40;
  for (int i = 0; i < kEvents; ++i) text += gds(1000.0 + 3599.0 * i, std::to_string(100 + i));
  CollectSink sink;
  const auto r = ti::importTraceText(text, sink);
  ASSERT_TRUE(r.ok()) << r.error;
  // On the old code: 35,990 rows per gap, 1.4 million rows in all.
  EXPECT_EQ(sink.samples.size(), static_cast<std::size_t>(kEvents));
  EXPECT_EQ(r.stats.gapsSkipped, kEvents - 1);
  EXPECT_NEAR(r.stats.gapsSkippedS, (kEvents - 1) * 3598.9, 1.0);
  for (int i = 0; i < kEvents; ++i) EXPECT_EQ(sink.samples[i].dirtyPages, 100 + i);
  EXPECT_TRUE(contains(ti::describe(r.stats), "39 gaps without events longer than 1 s"))
      << ti::describe(r.stats);
}

TEST(HostileInput, AGapJustOverTheFillBoundIsSkippedAndOneUnderItIsFilled) {
  const std::string text = gds(10.0, "100") + gds(11.15, "200") + gds(13.3, "300");
  CollectSink sink;
  const auto r = ti::importTraceText(text, sink);
  ASSERT_TRUE(r.ok()) << r.error;
  // 10.0 .. 11.15: ten empty intervals, filled; 11.15 .. 13.3: 21, skipped.
  ASSERT_EQ(sink.samples.size(), 12u + 1u);
  EXPECT_EQ(r.stats.gapsSkipped, 1);
  EXPECT_EQ(sink.samples[10].dirtyPages, 100);  // the fill repeats the last values
  EXPECT_EQ(sink.samples[11].dirtyPages, 200);
  EXPECT_EQ(sink.samples[12].dirtyPages, 300);
  EXPECT_EQ(sink.samples[12].time, te::atSeconds(3.4));
}

// ---------------------------------------------------------------------------------------------
// Line ends, devices

TEST(HostileInput, CarriageReturnLineEndsAreReadAsLines) {
  std::string text = fixture();
  std::replace(text.begin(), text.end(), '\n', '\r');
  TempDir dir;
  writeFile(dir / "mac.txt", text);
  for (const bool file : {true, false}) {
    CollectSink sink;
    const auto r =
        file ? ti::importTrace((dir / "mac.txt").string(), sink) : ti::importTraceText(text, sink);
    ASSERT_TRUE(r.ok()) << r.error;  // on the old code: "its 0 lines are headers or blank"
    EXPECT_EQ(r.stats.lines, 1997);
    EXPECT_EQ(r.stats.events, 1985);
    EXPECT_TRUE(r.stats.crLineEnds);
    EXPECT_TRUE(contains(ti::describe(r.stats), "carriage return alone"));
  }
  // One line ending in '\r', the last byte of the file.
  writeFile(dir / "one.txt", gds(1.0, "100").replace(gds(1.0, "100").size() - 1, 1, "\r"));
  CollectSink one;
  const auto r = ti::importTrace((dir / "one.txt").string(), one);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.stats.events, 1);
  EXPECT_FALSE(r.stats.truncatedLastLine);
  // Windows line ends stay what they were.
  std::string crlf;
  for (const auto& l : splitLines(fixture())) crlf += l + "\r\n";
  CollectSink windows;
  const auto w = ti::importTraceText(crlf, windows);
  EXPECT_EQ(w.stats.events, 1985);
  EXPECT_FALSE(w.stats.crLineEnds);
}

TEST(HostileInput, DevicesBeyondTheBoundHaveNoColumnsButTheirEventsCount) {
  std::string text;
  constexpr int kDevices = 100;
  for (int i = 0; i < 3 * kDevices; ++i)
    text += bdp(1.0 + 0.01 * i, "dev" + std::to_string(i % kDevices), 1 + i % 7);
  CollectSink sink;
  const auto r = ti::importTraceText(text, sink);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(sink.devices.size(), throttlelab::engine::kMaxDevices);
  EXPECT_EQ(r.stats.devicesWithoutColumns,
            kDevices - static_cast<std::int64_t>(throttlelab::engine::kMaxDevices));
  for (const auto& s : sink.samples) EXPECT_LE(s.devices.size(), throttlelab::engine::kMaxDevices);
  EXPECT_EQ(sink.records.size(), static_cast<std::size_t>(3 * kDevices));
  EXPECT_EQ(r.stats.tasks, 7);
  EXPECT_TRUE(contains(ti::describe(r.stats), "36 more devices beyond the first 64"))
      << ti::describe(r.stats);
}

TEST(HostileInput, ATimestampBeyondTheClockIsNoEvent) {
  // Ten digits of seconds overflow nanoseconds: the old code read a negative time.
  CollectSink sink;
  const auto r = ti::importTraceText(gds(1.0, "100") + gds(9999999999.0, "200"), sink);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.stats.events, 1);
  // Our event with a timestamp no clock reaches: malformed, and said so (messages_test.cpp).
  EXPECT_EQ(r.stats.garbage, 0);
  EXPECT_EQ(r.stats.malformed, 1);
  for (const auto& rec : sink.records) EXPECT_GE(seconds(rec), 0);
}

}  // namespace
