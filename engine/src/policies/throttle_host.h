// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What a throttling policy may read and do: the simulator implements this.
#include <string_view>

#include "device_state.h"
#include "dirty_throttle_control.h"
#include "ioless_pass.h"
#include "kernel_era.h"
#include "memcg.h"
#include "task.h"
#include "throttlelab/engine/explain.h"
#include "throttlelab/engine/records.h"
#include "vmstat.h"

namespace throttlelab::engine {

class ThrottleHost {
 public:
  virtual ~ThrottleHost() = default;

  virtual SimTime now() const = 0;
  virtual std::int64_t jiffies() const = 0;
  virtual int hz() const = 0;
  virtual const VmConfig& vm() const = 0;
  virtual const Memory& memory() const = 0;
  virtual Domain& domain() = 0;
  virtual DeviceState& device(int index) = 0;
  virtual const DeviceState& device(int index) const = 0;

  /// Global limits as `task` sees them (RT bonus for real-time tasks). With `emitTrace`,
  /// also emits writeback:global_dirty_state, as every computation in the kernel does.
  virtual GlobalView globalView(const Task* task, bool emitTrace) = 0;
  /// The device's share of the thresholds (docs/model.md, Eq. 13) and its dirty count.
  virtual WbView wbView(int device, const GlobalView& g) const = 0;
  /// Wakes the device's flusher for background writeback if it is idle.
  virtual void startBackgroundWriteback(int device) = 0;
  virtual bool writebackInProgress(int device) const = 0;

  /// The memory cgroup whose own wb_domain `task` is throttled in (a v2 cgroup under a 4.2+
  /// era), or -1: the task is throttled by the global domain alone.
  virtual int memcgDomainOf(const Task& task) const = 0;
  virtual CgroupState& cgroupState(int cg) = 0;
  virtual const CgroupState& cgroupState(int cg) const = 0;
  /// The cgroup's own limits (docs/model.md, Memory cgroups, Eq. 60–61) beside the global `g`,
  /// as `task` sees them (RT bonus); `task` may be null (the flusher).
  virtual MemcgView memcgView(int cg, const GlobalView& g, const Task* task) const = 0;
  /// The cgroup's wb on `device`: its share of the cgroup's thresholds (of the cgroup domain's
  /// completions) and its dirty + writeback pages.
  virtual WbView memcgWbView(int cg, int device, const MemcgView& m) const = 0;
  /// Dirty + writeback pages on `device` that belong to the wbs of v2 cgroups (not the root wb).
  virtual Pages cgroupWbDirty(int device) const = 0;
  /// cgroup_ino of `task`'s wb in traces: its cgroup's under cgroup writeback, else 1 (root).
  virtual std::uint64_t traceCgroupIno(const Task& task) const = 0;

  /// The policy's era: dirtyable memory, bonuses, flusher style.
  virtual const KernelEra& era() const = 0;
  /// ratelimit_pages (docs/model.md, Eq. 32): the per-CPU check interval of 2.6.x, clamped to [16,
  /// 1024].
  virtual Pages ratelimitPages() const = 0;
  virtual bool congested(int device) const = 0;
  /// The task's share of recently dirtied pages (2.6.24 task proportions, docs/model.md Eq. 15).
  virtual double taskDirtyShare(const Task& t) const = 0;
  virtual int cpus() const = 0;

  virtual bool tracing() const = 0;
  virtual void trace(const TraceRecord& r) = 0;
  virtual TraceHeader traceHeader(const Task& t) const = 0;
  virtual std::string_view deviceName(int device) const = 0;
  /// The numbers of `t`'s last IO-less pass, for the policy to fill; its explain breakdown is
  /// made from them when asked (docs/model.md, Outputs). The reference is valid until the next
  /// task is added; never keep it.
  virtual IolessPass& iolessPassOf(const Task& t) = 0;

 protected:
  ThrottleHost() = default;
  /// The host is copied with the kernel that implements it (a snapshot of the run).
  ThrottleHost(const ThrottleHost&) = default;
  ThrottleHost& operator=(const ThrottleHost&) = default;
};

}  // namespace throttlelab::engine
