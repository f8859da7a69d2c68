// SPDX-License-Identifier: GPL-3.0-or-later
// ioless: the IO-less balance_dirty_pages() of 3.2+ in its 6.x order of operations
// (docs/model.md, ioless: the 6.x order). The dirtier never submits IO; it only sleeps, for a time
// computed from a base rate (rate control) times a position ratio (position control).
#include <algorithm>

#include "dirty_limits.h"
#include "kernel_math.h"
#include "pause_control.h"
#include "policies/ioless_common.h"
#include "policies/policy.h"
#include "position_control.h"
#include "rate_control.h"
#include "throttle_host.h"

namespace throttlelab::engine {

namespace {

class IolessPolicy final : public ThrottlePolicy {
 public:
  std::string_view name() const override { return "ioless"; }
  std::string_view description() const override {
    return "IO-less balance_dirty_pages() as today's kernels run it (3.2+, 6.x order): writers "
           "only sleep";
  }
  bool hasPositionControl() const override { return true; }

  Pages ratelimit(const ThrottleHost& host, const Task& task) const override {
    return iolessRatelimit(host, task);
  }

  BalanceOutcome balance(ThrottleHost& host, Task& task, Pages pagesDirtied) override {
    const int hz = host.hz();
    const int dev = task.info.device;
    DeviceState& wb = host.device(dev);
    std::int64_t now = host.jiffies();
    if (task.balancePages == 0) task.balanceStart = now;

    const GlobalView g = host.globalView(&task, /*emitTrace=*/true);
    // 6.0+: background writeback is kicked from inside the loop.
    if (g.nrReclaimable > g.bgThresh && !host.writebackInProgress(dev))
      host.startBackgroundWriteback(dev);

    const WbView w = host.wbView(dev, g);
    const bool strict = wb.device.config().strictLimit;
    const bool freerun =
        strict ? w.wbDirty <= freerunCeiling(w.wbThresh, w.wbBgThresh) : g.dirty <= g.freerun;
    if (freerun) {
      task.dirtyPausedWhen = now;
      task.nrDirtied = 0;
      task.nrDirtiedPause =
          strict ? dirtyPollInterval(w.wbDirty, w.wbThresh) : dirtyPollInterval(g.dirty, g.thresh);
      task.balancePages = 0;
      task.taskRatelimit = 0;
      return {};
    }
    if (!host.writebackInProgress(dev)) host.startBackgroundWriteback(dev);

    // 6.0+: dirty_exceeded is set or cleared on every throttled pass.
    wb.dirtyExceeded = w.wbDirty > w.wbThresh && g.dirty > g.thresh;

    PositionInputs pin{.thresh = g.thresh,
                       .bgThresh = g.bgThresh,
                       .limit = g.limit,
                       .dirty = g.dirty,
                       .wbThresh = w.wbThresh,
                       .wbBgThresh = w.wbBgThresh,
                       .wbDirty = w.wbDirty,
                       .avgWriteBw = wb.bw.avgWriteBw,
                       .strictLimit = strict};
    const PositionResult pos = wbPositionRatio(pin);
    wb.lastPosRatio = static_cast<double>(pos.posRatio) / kPosRatioOne;

    // 4.2+: the 200 ms update runs with this pass's pos_ratio: Eq. 8, Eq. 22–25, then Eq. 20–21.
    const bool updated = now > wb.bw.bwTimeStampJiffies + std::max(hz / 5, 1);
    if (updated) updateBandwidth(host, task, g, w, pos);

    const std::int64_t dirtyRatelimit = wb.bw.dirtyRatelimit;
    const std::int64_t taskRatelimit = (dirtyRatelimit * pos.posRatio) >> kRatelimitCalcShift;
    task.taskRatelimit = static_cast<double>(taskRatelimit);
    const std::int64_t maxPause = wbMaxPause(wb.bw.avgWriteBw, w.wbDirty, hz);
    wb.lastMaxPause = maxPause;
    const MinPause mp = wbMinPause(wb.bw.avgWriteBw, dirtyRatelimit, taskRatelimit, maxPause, hz);

    std::int64_t period = 0;
    std::int64_t pause = 0;
    PassDetail detail{.posRatio = pos.posRatio,
                      .minPause = mp.minPause,
                      .maxPause = maxPause,
                      .bandwidthUpdated = updated};
    if (taskRatelimit == 0) {
      period = maxPause;
      pause = maxPause;
      detail.clamp = PauseClamp::OverLimit;
    } else {
      period = hz * pagesDirtied / taskRatelimit;
      pause = period;
      // Subtract the think time since the last pause ended (or would have ended).
      if (task.dirtyPausedWhen) pause -= now - task.dirtyPausedWhen;
      if (pause < mp.minPause) {
        detail.clamp = PauseClamp::MinPause;
        emitTrace(host, task, g, w, dirtyRatelimit, taskRatelimit, pagesDirtied, period,
                  std::min<std::int64_t>(pause, 0), detail);
        if (pause < -hz) {
          task.dirtyPausedWhen = now;  // a long think: start afresh
          task.nrDirtied = 0;
        } else if (period) {
          task.dirtyPausedWhen += period;  // bank the debt for the next call
          task.nrDirtied = 0;
        } else if (task.nrDirtiedPause <= pagesDirtied) {
          task.nrDirtiedPause += pagesDirtied;
        }
        task.balancePages = 0;
        return {};
      }
      if (pause > maxPause) {
        // An occasional dip of task_ratelimit: move the virtual clock instead of sleeping long.
        now += std::min(pause - maxPause, maxPause);
        pause = maxPause;
        detail.clamp = PauseClamp::MaxPause;
      }
    }

    emitTrace(host, task, g, w, dirtyRatelimit, taskRatelimit, pagesDirtied, period, pause, detail);
    task.dirtyPausedWhen = now + pause;
    task.nrDirtied = 0;
    task.nrDirtiedPause = mp.nrDirtiedPause;

    BalanceOutcome out;
    out.action = BalanceOutcome::Action::Sleep;
    out.sleep = SimDuration{pause * 1'000'000'000LL / hz};
    // Over the hard limit (task_ratelimit = 0) the loop sleeps again, unless the device has
    // almost nothing dirty (its pages may be stuck elsewhere).
    out.recheck = taskRatelimit == 0 && w.wbDirty > kWbStatError;
    task.balancePages = out.recheck ? pagesDirtied : 0;
    return out;
  }

 private:
  /// wb_stat_error(): the per-CPU counter slack below which a device counts as clean.
  static constexpr Pages kWbStatError = 8;

  static void updateBandwidth(ThrottleHost& host, const Task& task, const GlobalView& g,
                              const WbView& w, const PositionResult& pos) {
    const int hz = host.hz();
    const std::int64_t now = host.jiffies();
    DeviceState& wb = host.device(task.info.device);
    const std::int64_t elapsed = std::max<std::int64_t>(now - wb.bw.bwTimeStampJiffies, 1);
    updateDomainDirtyLimit(host, g);
    const bool strict = wb.device.config().strictLimit;
    RateInputs rin{.dirtied = wb.dirtied,
                   .elapsedJiffies = elapsed,
                   .posRatio = pos.posRatio,
                   .dirty = strict ? w.wbDirty : g.dirty,
                   .setpoint = !strict         ? g.setpoint
                               : w.wbDirty < 8 ? w.wbDirty + 1
                                               : freerunCeiling(w.wbThresh, w.wbBgThresh),
                   .hz = hz};
    // The trace shows the bandwidth estimate from before this update.
    const std::int64_t prevWriteBw = wb.bw.writeBw, prevAvg = wb.bw.avgWriteBw;
    updateDirtyRatelimit(wb.bw, rin);
    if (host.tracing()) {
      BdiDirtyRatelimit r;
      r.header = host.traceHeader(task);
      r.bdi = host.deviceName(task.info.device);
      r.writeBw = static_cast<std::int64_t>(pagesToKBps(static_cast<double>(prevWriteBw)));
      r.awriteBw = static_cast<std::int64_t>(pagesToKBps(static_cast<double>(prevAvg)));
      r.dirtyRate =
          static_cast<std::int64_t>(pagesToKBps(static_cast<double>(wb.bw.lastDirtyRate)));
      r.dirtyRatelimit =
          static_cast<std::int64_t>(pagesToKBps(static_cast<double>(wb.bw.dirtyRatelimit)));
      r.taskRatelimit =
          static_cast<std::int64_t>(pagesToKBps(static_cast<double>(wb.bw.lastTaskRatelimit)));
      r.balancedDirtyRatelimit =
          static_cast<std::int64_t>(pagesToKBps(static_cast<double>(wb.bw.balancedDirtyRatelimit)));
      host.trace(r);
    }
    updateBandwidthAndRestamp(wb.bw, wb.written, wb.dirtied, now, hz);
  }

  static void emitTrace(ThrottleHost& host, const Task& task, const GlobalView& g, const WbView& w,
                        std::int64_t dirtyRatelimit, std::int64_t taskRatelimit, Pages pagesDirtied,
                        std::int64_t period, std::int64_t pause, const PassDetail& detail) {
    traceAndExplain(host, task, g, w,
                    balanceTrace(host, task, g, w, dirtyRatelimit, taskRatelimit, pagesDirtied,
                                 period, pause, /*withThink=*/true),
                    detail);
  }
};

}  // namespace

std::unique_ptr<ThrottlePolicy> makeIolessPolicy() {
  return std::make_unique<IolessPolicy>();
}

}  // namespace throttlelab::engine
