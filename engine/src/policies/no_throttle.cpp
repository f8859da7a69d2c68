// SPDX-License-Identifier: GPL-3.0-or-later
// No throttling at all: writers are never made to wait, only background writeback is started.
// It shows why throttling exists: memory fills with dirty pages and allocations stall.
#include "policy.h"
#include "throttle_host.h"

namespace throttlelab::engine {

namespace {
constexpr PolicyText kNoThrottleText{
    .name = "none",
    .description =
        "no dirty throttling: writers never wait; memory fills with dirty pages and "
        "allocations stall",
    .kernels = "no kernel: a thought experiment",
    .details =
        "balance_dirty_pages() never makes anyone wait: writers dirty pages as fast as "
        "they copy, dirty pages fill memory until reclaim has nothing clean left to free, "
        "and the wait moves to page allocation (direct reclaim, allocation stalls, at "
        "worst the OOM killer). Shows what throttling is for."};

class NoThrottlePolicy final : public CopyablePolicy<NoThrottlePolicy> {
 public:
  NoThrottlePolicy() : CopyablePolicy(kNoThrottleText) {}
  Pages ratelimit(const ThrottleHost& host, const Task&) const override {
    return host.ratelimitPages();
  }
  BalanceOutcome balance(ThrottleHost& host, Task& task, Pages) override {
    const GlobalView g = host.globalView(&task, true);
    task.nrDirtied = 0;
    kickBackgroundWriteback(host, task.info.device, g);
    return {};
  }
};
}  // namespace

std::unique_ptr<ThrottlePolicy> makeNoThrottlePolicy() {
  return std::make_unique<NoThrottlePolicy>();
}

}  // namespace throttlelab::engine
