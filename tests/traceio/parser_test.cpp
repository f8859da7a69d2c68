// SPDX-License-Identifier: GPL-3.0-or-later
// One line at a time: each producer's layout (ftrace with and without the flags column,
// trace-cmd report, perf script), each kernel era's field names, and lines that are not
// events. Expected values are read off the literal lines, never computed by the parser.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "throttlelab/traceio/trace_parser.h"
#include "trace_records.h"

namespace {

namespace te = throttlelab::engine;
namespace ti = throttlelab::traceio;

using throttlelab::test::traceHeader;

const te::BalanceDirtyPages& bdp(const ti::ParsedLine& p) {
  return std::get<te::BalanceDirtyPages>(p.record);
}
const te::GlobalDirtyState& gds(const ti::ParsedLine& p) {
  return std::get<te::GlobalDirtyState>(p.record);
}

// Bits of ParsedLine::missingFields for balance_dirty_pages (records.h order).
constexpr std::uint32_t kBdpPeriod = 1u << 11;
constexpr std::uint32_t kBdpThink = 1u << 12;
constexpr std::uint32_t kBdpCgroup = 1u << 13;
constexpr std::uint32_t kBdrCgroup = 1u << 6;

// A 6.18 line from tests/data/real-trace-excerpt.txt, and what it says.
constexpr const char* kModernBdp =
    "              dd-4288    [000] .....   294.213189: balance_dirty_pages: bdi 254:0: "
    "limit=9766 setpoint=7568 dirty=6674 wb_setpoint=7567 wb_dirty=6674 dirty_ratelimit=102400 "
    "task_ratelimit=109300 dirtied=256 dirtied_pause=200 paused=0 pause=0 period=8 think=8 "
    "cgroup_ino=1";
const te::TraceHeader kModernHeader = traceHeader("dd", 4288, 0, 294'213'189'000);
const auto kModernBdpRecord = te::BalanceDirtyPages{
    kModernHeader, "254:0", 9766, 7568, 6674, 7567, 6674, 102400, 109300, 256, 200, 0, 0, 8, 8, 1};

// One 6.18 record as trace-cmd report and perf script print it.
const te::TraceHeader kReportedHeader = traceHeader("dd", 4288, 0, 294'213'596'000);
const auto kReportedBdpRecord =
    te::BalanceDirtyPages{kReportedHeader, "254:0", 9766, 7568, 6930, 7567, 6930, 102400,
                          104800,          256,     200,  0,    8,    8,    0,    1};

// A 3.x balance_dirty_pages line (bdi_setpoint/bdi_dirty), with the flags column `flags` and
// the fields `tail` after pause=, and its record with that period.
std::string line3xBdp(const char* flags, const char* tail) {
  return std::string("              dd-3420  [001] ") + flags +
         "  812.003521: balance_dirty_pages: bdi 8:0: limit=181600 setpoint=158900 dirty=159587 "
         "bdi_setpoint=104999 bdi_dirty=104120 dirty_ratelimit=23412 task_ratelimit=21880 "
         "dirtied=256 dirtied_pause=256 paused=0 pause=44" +
         tail;
}
te::BalanceDirtyPages k3xBdpRecord(std::int64_t period) {
  const te::TraceHeader header = traceHeader("dd", 3420, 1, 812'003'521'000);
  return te::BalanceDirtyPages{header, "8:0", 181600, 158900, 159587, 104999, 104120, 23412,
                               21880,  256,   256,    0,      44,     period, 0,      1};
}

// 3.2's bdi_dirty_ratelimit, whose average is printed as awrite_bw or (`trace-cmd report -R`,
// the member name) avg_write_bw: both mean the same field.
std::string line32Bdr(const char* averageName) {
  return std::string(
             "  dd-3421  [000]   812.012034: bdi_dirty_ratelimit: bdi 8:0: write_bw=93504 ") +
         averageName +
         "=91620 dirty_rate=94100 dirty_ratelimit=23412 task_ratelimit=21876 "
         "balanced_dirty_ratelimit=22940";
}
const te::TraceHeader k32Header = traceHeader("dd", 3421, 0, 812'012'034'000);
const auto k32BdrRecord =
    te::BdiDirtyRatelimit{k32Header, "8:0", 93504, 91620, 94100, 23412, 21876, 22940, 1};

// global_dirty_state's fields counting up, after a header.
constexpr const char* kCountingGds =
    "dirty=1 writeback=2 bg_thresh=3 thresh=4 limit=5 dirtied=6 written=7";
te::GlobalDirtyState countingGds(const te::TraceHeader& header) {
  return te::GlobalDirtyState{header, 1, 2, 3, 4, 5, 6, 7};
}

/// One line of one of our events and the record it holds, its every field read off the line
/// (the records list their members in records.h order, the order 6.18 prints them in).
struct LineCase {
  std::string name;  ///< the test's name
  std::string line;
  te::TraceRecord expected;
  std::optional<ti::TraceFormat> format;  ///< where the layout decides it
  std::optional<std::uint32_t> missing;   ///< missingFields, where the line says it
};

std::vector<LineCase> lineCases() {
  using F = ti::TraceFormat;
  return {
      {"ReadsEveryFieldOfAModernBalanceDirtyPagesLine", kModernBdp, kModernBdpRecord, F::Ftrace,
       0u},
      {"IgnoresACarriageReturn", std::string(kModernBdp) + "\r", kModernBdpRecord, F::Ftrace, 0u},
      {"ReadsGlobalDirtyStateOfAKworkerWithDashesInItsName",
       "    kworker/u8:1-33      [001] .....   294.213209: global_dirty_state: dirty=777 "
       "writeback=5897 bg_thresh=977 thresh=9766 limit=9766 dirtied=1136703 written=1106196",
       te::GlobalDirtyState{traceHeader("kworker/u8:1", 33, 1, 294'213'209'000), 777, 5897, 977,
                            9766, 9766, 1136703, 1106196},
       F::Ftrace, 0u},
      {"ReadsBdiDirtyRatelimit",
       "              dd-4290    [001] .N...   294.244281: bdi_dirty_ratelimit: bdi 8:16: "
       "write_bw=102912 awrite_bw=101888 dirty_rate=99812 dirty_ratelimit=25600 "
       "task_ratelimit=25604 balanced_dirty_ratelimit=24800 cgroup_ino=1",
       te::BdiDirtyRatelimit{traceHeader("dd", 4290, 1, 294'244'281'000), "8:16", 102912, 101888,
                             99812, 25600, 25604, 24800, 1},
       F::Ftrace, 0u},
      {"ReadsFtraceWithTheOldFourCharacterFlags", line3xBdp("d..1 ", " period=44 think=0"),
       k3xBdpRecord(44), F::Ftrace, kBdpCgroup},
      // 3.2's field list: no period, think or cgroup_ino; no flags column.
      {"Reads32EraBalanceDirtyPagesWithoutPeriodAndThink", line3xBdp("", ""), k3xBdpRecord(0),
       std::nullopt, kBdpPeriod | kBdpThink | kBdpCgroup},
      {"Reads32EraBdiDirtyRatelimitAsAwriteBw", line32Bdr("awrite_bw"), k32BdrRecord, std::nullopt,
       kBdrCgroup},
      {"Reads32EraBdiDirtyRatelimitAsAvgWriteBw", line32Bdr("avg_write_bw"), k32BdrRecord,
       std::nullopt, kBdrCgroup},
      // Wu Fengguang's 2011 series: goal, bdi_goal, base_rate, and a different field order.
      {"Reads2011PatchNames",
       "              dd-2900  [002]   391.125102: balance_dirty_pages: bdi 8:0: limit=80000 "
       "goal=70000 dirty=69500 bdi_goal=35000 bdi_dirty=34800 base_rate=12800 "
       "task_ratelimit=13100 dirtied=32 dirtied_pause=32 period=12 think=4 pause=8 paused=0",
       te::BalanceDirtyPages{traceHeader("dd", 2900, 2, 391'125'102'000), "8:0", 80000, 70000,
                             69500, 35000, 34800, 12800, 13100, 32, 32, 0, 8, 12, 4, 1},
       std::nullopt, kBdpCgroup},
      {"FindsFieldsByNameInAnyOrderAndIgnoresUnknownOnes",
       "  dd-1 [000] ..... 1.000000: balance_dirty_pages: bdi sda: pause=12 future_field=7 "
       "dirty=300 limit=400 cgroup=/user.slice",
       te::BalanceDirtyPages{traceHeader("dd", 1, 0, 1'000'000'000), "sda", 400, 0, 300, 0, 0, 0, 0,
                             0, 0, 0, 12, 0, 0, 1},
       F::Ftrace, std::nullopt},
      {"ReadsTraceCmdReport",
       "              dd-4288  [000]   294.213596: balance_dirty_pages:  bdi 254:0: limit=9766 "
       "setpoint=7568 dirty=6930 wb_setpoint=7567 wb_dirty=6930 dirty_ratelimit=102400 "
       "task_ratelimit=104800 dirtied=256 dirtied_pause=200 paused=0 pause=8 period=8 think=0 "
       "cgroup_ino=1",
       kReportedBdpRecord, F::TraceCmd, 0u},
      {"ReadsPerfScript",
       "              dd  4288 [000]   294.213596: writeback:balance_dirty_pages: bdi 254:0: "
       "limit=9766 setpoint=7568 dirty=6930 wb_setpoint=7567 wb_dirty=6930 dirty_ratelimit=102400 "
       "task_ratelimit=104800 dirtied=256 dirtied_pause=200 paused=0 pause=8 period=8 think=0 "
       "cgroup_ino=1",
       kReportedBdpRecord, F::PerfScript, 0u},
      {"ReadsTraceCmdNanosecondTimestamps",
       std::string("  dd-4288  [000]   294.213596123: global_dirty_state: ") + kCountingGds,
       countingGds(traceHeader("dd", 4288, 0, 294'213'596'123)), std::nullopt, 0u},
      {"ReadsPerfScriptWithPidSlashTidAndASpaceInTheName",
       "     Web Content  4100/4123  [003]  1000.500000: writeback:global_dirty_state: dirty=10 "
       "writeback=20 bg_thresh=30 thresh=40 limit=50 dirtied=60 written=70",
       te::GlobalDirtyState{traceHeader("Web Content", 4123, 3, 1000'500'000'000), 10, 20, 30, 40,
                            50, 60, 70},
       F::PerfScript, 0u},
      {"ReadsFtraceWithTheTgidColumn",
       std::string("              dd-4288    (   4288) [000] .....   294.213189: "
                   "global_dirty_state: ") +
           kCountingGds,
       countingGds(kModernHeader), F::Ftrace, 0u},
      // The kernel prints pause and think with %ld: they go below zero when a task comes back
      // before its last pause was due.
      {"ReadsNegativeMillisecondsOfSignedFields",
       "  dd-1 [000] ..... 2.5: balance_dirty_pages: bdi sda: dirty=5 paused=4 pause=-4 think=-12",
       te::BalanceDirtyPages{traceHeader("dd", 1, 0, 2'500'000'000), "sda", 0, 0, 5, 0, 0, 0, 0, 0,
                             0, 4, -4, 0, -12, 1},
       F::Ftrace, std::nullopt},
  };
}

// Test names show the case's name, not its bytes.
void PrintTo(const LineCase& c, std::ostream* os) {
  *os << c.name;
}

class TraceParserLine : public ::testing::TestWithParam<LineCase> {};

TEST_P(TraceParserLine, ReadsTheRecord) {
  const LineCase& c = GetParam();
  const auto p = ti::parseTraceLine(c.line);
  ASSERT_EQ(p.kind, ti::LineKind::Event) << p.problem;
  throttlelab::test::expectSameRecord(p.record, c.expected);
  if (c.format) {
    EXPECT_EQ(p.format, *c.format) << ti::toString(p.format);
  }
  if (c.missing) {
    EXPECT_EQ(p.missingFields, *c.missing);
  }
}

INSTANTIATE_TEST_SUITE_P(TraceParser, TraceParserLine, ::testing::ValuesIn(lineCases()),
                         [](const ::testing::TestParamInfo<LineCase>& c) { return c.param.name; });

TEST(TraceParser, CallsAValueTheKernelCannotPrintOutOfRangeAndNamesTheField) {
  // Each field has its kernel type: unsigned long page counts are never negative and never
  // near 2^64 (a negative number printed with %lu), an unsigned int ends at 2^32 - 1.
  const std::string gds = "  dd-1 [000] ..... 1.0: global_dirty_state: dirty=";
  const std::string gdsTail = " writeback=3 bg_thresh=1 thresh=2 limit=3 dirtied=4 written=5";
  const std::string bdpHead = "  dd-1 [000] ..... 1.0: balance_dirty_pages: bdi 8:0: ";
  struct Case {
    std::string line;
    std::string field;  ///< the problem text starts with it
    std::string why;    ///< and contains this
  };
  const std::vector<Case> cases{
      {gds + "18446744073709551615" + gdsTail, "dirty=18446744073709551615", "page count"},
      {gds + "-5" + gdsTail, "dirty=-5", "never negative"},
      {gds + "1e400" + gdsTail, "dirty=1e400", "whole number"},
      {gds + "2.5" + gdsTail, "dirty=2.5", "whole number"},
      {gds + "12345678901234567890" + gdsTail, "dirty=12345678901234567890", "page count"},
      {gds + "123456789012345678901234567890" + gdsTail, "dirty=123456789012345678901234567890",
       "page count"},
      {bdpHead + "dirty=1 pause=1 paused=18446744073709551612", "paused=18446744073709551612",
       "milliseconds"},
      {bdpHead + "dirty=1 pause=1 dirtied=4294967296", "dirtied=4294967296", "unsigned int"},
      {bdpHead + "dirty=1 pause=99999999999999999", "pause=99999999999999999", "milliseconds"},
      {bdpHead + "dirty=1 pause=1 task_ratelimit=-1", "task_ratelimit=-1", "KB/s"},
      {bdpHead + "dirty=1 pause=1 cgroup_ino=-1", "cgroup_ino=-1", "inode"},
      {"  dd-1 [000] ..... 1.0: bdi_dirty_ratelimit: bdi 8:0: write_bw=1 awrite_bw=1 "
       "dirty_rate=1 dirty_ratelimit=1 task_ratelimit=1 balanced_dirty_ratelimit=2000000000000000 "
       "cgroup_ino=1",
       "balanced_dirty_ratelimit=2000000000000000", "KB/s"},
  };
  for (const auto& c : cases) {
    const auto p = ti::parseTraceLine(c.line);
    EXPECT_EQ(p.kind, ti::LineKind::Malformed) << c.line;
    const std::string text = ti::problemText(p);
    EXPECT_EQ(text.rfind(c.field + " is out of range: ", 0), 0u) << text;
    EXPECT_NE(text.find(c.why), std::string::npos) << text;
  }
  // The largest values of each type are read.
  const std::string edgeLine = bdpHead +
                               "dirty=281474976710656 pause=-1099511627776 "
                               "dirtied=4294967295 cgroup_ino=18446744073709551615";
  const auto edge = ti::parseTraceLine(edgeLine);
  ASSERT_EQ(edge.kind, ti::LineKind::Event) << ti::problemText(edge);
  EXPECT_EQ(bdp(edge).dirty, std::int64_t{1} << 48);
  EXPECT_EQ(bdp(edge).pause, -(std::int64_t{1} << 40));
  EXPECT_EQ(bdp(edge).dirtied, 4294967295u);
  // Junk after digits is shown with the value; an empty value is "no number".
  EXPECT_EQ(ti::problemText(ti::parseTraceLine(gds + "12x" + gdsTail)),
            "dirty=12x is not a number as the kernel prints one (decimal digits)");
}

TEST(TraceParser, CallsALineLongerThanTheBoundMalformedWithoutReadingIt) {
  std::string line(kModernBdp);
  const auto at = ti::parseTraceLine(line + std::string(ti::kMaxLineBytes - line.size(), ' '));
  EXPECT_EQ(at.kind, ti::LineKind::Event) << at.problem;
  const auto over =
      ti::parseTraceLine(line + std::string(ti::kMaxLineBytes + 1 - line.size(), ' '));
  EXPECT_EQ(over.kind, ti::LineKind::Malformed);
  EXPECT_NE(over.problem.find("64 KiB"), std::string_view::npos) << over.problem;
}

TEST(TraceParser, ClassifiesHeadersAndPreambleAsComments) {
  for (const char* line :
       {"", "   ", "# tracer: nop", "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION",
        "cpus=2", "CPU 0 is empty", "CPU:1 [LOST 1234 EVENTS]", "version = 6",
        "##### CPU 1 buffer started ####"})
    EXPECT_EQ(ti::parseTraceLine(line).kind, ti::LineKind::Comment) << "'" << line << "'";
}

TEST(TraceParser, ClassifiesOtherEventsAsOther) {
  const auto p = ti::parseTraceLine(
      "          <idle>-0       [001] d..2.   295.000012: sched_switch: prev_comm=swapper/1 "
      "prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=dd next_pid=4288 next_prio=120");
  EXPECT_EQ(p.kind, ti::LineKind::Other);
  EXPECT_EQ(p.format, ti::TraceFormat::Ftrace);
  EXPECT_EQ(ti::parseTraceLine("  dd  4288 [000]  294.2: writeback:writeback_start: bdi 8:0: "
                               "sb_dev=0:0 nr_pages=1024")
                .kind,
            ti::LineKind::Other);
}

TEST(TraceParser, CallsLinesThatAreNoTraceLinesGarbage) {
  for (const char* line : {"time_s,dirty_pages,writeback_pages", "\x89PNG\r", "hello world",
                           "dd-4288 [000] ..... notatime: balance_dirty_pages: bdi 8:0: dirty=1",
                           "dd-4288 [0x0] ..... 1.0: balance_dirty_pages: bdi 8:0: dirty=1",
                           "[000] ..... 1.0: balance_dirty_pages: bdi 8:0: dirty=1"}) {
    const auto p = ti::parseTraceLine(line);
    EXPECT_EQ(p.kind, ti::LineKind::Garbage) << line;
    EXPECT_FALSE(p.problem.empty()) << line;
  }
}

TEST(TraceParser, CallsOurEventsWithUnreadableFieldsMalformedAndNamesTheField) {
  const auto bad = ti::parseTraceLine(
      "  dd-1 [000] ..... 1.0: balance_dirty_pages: bdi 8:0: limit=9766 dirty=abc pause=4");
  EXPECT_EQ(bad.kind, ti::LineKind::Malformed);
  EXPECT_NE(ti::problemText(bad).find("dirty=abc"), std::string::npos) << ti::problemText(bad);

  const auto empty =
      ti::parseTraceLine("  dd-1 [000] ..... 1.0: global_dirty_state: dirty= writeback=5");
  EXPECT_EQ(empty.kind, ti::LineKind::Malformed);
  EXPECT_NE(empty.problem.find("dirty="), std::string_view::npos) << empty.problem;

  const auto noBdi =
      ti::parseTraceLine("  dd-1 [000] ..... 1.0: balance_dirty_pages: limit=9766 dirty=5 pause=4");
  EXPECT_EQ(noBdi.kind, ti::LineKind::Malformed);

  const auto noFields = ti::parseTraceLine("  dd-1 [000] ..... 1.0: global_dirty_state: ");
  EXPECT_EQ(noFields.kind, ti::LineKind::Malformed);

  const auto noDirty = ti::parseTraceLine(
      "  dd-1 [000] ..... 1.0: balance_dirty_pages: bdi 8:0: limit=9766 pause=4");
  EXPECT_EQ(noDirty.kind, ti::LineKind::Malformed);
  EXPECT_NE(noDirty.problem.find("dirty="), std::string_view::npos) << noDirty.problem;
}

TEST(TraceParser, CallsALineCutInTheMiddleMalformedOrMissingFields) {
  const std::string line(kModernBdp);
  // Cut right after a '=': the value is missing.
  const auto cut = ti::parseTraceLine(line.substr(0, line.find("pause=0") + 6));
  EXPECT_EQ(cut.kind, ti::LineKind::Malformed);
  // Cut before `period`: an event with its last fields missing.
  const auto shorter = ti::parseTraceLine(line.substr(0, line.find(" period=")));
  ASSERT_EQ(shorter.kind, ti::LineKind::Event);
  EXPECT_EQ(shorter.missingFields, kBdpPeriod | kBdpThink | kBdpCgroup);
}

TEST(TraceParser, NeverReadsOutsideTheLine) {
  // Every prefix of a valid line must parse without touching the bytes after it; run
  // under AddressSanitizer this is a bounds check, otherwise it is at least no crash.
  const std::string line(kModernBdp);
  for (std::size_t n = 0; n <= line.size(); ++n) {
    const std::string prefix = line.substr(0, n);
    const auto p = ti::parseTraceLine(prefix);
    EXPECT_NE(p.kind, ti::LineKind::Other) << prefix;
  }
}

}  // namespace

namespace {

TEST(TraceParser, ReadsNumbersOfEveryLengthInTheMiddleAndAtTheEndOfALine) {
  // Values are read eight digits at a time where eight bytes follow, byte by byte near the
  // line's end; both must agree for every length.
  std::uint64_t v = 0;
  for (int digits = 1; digits <= 19; ++digits) {
    v = v * 10 + static_cast<std::uint64_t>(digits % 10);
    const std::string value = std::to_string(v);
    // dirtied= is a cumulative counter: any value a long holds.
    const std::string middle =
        "  dd-1 [000] ..... 1.0: global_dirty_state: dirty=1 writeback=3 bg_thresh=1 thresh=2 "
        "limit=3 dirtied=" +
        value + " written=5";
    const std::string atEnd =
        "  dd-1 [000] ..... 1.0: global_dirty_state: dirty=1 writeback=3 dirtied=" + value;
    for (const auto& line : {middle, atEnd}) {
      const auto p = ti::parseTraceLine(line);
      ASSERT_EQ(p.kind, ti::LineKind::Event) << line;
      EXPECT_EQ(static_cast<std::uint64_t>(gds(p).dirtied), v) << line;
      EXPECT_EQ(gds(p).writeback, 3) << line;
    }
  }
  const auto max = ti::parseTraceLine(
      "  dd-1 [000] ..... 1.0: balance_dirty_pages: bdi 8:0: dirty=1 "
      "cgroup_ino=18446744073709551615 pause=7");
  ASSERT_EQ(max.kind, ti::LineKind::Event);
  EXPECT_EQ(bdp(max).cgroupIno, 18446744073709551615u);
  EXPECT_EQ(bdp(max).pause, 7);
  const auto tooBig = ti::parseTraceLine(
      "  dd-1 [000] ..... 1.0: balance_dirty_pages: bdi 8:0: dirty=1 "
      "cgroup_ino=18446744073709551616 pause=7");
  EXPECT_EQ(tooBig.kind, ti::LineKind::Malformed);
  const auto letters = ti::parseTraceLine(
      "  dd-1 [000] ..... 1.0: balance_dirty_pages: bdi 8:0: dirty=12345678x pause=7 limit=1");
  EXPECT_EQ(letters.kind, ti::LineKind::Malformed);
}

}  // namespace
