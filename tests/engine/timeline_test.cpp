// SPDX-License-Identifier: GPL-3.0-or-later
// The run's timeline (RunEvent) and the throttle breakdown (ThrottleExplain) as the engine
// records them: against the trace records they must equal, and under the IO-ful loops.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "allocators.h"
#include "throttlelab/engine/events.h"
#include "throttlelab/engine/explain.h"
#include "throttlelab/engine/simulator.h"

namespace throttlelab::engine {
namespace {

bool hasEvent(const std::vector<RunEvent>& events, RunEvent::Kind kind, const std::string& part,
              double from = 0, double to = 1e9) {
  return std::any_of(events.begin(), events.end(), [&](const RunEvent& e) {
    return e.kind == kind && e.text.find(part) != std::string::npos && e.timeS >= from &&
           e.timeS <= to;
  });
}

/// The built-in `scenario` under `policy`, run to second `untilS`.
Simulator runUnder(const char* scenario, const char* policy, double untilS) {
  Scenario s = loadScenario(scenario);
  s.policy = policy;
  Simulator sim(s);
  sim.runUntil(atSeconds(untilS));
  return sim;
}

TEST(Timeline, TaskGroupsStartingAndStoppingAreEvents) {
  Simulator sim(loadScenario("default"));
  sim.runUntil(atSeconds(35));
  const auto& e = sim.events();
  EXPECT_TRUE(hasEvent(e, RunEvent::Kind::TaskStart, "tasks[0] dd ×2 start", 0, 0.01));
  EXPECT_TRUE(hasEvent(e, RunEvent::Kind::TaskStart, "tasks[1] dd ×1 start", 15, 15.01));
  EXPECT_TRUE(hasEvent(e, RunEvent::Kind::TaskStart, "tasks[2] rt-dd ×1 start", 30, 30.01));
  EXPECT_TRUE(std::is_sorted(
      e.begin(), e.end(), [](const RunEvent& a, const RunEvent& b) { return a.timeS < b.timeS; }));

  // A live change says what changed; a policy change is an event of its own; a group taken to
  // zero tasks stops.
  Scenario changed = sim.scenario();
  changed.vm.dirtyRatio = 10;
  changed.policy = "perbdi-2.6.24";
  changed.tasks[1].count = 0;
  sim.reconfigure(changed);
  const auto& after = sim.events();
  EXPECT_TRUE(hasEvent(after, RunEvent::Kind::Reconfigure, "vm.dirty_ratio 20 → 10", 35, 35.1));
  EXPECT_TRUE(hasEvent(after, RunEvent::Kind::Reconfigure, "tasks[1].count 1 → 0"));
  EXPECT_FALSE(hasEvent(after, RunEvent::Kind::Reconfigure, "policy"));
  EXPECT_TRUE(hasEvent(after, RunEvent::Kind::Policy, "policy ioless → perbdi-2.6.24", 35, 35.1));
  EXPECT_TRUE(hasEvent(after, RunEvent::Kind::TaskStop, "tasks[1] dd stop", 35, 35.1));
  EXPECT_EQ(policyAt(after, initialPolicy(after, "x"), 10), "ioless");
  EXPECT_EQ(policyAt(after, initialPolicy(after, "x"), 36), "perbdi-2.6.24");

  std::ostringstream csv;
  writeCsvEvents(csv, after);
  EXPECT_NE(csv.str().find("# event: 15.00"), std::string::npos) << csv.str();
}

TEST(Timeline, AnOomKillIsAnEvent) {
  Scenario s = loadScenario("one-dd");
  s.durationS = 60;
  s.machine.memoryMiB = 256;
  s.machine.swapMiB = 64;
  s.tasks.push_back(allocators("alloc", 3, 200, 30));
  Simulator sim(s);
  sim.run();
  ASSERT_GE(sim.summary().oomKills, 1);
  EXPECT_TRUE(hasEvent(sim.events(), RunEvent::Kind::OomKill, "OOM killer: alloc"));
}

// Under the IO-less policies the breakdown is made of the numbers of the record it traced.
TEST(Explain, IoLessBreakdownsEqualTheirBalanceDirtyPagesRecords) {
  for (const char* policy : {"ioless", "ioless-3.2"}) {
    struct Records : RecordSink {
      std::vector<BalanceDirtyPages> last;  // per task index
      const Simulator* sim = nullptr;
      void onTrace(const TraceRecord& r) override {
        const auto* b = std::get_if<BalanceDirtyPages>(&r);
        if (!b) return;
        for (const auto& t : sim->tasks())
          if (t.pid == b->header.pid) {
            if (last.size() <= static_cast<std::size_t>(t.index)) last.resize(t.index + 1);
            last[static_cast<std::size_t>(t.index)] = *b;
          }
      }
    } records;
    Scenario s = loadScenario("default");
    s.policy = policy;
    Simulator sim(s);
    records.sim = &sim;
    OutputOptions traced;
    traced.traces = true;
    sim.setSink(&records, traced);
    int compared = 0;
    for (double t : {3.3, 17.0, 31.7, 44.4}) {
      sim.runUntil(atSeconds(t));
      for (const auto& info : sim.tasks()) {
        const ThrottleExplain& e = sim.lastExplain(info.index);
        if (static_cast<std::size_t>(info.index) >= records.last.size() ||
            records.last[static_cast<std::size_t>(info.index)].header.pid == 0) {
          EXPECT_EQ(e.kind, ThrottleExplain::Kind::None) << policy << " " << info.name;
          continue;
        }
        const BalanceDirtyPages& r = records.last[static_cast<std::size_t>(info.index)];
        ASSERT_EQ(e.kind, ThrottleExplain::Kind::IoLess) << policy;
        EXPECT_EQ(e.time, r.header.time);
        EXPECT_EQ(e.pid, r.header.pid);
        EXPECT_EQ(e.pauseMs, r.pause) << policy << " at " << t;
        EXPECT_EQ(e.taskRatelimitKBps, r.taskRatelimit);
        EXPECT_EQ(e.dirtyRatelimitKBps, r.dirtyRatelimit);
        EXPECT_EQ(e.setpoint, r.setpoint);
        EXPECT_EQ(e.limit, r.limit);
        EXPECT_EQ(e.dirty, r.dirty);
        EXPECT_EQ(e.policyName(), policy);
        // The parts multiply to the whole pos_ratio, and task_ratelimit follows from it.
        EXPECT_NEAR(e.posRatioGlobal * e.posRatioWb, e.posRatio, 1e-9);
        if (e.clamp == PauseClamp::MaxPause) {
          EXPECT_EQ(e.pauseMs, e.maxPauseMs);
        }
        if (e.clamp == PauseClamp::MinPause) {
          EXPECT_LE(e.pauseMs, 0);
        }
        ++compared;
      }
    }
    EXPECT_GE(compared, 8) << policy;
  }
}

// A real-time writer's breakdown shows its bonus: its thresh above a normal task's.
TEST(Explain, TheRealTimeBonusIsShownWhenItApplies) {
  for (const char* policy : {"ioless", "ioless-3.2"}) {
    const Simulator sim = runUnder("rt-beside-dd", policy, 25);
    const auto& tasks = sim.tasks();
    const auto it = std::find_if(tasks.begin(), tasks.end(),
                                 [](const TaskInfo& t) { return t.sched != SchedClass::Other; });
    ASSERT_NE(it, tasks.end());
    const ThrottleExplain& rt = sim.lastExplain(it->index);
    ASSERT_EQ(rt.kind, ThrottleExplain::Kind::IoLess) << policy;
    EXPECT_TRUE(rt.realTime);
    EXPECT_GT(rt.thresh, rt.normalThresh) << policy;
    const std::string text = formatExplain(rt, "rt-dd");
    EXPECT_NE(text.find("rt bonus"), std::string::npos) << text;
    EXPECT_NE(text.find("docs/model.md#the-real-time-bonus"), std::string::npos) << text;
  }
}

// Under the IO-ful policies the breakdown is the loop as it ran: a check over the threshold,
// then writing back or waiting, and the delay of the whole call.
TEST(Explain, IoFulBreakdownsAreTheLoopAsItRan) {
  for (const char* policy : {"legacy-2.6.0", "perbdi-2.6.24"}) {
    const Simulator sim = runUnder("ten-dd", policy, 20);
    int withLoop = 0;
    for (const auto& info : sim.tasks()) {
      const ThrottleExplain& e = sim.lastExplain(info.index);
      if (e.kind == ThrottleExplain::Kind::None) continue;
      ASSERT_EQ(e.kind, ThrottleExplain::Kind::IoFul) << policy;
      ASSERT_GE(e.stepCount, 2) << policy;
      EXPECT_LE(e.stepCount, ThrottleExplain::kMaxSteps);
      EXPECT_GE(e.stepsTotal, e.stepCount);
      EXPECT_EQ(e.steps[0].kind, LoopStep::Kind::Check) << policy;
      EXPECT_TRUE(e.steps[0].over) << policy;
      bool waited = false;
      for (int i = 0; i < e.stepCount; ++i) {
        const auto k = e.steps[static_cast<std::size_t>(i)].kind;
        waited |= k == LoopStep::Kind::Writeback || k == LoopStep::Kind::Sleep ||
                  k == LoopStep::Kind::CongestionWait;
      }
      EXPECT_TRUE(waited) << policy;
      EXPECT_LE(toSeconds(e.time), 20.0);
      // A call that returned took time: it wrote back or waited. One still going (a writer
      // of these kernels spends most of its time in such calls) has no delay yet.
      if (e.finished) {
        EXPECT_GT(e.callMs, 0) << policy;
      }
      ++withLoop;
    }
    EXPECT_GE(withLoop, 5) << policy;
  }
}

ThrottleExplain breakdown(ThrottleExplain::Kind kind, const std::string& policy) {
  ThrottleExplain e;
  e.kind = kind;
  e.pid = 1000;
  std::copy_n(policy.data(), policy.size(), e.policy.data());
  return e;
}

// "clamp = yes" said nothing: the line names the bound the pause met.
TEST(Explain, TheClampLineNamesTheBound) {
  for (const auto& [clamp, name] : {std::pair{PauseClamp::MinPause, "clamp = min_pause"},
                                    std::pair{PauseClamp::MaxPause, "clamp = max_pause"},
                                    std::pair{PauseClamp::None, "clamp = none"}}) {
    ThrottleExplain e = breakdown(ThrottleExplain::Kind::IoLess, "ioless");
    e.clamp = clamp;
    const std::string text = formatExplain(e, "dd");
    EXPECT_NE(text.find(name), std::string::npos) << text;
    EXPECT_EQ(text.find("clamp = yes"), std::string::npos) << text;
  }
}

// A loop of 22 steps shows its first 7 and its last, numbered 22 (not 8).
TEST(Explain, AnIoFulLoopNumbersItsLastStepAsTheLoopDoes) {
  ThrottleExplain e = breakdown(ThrottleExplain::Kind::IoFul, "perbdi-2.6.24");
  for (int i = 0; i < 22; ++i) {
    LoopStep s;
    s.kind = i % 2 == 0 ? LoopStep::Kind::Check : LoopStep::Kind::Sleep;
    s.timeS = 1.0 + i * 0.01;
    e.addStep(s);
  }
  e.finished = true;
  const std::string text = formatExplain(e, "dd");
  EXPECT_NE(text.find("22 steps (the first 7 and the last shown)"), std::string::npos) << text;
  EXPECT_NE(text.find("\n  22.    1.210 s"), std::string::npos) << text;
  EXPECT_NE(text.find("\n   7."), std::string::npos) << text;
  EXPECT_EQ(text.find("\n   8."), std::string::npos) << text;
}

// A task with no throttle call to explain: its own pid, the moment asked about, the policy and
// why (here: the real-time writer's bonus keeps dirty under its freerun; a writer at 10 ms has
// not been throttled yet either).
TEST(Explain, ATaskWithoutAThrottleCallSaysWhy) {
  Simulator sim(loadScenario("default"));
  sim.runUntil(atSeconds(0.01));
  const TaskInfo& first = sim.tasks().front();
  const ThrottleExplain early = sim.lastExplain(first.index);
  ASSERT_EQ(early.kind, ThrottleExplain::Kind::None);
  EXPECT_EQ(early.pid, first.pid);
  const std::string earlyText = formatExplain(early, first.name, 0.01);
  EXPECT_EQ(earlyText.rfind(
                first.name + " (pid " + std::to_string(first.pid) + ") at 0.010 s under ioless", 0),
            0u)
      << earlyText;
  EXPECT_TRUE(earlyText.find("first check") != std::string::npos ||
              earlyText.find("freerun") != std::string::npos)
      << earlyText;

  sim.runUntil(atSeconds(35));
  const auto& tasks = sim.tasks();
  const auto rt =
      std::find_if(tasks.begin(), tasks.end(), [](const TaskInfo& t) { return t.name == "rt-dd"; });
  ASSERT_NE(rt, tasks.end());
  const ThrottleExplain e = sim.lastExplain(rt->index);
  ASSERT_EQ(e.kind, ThrottleExplain::Kind::None);
  const std::string text = formatExplain(e, rt->name, 35.0);
  EXPECT_EQ(text.rfind("rt-dd (pid " + std::to_string(rt->pid) + ") at 35.000 s under ioless", 0),
            0u)
      << text;
  EXPECT_EQ(text.find("(pid 0)"), std::string::npos) << text;
  // Every call it made found dirty at or below its freerun, which is above dirty now.
  EXPECT_GE(e.startedS, 30.0);
  EXPECT_GT(e.lastCallS, 30.0);
  EXPECT_LE(e.dirty, e.freerun);
  EXPECT_NE(text.find("at or below freerun"), std::string::npos) << text;
}

TEST(Explain, RequestsAreParsedOrRefusedWithAReason) {
  std::string error;
  const auto ok = parseExplainRequest("1234@12.5", error);
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->pid, 1234);
  EXPECT_DOUBLE_EQ(ok->seconds, 12.5);
  for (const char* bad : {"", "12", "@3", "3@", "a@3", "3@b", "-1@3", "3@-1", "3@inf", "3@1e999"}) {
    error.clear();
    EXPECT_FALSE(parseExplainRequest(bad, error)) << bad;
    EXPECT_FALSE(error.empty()) << bad;
  }
}

}  // namespace
}  // namespace throttlelab::engine
