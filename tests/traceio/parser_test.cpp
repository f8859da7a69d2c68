// SPDX-License-Identifier: GPL-3.0-or-later
// One line at a time: each producer's layout (ftrace with and without the flags column,
// trace-cmd report, perf script), each kernel era's field names, and lines that are not
// events. Expected values are read off the literal lines, never computed by the parser.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "throttlelab/traceio/trace_parser.h"

namespace {

namespace te = throttlelab::engine;
namespace ti = throttlelab::traceio;

std::string commOf(const te::TraceHeader& h) {
  return std::string(h.comm.data());
}
std::int64_t nsOf(const te::TraceHeader& h) {
  return h.time.time_since_epoch().count();
}

const te::BalanceDirtyPages& bdp(const ti::ParsedLine& p) {
  return std::get<te::BalanceDirtyPages>(p.record);
}
const te::BdiDirtyRatelimit& bdr(const ti::ParsedLine& p) {
  return std::get<te::BdiDirtyRatelimit>(p.record);
}
const te::GlobalDirtyState& gds(const ti::ParsedLine& p) {
  return std::get<te::GlobalDirtyState>(p.record);
}

// Bits of ParsedLine::missingFields for balance_dirty_pages (records.h order).
constexpr std::uint32_t kBdpPeriod = 1u << 11;
constexpr std::uint32_t kBdpThink = 1u << 12;
constexpr std::uint32_t kBdpCgroup = 1u << 13;
constexpr std::uint32_t kBdrCgroup = 1u << 6;

// A 6.18 line from tests/data/real-trace-excerpt.txt.
constexpr const char* kModernBdp =
    "              dd-4288    [000] .....   294.213189: balance_dirty_pages: bdi 254:0: "
    "limit=9766 setpoint=7568 dirty=6674 wb_setpoint=7567 wb_dirty=6674 dirty_ratelimit=102400 "
    "task_ratelimit=109300 dirtied=256 dirtied_pause=200 paused=0 pause=0 period=8 think=8 "
    "cgroup_ino=1";

TEST(TraceParser, ReadsEveryFieldOfAModernBalanceDirtyPagesLine) {
  const auto p = ti::parseTraceLine(kModernBdp);
  ASSERT_EQ(p.kind, ti::LineKind::Event) << p.problem;
  EXPECT_EQ(p.format, ti::TraceFormat::Ftrace);
  EXPECT_EQ(p.missingFields, 0u);
  const auto& r = bdp(p);
  EXPECT_EQ(commOf(r.header), "dd");
  EXPECT_EQ(r.header.pid, 4288);
  EXPECT_EQ(r.header.cpu, 0);
  EXPECT_EQ(nsOf(r.header), 294'213'189'000);
  EXPECT_EQ(r.bdi, "254:0");
  EXPECT_EQ(r.limit, 9766);
  EXPECT_EQ(r.setpoint, 7568);
  EXPECT_EQ(r.dirty, 6674);
  EXPECT_EQ(r.wbSetpoint, 7567);
  EXPECT_EQ(r.wbDirty, 6674);
  EXPECT_EQ(r.dirtyRatelimit, 102400);
  EXPECT_EQ(r.taskRatelimit, 109300);
  EXPECT_EQ(r.dirtied, 256u);
  EXPECT_EQ(r.dirtiedPause, 200u);
  EXPECT_EQ(r.paused, 0);
  EXPECT_EQ(r.pause, 0);
  EXPECT_EQ(r.period, 8);
  EXPECT_EQ(r.think, 8);
  EXPECT_EQ(r.cgroupIno, 1u);
}

TEST(TraceParser, ReadsGlobalDirtyStateOfAKworkerWithDashesInItsName) {
  const auto p = ti::parseTraceLine(
      "    kworker/u8:1-33      [001] .....   294.213209: global_dirty_state: dirty=777 "
      "writeback=5897 bg_thresh=977 thresh=9766 limit=9766 dirtied=1136703 written=1106196");
  ASSERT_EQ(p.kind, ti::LineKind::Event) << p.problem;
  const auto& r = gds(p);
  EXPECT_EQ(commOf(r.header), "kworker/u8:1");
  EXPECT_EQ(r.header.pid, 33);
  EXPECT_EQ(r.header.cpu, 1);
  EXPECT_EQ(r.dirty, 777);
  EXPECT_EQ(r.writeback, 5897);
  EXPECT_EQ(r.bgThresh, 977);
  EXPECT_EQ(r.thresh, 9766);
  EXPECT_EQ(r.limit, 9766);
  EXPECT_EQ(r.dirtied, 1136703);
  EXPECT_EQ(r.written, 1106196);
  EXPECT_EQ(p.missingFields, 0u);
}

TEST(TraceParser, ReadsBdiDirtyRatelimit) {
  const auto p = ti::parseTraceLine(
      "              dd-4290    [001] .N...   294.244281: bdi_dirty_ratelimit: bdi 8:16: "
      "write_bw=102912 awrite_bw=101888 dirty_rate=99812 dirty_ratelimit=25600 "
      "task_ratelimit=25604 balanced_dirty_ratelimit=24800 cgroup_ino=1");
  ASSERT_EQ(p.kind, ti::LineKind::Event) << p.problem;
  const auto& r = bdr(p);
  EXPECT_EQ(r.bdi, "8:16");
  EXPECT_EQ(r.writeBw, 102912);
  EXPECT_EQ(r.awriteBw, 101888);
  EXPECT_EQ(r.dirtyRate, 99812);
  EXPECT_EQ(r.dirtyRatelimit, 25600);
  EXPECT_EQ(r.taskRatelimit, 25604);
  EXPECT_EQ(r.balancedDirtyRatelimit, 24800);
  EXPECT_EQ(r.cgroupIno, 1u);
}

TEST(TraceParser, ReadsFtraceWithTheOldFourCharacterFlags) {
  const auto p = ti::parseTraceLine(
      "              dd-3420  [001] d..1   812.003521: balance_dirty_pages: bdi 8:0: "
      "limit=181600 setpoint=158900 dirty=159587 bdi_setpoint=104999 bdi_dirty=104120 "
      "dirty_ratelimit=23412 task_ratelimit=21880 dirtied=256 dirtied_pause=256 paused=0 pause=44 "
      "period=44 think=0");
  ASSERT_EQ(p.kind, ti::LineKind::Event) << p.problem;
  EXPECT_EQ(p.format, ti::TraceFormat::Ftrace);
  EXPECT_EQ(bdp(p).pause, 44);
  EXPECT_EQ(bdp(p).period, 44);
  EXPECT_EQ(p.missingFields, kBdpCgroup);
}

TEST(TraceParser, Reads32EraBalanceDirtyPagesWithoutPeriodAndThink) {
  // 3.2's field list: bdi_setpoint/bdi_dirty, no period, think or cgroup_ino; no flags column.
  const auto p = ti::parseTraceLine(
      "              dd-3420  [001]   812.003521: balance_dirty_pages: bdi 8:0: limit=181600 "
      "setpoint=158900 dirty=159587 bdi_setpoint=104999 bdi_dirty=104120 dirty_ratelimit=23412 "
      "task_ratelimit=21880 dirtied=256 dirtied_pause=256 paused=0 pause=44");
  ASSERT_EQ(p.kind, ti::LineKind::Event) << p.problem;
  const auto& r = bdp(p);
  EXPECT_EQ(r.wbSetpoint, 104999);
  EXPECT_EQ(r.wbDirty, 104120);
  EXPECT_EQ(r.pause, 44);
  EXPECT_EQ(r.period, 0);
  EXPECT_EQ(r.think, 0);
  EXPECT_EQ(p.missingFields, kBdpPeriod | kBdpThink | kBdpCgroup);
}

TEST(TraceParser, Reads32EraBdiDirtyRatelimitInBothSpellingsOfTheAverage) {
  // 3.2 printed the member avg_write_bw under the label awrite_bw; raw output
  // (`trace-cmd report -R`) prints the member name. Both mean the same field.
  const std::string head =
      "  dd-3421  [000]   812.012034: bdi_dirty_ratelimit: bdi 8:0: write_bw=93504 ";
  const std::string tail =
      "=91620 dirty_rate=94100 dirty_ratelimit=23412 task_ratelimit=21876 "
      "balanced_dirty_ratelimit=22940";
  for (const char* name : {"awrite_bw", "avg_write_bw"}) {
    const auto p = ti::parseTraceLine(head + name + tail);
    ASSERT_EQ(p.kind, ti::LineKind::Event) << name << ": " << p.problem;
    EXPECT_EQ(bdr(p).awriteBw, 91620) << name;
    EXPECT_EQ(p.missingFields, kBdrCgroup) << name;
  }
}

TEST(TraceParser, Reads2011PatchNames) {
  // Wu Fengguang's 2011 series: goal, bdi_goal, base_rate, and a different field order.
  const auto p = ti::parseTraceLine(
      "              dd-2900  [002]   391.125102: balance_dirty_pages: bdi 8:0: limit=80000 "
      "goal=70000 dirty=69500 bdi_goal=35000 bdi_dirty=34800 base_rate=12800 "
      "task_ratelimit=13100 dirtied=32 dirtied_pause=32 period=12 think=4 pause=8 paused=0");
  ASSERT_EQ(p.kind, ti::LineKind::Event) << p.problem;
  const auto& r = bdp(p);
  EXPECT_EQ(r.setpoint, 70000);
  EXPECT_EQ(r.wbSetpoint, 35000);
  EXPECT_EQ(r.dirtyRatelimit, 12800);
  EXPECT_EQ(r.period, 12);
  EXPECT_EQ(r.think, 4);
  EXPECT_EQ(r.pause, 8);
  EXPECT_EQ(p.missingFields, kBdpCgroup);
}

TEST(TraceParser, FindsFieldsByNameInAnyOrderAndIgnoresUnknownOnes) {
  const auto p = ti::parseTraceLine(
      "  dd-1 [000] ..... 1.000000: balance_dirty_pages: bdi sda: pause=12 future_field=7 "
      "dirty=300 limit=400 cgroup=/user.slice");
  ASSERT_EQ(p.kind, ti::LineKind::Event) << p.problem;
  EXPECT_EQ(bdp(p).pause, 12);
  EXPECT_EQ(bdp(p).dirty, 300);
  EXPECT_EQ(bdp(p).limit, 400);
  EXPECT_EQ(bdp(p).bdi, "sda");
}

TEST(TraceParser, ReadsTraceCmdReport) {
  const auto p = ti::parseTraceLine(
      "              dd-4288  [000]   294.213596: balance_dirty_pages:  bdi 254:0: limit=9766 "
      "setpoint=7568 dirty=6930 wb_setpoint=7567 wb_dirty=6930 dirty_ratelimit=102400 "
      "task_ratelimit=104800 dirtied=256 dirtied_pause=200 paused=0 pause=8 period=8 think=0 "
      "cgroup_ino=1");
  ASSERT_EQ(p.kind, ti::LineKind::Event) << p.problem;
  EXPECT_EQ(p.format, ti::TraceFormat::TraceCmd);
  EXPECT_EQ(bdp(p).pause, 8);
  EXPECT_EQ(bdp(p).bdi, "254:0");
  EXPECT_EQ(nsOf(bdp(p).header), 294'213'596'000);
}

TEST(TraceParser, ReadsTraceCmdNanosecondTimestamps) {
  const auto p = ti::parseTraceLine(
      "  dd-4288  [000]   294.213596123: global_dirty_state: dirty=1 writeback=2 bg_thresh=3 "
      "thresh=4 limit=5 dirtied=6 written=7");
  ASSERT_EQ(p.kind, ti::LineKind::Event) << p.problem;
  EXPECT_EQ(nsOf(gds(p).header), 294'213'596'123);
}

TEST(TraceParser, ReadsPerfScript) {
  const auto p = ti::parseTraceLine(
      "              dd  4288 [000]   294.213596: writeback:balance_dirty_pages: bdi 254:0: "
      "limit=9766 setpoint=7568 dirty=6930 wb_setpoint=7567 wb_dirty=6930 dirty_ratelimit=102400 "
      "task_ratelimit=104800 dirtied=256 dirtied_pause=200 paused=0 pause=8 period=8 think=0 "
      "cgroup_ino=1");
  ASSERT_EQ(p.kind, ti::LineKind::Event) << p.problem;
  EXPECT_EQ(p.format, ti::TraceFormat::PerfScript);
  EXPECT_EQ(commOf(bdp(p).header), "dd");
  EXPECT_EQ(bdp(p).header.pid, 4288);
  EXPECT_EQ(bdp(p).pause, 8);
}

TEST(TraceParser, ReadsPerfScriptWithPidSlashTidAndASpaceInTheName) {
  const auto p = ti::parseTraceLine(
      "     Web Content  4100/4123  [003]  1000.500000: writeback:global_dirty_state: dirty=10 "
      "writeback=20 bg_thresh=30 thresh=40 limit=50 dirtied=60 written=70");
  ASSERT_EQ(p.kind, ti::LineKind::Event) << p.problem;
  EXPECT_EQ(p.format, ti::TraceFormat::PerfScript);
  EXPECT_EQ(commOf(gds(p).header), "Web Content");
  EXPECT_EQ(gds(p).header.pid, 4123);
  EXPECT_EQ(gds(p).header.cpu, 3);
}

TEST(TraceParser, ReadsFtraceWithTheTgidColumn) {
  const auto p = ti::parseTraceLine(
      "              dd-4288    (   4288) [000] .....   294.213189: global_dirty_state: dirty=1 "
      "writeback=2 bg_thresh=3 thresh=4 limit=5 dirtied=6 written=7");
  ASSERT_EQ(p.kind, ti::LineKind::Event) << p.problem;
  EXPECT_EQ(gds(p).header.pid, 4288);
  EXPECT_EQ(commOf(gds(p).header), "dd");
}

TEST(TraceParser, ReadsNegativeMillisecondsOfSignedFields) {
  // The kernel prints pause and think with %ld: they go below zero when a task comes back
  // before its last pause was due.
  const auto p = ti::parseTraceLine(
      "  dd-1 [000] ..... 2.5: balance_dirty_pages: bdi sda: dirty=5 paused=4 pause=-4 think=-12");
  ASSERT_EQ(p.kind, ti::LineKind::Event) << p.problem;
  EXPECT_EQ(bdp(p).paused, 4);
  EXPECT_EQ(bdp(p).pause, -4);
  EXPECT_EQ(bdp(p).think, -12);
  EXPECT_EQ(nsOf(bdp(p).header), 2'500'000'000);
}

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
  const auto edge = ti::parseTraceLine(bdpHead +
                                       "dirty=281474976710656 pause=-1099511627776 "
                                       "dirtied=4294967295 cgroup_ino=18446744073709551615");
  ASSERT_EQ(edge.kind, ti::LineKind::Event) << ti::problemText(edge);
  EXPECT_EQ(bdp(edge).dirty, std::int64_t{1} << 48);
  EXPECT_EQ(bdp(edge).pause, -(std::int64_t{1} << 40));
  EXPECT_EQ(bdp(edge).dirtied, 4294967295u);
  // Junk after digits stays "no number", as before.
  EXPECT_EQ(ti::problemText(ti::parseTraceLine(gds + "12x" + gdsTail)), "no number in dirty=");
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

TEST(TraceParser, IgnoresACarriageReturn) {
  const auto p = ti::parseTraceLine(std::string(kModernBdp) + "\r");
  ASSERT_EQ(p.kind, ti::LineKind::Event) << p.problem;
  EXPECT_EQ(bdp(p).cgroupIno, 1u);
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
  EXPECT_NE(bad.problem.find("dirty="), std::string_view::npos) << bad.problem;

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
