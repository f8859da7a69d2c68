// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A dirty-throttling policy: what balance_dirty_pages() does when a task has dirtied its
// quota of pages. One file per policy under policies/ (docs/model.md).
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kernel_era.h"
#include "throttlelab/engine/explain.h"
#include "throttlelab/engine/sim_time.h"
#include "throttlelab/engine/units.h"

namespace throttlelab::engine {

struct GlobalView;
struct Task;
class ThrottleHost;

/// What the task does after one step of balance().
struct BalanceOutcome {
  enum class Action {
    Run,             ///< leave balance_dirty_pages() and keep writing
    Sleep,           ///< sleep for `sleep`
    Writeback,       ///< write back `writebackPages` of this device's dirty pages itself,
                     ///< sleeping whenever the request queue is full (the IO-ful stall)
    CongestionWait,  ///< sleep until the device decongests, at most `sleep`
  };
  Action action = Action::Run;
  SimDuration sleep{};
  Pages writebackPages = 0;
  bool recheck = false;  ///< afterwards call balance() again: the loop goes on
  /// IO-ful policies: the threshold comparison this step made, for the explain breakdown
  /// (LoopStep::Kind::Check; `hasCheck` false if the step compared nothing).
  LoopStep check{};
  bool hasCheck = false;

  /// This outcome with the comparison `over` of dirty against thresh (and, for per-device
  /// policies, wbDirty against wbThresh) attached.
  BalanceOutcome& withCheck(Pages dirty, Pages thresh, bool over, Pages wbDirty = 0,
                            Pages wbThresh = 0) {
    check.kind = LoopStep::Kind::Check;
    check.dirty = dirty;
    check.thresh = thresh;
    check.wbDirty = wbDirty;
    check.wbThresh = wbThresh;
    check.over = over;
    hasCheck = true;
    return *this;
  }

  /// Write back `pages` of the device's dirty pages, then call balance() again.
  static BalanceOutcome writebackThenRecheck(Pages pages) {
    BalanceOutcome out;
    out.action = Action::Writeback;
    out.writebackPages = pages;
    out.recheck = true;
    return out;
  }
};

/// What a policy says about itself: menus, reports, the window's tooltips, --list-policies.
struct PolicyText {
  std::string_view name;
  std::string_view description;  ///< one line for menus and reports
  std::string_view kernels;      ///< the kernels that throttled this way ("3.3 to 6.x")
  std::string_view details;      ///< a paragraph: what it does differently
};

class ThrottlePolicy {
 public:
  virtual ~ThrottlePolicy() = default;
  ThrottlePolicy& operator=(const ThrottlePolicy&) = delete;

  /// A copy of this policy with whatever state it keeps (a snapshot of the run copies it).
  virtual std::unique_ptr<ThrottlePolicy> clone() const = 0;
  std::string_view name() const { return m_text.name; }
  std::string_view description() const { return m_text.description; }
  std::string_view kernels() const { return m_text.kernels; }
  std::string_view details() const { return m_text.details; }
  /// How the rest of the kernel behaved in this policy's era.
  virtual KernelEra era() const { return {}; }
  /// Pages a task dirties before it must call balance() (the entry ratelimit).
  virtual Pages ratelimit(const ThrottleHost& host, const Task& task) const = 0;
  /// One step of balance_dirty_pages() for `task`, which has dirtied `pagesDirtied` pages.
  /// Policies that loop keep their position in the task (Task::balancePhase) and are called
  /// again after each Writeback, CongestionWait or Sleep with recheck.
  virtual BalanceOutcome balance(ThrottleHost& host, Task& task, Pages pagesDirtied) = 0;
  /// Whether the throttle-curve plot applies (the policy has position control).
  virtual bool hasPositionControl() const { return false; }

 protected:
  explicit ThrottlePolicy(const PolicyText& text) : m_text(text) {}
  ThrottlePolicy(const ThrottlePolicy&) = default;

 private:
  PolicyText m_text;  // views of string literals
};

/// The base of a concrete policy `P`: its clone() is a copy of the whole `P`.
template <class P>
class CopyablePolicy : public ThrottlePolicy {
 public:
  std::unique_ptr<ThrottlePolicy> clone() const override {
    return std::make_unique<P>(static_cast<const P&>(*this));
  }

 protected:
  using ThrottlePolicy::ThrottlePolicy;
};

/// balance_dirty_pages()'s kick of the flusher (after its loop before 6.0, inside it since):
/// start background writeback on device `dev` once reclaimable pages pass the background
/// threshold and none is in progress.
void kickBackgroundWriteback(ThrottleHost& host, int dev, const GlobalView& g);

struct PolicyInfo {
  std::string name;
  std::string description;
  std::string kernels;
  std::string details;
};

/// Every policy, in the order the UI lists them.
std::vector<PolicyInfo> policyInfos();
std::vector<std::string> policyNames();
/// Creates a policy by name; nullptr if unknown.
std::unique_ptr<ThrottlePolicy> makePolicy(std::string_view name);

std::unique_ptr<ThrottlePolicy> makeIolessPolicy();
std::unique_ptr<ThrottlePolicy> makeIoless32Policy();
std::unique_ptr<ThrottlePolicy> makePerBdiPolicy();
std::unique_ptr<ThrottlePolicy> makeNoThrottlePolicy();
std::unique_ptr<ThrottlePolicy> makeLegacyPolicy();
std::unique_ptr<ThrottlePolicy> makeLegacyRtExemptPolicy();
std::unique_ptr<ThrottlePolicy> makeLegacyRtBreakPolicy();
std::unique_ptr<ThrottlePolicy> makeLegacyRtBonusPolicy();

}  // namespace throttlelab::engine
