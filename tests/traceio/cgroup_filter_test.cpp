// SPDX-License-Identifier: GPL-3.0-or-later
// One memory cgroup's records of a trace (ImportOptions::cgroupIno): the balance_dirty_pages
// and bdi_dirty_ratelimit records of other cgroup_inos reach neither the sink nor the rows, the
// machine's global_dirty_state always does, every cgroup's records are counted, and an ino no
// record carries is an error naming the ones the trace has.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "test_support.h"

namespace throttlelab::test {
namespace {

std::string bdp(int pid, double t, int pause, std::uint64_t ino) {
  char time[32];
  std::snprintf(time, sizeof time, "%.6f", t);
  return "              dd-" + std::to_string(pid) + "    [000] .....   " + time +
         ": balance_dirty_pages: bdi 8:0: limit=9766 setpoint=7568 dirty=6674 wb_setpoint=7567 "
         "wb_dirty=6674 dirty_ratelimit=102400 task_ratelimit=109300 dirtied=256 "
         "dirtied_pause=200 paused=0 pause=" +
         std::to_string(pause) + " period=8 think=8 cgroup_ino=" + std::to_string(ino) + "\n";
}

std::string bdr(double t, std::uint64_t ino) {
  char time[32];
  std::snprintf(time, sizeof time, "%.6f", t);
  return "     kworker-9    [001] .....   " + std::string(time) +
         ": bdi_dirty_ratelimit: bdi 8:0: write_bw=102912 awrite_bw=101888 dirty_rate=99812 "
         "dirty_ratelimit=25600 task_ratelimit=25604 balanced_dirty_ratelimit=24800 cgroup_ino=" +
         std::to_string(ino) + "\n";
}

std::string gds(double t) {
  char time[32];
  std::snprintf(time, sizeof time, "%.6f", t);
  return "     kworker-9    [001] .....   " + std::string(time) +
         ": global_dirty_state: dirty=6000 writeback=600 bg_thresh=5000 thresh=10000 "
         "limit=10000 dirtied=100 written=90\n";
}

/// Two writers in the root cgroup (pids 10, 11) and one in cgroup 4096 (pid 20), 3 + 3 + 4
/// records; each cgroup's wb estimates once; the machine's state twice.
std::string twoCgroupTrace() {
  std::string t = gds(1.0);
  for (int i = 0; i < 3; ++i) t += bdp(10, 1.01 + 0.1 * i, 5, 1) + bdp(11, 1.02 + 0.1 * i, 6, 1);
  for (int i = 0; i < 4; ++i) t += bdp(20, 1.03 + 0.1 * i, 40, 4096);
  t += bdr(1.5, 1) + bdr(1.51, 4096) + gds(1.6);
  return t;
}

std::set<int> pidsOf(const CollectSink& sink) {
  std::set<int> pids;
  for (const auto& r : sink.records)
    if (const auto* b = std::get_if<te::BalanceDirtyPages>(&r)) pids.insert(b->header.pid);
  return pids;
}

TEST(CgroupFilter, KeepsOneCgroupsRecordsAndTheMachinesState) {
  const std::string text = twoCgroupTrace();
  CollectSink all;
  const auto everything = ti::importTraceText(text, all);
  ASSERT_TRUE(everything.ok()) << everything.error;
  EXPECT_FALSE(everything.stats.cgroupFilter.has_value());
  EXPECT_EQ(everything.stats.otherCgroupRecords, 0);
  EXPECT_EQ(pidsOf(all), (std::set<int>{10, 11, 20}));
  // Both cgroups are counted, by their balance_dirty_pages records.
  EXPECT_EQ(everything.stats.cgroupRecords,
            (std::map<std::uint64_t, std::int64_t>{{1, 6}, {4096, 4}}));

  ti::ImportOptions only;
  only.cgroupIno = 4096;
  CollectSink box;
  const auto filtered = ti::importTraceText(text, box, only);
  ASSERT_TRUE(filtered.ok()) << filtered.error;
  EXPECT_EQ(filtered.stats.cgroupFilter, std::optional<std::uint64_t>(4096));
  EXPECT_EQ(pidsOf(box), std::set<int>{20});
  // The root's six balance_dirty_pages and one bdi_dirty_ratelimit were left out.
  EXPECT_EQ(filtered.stats.otherCgroupRecords, 7);
  EXPECT_EQ(filtered.stats.cgroupRecords, everything.stats.cgroupRecords);
  int gdsKept = 0, bdrKept = 0;
  for (const auto& r : box.records) {
    if (std::holds_alternative<te::GlobalDirtyState>(r)) ++gdsKept;
    if (const auto* b = std::get_if<te::BdiDirtyRatelimit>(&r)) {
      ++bdrKept;
      EXPECT_EQ(b->cgroupIno, 4096u);
    }
  }
  EXPECT_EQ(gdsKept, 2);
  EXPECT_EQ(bdrKept, 1);
  // The tasks and the rows are the cgroup's: its writer and the flusher of its wb's estimates
  // (a pid of a bdi_dirty_ratelimit record is a task too), and every pause is its 40 ms.
  std::set<int> taskPids;
  for (const auto& t : box.tasks) taskPids.insert(t.pid);
  EXPECT_EQ(taskPids, (std::set<int>{9, 20}));
  int pauses = 0;
  for (const auto& s : box.samples) {
    pauses += s.pauses;
    if (s.pauses > 0) EXPECT_EQ(s.pauseMsMax, 40.0);
  }
  EXPECT_EQ(pauses, 4);
  const std::string d = ti::describe(filtered.stats);
  EXPECT_NE(d.find("Only cgroup_ino 4096"), std::string::npos) << d;
}

TEST(CgroupFilter, AnInoNoRecordCarriesIsAnErrorNamingTheTracesOnes) {
  ti::ImportOptions only;
  only.cgroupIno = 77;
  CollectSink sink;
  const auto r = ti::importTraceText(twoCgroupTrace(), sink, only);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error.find("cgroup_ino=77"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("1 (6)"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("4096 (4)"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace throttlelab::test
