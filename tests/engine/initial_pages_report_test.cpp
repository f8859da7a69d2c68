// SPDX-License-Identifier: GPL-3.0-or-later
// A page cache at the start that the machine cannot hold (machine.initialDirtyPages; the run
// seeds at most half the free memory, and less than each writer's file) is reported as a run
// event, with what was asked and what the run began with (issue #27: the cap was silent).
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "throttlelab/engine/events.h"
#include "throttlelab/engine/scenario.h"
#include "throttlelab/engine/simulator.h"

namespace te = throttlelab::engine;

namespace {

te::Scenario writers(std::int64_t initialDirty) {
  te::Scenario s;
  s.durationS = 1;
  s.machine.memoryMiB = 1024;  // 262,144 pages
  te::TaskSpec dd;
  dd.count = 4;
  dd.fileMiB = 1024 * 1024;
  s.tasks = {dd};
  s.machine.initialDirtyPages = initialDirty;
  return s;
}

std::vector<te::RunEvent> adjusted(const te::Simulator& sim) {
  std::vector<te::RunEvent> out;
  for (const auto& e : sim.events())
    if (e.kind == te::RunEvent::Kind::Adjusted) out.push_back(e);
  return out;
}

}  // namespace

TEST(InitialPages, AStartTheMachineCannotHoldIsReported) {
  te::Simulator sim(writers(100'000'000));
  const auto events = adjusted(sim);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].timeS, 0);
  EXPECT_NE(events[0].text.find("100000000"), std::string::npos) << events[0].text;
  EXPECT_NE(events[0].text.find("machine.initialDirtyPages"), std::string::npos);
  // The CSV's event lines carry it, named so that a session reads it back.
  std::ostringstream csv;
  te::writeCsvEvents(csv, sim.events());
  EXPECT_NE(csv.str().find("100000000"), std::string::npos) << csv.str();
  EXPECT_EQ(te::runEventKindFromString(te::toString(te::RunEvent::Kind::Adjusted)),
            te::RunEvent::Kind::Adjusted);
}

TEST(InitialPages, AStartTheMachineHoldsIsNotReported) {
  te::Simulator sim(writers(10'000));
  EXPECT_TRUE(adjusted(sim).empty());
  te::Simulator none(writers(0));
  EXPECT_TRUE(adjusted(none).empty());
}
