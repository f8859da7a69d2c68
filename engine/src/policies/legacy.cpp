// SPDX-License-Identifier: GPL-3.0-or-later
// legacy-2.6.0: the global IO-ful balance_dirty_pages() of 2.6.0–2.6.23 (docs/model.md), and the
// real-time variants of the August 2003 thread: "rt-exempt" (Love's v1: real-time tasks never
// throttled), "rt-break" (Morton's -mm "-2": they account and kick pdflush but leave the loop
// at once), "rt-bonus" (what mainline kept: limits raised by a quarter).
// A throttled writer writes back dirty pages itself, blocking on request slots, until the
// total falls under the threshold or it has written its quota, waiting in congestion_wait().
#include <algorithm>
#include <limits>

#include "policy.h"
#include "throttle_host.h"

namespace throttlelab::engine {

namespace {

enum class RtVariant { None, Exempt, Break, Bonus };

enum Phase { kLoopTop = 0, kAfterWriteback = 1, kAfterWait = 2 };

// Indexed by RtVariant.
constexpr PolicyText kLegacyTexts[] = {
    {.name = "legacy-2.6.0",
     .description = "2.6.0 IO-ful throttling: throttled writers write back pages themselves; no "
                    "real-time treatment",
     .kernels = "Linux 2.6.0 to 2.6.23, without the real-time bonus",
     .details = "IO-ful and global: one dirty limit (vm.dirty_ratio of dirtyable memory). A task "
                "over it writes back up to 1.5 × its ratelimit of pages itself, sleeping in "
                "blk_congestion_wait between rounds, until dirty pages fall below the limit; "
                "pdflush writes in 1024-page chunks and backs off when the queue is congested."},
    {.name = "legacy-2.6.0-rt-exempt",
     .description = "2.6.0 IO-ful throttling; real-time writers never throttled (Love's first "
                    "2003 patch)",
     .kernels = "a 2003 patch for 2.6.0-test (Robert Love), not merged",
     .details = "As legacy-2.6.0, but a real-time (SCHED_FIFO/RR) writer never enters the "
                "throttle loop: it dirties at copy speed however full the cache is, and normal "
                "writers pay for it."},
    {.name = "legacy-2.6.0-rt-break",
     .description = "2.6.0 IO-ful throttling; real-time writers leave the loop at once "
                    "(Morton's 2003 -mm patch)",
     .kernels = "a 2003 -mm patch for 2.6.0-test (Andrew Morton), not merged",
     .details = "As legacy-2.6.0, but a real-time writer leaves balance_dirty_pages() at once "
                "instead of writing back and waiting; normal writers are throttled as before."},
    {.name = "legacy-2.6.0-rt-bonus",
     .description = "2.6.0 IO-ful throttling; real-time writers get limits a quarter higher "
                    "(mainline 2.6.0)",
     .kernels = "Linux 2.6.0 onwards (the real-time bonus mainline kept)",
     .details = "As legacy-2.6.0, but a real-time writer's background and dirty thresholds are "
                "a quarter higher, so it is throttled only once the cache holds that much more; "
                "past it, it writes back and waits like everyone else."},
};

class LegacyPolicy final : public CopyablePolicy<LegacyPolicy> {
 public:
  explicit LegacyPolicy(RtVariant v)
      : CopyablePolicy(kLegacyTexts[static_cast<int>(v)]), m_variant(v) {}

  KernelEra era() const override {
    KernelEra e = eraBeforeCgroupWriteback();
    e.dirtyable = DirtyableStyle::TotalPages;
    e.unmappedClamp = true;
    e.fivePercentFloor = true;
    e.rtBonus = m_variant == RtVariant::Bonus ? RtLimitBonus::Quarter : RtLimitBonus::None;
    e.lessThrottleBonus = true;
    e.flusher = FlusherStyle::Pdflush;
    e.followDirtyLimit = false;
    return e;
  }

  Pages ratelimit(const ThrottleHost& host, const Task& task) const override {
    if (m_variant == RtVariant::Exempt && isRealTime(task))
      return std::numeric_limits<Pages>::max() / 4;
    // balance_dirty_pages_ratelimited(): every ratelimit_pages, or every 8 once over the limit.
    return host.device(task.info.device).dirtyExceeded ? 8 : host.ratelimitPages();
  }

  BalanceOutcome balance(ThrottleHost& host, Task& task, Pages) override {
    const int dev = task.info.device;
    DeviceState& wb = host.device(dev);
    const Pages writeChunk = host.ratelimitPages() + host.ratelimitPages() / 2;  // Eq. 33
    task.nrDirtied = 0;  // the per-CPU counter of the entry check starts again
    GlobalView g{};
    bool under = false;
    if (task.balancePhase == kAfterWriteback) {
      g = host.globalView(&task, true);
      under = g.nrReclaimable + (g.dirty - g.nrReclaimable) <= g.thresh;
      task.balanceWritten += task.lastWriteback;
      if (under || task.balanceWritten >= writeChunk)
        return done(host, task, g, under).withCheck(g.dirty, g.thresh, !under);
      task.balancePhase = kAfterWait;
      return congestionWait().withCheck(g.dirty, g.thresh, true);
    }
    // The top of the loop.
    g = host.globalView(&task, true);
    under = g.dirty <= g.thresh;
    if (under) return done(host, task, g, true).withCheck(g.dirty, g.thresh, false);
    wb.dirtyExceeded = true;
    if (m_variant == RtVariant::Break && isRealTime(task))
      return done(host, task, g, false).withCheck(g.dirty, g.thresh, true);
    if (g.nrReclaimable > 0) {
      task.balancePhase = kAfterWriteback;
      return BalanceOutcome::writebackThenRecheck(writeChunk).withCheck(g.dirty, g.thresh, true);
    }
    task.balancePhase = kAfterWait;
    return congestionWait().withCheck(g.dirty, g.thresh, true);
  }

 private:
  static BalanceOutcome congestionWait() {
    BalanceOutcome out;
    out.action = BalanceOutcome::Action::CongestionWait;
    out.sleep = std::chrono::milliseconds(100);  // HZ/10
    out.recheck = true;
    return out;
  }
  static BalanceOutcome done(ThrottleHost& host, Task& task, const GlobalView& g, bool under) {
    const int dev = task.info.device;
    if (under) host.device(dev).dirtyExceeded = false;
    task.balancePhase = kLoopTop;
    kickBackgroundWriteback(host, dev, g);
    return {};
  }

  RtVariant m_variant;
};

}  // namespace

std::unique_ptr<ThrottlePolicy> makeLegacyPolicy() {
  return std::make_unique<LegacyPolicy>(RtVariant::None);
}
std::unique_ptr<ThrottlePolicy> makeLegacyRtExemptPolicy() {
  return std::make_unique<LegacyPolicy>(RtVariant::Exempt);
}
std::unique_ptr<ThrottlePolicy> makeLegacyRtBreakPolicy() {
  return std::make_unique<LegacyPolicy>(RtVariant::Break);
}
std::unique_ptr<ThrottlePolicy> makeLegacyRtBonusPolicy() {
  return std::make_unique<LegacyPolicy>(RtVariant::Bonus);
}

}  // namespace throttlelab::engine
