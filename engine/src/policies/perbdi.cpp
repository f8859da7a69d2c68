// SPDX-License-Identifier: GPL-3.0-or-later
// perbdi-2.6.24: per-device IO-ful throttling, 2.6.24–3.1 (Peter Zijlstra's proportional limits;
// docs/model.md, perbdi-2.6.24) in its 2.6.3x form, the baseline of Wu Fengguang's 2010 benchmark
// (2.6.37-rc2). Each device gets a share of the threshold by its recent writeout completions;
// each task's limit is cut by up to 1/8 by its share of recent dirtying, so a heavy dirtier is
// stopped before a light one. Over its limit a writer writes back pages itself, then sleeps
// with a doubling back-off.
#include <algorithm>

#include "policy.h"
#include "throttle_host.h"

namespace throttlelab::engine {

namespace {

enum Phase { kLoopTop = 0, kAfterWriteback = 1 };

constexpr PolicyText kPerBdiText{
    .name = "perbdi-2.6.24",
    .description =
        "2.6.24–3.1 per-device IO-ful throttling with proportional limits and the "
        "per-task 1/8 cut",
    .kernels = "Linux 2.6.24 to 3.1",
    .details =
        "IO-ful: each device gets a share of the dirty limit in proportion to its recent "
        "writeout (floating proportions), and a task that dirtied much lately gets its "
        "own limit cut by up to an eighth. A task over its device's limit writes back "
        "pages of that device itself, then waits in congestion_wait (up to 100 ms) and "
        "checks again. The baseline of the 2010 IO-less benchmarks."};

class PerBdiPolicy final : public CopyablePolicy<PerBdiPolicy> {
 public:
  PerBdiPolicy() : CopyablePolicy(kPerBdiText) {}
  KernelEra era() const override {
    KernelEra e = eraBeforeCgroupWriteback();
    e.dirtyable = DirtyableStyle::FreePlusLru;
    e.fivePercentFloor = true;
    e.rtBonus = RtLimitBonus::Quarter;
    e.flusher = FlusherStyle::Blocking1024;
    e.followDirtyLimit = false;
    e.perCpuRatelimit = true;
    return e;
  }

  Pages ratelimit(const ThrottleHost& host, const Task& task) const override {
    return host.device(task.info.device).dirtyExceeded ? 8 : host.ratelimitPages();
  }

  BalanceOutcome balance(ThrottleHost& host, Task& task, Pages pagesDirtied) override {
    const int dev = task.info.device;
    DeviceState& wb = host.device(dev);
    // sync_writeback_pages(): 1.5 x max(pages dirtied, ratelimit_pages)
    const Pages chunkBase = std::max(pagesDirtied, host.ratelimitPages());
    const Pages writeChunk = chunkBase + chunkBase / 2;
    task.nrDirtied = 0;  // the per-CPU counter of the entry check starts again
    if (task.balancePhase == kLoopTop && task.balanceBackoff == 0) {
      task.balanceWritten = 0;
      task.balanceBackoff = 1;  // the first sleep is one jiffy
      task.balanceExceeded = false;
    }
    // balance_dirty_pages() leaves its loop by `break` with its local dirty_exceeded as the
    // last round set it, and clears bdi->dirty_exceeded only if that is false. Leaving
    // because the chunk is written (only ever over the limit), or because dirty fell to the
    // freerun line after a round that was over, keeps the 8-page entry check for every task
    // on the device.
    if (task.balancePhase == kAfterWriteback) {
      task.balanceWritten += task.lastWriteback;
      task.balancePhase = kLoopTop;
      if (task.balanceWritten >= writeChunk) return done(host, task, true);  // our duty is done
      return sleep(host, task);
    }
    const GlobalView g = host.globalView(&task, true);
    // Throttle only when background writeback cannot keep up.
    if (g.dirty <= (g.bgThresh + g.thresh) / 2)
      return done(host, task, task.balanceExceeded, &g)
          .withCheck(g.dirty, (g.bgThresh + g.thresh) / 2, false);
    const WbView w = host.wbView(dev, g);
    // task_dirty_limit() (docs/model.md, Eq. 15): a task's limit shrinks by its share of recent
    // dirtying.
    const Pages bth = w.wbThresh;
    const double share = host.taskDirtyShare(task);
    Pages tth = bth - static_cast<Pages>(static_cast<double>(bth / 8) * share);
    tth = std::max(tth, bth / 2);
    const bool exceeded = w.wbDirty > tth || g.dirty > g.thresh;
    task.balanceExceeded = exceeded;
    if (!exceeded)
      return done(host, task, false, &g).withCheck(g.dirty, g.thresh, false, w.wbDirty, tth);
    wb.dirtyExceeded = true;
    if (wb.reclaimable > tth) {
      task.balancePhase = kAfterWriteback;
      return BalanceOutcome::writebackThenRecheck(writeChunk)
          .withCheck(g.dirty, g.thresh, true, w.wbDirty, tth);
    }
    return sleep(host, task).withCheck(g.dirty, g.thresh, true, w.wbDirty, tth);
  }

 private:
  static BalanceOutcome sleep(ThrottleHost& host, Task& task) {
    const int hz = host.hz();
    BalanceOutcome out;
    out.action = BalanceOutcome::Action::Sleep;
    out.sleep = SimDuration{task.balanceBackoff * 1'000'000'000LL / hz};
    out.recheck = true;
    // Double the nap each round, up to the old default of 100 ms.
    task.balanceBackoff = std::min<std::int64_t>(task.balanceBackoff * 2, std::max(hz / 10, 1));
    return out;
  }
  static BalanceOutcome done(ThrottleHost& host, Task& task, bool exceeded,
                             const GlobalView* seen = nullptr) {
    const int dev = task.info.device;
    DeviceState& wb = host.device(dev);
    if (!exceeded) wb.dirtyExceeded = false;
    task.balancePhase = kLoopTop;
    task.balanceBackoff = 0;
    const GlobalView g = seen ? *seen : host.globalView(&task, false);
    kickBackgroundWriteback(host, dev, g);
    return {};
  }
};

}  // namespace

std::unique_ptr<ThrottlePolicy> makePerBdiPolicy() {
  return std::make_unique<PerBdiPolicy>();
}

}  // namespace throttlelab::engine
