// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A dirty-throttling policy: what balance_dirty_pages() does when a task has dirtied its
// quota of pages. One file per policy under policies/ (model-spec §3).
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "throttlelab/engine/sim_time.h"
#include "throttlelab/engine/units.h"

namespace throttlelab::engine {

struct Task;
class ThrottleHost;

/// What the task does after one pass of balance().
struct BalanceOutcome {
  enum class Action { Run, Sleep };
  Action action = Action::Run;
  SimDuration sleep{};   ///< for Sleep
  bool recheck = false;  ///< after the sleep, run balance() again with the same pages
};

class ThrottlePolicy {
 public:
  virtual ~ThrottlePolicy() = default;
  ThrottlePolicy() = default;
  ThrottlePolicy(const ThrottlePolicy&) = delete;
  ThrottlePolicy& operator=(const ThrottlePolicy&) = delete;

  virtual std::string_view name() const = 0;
  /// Pages a task dirties before it must call balance() (the entry ratelimit).
  virtual Pages ratelimit(const ThrottleHost& host, const Task& task) const = 0;
  /// One call of balance_dirty_pages() for `task`, which has dirtied `pagesDirtied` pages.
  virtual BalanceOutcome balance(ThrottleHost& host, Task& task, Pages pagesDirtied) = 0;
  /// Whether the throttle-curve plot applies (the policy has position control).
  virtual bool hasPositionControl() const { return false; }
};

/// Names of every policy, in the order the UI lists them.
std::vector<std::string> policyNames();
/// Creates a policy by name; nullptr if unknown.
std::unique_ptr<ThrottlePolicy> makePolicy(std::string_view name);

std::unique_ptr<ThrottlePolicy> makeIolessPolicy();

}  // namespace throttlelab::engine
