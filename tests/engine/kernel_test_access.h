// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The engine tests' way into a Kernel's internals (Kernel befriends this class): the
// invariants, the age of the oldest dirty page, CPU time so far and the task table. Only
// tests include it; the engine's own API stays what Simulator and ThrottleHost offer.
#include <string>

#include "kernel.h"

namespace throttlelab::engine {

class KernelTestAccess {
 public:
  /// Pages conserved, counters non-negative and in agreement; empty if all hold.
  static std::string checkInvariants(const Kernel& k) { return k.checkInvariants(); }
  /// How long the oldest dirty page has been dirty (0 when nothing is dirty).
  static SimDuration oldestDirtyAge(const Kernel& k) { return k.oldestDirtyAge(); }
  /// CPU time used so far by tasks and kernel threads, kernel and user mode.
  static double cpuSystemS(const Kernel& k) { return k.totalCpuSystemS(); }
  static double cpuUserS(const Kernel& k) { return k.totalCpuUserS(); }
  static const Task& task(Kernel& k, int index) { return k.task(index); }
};

}  // namespace throttlelab::engine
