// SPDX-License-Identifier: GPL-3.0-or-later
// Memory cgroups (docs/model.md, Memory cgroups): the memcg domain's formulas against
// hand-computed values, the scenario keys, and behaviour that must emerge: a writer in a
// 1 GiB cgroup throttled by its own domain while a writer outside runs free, memory.max held
// by reclaim inside the cgroup, v1 and pre-4.2 policies without a cgroup domain.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "kernel.h"
#include "kernel_test_access.h"
#include "memcg_domain.h"
#include "throttlelab/engine/scenario.h"
#include "throttlelab/engine/simulator.h"

namespace throttlelab::engine {
namespace {

TEST(MemcgDomain, HeadroomIsUnderTheLowerOfMaxAndHigh) {
  EXPECT_EQ(memcgHeadroom(1000, 0, 300), 700);
  EXPECT_EQ(memcgHeadroom(1000, 600, 300), 300);
  EXPECT_EQ(memcgHeadroom(0, 600, 300), 300);
  EXPECT_EQ(memcgHeadroom(1000, 0, 1200), 0);
  EXPECT_GT(memcgHeadroom(0, 0, 300), Pages{1} << 40);  // no limit
}

TEST(MemcgDomain, DirtyableIsFilePlusHeadroomCappedByCleanMemoryElsewhere) {
  // file 200, of it 50 dirty: clean 150. Global avail 1000 with 400 dirty: clean 600, of which
  // 450 lie outside the cgroup. Headroom 100 < 450: avail = 200 + 100.
  EXPECT_EQ(memcgDirtyable(200, 100, 50, 1000, 400), 300);
  // Headroom 800 > 450: capped at the other clean memory, 200 + 450.
  EXPECT_EQ(memcgDirtyable(200, 800, 50, 1000, 400), 650);
  // The whole machine dirty: no clean memory elsewhere, only the cgroup's own pages count.
  EXPECT_EQ(memcgDirtyable(200, 800, 50, 1000, 1000), 200);
}

TEST(MemcgDomain, RatiosApplyToItsOwnDirtyableMemory) {
  VmConfig vm;
  vm.dirtyRatio = 20;
  vm.dirtyBackgroundRatio = 10;
  // 20 % in 1/4096 steps: 819/4096 of 262,144 pages = 52,416 (not 52,428: the kernel's
  // per-page precision); 10 %: 409/4096 -> 26,176.
  const DirtyThresholds t = computeMemcgThresholds(vm, 262144, 4'000'000, LimitBonus::None, 0);
  EXPECT_EQ(t.thresh, 52416);
  EXPECT_EQ(t.bgThresh, 26176);
}

TEST(MemcgDomain, BytesBecomeAShareOfTheGlobalAvailableMemory) {
  VmConfig vm;
  vm.dirtyBytes = 64 << 20;            // 67,108,864 bytes
  vm.dirtyBackgroundBytes = 32 << 20;  // 33,554,432
  // ratio = ceil(67,108,864 / 1,000,000) = 68 (per 4096); 68 · 250,000 / 4096 = 4150.
  // bg: ceil(33,554,432 / 1,000,000) = 34; 34 · 250,000 / 4096 = 2075.
  const DirtyThresholds t = computeMemcgThresholds(vm, 250'000, 1'000'000, LimitBonus::None, 0);
  EXPECT_EQ(t.thresh, 4150);
  EXPECT_EQ(t.bgThresh, 2075);
}

TEST(MemcgDomain, RealTimeBonusUsesTheGlobalDirtyLimit) {
  VmConfig vm;
  vm.dirtyRatio = 20;
  vm.dirtyBackgroundRatio = 10;
  // 52,416 + 13,104 + 3,200 (102,400 / 32); 26,176 + 6,544 + 3,200.
  const DirtyThresholds t =
      computeMemcgThresholds(vm, 262144, 4'000'000, LimitBonus::RealTime, 102'400);
  EXPECT_EQ(t.thresh, 68720);
  EXPECT_EQ(t.bgThresh, 35920);
}

// --- runs ---------------------------------------------------------------------------------

struct Collected : RecordSink {
  std::vector<Sample> samples;
  std::vector<BalanceDirtyPages> balances;
  std::vector<TaskInfo> tasks;
  void onSample(const Sample& s) override { samples.push_back(s); }
  void onTrace(const TraceRecord& r) override {
    if (const auto* b = std::get_if<BalanceDirtyPages>(&r)) balances.push_back(*b);
  }
  void onTaskCreated(const TaskInfo& t) override { tasks.push_back(t); }
  int pidOf(const std::string& name) const {
    for (const auto& t : tasks)
      if (t.name == name) return t.pid;
    return -1;
  }
};

Scenario containerWriter(const std::string& policy, int version = 2, double seconds = 30) {
  Scenario s = loadScenario("container-writer", {});
  s.policy = policy;
  s.cgroups.at(0).version = version;
  s.durationS = seconds;
  return s;
}

Collected run(const Scenario& s) {
  Collected c;
  Simulator sim(s);
  OutputOptions o;
  o.traces = true;
  sim.setSink(&c, o);
  sim.run();
  return c;
}

std::int64_t positivePauses(const Collected& c, int pid) {
  return std::count_if(c.balances.begin(), c.balances.end(), [&](const BalanceDirtyPages& b) {
    return b.header.pid == pid && b.pause > 0;
  });
}

TEST(Cgroups, TheContainerWriterIsThrottledByItsOwnDomainWhileTheHostRunsFree) {
  const Scenario s = containerWriter("ioless");
  const Collected c = run(s);
  const int box = c.pidOf("dd-box"), host = c.pidOf("dd-host");
  ASSERT_GT(box, 0);
  ASSERT_GT(host, 0);
  EXPECT_GT(positivePauses(c, box), 100);
  EXPECT_EQ(positivePauses(c, host), 0);
  // Every pause of the container writer was set by its cgroup's domain, and its records carry
  // the cgroup's inode, not the root's.
  std::int64_t boxRecords = 0;
  for (const auto& b : c.balances) {
    if (b.header.pid != box || b.pause <= 0) continue;
    ++boxRecords;
    EXPECT_EQ(b.domain, ThrottleDomain::Cgroup);
    EXPECT_NE(b.cgroupIno, 1u);
  }
  EXPECT_GT(boxRecords, 0);
  // Over the last 20 s: the machine stays below its freerun ceiling, the cgroup's dirty pages
  // stay under its own hard limit and its page cache under memory.max.
  ASSERT_FALSE(c.samples.empty());
  const Pages max = mibToPages(1024.0);
  for (const auto& smp : c.samples) {
    ASSERT_EQ(smp.cgroups.size(), 1u);
    const CgroupSample& cg = smp.cgroups[0];
    EXPECT_LE(cg.filePages, max);
    if (toSeconds(smp.time.time_since_epoch()) < 10) continue;
    EXPECT_LT(smp.dirtyPages + smp.writebackPages, smp.freerunPages);
    EXPECT_GT(cg.threshPages, 0);
    EXPECT_LT(cg.threshPages, max / 4);  // 20 % of about 1 GiB
    EXPECT_LE(cg.dirtyPages + cg.writebackPages, cg.limitPages + 256);
  }
  // The page cache grew to the limit, so reclaim inside the cgroup must have made room.
  EXPECT_GT(c.samples.back().cgroups[0].reclaimedPages, 0);
}

TEST(Cgroups, AV1CgroupHasALimitButNoDirtyDomain) {
  const Collected c = run(containerWriter("ioless", 1));
  const int box = c.pidOf("dd-box");
  // Below the global freerun ceiling and without a domain of its own, nothing throttles it.
  EXPECT_EQ(positivePauses(c, box), 0);
  for (const auto& b : c.balances) EXPECT_EQ(b.cgroupIno, 1u);
  const CgroupSample& last = c.samples.back().cgroups.at(0);
  EXPECT_LE(last.filePages, mibToPages(1024.0));
  EXPECT_EQ(last.threshPages, 0);  // no domain to report
  EXPECT_GT(last.reclaimedPages, 0);
  // Its dirty pages fill far more of the cgroup than a v2 domain would allow.
  Pages peak = 0;
  for (const auto& s : c.samples) peak = std::max(peak, s.cgroups[0].dirtyPages);
  EXPECT_GT(peak, mibToPages(1024.0) / 4);
}

TEST(Cgroups, PoliciesBefore42IgnoreCgroups) {
  const Collected c = run(containerWriter("ioless-3.2"));
  // One domain for both: the global one (the box's uncapped cache takes the machine past its
  // freerun ceiling, so both writers are throttled), and no record names the cgroup.
  EXPECT_GT(positivePauses(c, c.pidOf("dd-box")), 0);
  EXPECT_GT(positivePauses(c, c.pidOf("dd-host")), 0);
  for (const auto& b : c.balances) {
    EXPECT_EQ(b.cgroupIno, 1u);
    EXPECT_EQ(b.domain, ThrottleDomain::Global);
  }
  // memory.max is not enforced: the 2 GiB file's pages stay cached past 1 GiB.
  EXPECT_GT(c.samples.back().cgroups.at(0).filePages, mibToPages(1024.0));
  EXPECT_FALSE(Simulator::policyHasCgroups("ioless-3.2"));
  EXPECT_TRUE(Simulator::policyHasCgroups("ioless"));
}

TEST(Cgroups, CountersAgreeWithTheFilesThroughoutARun) {
  Scenario s = containerWriter("ioless", 2, 20);
  s.tasks.at(1).cgroup = "box";  // both in it: they share its domain and its limit
  Kernel k(s);
  for (int step = 1; step <= 40; ++step) {
    k.runUntil(atSeconds(step * 0.5));
    ASSERT_EQ(KernelTestAccess::checkInvariants(k), "") << "at " << step * 0.5 << " s";
  }
  // The run did something: both wrote more than the cgroup can hold.
  Pages dirtied = 0;
  for (const TaskStats& t : k.taskStats()) dirtied += t.dirtiedPages;
  EXPECT_GT(dirtied, mibToPages(1024.0));
}

TEST(Cgroups, ScenarioKeysAreCheckedAndWrittenOnlyWhenUsed) {
  Scenario s = loadScenario("container-writer", {});
  EXPECT_NE(scenarioToJson(s).find("\"cgroups\""), std::string::npos);
  const Scenario again = parseScenario(scenarioToJson(s), "round trip", {});
  EXPECT_EQ(again.cgroups, s.cgroups);
  EXPECT_EQ(again.tasks, s.tasks);
  // Scenarios without cgroups are written as before.
  const Scenario plain = loadScenario("ten-dd", {});
  EXPECT_EQ(scenarioToJson(plain).find("cgroup"), std::string::npos);

  Scenario bad = s;
  bad.tasks.at(0).cgroup = "nope";
  try {
    validateScenario(bad);
    FAIL() << "an unknown cgroup was accepted";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.key(), "tasks[0].cgroup");
  }
  bad = s;
  bad.cgroups.push_back(bad.cgroups.front());
  EXPECT_THROW(validateScenario(bad), ScenarioError);
  bad = s;
  bad.cgroups.front().name = "a,b";
  EXPECT_THROW(validateScenario(bad), ScenarioError);
  bad = s;
  bad.cgroups.front().version = 3;
  EXPECT_THROW(validateScenario(bad), ScenarioError);
}

TEST(Cgroups, LimitsChangeLiveButTheCgroupListDoesNot) {
  Simulator sim(containerWriter("ioless", 2, 10));
  sim.runUntil(atSeconds(2));
  Scenario changed = sim.scenario();
  changed.cgroups[0].memoryMaxMiB = 512;
  sim.reconfigure(changed);
  Collected c;
  sim.setSink(&c);
  sim.runUntil(atSeconds(8));
  ASSERT_FALSE(c.samples.empty());
  EXPECT_LE(c.samples.back().cgroups.at(0).filePages, mibToPages(512.0));
  Scenario renamed = sim.scenario();
  renamed.cgroups[0].name = "other";
  for (auto& t : renamed.tasks)
    if (!t.cgroup.empty()) t.cgroup = "other";
  EXPECT_THROW(sim.reconfigure(renamed), ScenarioError);
}

TEST(Cgroups, AnOomKillInsideACgroupIsATimelineEventNamingTheCgroup) {
  // memory.max of 1 MiB and 4 MiB writes in 2 MiB folios: a folio can never be charged, so
  // reclaim inside the cgroup finds nothing and its OOM killer takes the writer.
  Scenario s = containerWriter("ioless", 2, 5);
  s.cgroups.at(0).memoryMaxMiB = 1;
  s.tasks.at(0).blockKiB = 4096;
  s.tasks.at(0).loop = false;
  Simulator sim(s);
  sim.run();
  ASSERT_GE(sim.summary().oomKills, 1);
  const auto& events = sim.events();
  const auto kill = std::find_if(events.begin(), events.end(), [](const RunEvent& e) {
    return e.kind == RunEvent::Kind::OomKill;
  });
  ASSERT_NE(kill, events.end());
  EXPECT_NE(kill->text.find("OOM killer in memory cgroup box: dd-box (pid "), std::string::npos)
      << kill->text;
  // One event per kill, not a second one from the global OOM killer's path.
  EXPECT_EQ(std::count_if(events.begin(), events.end(),
                          [](const RunEvent& e) { return e.kind == RunEvent::Kind::OomKill; }),
            sim.summary().oomKills);
  // The kill is the task's end as any other: it is marked killed, and its group stops.
  const auto stats = sim.taskStats();
  const auto box = std::find_if(stats.begin(), stats.end(),
                                [](const TaskStats& t) { return t.info.name == "dd-box"; });
  ASSERT_NE(box, stats.end());
  EXPECT_TRUE(box->oomKilled);
  EXPECT_TRUE(std::any_of(events.begin(), events.end(), [](const RunEvent& e) {
    return e.kind == RunEvent::Kind::TaskStop && e.text.find("dd-box stop") != std::string::npos;
  }));
}

}  // namespace
}  // namespace throttlelab::engine
