// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Shared by the trace import tests and the trace benchmark: dd writers on two devices, so that
// a run writes every writeback tracepoint for many pids and two bdis.
#include <string>

#include "throttlelab/engine/scenario.h"

namespace throttlelab::test {

/// The built-in `ten-dd` with `first` writers on 8:0 and `second` writers named `secondName`
/// on 254:0, a device of 120 MB/s.
inline engine::Scenario twoDeviceScenario(int first, int second, const std::string& secondName) {
  engine::Scenario s = engine::parseScenario(*engine::builtinScenarioJson("ten-dd"), "ten-dd");
  s.devices.resize(2);
  s.devices[0].name = "8:0";
  s.devices[1] = s.devices[0];
  s.devices[1].name = "254:0";
  s.devices[1].writeMBps = 120;
  s.tasks.resize(2);
  s.tasks[0].count = first;
  s.tasks[0].device = "8:0";
  s.tasks[1] = s.tasks[0];
  s.tasks[1].count = second;
  s.tasks[1].name = secondName;
  s.tasks[1].device = "254:0";
  return s;
}

}  // namespace throttlelab::test
