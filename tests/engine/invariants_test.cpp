// SPDX-License-Identifier: GPL-3.0-or-later
// Invariants over many random scenarios: pages are conserved, no counter goes negative, every
// pause lies in [0, max_pause], thresholds stay ordered.
#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

#include "kernel.h"
#include "policies/policy.h"
#include "rng.h"

namespace throttlelab::engine {
namespace {

Scenario randomScenario(Rng& rng, std::uint64_t seed) {
  Scenario s;
  s.seed = seed;
  s.durationS = 20;
  s.machine.memoryMiB = 256 + static_cast<std::int64_t>(rng.uniform() * 8000);
  s.machine.cpus = 1 + static_cast<int>(rng.uniform() * 16);
  const int hzChoices[] = {100, 250, 300, 1000};
  s.machine.hz = hzChoices[rng.next() % 4];
  s.devices[0].writeMBps = 5 + rng.uniform() * 500;
  s.devices[0].seekMs = rng.uniform() * 12;
  s.devices[0].maxRequestKiB = 64 << (rng.next() % 4);
  s.devices[0].nrRequests = 16 << (rng.next() % 4);
  if (rng.uniform() < 0.3) {
    s.vm.dirtyBytes = (1 + static_cast<std::int64_t>(rng.uniform() * 400)) << 20;
    s.vm.dirtyBackgroundBytes = s.vm.dirtyBytes / 2;
  } else {
    s.vm.dirtyRatio = 1 + static_cast<int>(rng.uniform() * 60);
    s.vm.dirtyBackgroundRatio = static_cast<int>(rng.uniform() * 40);
  }
  const auto policies = policyNames();
  s.policy = policies[rng.next() % policies.size()];
  const char* allocators[] = {"2.6.0-no-rt", "2.6.0", "2.6.9", "6.x"};
  s.machine.allocator = allocators[rng.next() % 4];
  s.machine.swapMiB = rng.uniform() < 0.5 ? static_cast<std::int64_t>(rng.uniform() * 2048) : 0;
  s.vm.swappiness = static_cast<int>(rng.uniform() * 200);
  s.vm.dirtyExpireCentisecs = 100 + static_cast<int>(rng.uniform() * 3000);
  s.vm.dirtyWritebackCentisecs = static_cast<int>(rng.uniform() * 600);
  const int groups = 1 + static_cast<int>(rng.next() % 3);
  for (int g = 0; g < groups; ++g) {
    TaskSpec t;
    t.count = 1 + static_cast<int>(rng.uniform() * 60);
    t.blockKiB = 4 << (rng.next() % 10);
    t.fileMiB = 1 + static_cast<std::int64_t>(rng.uniform() * 2000);
    t.loop = rng.uniform() < 0.7;
    t.copyMBps = 50 + rng.uniform() * 3000;
    t.thinkMs = rng.uniform() < 0.3 ? rng.uniform() * 50 : 0;
    t.startS = rng.uniform() * 5;
    if (rng.uniform() < 0.2) {
      t.sched = SchedClass::Fifo;
      t.rtPriority = 1 + static_cast<int>(rng.uniform() * 98);
      t.count = 1;
    }
    t.nice = static_cast<int>(rng.uniform() * 10);
    const double kind = rng.uniform();
    if (kind < 0.2) {
      t.kind = TaskKind::Compiler;
      t.cpuS = 0.05 + rng.uniform();
      t.anonMiB = 1 + rng.uniform() * 200;
      t.fileMiB = 1;
      t.runs = 1 + static_cast<int>(rng.uniform() * 5);
    } else if (kind < 0.35) {
      t.kind = TaskKind::Allocator;
      t.anonMiB = 1 + rng.uniform() * static_cast<double>(s.machine.memoryMiB);
      t.holdS = rng.uniform() * 5;
      t.count = 1;
    }
    s.tasks.push_back(t);
  }
  return s;
}

struct Checker : RecordSink {
  int hz = 250;
  std::vector<std::string> problems;
  void onSample(const Sample& s) override {
    if (!(s.bgThreshPages <= s.threshPages)) problems.push_back("bg_thresh > thresh");
    if (!(s.freerunPages <= s.setpointPages && s.setpointPages <= s.limitPages)) problems.push_back("freerun/setpoint/limit out of order");
    if (s.threshPages > s.limitPages) problems.push_back("thresh > limit");
    if (s.dirtyPages < 0 || s.writebackPages < 0 || s.freePages < 0) problems.push_back("negative counter");
    if (s.dirtyPages + s.writebackPages > s.totalPages) problems.push_back("dirty above memory");
  }
  void onTrace(const TraceRecord& r) override {
    if (const auto* b = std::get_if<BalanceDirtyPages>(&r)) {
      // pause is in [.., max_pause]; <= 0 means no sleep. MAX_PAUSE = HZ/5 jiffies = 200 ms.
      if (b->pause > 200) problems.push_back("pause above 200 ms: " + std::to_string(b->pause));
      if (b->period < 0) problems.push_back("negative period");
    }
  }
};

TEST(Invariants, HoldOverRandomScenarios) {
  Rng rng(20261130);
  for (int i = 0; i < 40; ++i) {
    const Scenario s = randomScenario(rng, static_cast<std::uint64_t>(i + 1));
    Kernel k(s);
    Checker check;
    check.hz = s.machine.hz;
    k.setSink(&check, OutputOptions{.traces = true});
    for (double t = 0.5; t <= s.durationS; t += 0.5) {
      k.runUntil(atSeconds(t));
      const std::string err = k.checkInvariants();
      ASSERT_EQ(err, "") << "scenario " << i << " at " << t << " s";
    }
    ASSERT_TRUE(check.problems.empty()) << "scenario " << i << " (" << s.policy << "): " << check.problems.front();
  }
}

TEST(Invariants, HoldAcrossLiveReconfiguration) {
  Rng rng(99);
  Scenario s = randomScenario(rng, 1);
  Kernel k(s);
  for (int step = 0; step < 20; ++step) {
    k.runUntil(atSeconds(1.0 + step));
    Scenario c = k.scenario();
    c.tasks[0].count = 1 + static_cast<int>(rng.uniform() * 100);
    c.machine.cpus = 1 + static_cast<int>(rng.uniform() * 8);
    c.vm.dirtyRatio = 5 + static_cast<int>(rng.uniform() * 40);
    c.vm.dirtyBackgroundRatio = static_cast<int>(rng.uniform() * 20);
    c.devices[0].writeMBps = 10 + rng.uniform() * 200;
    c.machine.memoryMiB += static_cast<std::int64_t>(rng.uniform() * 512);
    k.reconfigure(c);
    ASSERT_EQ(k.checkInvariants(), "") << "after step " << step;
  }
}

// The default scenario with the policy switched in list order every 80 s, as one does from
// the window's policy menu. When the flusher's era changed from a blocking flusher (perbdi)
// to pdflush (legacy) while it waited for a request slot, it kept its inode (I_SYNC) and,
// backing off at every congestion, never came back to it; no dirtier writes an inode
// someone else holds, so the real-time dd's file stayed dirty for good and the dd, rewriting
// dirty pages, dirtied nothing new: 0 MB/s for the rest of the run.
TEST(LiveReconfiguration, SwitchingPoliciesNeverStrandsADirtyFile) {
  const std::vector<std::string> order = {"ioless", "ioless-3.2", "perbdi-2.6.24", "legacy-2.6.0",
                                          "legacy-2.6.0-rt-exempt", "legacy-2.6.0-rt-break",
                                          "legacy-2.6.0-rt-bonus"};
  for (const std::uint64_t seed : {1, 4, 5}) {
    Scenario s = loadScenario("default");
    s.seed = seed;
    Kernel k(s);
    const double period = 80;
    for (std::size_t i = 1; i < order.size(); ++i) {
      k.runUntil(atSeconds(period * static_cast<double>(i)));
      Scenario c = k.scenario();
      c.policy = order[i];
      k.reconfigure(c);
    }
    const double end = period * static_cast<double>(order.size());
    k.runUntil(atSeconds(end));
    const Pages before = k.taskStats()[3].dirtiedPages;
    k.runUntil(atSeconds(end + 60));
    EXPECT_GT(k.taskStats()[3].dirtiedPages, before) << "seed " << seed << ": rt-dd dirtied nothing in 60 s";
    // Periodic writeback reaches every inode: nothing stays dirty for minutes.
    EXPECT_LT(toSeconds(k.oldestDirtyAge()), 60.0) << "seed " << seed;
  }
}

}  // namespace
}  // namespace throttlelab::engine
