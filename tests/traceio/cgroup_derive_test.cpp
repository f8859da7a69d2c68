// SPDX-License-Identifier: GPL-3.0-or-later
// "Simulate this trace" with memory cgroups: a traced cgroup_ino other than 1 becomes a
// cgroup of the derived scenario, its writers in it, and its memory.max is derived from the
// freerun its domain traced (2·setpoint − limit) when that domain set the pauses.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "throttlelab/engine/simulator.h"
#include "throttlelab/traceio/trace_stats.h"

namespace {

namespace te = throttlelab::engine;
namespace ti = throttlelab::traceio;

struct StatsSink : te::RecordSink {
  ti::TraceStats stats;
  void onTrace(const te::TraceRecord& r) override { stats.add(r); }
};

TEST(CgroupDerive, ASimulatedContainerTraceGivesBackItsCgroupAndLimit) {
  te::Scenario s = te::loadScenario("container-writer");
  s.durationS = 20;
  StatsSink sink;
  te::Simulator sim(s);
  te::OutputOptions o;
  o.traces = true;
  sim.setSink(&sink, o);
  sim.run();
  const ti::TraceStats::Result m = sink.stats.result();
  const auto box = std::find_if(m.tasks.begin(), m.tasks.end(),
                                [](const ti::TaskRate& t) { return t.comm == "dd-box"; });
  ASSERT_NE(box, m.tasks.end());
  EXPECT_NE(box->cgroupIno, 1u);

  ti::HostFacts host;
  host.memoryMiB = s.machine.memoryMiB;  // the trace's machine, as "taken on this machine"
  std::vector<std::string> notes;
  const te::Scenario d = ti::deriveScenario(m, host, &notes);
  ASSERT_EQ(d.cgroups.size(), 1u);
  const te::CgroupSpec& cg = d.cgroups.front();
  EXPECT_EQ(cg.name, "ino" + std::to_string(box->cgroupIno));
  // The traced freerun is 15 % of the cgroup's dirtyable memory, which is about its 1 GiB.
  EXPECT_NEAR(static_cast<double>(cg.memoryMaxMiB), 1024.0, 0.15 * 1024.0);
  int inCgroup = 0;
  for (const auto& t : d.tasks)
    if (t.cgroup == cg.name) inCgroup += t.count;
  EXPECT_EQ(inCgroup, 1);
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
    return n.find("memory.max") != std::string::npos && n.find("assumed") != std::string::npos;
  }));
  EXPECT_NO_THROW(te::validateScenario(d));
}

TEST(CgroupDerive, WithoutAStricterDomainTheCgroupGetsNoLimit) {
  ti::TraceStats stats;
  te::BalanceDirtyPages r;
  r.header.time = te::atSeconds(0.1);
  r.header.pid = 7;
  r.header.comm = te::makeComm("dd");
  r.bdi = "8:0";
  r.limit = 1000;
  r.setpoint = 875;  // 2·875 − 1000 = 750 = the global freerun below
  r.dirty = 880;
  r.pause = 10;
  r.cgroupIno = 77;
  stats.add(r);
  te::GlobalDirtyState g;
  g.header = r.header;
  g.thresh = 1000;
  g.bgThresh = 500;
  g.limit = 1000;
  stats.add(g);
  std::vector<std::string> notes;
  const te::Scenario d = ti::deriveScenario(stats.result(), ti::HostFacts{}, &notes);
  ASSERT_EQ(d.cgroups.size(), 1u);
  EXPECT_EQ(d.cgroups.front().name, "ino77");
  EXPECT_EQ(d.cgroups.front().memoryMaxMiB, 0);
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
    return n.find("no memory.max") != std::string::npos;
  }));
}

}  // namespace
