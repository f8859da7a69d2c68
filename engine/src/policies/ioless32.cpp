// SPDX-License-Identifier: GPL-3.0-or-later
// IO-less throttling as first released in 3.2 (docs/model.md): the same position and rate control
// as today, but no think-time banking, a different max_pause, nr_dirtied_pause set after the
// loop from how long the pause was, and background writeback kicked after the loop.
#include <algorithm>

#include "ioless_common.h"
#include "kernel_math.h"
#include "pause_control.h"
#include "policy.h"
#include "position_control.h"
#include "rate_control.h"
#include "throttle_host.h"

namespace throttlelab::engine {

namespace {

constexpr PolicyText kIoless32Text{
    .name = "ioless-3.2",
    .description =
        "IO-less throttling as first released in 3.2: no think-time banking, 3.2 pause rules",
    .kernels = "Linux 3.2",
    .details =
        "The IO-less controller as first released: the same position and rate control as "
        "ioless, but no think-time banking (a task that copied between two calls gets no "
        "credit for it) and 3.2's pause bounds, so writers above the hard limit wake every "
        "max_pause to check again. 3.3's pause-time control replaced those rules."};

class Ioless32Policy final : public IolessPolicyBase<Ioless32Policy> {
 public:
  Ioless32Policy() : IolessPolicyBase(kIoless32Text) {}
  KernelEra era() const override {
    KernelEra e = eraBeforeCgroupWriteback();
    e.dirtyable = DirtyableStyle::FreePlusLru;
    e.rtBonus = RtLimitBonus::Quarter;  // the flusher and dirty_limit are today's
    return e;
  }

  BalanceOutcome balance(ThrottleHost& host, Task& task, Pages pagesDirtied) override {
    const int hz = host.hz();
    const int dev = task.info.device;
    DeviceState& wb = host.device(dev);
    const std::int64_t now = host.jiffies();
    if (task.balancePages == 0) task.balanceStart = now;
    const GlobalView g = host.globalView(&task, true);
    if (g.dirty <= g.freerun) {
      task.nrDirtied = 0;
      task.nrDirtiedPause = dirtyPollInterval(g.dirty, g.thresh);
      return after(host, task, g, false);
    }
    const WbView w = host.wbView(dev, g);
    const bool exceeded = w.wbDirty > w.wbThresh || g.dirty > g.thresh;  // 3.2: "or"
    if (exceeded) wb.dirtyExceeded = true;
    const bool updated = now > wb.bw.bwTimeStampJiffies + std::max(hz / 5, 1);
    if (updated) update(host, task, g, w);
    const PositionResult pos =
        wbPositionRatio(positionInputs(g, w, wb.bw.avgWriteBw, /*strictLimit=*/false));
    wb.lastPosRatio = static_cast<double>(pos.posRatio) / kPosRatioOne;
    const std::int64_t rate = wb.bw.dirtyRatelimit;
    const std::int64_t taskRl = (rate * pos.posRatio) >> kRatelimitCalcShift;
    task.taskRatelimit = static_cast<double>(taskRl);
    const std::int64_t maxPause = maxPause32(wb.bw.avgWriteBw, rate, w.wbDirty, hz);
    wb.lastMaxPause = maxPause;

    std::int64_t pause = maxPause;
    PassDetail detail{.posRatio = pos.posRatio, .maxPause = maxPause, .bandwidthUpdated = updated};
    if (taskRl == 0) detail.clamp = PauseClamp::OverLimit;
    if (taskRl > 0) {
      pause = hz * pagesDirtied / (taskRl | 1);
      if (pause <= 0) {  // leave without sleeping; the poll-interval rules see a short pause
        setPollInterval(task, rate, 1, maxPause, pagesDirtied, hz);
        return after(host, task, g, exceeded);
      }
      if (pause > maxPause) detail.clamp = PauseClamp::MaxPause;
      pause = std::min(pause, maxPause);
    }
    trace(host, task, g, w, rate, taskRl, pagesDirtied, pause, detail);
    setPollInterval(task, rate, pause, maxPause, pagesDirtied, hz);
    BalanceOutcome out;
    out.action = BalanceOutcome::Action::Sleep;
    out.sleep = SimDuration{pause * 1'000'000'000LL / hz};
    // After the sleep the loop ends unless dirty was at or over the hard limit.
    out.recheck = g.dirty >= g.limit;
    if (!out.recheck) after(host, task, g, exceeded);
    return out;
  }

 private:
  static std::int64_t maxPause32(std::int64_t avgBw, std::int64_t rate, Pages wbDirty, int hz) {
    std::int64_t t = hz / 50;
    const int hi = ilog2(static_cast<std::uint64_t>(std::max<std::int64_t>(avgBw, 1)));
    const int lo = ilog2(static_cast<std::uint64_t>(std::max<std::int64_t>(rate, 1)));
    if (hi > lo) t += (hi - lo) * (20 * hz) / 1024;
    if (wbDirty > 0) t = std::min<std::int64_t>(t, wbDirty * hz / (8 * avgBw + 1));
    return std::clamp<std::int64_t>(t, 4, std::max(hz / 5, 4));
  }

  static void setPollInterval(Task& task, std::int64_t rate, std::int64_t pause,
                              std::int64_t maxPause, Pages pages, int hz) {
    task.nrDirtied = 0;
    const Pages target = rate * (maxPause / 2) / hz;
    if (pause <= maxPause / 4 && pages >= task.nrDirtiedPause) {
      task.nrDirtiedPause = std::clamp<Pages>(target, pages + pages / 8, 4 * pages);
    } else if (pause >= maxPause) {
      task.nrDirtiedPause =
          1 | std::clamp<Pages>(target, pages / 4, std::max<Pages>(pages / 4, pages - pages / 8));
    }
  }

  static BalanceOutcome after(ThrottleHost& host, Task& task, const GlobalView& g, bool exceeded) {
    const int dev = task.info.device;
    if (!exceeded) host.device(dev).dirtyExceeded = false;
    kickBackgroundWriteback(host, dev, g);
    (void)task;
    return {};
  }

  static void update(ThrottleHost& host, const Task& task, const GlobalView& g, const WbView& w) {
    const int hz = host.hz();
    const std::int64_t now = host.jiffies();
    DeviceState& wb = host.device(task.info.device);
    Domain& dom = host.domain();
    const std::int64_t elapsed = std::max<std::int64_t>(now - wb.bw.bwTimeStampJiffies, 1);
    updateDomainDirtyLimit(host, g);
    // 3.2 recomputes pos_ratio inside the update, after dirty_limit moved.
    const Pages limit = hardDirtyLimit(g.thresh, dom.dirtyLimit);
    PositionInputs pin = positionInputs(g, w, wb.bw.avgWriteBw, /*strictLimit=*/false);
    pin.limit = limit;
    const PositionResult pos = wbPositionRatio(pin);
    updateDirtyRatelimit(wb.bw, RateInputs{.dirtied = wb.dirtied,
                                           .elapsedJiffies = elapsed,
                                           .posRatio = pos.posRatio,
                                           .dirty = g.dirty,
                                           .setpoint = dirtySetpoint(g.freerun, limit),
                                           .hz = hz});
    updateBandwidthAndRestamp(wb.bw, wb.written, wb.dirtied, now, hz);
  }

  static void trace(ThrottleHost& host, const Task& task, const GlobalView& g, const WbView& w,
                    std::int64_t rate, std::int64_t taskRl, Pages pages, std::int64_t pause,
                    const PassDetail& detail) {
    // 3.2's tracepoint had no period or think fields: they stay 0.
    recordPass(host, task, g, w, rate, taskRl, pages, 0, pause, /*withThink=*/false, detail);
  }
};

}  // namespace

std::unique_ptr<ThrottlePolicy> makeIoless32Policy() {
  return std::make_unique<Ioless32Policy>();
}

}  // namespace throttlelab::engine
