// SPDX-License-Identifier: GPL-3.0-or-later
// No throttling at all: writers are never made to wait, only background writeback is started.
// It shows why throttling exists: memory fills with dirty pages and allocations stall.
#include "policies/policy.h"
#include "throttle_host.h"

namespace throttlelab::engine {

namespace {
class NoThrottlePolicy final : public ThrottlePolicy {
 public:
  std::unique_ptr<ThrottlePolicy> clone() const override {
    return std::make_unique<NoThrottlePolicy>(*this);
  }
  std::string_view name() const override { return "none"; }
  std::string_view description() const override {
    return "no dirty throttling: writers never wait; memory fills with dirty pages and allocations "
           "stall";
  }
  std::string_view kernels() const override { return "no kernel: a thought experiment"; }
  std::string_view details() const override {
    return "balance_dirty_pages() never makes anyone wait: writers dirty pages as fast as they "
           "copy, dirty pages fill memory until reclaim has nothing clean left to free, and the "
           "wait moves to page allocation (direct reclaim, allocation stalls, at worst the OOM "
           "killer). Shows what throttling is for.";
  }
  Pages ratelimit(const ThrottleHost& host, const Task&) const override {
    return host.ratelimitPages();
  }
  BalanceOutcome balance(ThrottleHost& host, Task& task, Pages) override {
    const GlobalView g = host.globalView(&task, true);
    task.nrDirtied = 0;
    const int dev = task.info.device;
    if (!host.writebackInProgress(dev) && g.nrReclaimable > g.bgThresh)
      host.startBackgroundWriteback(dev);
    return {};
  }
};
}  // namespace

std::unique_ptr<ThrottlePolicy> makeNoThrottlePolicy() {
  return std::make_unique<NoThrottlePolicy>();
}

}  // namespace throttlelab::engine
