// SPDX-License-Identifier: GPL-3.0-or-later
// Invariants over many random scenarios, run as they are and reconfigured at random while they
// run, under every policy: pages are conserved and no counter goes negative; the disk writes
// no faster than it can; CPU time used is at most CPUs x time; no task dirties pages faster
// than its CPU copies them; a stall still in progress counts up to now; every task makes
// progress within a bound and no dirty page is left unwritten for good; pauses lie in
// [0, max_pause] and the thresholds stay ordered. A fixed set of seeds keeps it repeatable.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "kernel_test_access.h"
#include "policy.h"
#include "rng.h"
#include "sanitized.h"

namespace throttlelab::engine {
namespace {

// Under AddressSanitizer (a Debug build, some 30 times slower) the suite runs again to find
// memory errors, not for coverage: a few scenarios of each kind keep it within its time.
// (kSanitized: sanitized.h)

Scenario randomScenario(Rng& rng, std::uint64_t seed, const std::string& policy) {
  Scenario s;
  s.seed = seed;
  s.durationS = kSanitized ? 8 : 20;
  s.policy = policy;
  s.machine.memoryMiB = 256 + static_cast<std::int64_t>(rng.uniform() * 8000);
  s.machine.cpus = 1 + static_cast<int>(rng.uniform() * 16);
  const int hzChoices[] = {100, 250, 300, 1000};
  s.machine.hz = hzChoices[rng.next() % 4];
  // Slow disks, and fast ones that leave a few writers bound by their copy on a few CPUs.
  const bool copyBound = rng.uniform() < 0.2;
  s.devices[0].writeMBps = copyBound ? 2000 + rng.uniform() * 20000 : 5 + rng.uniform() * 500;
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
  const char* allocators[] = {"2.6.0-no-rt", "2.6.0", "2.6.9", "6.x"};
  s.machine.allocator = allocators[rng.next() % 4];
  s.machine.swapMiB = rng.uniform() < 0.5 ? static_cast<std::int64_t>(rng.uniform() * 2048) : 0;
  s.vm.swappiness = static_cast<int>(rng.uniform() * 200);
  s.vm.dirtyExpireCentisecs = 100 + static_cast<int>(rng.uniform() * 3000);
  s.vm.dirtyWritebackCentisecs = static_cast<int>(rng.uniform() * 600);
  const int groups = 1 + static_cast<int>(rng.next() % 3);
  int realTime = 0;
  for (int g = 0; g < groups; ++g) {
    TaskSpec t;
    // Now and then hundreds of tasks on a few CPUs, which must take turns.
    t.count = 1 + static_cast<int>(rng.uniform() * (copyBound             ? 6
                                                    : rng.uniform() < 0.1 ? 250
                                                                          : 60));
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
      ++realTime;
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
  // A real-time task that never sleeps owns its CPU for good (as on Linux without RT
  // throttling); leave the normal tasks one, so that "every task progresses" means something.
  s.machine.cpus = std::max(s.machine.cpus, realTime + 1);
  return s;
}

/// A random live change, as the window's sliders and menus make them.
Scenario randomChange(Rng& rng, const Scenario& now) {
  Scenario c = now;
  const auto policies = policyNames();
  switch (rng.next() % 8) {
    case 0:
      c.policy = policies[rng.next() % policies.size()];
      break;
    case 1:
      c.tasks[rng.next() % c.tasks.size()].count = 1 + static_cast<int>(rng.uniform() * 80);
      break;
    case 2: {
      int realTime = 0;
      for (const auto& t : c.tasks) realTime += t.sched == SchedClass::Other ? 0 : t.count;
      c.machine.cpus = std::max(realTime + 1, 1 + static_cast<int>(rng.uniform() * 8));
      break;
    }
    case 3:
      c.vm.dirtyBytes = 0;
      c.vm.dirtyBackgroundBytes = 0;
      c.vm.dirtyRatio = 1 + static_cast<int>(rng.uniform() * 40);
      c.vm.dirtyBackgroundRatio = static_cast<int>(rng.uniform() * 20);
      break;
    case 4:
      c.devices[0].writeMBps = 5 + rng.uniform() * 400;
      break;
    case 5:
      c.machine.memoryMiB += static_cast<std::int64_t>(rng.uniform() * 512);
      break;
    case 6:
      c.vm.dirtyWritebackCentisecs = 100 + static_cast<int>(rng.uniform() * 500);
      break;
    default:
      c.tasks[rng.next() % c.tasks.size()].thinkMs = rng.uniform() < 0.5 ? 0 : rng.uniform() * 30;
      break;
  }
  // Real-time tasks added by a count change keep a normal CPU free, as above.
  int realTime = 0;
  for (const auto& t : c.tasks) realTime += t.sched == SchedClass::Other ? 0 : t.count;
  c.machine.cpus = std::max(c.machine.cpus, realTime + 1);
  return c;
}

double maxCopyMBps(const Scenario& s) {
  double m = 0;
  for (const auto& t : s.tasks) m = std::max(m, t.copyMBps);
  return m;
}

/// Checks a run as it goes: every sample (as a sink) and the kernel's state at checkpoints.
/// Capacities are integrated over the run with the largest configuration in force in each
/// interval, so live changes of CPUs or disk speed are allowed for.
class RunChecker : public RecordSink {
 public:
  explicit RunChecker(Kernel& k) : m_k(k) { configured(); }

  /// Call after every reconfigure(): the interval's capacities are the largest in force.
  void configured() {
    const Scenario& s = m_k.scenario();
    m_cpus = std::max(m_cpus, s.machine.cpus);
    m_writeMBps = std::max(m_writeMBps, s.devices[0].writeMBps);
    m_copyMBps = std::max(m_copyMBps, maxCopyMBps(s));
    m_maxRequestBytes = std::max<double>(m_maxRequestBytes, s.devices[0].maxRequestKiB * 1024.0);
    m_holdS = 0;
    for (const auto& t : s.tasks) m_holdS = std::max(m_holdS, t.holdS);
  }

  void onSample(const Sample& s) override {
    const double dt = toSeconds(s.time - m_lastSampleTime);
    m_lastSampleTime = s.time;
    if (!(s.bgThreshPages <= s.threshPages)) fail(s.time, "bg_thresh > thresh");
    if (!(s.freerunPages <= s.setpointPages && s.setpointPages <= s.limitPages))
      fail(s.time, "freerun/setpoint/limit out of order");
    if (s.threshPages > s.limitPages) fail(s.time, "thresh > limit");
    if (s.dirtyPages < 0 || s.writebackPages < 0 || s.freePages < 0)
      fail(s.time, "negative counter");
    if (s.dirtyPages + s.writebackPages > s.totalPages) fail(s.time, "dirty above memory");
    if (dt > 0) {
      // CPU time used in the interval: at most CPUs x interval.
      const double usedS = (s.systemPct + s.userPct) / 100.0 * dt * m_k.scenario().machine.cpus;
      if (usedS > m_cpus * dt * (1 + 1e-9) + 1e-9)
        fail(s.time, "CPU time " + num(usedS) + " s in " + num(dt) + " s on " +
                         std::to_string(m_cpus) + " CPUs");
      // The disk serves one request at a time at its speed: in an interval it completes what
      // it can write in it, plus the one request it was in the middle of.
      const double bytes = static_cast<double>(s.devices[0].bytesWritten - m_lastBytes);
      if (bytes > m_writeMBps * 1e6 * dt + m_maxRequestBytes)
        fail(s.time, "device wrote " + std::to_string(bytes / dt / 1e6) + " MB/s, faster than " +
                         std::to_string(m_writeMBps) + " MB/s");
      m_cpuCapacityS += m_cpus * dt;
      m_copyCapacityPages += m_cpus * dt * m_copyMBps * 1e6 / static_cast<double>(kPageBytes);
    }
    m_lastBytes = s.devices[0].bytesWritten;
    // Pages dirtied so far: no more than the CPUs could have copied.
    if (static_cast<double>(s.dirtiedPages) > m_copyCapacityPages + 1)
      fail(s.time, "dirtied " + std::to_string(s.dirtiedPages) +
                       " pages, more than the CPUs could copy (" +
                       std::to_string(m_copyCapacityPages) + ")");
    // The next interval starts with the configuration now in force.
    const Scenario& now = m_k.scenario();
    m_cpus = now.machine.cpus;
    m_writeMBps = now.devices[0].writeMBps;
    m_copyMBps = maxCopyMBps(now);
    m_maxRequestBytes = now.devices[0].maxRequestKiB * 1024.0;
  }

  void onTrace(const TraceRecord& r) override {
    if (const auto* b = std::get_if<BalanceDirtyPages>(&r)) {
      // pause is in [.., max_pause]; <= 0 means no sleep. MAX_PAUSE = HZ/5 jiffies = 200 ms.
      if (b->pause > 200) fail(b->header.time, "pause above 200 ms: " + std::to_string(b->pause));
      if (b->period < 0) fail(b->header.time, "negative period");
    }
  }

  /// The kernel's state now.
  void checkpoint() {
    const SimTime now = m_k.now();
    const std::string err = KernelTestAccess::checkInvariants(m_k);
    if (!err.empty()) fail(now, err);
    const double used = KernelTestAccess::cpuSystemS(m_k) + KernelTestAccess::cpuUserS(m_k);
    const double capacity = m_cpuCapacityS + m_cpus * toSeconds(now - m_lastSampleTime);
    if (used > capacity * (1 + 1e-9) + 1e-9)
      fail(now, "CPU time " + std::to_string(used) + " s, more than CPUs x time " +
                    std::to_string(capacity));
    const Summary summary = m_k.summary();
    const std::vector<TaskStats>& stats = summary.tasks;
    if (m_activity.size() < stats.size()) m_activity.resize(stats.size());
    double taskCpuS = 0;
    for (std::size_t i = 0; i < stats.size(); ++i) {
      const TaskStats& st = stats[i];
      const Task& t = KernelTestAccess::task(m_k, static_cast<int>(i));
      taskCpuS += st.cpuS;
      // A task dirties a page only once its CPU has copied it.
      const double copied = st.cpuS * t.spec.copyMBps * 1e6 / static_cast<double>(kPageBytes);
      if (static_cast<double>(st.dirtiedPages) > copied * (1 + 1e-9) + 1)
        fail(now, "task " + std::to_string(i) + " dirtied " + std::to_string(st.dirtiedPages) +
                      " pages with CPU for " + std::to_string(copied));
      // A stall in progress counts up to now.
      if (t.allocWaiting && !t.removed) {
        const double ongoing = toMs(now - t.allocStart);
        if (st.allocMsMax < ongoing - 1e-6 || summary.allocMsMax < ongoing - 1e-6)
          fail(now, "task " + std::to_string(i) + " has stalled " + std::to_string(ongoing) +
                        " ms, its longest stall reads " + std::to_string(st.allocMsMax) + " ms");
      }
      // Progress: something about the task changes within a bound (a hold is as long as it
      // is asked to be; every other wait ends in seconds). A task short of memory may wait
      // long (a real-time writer takes what reclaim frees, down to its lower watermark), but
      // it goes on retrying reclaim every HZ/10: that is its progress.
      Activity& a = m_activity[i];
      const Activity seen{st.cpuS,          st.pausedS,     st.dirtiedPages,
                          st.runsCompleted, st.allocStalls, t.writebackSubmitted,
                          t.reclaimRounds,  st.state,       a.since};
      const bool idle =
          st.state == TaskState::NotStarted || st.state == TaskState::Exited || t.removed;
      if (idle || !seen.same(a)) {
        a = seen;
        a.since = now;
      } else if (toSeconds(now - a.since) > 10 + m_holdS) {
        fail(now, "task " + std::to_string(i) + " (" + st.info.name + ") made no progress for " +
                      std::to_string(toSeconds(now - a.since)) + " s in state " +
                      std::string(toString(st.state)) + " (alloc wait " +
                      std::to_string(t.allocWaiting) + ", writeback left " +
                      std::to_string(t.writebackLeft) + ", swap-in " +
                      std::to_string(t.swapInPending) + ", policy " + m_k.scenario().policy + ")" +
                      debugSlot(static_cast<int>(i)));
        a.since = now;
      }
    }
    if (taskCpuS > capacity * (1 + 1e-9) + 1e-9) fail(now, "task CPU time above CPUs x time");
    // Periodic writeback reaches every dirty page: the oldest waits for at most the expiry,
    // the timer, and the writing of everything dirtied before it (with a seek per chunk).
    const Scenario& s = m_k.scenario();
    const Memory& mem = m_k.memory();
    m_maxDirty = std::max(m_maxDirty, mem.nrDirty + mem.nrWriteback);
    if (s.vm.dirtyWritebackCentisecs > 0) {
      const double drainS =
          static_cast<double>(m_maxDirty * kPageBytes) / (m_writeMBps * 1e6) *
          (1 + s.devices[0].seekMs * 1e-3 * m_writeMBps * 1e6 / (1024.0 * kPageBytes));
      const double bound = s.vm.dirtyExpireCentisecs / 100.0 +
                           s.vm.dirtyWritebackCentisecs / 100.0 + 4 * drainS + 10;
      if (toSeconds(KernelTestAccess::oldestDirtyAge(m_k)) > bound)
        fail(now, "a page has been dirty for " +
                      std::to_string(toSeconds(KernelTestAccess::oldestDirtyAge(m_k))) +
                      " s (bound " + std::to_string(bound) + " s)");
    }
  }

  const std::vector<std::string>& problems() const { return m_problems; }

 private:
  struct Activity {
    double cpuS = -1, pausedS = -1;
    Pages dirtied = -1;
    std::int64_t runs = -1, stalls = -1;
    Pages writtenBack = -1;  ///< IO-ful policies: pages it submitted in its balance() call
    std::int64_t reclaimRounds = -1;
    TaskState state = TaskState::NotStarted;
    SimTime since{};
    bool same(const Activity& o) const {
      return cpuS == o.cpuS && pausedS == o.pausedS && dirtied == o.dirtied && runs == o.runs &&
             stalls == o.stalls && writtenBack == o.writtenBack &&
             reclaimRounds == o.reclaimRounds && state == o.state;
    }
  };

  std::string debugSlot(int id) {
    const DeviceState& d = m_k.device(0);
    const std::deque<int>& waiters = d.device.slotWaiters();
    const auto it = std::find(waiters.begin(), waiters.end(), id);
    return " [slot waiters " + std::to_string(waiters.size()) + ", position " +
           (it == waiters.end() ? std::string("none") : std::to_string(it - waiters.begin())) +
           ", queue " + std::to_string(d.device.allocated()) + "/" +
           std::to_string(d.device.config().nrRequests) + ", submitters " +
           std::to_string(d.flusher.submitters()) + "]";
  }
  static std::string num(double v) {
    std::ostringstream o;
    o.precision(15);
    o << v;
    return o.str();
  }

  void fail(SimTime t, const std::string& what) {
    if (m_problems.size() < 5)
      m_problems.push_back("at " + std::to_string(toSeconds(t)) + " s: " + what);
  }

  Kernel& m_k;
  int m_cpus = 0;
  double m_writeMBps = 0, m_copyMBps = 0, m_maxRequestBytes = 0, m_holdS = 0;
  SimTime m_lastSampleTime{};
  std::int64_t m_lastBytes = 0;
  double m_cpuCapacityS = 0, m_copyCapacityPages = 0;
  Pages m_maxDirty = 0;
  std::vector<Activity> m_activity;
  std::vector<std::string> m_problems;
};

std::string describe(const Scenario& s) {
  std::ostringstream o;
  o << s.policy << ", " << s.machine.cpus << " CPUs, " << s.machine.memoryMiB << " MiB, disk "
    << s.devices[0].writeMBps << " MB/s, tasks";
  for (const auto& t : s.tasks) o << " " << t.count << "x" << toString(t.kind);
  return o.str();
}

TEST(Invariants, HoldOverRandomScenariosUnderEveryPolicy) {
  const auto policies = policyNames();
  Rng rng(20261130);
  const int scenarios = kSanitized ? static_cast<int>(policies.size()) : 40;
  for (int i = 0; i < scenarios; ++i) {
    const Scenario s = randomScenario(rng, static_cast<std::uint64_t>(i + 1),
                                      policies[static_cast<std::size_t>(i) % policies.size()]);
    Kernel k(s);
    RunChecker check(k);
    k.setSink(&check, OutputOptions{.traces = true});
    for (double t = 0.5; t <= s.durationS; t += 0.5) {
      k.runUntil(atSeconds(t));
      check.checkpoint();
    }
    const Summary sum = k.summary();
    EXPECT_LE(sum.systemPct + sum.userPct, 100.0 + 1e-9) << "scenario " << i << ": " << describe(s);
    EXPECT_LE(sum.deviceWriteKBps * 1024,
              s.devices[0].writeMBps * 1e6 + s.devices[0].maxRequestKiB * 1024.0 / s.durationS)
        << "scenario " << i << ": " << describe(s);
    ASSERT_TRUE(check.problems().empty())
        << "scenario " << i << " (" << describe(s) << "): " << check.problems().front();
  }
}

TEST(Invariants, HoldAcrossRandomLiveReconfigurationUnderEveryPolicy) {
  // Each scenario starts under one policy and is changed every 0.5-1.5 s: policy, task counts,
  // CPUs, thresholds, disk speed, memory, the writeback timer, think time.
  const auto policies = policyNames();
  Rng rng(99);
  const int scenarios = kSanitized ? 3 : 16;
  const double changesUntilS = kSanitized ? 5 : 20, endS = changesUntilS + 10;
  for (int i = 0; i < scenarios; ++i) {
    const Scenario s = randomScenario(rng, static_cast<std::uint64_t>(100 + i),
                                      policies[static_cast<std::size_t>(i) % policies.size()]);
    Kernel k(s);
    RunChecker check(k);
    k.setSink(&check, OutputOptions{.traces = true});
    double next = 0.5 + rng.uniform();
    for (double t = 0.5; t <= endS; t += 0.5) {
      k.runUntil(atSeconds(t));
      check.checkpoint();
      if (t >= next && t < changesUntilS) {  // the last 10 s run on, to see everyone recover
        k.reconfigure(randomChange(rng, k.scenario()));
        check.configured();
        ASSERT_EQ(KernelTestAccess::checkInvariants(k), "")
            << "scenario " << i << " after a change at " << t << " s";
        next = t + 0.5 + rng.uniform();
      }
    }
    ASSERT_TRUE(check.problems().empty())
        << "scenario " << i << " (" << describe(s) << "): " << check.problems().front();
  }
}

// The default scenario with the policy switched in list order every 80 s, as one does from
// the window's policy menu. When the flusher's era changed from a blocking flusher (perbdi)
// to pdflush (legacy) while it waited for a request slot, it kept its inode (I_SYNC) and,
// backing off at every congestion, never came back to it; no dirtier writes an inode
// someone else holds, so the real-time dd's file stayed dirty for good and the dd, rewriting
// dirty pages, dirtied nothing new: 0 MB/s for the rest of the run.
TEST(LiveReconfiguration, SwitchingPoliciesNeverStrandsADirtyFile) {
  const std::vector<std::string> order = {"ioless",
                                          "ioless-3.2",
                                          "perbdi-2.6.24",
                                          "legacy-2.6.0",
                                          "legacy-2.6.0-rt-exempt",
                                          "legacy-2.6.0-rt-break",
                                          "legacy-2.6.0-rt-bonus"};
  const std::vector<std::uint64_t> seeds =
      kSanitized ? std::vector<std::uint64_t>{1} : std::vector<std::uint64_t>{1, 4, 5};
  for (const std::uint64_t seed : seeds) {
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
    EXPECT_GT(k.taskStats()[3].dirtiedPages, before)
        << "seed " << seed << ": rt-dd dirtied nothing in 60 s";
    // Periodic writeback reaches every inode: nothing stays dirty for minutes.
    EXPECT_LT(toSeconds(KernelTestAccess::oldestDirtyAge(k)), 60.0) << "seed " << seed;
  }
}

}  // namespace
}  // namespace throttlelab::engine
