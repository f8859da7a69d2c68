// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the IO-less policies (ioless, ioless-3.2) share: the entry check, the slowly following
// dirty_limit step, and the record of a pass (its tracepoint and its explain breakdown).
#include <cstdint>

#include "policy.h"
#include "position_control.h"
#include "throttle_host.h"

namespace throttlelab::engine {

/// The per-task poll interval, cut to 8 pages (32 KiB) while the device is over its limits.
Pages iolessRatelimit(const ThrottleHost& host, const Task& task);

/// The base of both IO-less policies: position control, and their entry check.
template <class P>
class IolessPolicyBase : public CopyablePolicy<P> {
 public:
  bool hasPositionControl() const override { return true; }
  Pages ratelimit(const ThrottleHost& host, const Task& task) const override {
    return iolessRatelimit(host, task);
  }

 protected:
  using CopyablePolicy<P>::CopyablePolicy;
};

/// update_dirty_limit() (docs/model.md, Eq. 8) inside the 200 ms update: moves the global
/// dirty_limit if its own stamp is old enough.
void updateDomainDirtyLimit(ThrottleHost& host, const GlobalView& g);

/// The same for a memory cgroup's wb_domain (domain_update_dirty_limit() on the mdtc, 4.2+).
void updateMemcgDirtyLimit(ThrottleHost& host, int cg, const MemcgView& m);

/// What a pass computed besides its tracepoint record, for the explain breakdown.
struct PassDetail {
  std::int64_t posRatio = 0;  ///< fixed point, 1.0 = 1024
  std::int64_t minPause = 0;  ///< jiffies; 0 where the era has none
  std::int64_t maxPause = 0;  ///< jiffies
  PauseClamp clamp = PauseClamp::None;
  bool bandwidthUpdated = false;
  ThrottleDomain domain = ThrottleDomain::Global;  ///< whose pos_ratio set the pause
};

/// Records one throttle decision as the task's last pass (ThrottleHost::iolessPassOf), and
/// emits the writeback:balance_dirty_pages record made of the same numbers if tracing. Rates
/// in pages/s, times in jiffies; `withThink`: the 6.x record, which has period and think (the
/// 3.2 one had neither: they stay 0).
void recordPass(ThrottleHost& host, const Task& task, const GlobalView& g, const WbView& w,
                std::int64_t dirtyRatelimit, std::int64_t taskRatelimit, Pages pagesDirtied,
                std::int64_t period, std::int64_t pause, bool withThink, const PassDetail& d);

}  // namespace throttlelab::engine
