// SPDX-License-Identifier: GPL-3.0-or-later
// The engine at its edges: what users typed that broke it, each kept as the case that did.
// CPU time no more than the CPUs have, however fast the disk; no more dirtied than the CPUs
// can copy, however many writers start at once; the OOM killer and swap under every policy
// when allocations exceed memory; a stall still going counted up to now; a live change that
// leaves memory alone accepted however full memory is.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "allocators.h"
#include "sanitized.h"
#include "throttlelab/engine/simulator.h"

namespace throttlelab::engine {
namespace {

// Under AddressSanitizer (a Debug build, some 30 times slower) the cases run for memory
// errors: shorter, where the point they make does not need the length.
// (kSanitized: sanitized.h)

struct Samples : RecordSink {
  std::vector<Sample> all;
  void onSample(const Sample& s) override { all.push_back(s); }
};

Scenario builtin(const std::string& name, const std::vector<Override>& overrides) {
  return parseScenario(*builtinScenarioJson(name), name, overrides);
}

// A 1 TB/s disk on a 16 TiB machine: nothing throttles, every writer copies flat out, and
// the flusher and IO completions want CPU too. Their time was charged beside the writers'
// without taking a CPU (100.04 % system on two CPUs), and a piece of copy was charged in the
// interval it ended, so with 1,000 writers one 100 ms interval showed 4,194 %.
TEST(Edges, SystemTimeNeverExceedsTheCpusHoweverFastTheDisk) {
  for (const char* name : {"default", "thousand-dd"}) {
    Scenario s =
        builtin(name, {{"device.writeMBps", "1000000"}, {"machine.memoryMiB", "16777216"}});
    s.durationS = kSanitized ? 3 : 10;
    Simulator sim(s);
    Samples samples;
    sim.setSink(&samples);
    sim.run();
    const Summary sum = sim.summary();
    EXPECT_LE(sum.systemPct + sum.userPct, 100.0 + 1e-9) << name;
    EXPECT_GT(sum.systemPct, 90.0) << name << ": the CPUs are the bottleneck here";
    double worst = 0;
    for (const Sample& x : samples.all) worst = std::max(worst, x.systemPct + x.userPct);
    EXPECT_LE(worst, 100.0 + 1e-9) << name;
  }
}

// Ten thousand dd start within a millisecond on eight CPUs. Each dirtied its first piece the
// moment it started, before the CPU had copied it: 7.2 GiB dirty after 0.1 s, more than
// eight CPUs copy at 2000 MB/s in that time (1.6 GB), and the writeback of it kept dirty
// pages at four times the limit for two minutes.
TEST(Edges, TenThousandWritersDirtyNoFasterThanTheirCpusCopy) {
  Scenario s = builtin("thousand-dd", {{"tasks[0].count", "10000"}});
  s.durationS = kSanitized ? 2 : 20;
  Simulator sim(s);
  Samples samples;
  sim.setSink(&samples);
  sim.run();
  const double pagesPerS = s.machine.cpus * s.tasks[0].copyMBps * 1e6 / kPageBytes;
  for (const Sample& x : samples.all)
    ASSERT_LE(static_cast<double>(x.dirtiedPages), pagesPerS * toSeconds(x.time))
        << "at " << toSeconds(x.time) << " s";
  // The start-up burst is written back within seconds: dirty pages are held at the limit, a
  // folio per writer above it at most (each of them may dirty one 256-page folio between two
  // looks at the limit; docs/model.md, Large folios in the write path).
  const Sample& last = samples.all.back();
  if (!kSanitized)
    EXPECT_LE(last.dirtyPages + last.writebackPages,
              1.1 * static_cast<double>(last.limitPages) + 10000.0 * 256);
}

TEST(Edges, TenThousandWritersOfSinglePagesAreHeldAtTheLimit) {
  Scenario s = builtin("thousand-dd", {{"tasks[0].count", "10000"}});
  s.machine.maxFolioOrder = 0;
  s.durationS = kSanitized ? 2 : 20;
  Simulator sim(s);
  Samples samples;
  sim.setSink(&samples);
  sim.run();
  const Sample& last = samples.all.back();
  if (!kSanitized)
    EXPECT_LE(last.dirtyPages + last.writebackPages, 1.1 * static_cast<double>(last.limitPages));
}

// 256 MiB of RAM, 64 MiB of swap, three allocators of 200 MiB each beside two dd: more than
// memory and swap together, so the OOM killer must act. Under ioless (and none) it never did:
// writeback was always in flight, which kept reclaim "making progress" for good, and the
// allocators lost every race for freed pages to the dd, asking for 256 pages at once where
// the dd asked for a few: 25,677 stalls, the longest 61 s. Under none the request queue
// stayed full of the flusher's writes, kswapd gave up on each full queue, and swap was never
// used.
Scenario overcommitted(const std::string& policy) {
  Scenario s;
  s.durationS = kSanitized ? 15 : 30;
  s.policy = policy;
  s.machine.memoryMiB = 256;
  s.machine.cpus = 2;
  s.machine.swapMiB = 64;
  s.devices[0].writeMBps = 60;
  const TaskSpec alloc = allocators("alloc", 3, 200, 30);
  TaskSpec dd;
  dd.name = "dd";
  dd.count = 2;
  dd.fileMiB = 1024;
  s.tasks = {alloc, dd};
  return s;
}

TEST(Edges, AllocationsBeyondMemoryAndSwapEndInTheOomKillerUnderEveryPolicy) {
  for (const auto& policy : Simulator::policyNames()) {
    Simulator sim(overcommitted(policy));
    sim.run();
    const Summary sum = sim.summary();
    EXPECT_GE(sum.oomKills, 1) << policy;
    EXPECT_GT(sum.swapOutKiB, 0) << policy << ": swap was never used";
    // Nobody waits for memory for long: the killer frees it within seconds.
    EXPECT_LT(sum.allocMsMax, 5000) << policy;
    // What is left fits in memory and swap.
    double anonMiB = 0;
    for (const auto& t : sum.tasks)
      if (!t.oomKilled) anonMiB += static_cast<double>(t.rssPages + t.swapPages) / kPagesPerMiB;
    EXPECT_LE(anonMiB, 256 + 64) << policy;
  }
}

// An allocator that can never get its memory (nobody may be killed: oom_score_adj -1000)
// stalls from its first page to the end of the run. Its longest stall read 0.0 ms, because a
// stall was only counted once it ended.
/// One allocator that wants more than the machine has and may not be killed.
Scenario unkillableHog(std::int64_t memoryMiB, double durationS) {
  Scenario s;
  s.durationS = durationS;
  s.machine.memoryMiB = memoryMiB;
  s.machine.swapMiB = 0;
  TaskSpec hog = allocators("hog", 1, 1024, 100);
  hog.oomScoreAdj = -1000;
  s.tasks = {hog};
  return s;
}

TEST(Edges, AStallStillInProgressCountsUpToNow) {
  Simulator sim(unkillableHog(64, 12));
  Samples samples;
  sim.setSink(&samples);
  sim.run();
  const Summary sum = sim.summary();
  ASSERT_EQ(sum.tasks.size(), 1u);
  EXPECT_EQ(sum.tasks[0].state, TaskState::IoWait);
  EXPECT_GT(sum.tasks[0].allocMsMax, 10'000);
  EXPECT_GT(sum.allocMsMax, 10'000);
  EXPECT_GT(samples.all.back().allocStallMsMax, 10'000);
}

// With memory full of anonymous pages, a live change that does not touch memory (here the
// policy) was refused: "machine.memoryMiB: cannot shrink to 256 MiB while 254 MiB are dirty,
// under writeback or anonymous".
TEST(Edges, AChangeThatLeavesMemoryAloneIsAcceptedHoweverFullMemoryIs) {
  Simulator sim(unkillableHog(256, 10));
  sim.runUntil(atSeconds(5));
  Scenario c = sim.scenario();
  c.policy = "legacy-2.6.0";
  EXPECT_NO_THROW(sim.reconfigure(c));
  EXPECT_EQ(sim.scenario().policy, "legacy-2.6.0");
  // A shrink below what is pinned is still refused, with the key named.
  c.machine.memoryMiB = 64;
  try {
    sim.reconfigure(c);
    ADD_FAILURE() << "a shrink below the anonymous memory was accepted";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.key(), "machine.memoryMiB");
  }
}

}  // namespace
}  // namespace throttlelab::engine
