// SPDX-License-Identifier: GPL-3.0-or-later
// Messages that say what they saw (issue #27): a writeback line whose timestamp no trace clock
// reaches is a line with a bad timestamp, not "not a kernel trace"; a value that is no decimal
// number is shown as it was written; a value with a space in it is malformed, not read as its
// first word.
#include <gtest/gtest.h>

#include <string>

#include "test_support.h"
#include "throttlelab/traceio/trace_parser.h"

namespace {

using namespace throttlelab::test;

/// A balance_dirty_pages line as a 6.18 kernel prints it, with `time` and `cgroup`.
std::string bdp(const std::string& time, const std::string& cgroup = "1") {
  return "              dd-4288    [000] .....   " + time +
         ": balance_dirty_pages: bdi 254:0: limit=9766 setpoint=7568 dirty=6674 "
         "wb_setpoint=7567 wb_dirty=6674 dirty_ratelimit=102400 task_ratelimit=109300 "
         "dirtied=256 dirtied_pause=200 paused=0 pause=0 period=8 think=8 cgroup_ino=" +
         cgroup;
}

}  // namespace

TEST(TraceMessages, AnAbsurdTimestampIsNamedNotTakenForAnotherFormat) {
  for (const std::string time :
       {"99999999999999999999.213189", "18446744073.709551", "9223372036.854775", "4611686019.0"}) {
    SCOPED_TRACE(time);
    const std::string line = bdp(time);  // the parsed line's views point into it
    const ti::ParsedLine p = ti::parseTraceLine(line);
    EXPECT_EQ(p.kind, ti::LineKind::Malformed);
    const std::string problem = ti::problemText(p);
    EXPECT_TRUE(contains(problem, time)) << problem;
    EXPECT_TRUE(contains(problem, "timestamp")) << problem;

    CollectSink sink;
    const ti::ImportResult r = ti::importTraceText(bdp(time) + "\n", sink);
    EXPECT_FALSE(r.ok());
    EXPECT_FALSE(contains(r.error, "not a kernel trace")) << r.error;
    EXPECT_TRUE(contains(r.error, time)) << r.error;
  }
  // The largest a clock counts still reads; another event's line stays another event's.
  EXPECT_EQ(ti::parseTraceLine(bdp("4611686018.000001")).kind, ti::LineKind::Event);
  EXPECT_EQ(ti::parseTraceLine("  dd-1 [000] ..... 99999999999.5: sched_switch: prev=1").kind,
            ti::LineKind::Other);
}

TEST(TraceMessages, AValueThatIsNoDecimalNumberIsShown) {
  const std::string line = bdp("294.213189", "0x10");
  const ti::ParsedLine p = ti::parseTraceLine(line);
  EXPECT_EQ(p.kind, ti::LineKind::Malformed);
  const std::string problem = ti::problemText(p);
  EXPECT_TRUE(contains(problem, "cgroup_ino=0x10")) << problem;
  // An empty value still says there is none.
  const std::string empty = bdp("294.213189", "");
  EXPECT_TRUE(contains(ti::problemText(ti::parseTraceLine(empty)), "no number in cgroup_ino="));
}

TEST(TraceMessages, AValueWithASpaceInItIsMalformed) {
  const std::string line = bdp("294.213189", "1 2");
  const ti::ParsedLine p = ti::parseTraceLine(line);
  EXPECT_EQ(p.kind, ti::LineKind::Malformed);
  EXPECT_TRUE(contains(ti::problemText(p), "cgroup_ino=1 2")) << ti::problemText(p);
  const std::string middleLine =
      "  dd-1 [000] ..... 5.000000: global_dirty_state: dirty=10 20 writeback=5 bg_thresh=50 "
      "thresh=200 limit=200 dirtied=1 written=1";
  const ti::ParsedLine middle = ti::parseTraceLine(middleLine);
  EXPECT_EQ(middle.kind, ti::LineKind::Malformed);
  EXPECT_TRUE(contains(ti::problemText(middle), "dirty=10 20")) << ti::problemText(middle);
}
