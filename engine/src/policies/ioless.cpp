// SPDX-License-Identifier: GPL-3.0-or-later
// ioless: the IO-less balance_dirty_pages() of 3.2+ in its 6.x order of operations
// (docs/model.md, ioless: the 6.x order). The dirtier never submits IO; it only sleeps, for a time
// computed from a base rate (rate control) times a position ratio (position control).
#include <algorithm>

#include "dirty_limits.h"
#include "ioless_common.h"
#include "kernel_math.h"
#include "pause_control.h"
#include "policy.h"
#include "position_control.h"
#include "rate_control.h"
#include "throttle_host.h"

namespace throttlelab::engine {

namespace {

constexpr PolicyText kIolessText{
    .name = "ioless",
    .description =
        "IO-less balance_dirty_pages() as today's kernels run it (3.2+, 6.x order): "
        "writers only sleep",
    .kernels = "Linux 3.3 to today's 6.x",
    .details =
        "Writers never write back pages themselves; they only sleep. balance_dirty_pages() "
        "takes pos_ratio from how far dirty pages are from the setpoint (globally and on "
        "the task's device), multiplies it by dirty_ratelimit, the device's write "
        "bandwidth shared among the writers, and sleeps the task for pages dirtied / "
        "task_ratelimit, bounded by min_pause and max_pause (200 ms). Time a task spent "
        "thinking since its last pause is subtracted from the next one. The flusher alone "
        "writes, in chunks of about half a second of bandwidth."};

class IolessPolicy final : public IolessPolicyBase<IolessPolicy> {
 public:
  IolessPolicy() : IolessPolicyBase(kIolessText) {}

  BalanceOutcome balance(ThrottleHost& host, Task& task, Pages pagesDirtied) override {
    const int hz = host.hz();
    const int dev = task.info.device;
    DeviceState& wb = host.device(dev);
    std::int64_t now = host.jiffies();
    if (task.balancePages == 0) task.balanceStart = now;

    const GlobalView g = host.globalView(&task, /*emitTrace=*/true);
    // 4.2+: a task in a memory cgroup with cgroup writeback is throttled against its cgroup's
    // wb_domain too (the mdtc), through the cgroup's own wb on this device.
    const int cg = host.memcgDomainOf(task);
    MemcgView m;
    CgroupWb* cw = nullptr;
    if (cg >= 0) {
      m = host.memcgView(cg, g, &task);
      cw = &host.cgroupState(cg).wbs[static_cast<std::size_t>(dev)];
    }
    WbBandwidth& bw = cw ? cw->bw : wb.bw;
    bool& dirtyExceeded = cw ? cw->dirtyExceeded : wb.dirtyExceeded;

    // 6.0+: background writeback is kicked from inside the loop.
    if (g.nrReclaimable > g.bgThresh && !host.writebackInProgress(dev))
      host.startBackgroundWriteback(dev);

    WbView w = host.wbView(dev, g);
    if (cg >= 0)
      w.wbDirty = cw->reclaimable + cw->writeback;
    else
      w.wbDirty -= host.cgroupWbDirty(dev);  // the root wb holds only the root's pages
    const bool strict = wb.device.config().strictLimit;
    bool freerun =
        strict ? w.wbDirty <= freerunCeiling(w.wbThresh, w.wbBgThresh) : g.dirty <= g.freerun;
    WbView mw;
    if (cg >= 0) {
      mw = host.memcgWbView(cg, dev, m);
      freerun = freerun && (strict ? mw.wbDirty <= freerunCeiling(mw.wbThresh, mw.wbBgThresh)
                                   : m.dirty <= m.freerun);
    }
    if (freerun) {
      runFree(task, now, strict, g, w, cg, m, mw);
      return {};
    }
    if (!host.writebackInProgress(dev)) host.startBackgroundWriteback(dev);

    // 6.0+: dirty_exceeded is set or cleared on every throttled pass.
    dirtyExceeded = w.wbDirty > w.wbThresh && g.dirty > g.thresh;

    const PositionResult pos = wbPositionRatio(positionInputs(g, w, bw.avgWriteBw, strict));
    // The stricter domain sets the pause (the kernel's sdtc): the smaller pos_ratio wins.
    PositionResult mpos;
    bool memcgSets = false;
    if (cg >= 0) {
      mpos = wbPositionRatio(positionInputs(m, mw, bw.avgWriteBw, strict));
      dirtyExceeded = dirtyExceeded || (mw.wbDirty > mw.wbThresh && m.dirty > m.thresh);
      memcgSets = mpos.posRatio < pos.posRatio;
      recordMemcgPosRatio(host.cgroupState(cg), *cw, pos, mpos, memcgSets);
    } else {
      wb.lastPosRatio = static_cast<double>(pos.posRatio) / kPosRatioOne;
    }
    const std::int64_t posRatio = memcgSets ? mpos.posRatio : pos.posRatio;

    // 4.2+: the 200 ms update runs with this pass's pos_ratio: Eq. 8, Eq. 22–25, then Eq. 20–21.
    const bool updated = now > bw.bwTimeStampJiffies + std::max(hz / 5, 1);
    if (updated) updateBandwidth(host, task, g, w, pos, cg, m, mw, mpos);

    // The record describes the domain that set the pause, as the kernel traces its sdtc.
    const GlobalView sg = memcgSets ? withMemcgLimits(g, m) : g;
    const WbView sw = memcgSets ? mw : w;
    const ThrottleDomain domain = memcgSets ? ThrottleDomain::Cgroup : ThrottleDomain::Global;

    const std::int64_t dirtyRatelimit = bw.dirtyRatelimit;
    const std::int64_t taskRatelimit = (dirtyRatelimit * posRatio) >> kRatelimitCalcShift;
    task.taskRatelimit = static_cast<double>(taskRatelimit);
    const std::int64_t maxPause = wbMaxPause(bw.avgWriteBw, sw.wbDirty, hz);
    wb.lastMaxPause = maxPause;
    const MinPause mp = wbMinPause(bw.avgWriteBw, dirtyRatelimit, taskRatelimit, maxPause, hz);

    std::int64_t period = 0;
    std::int64_t pause = 0;
    PassDetail detail{.posRatio = posRatio,
                      .minPause = mp.minPause,
                      .maxPause = maxPause,
                      .bandwidthUpdated = updated,
                      .domain = domain};
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
        emitTrace(host, task, sg, sw, dirtyRatelimit, taskRatelimit, pagesDirtied, period,
                  std::min<std::int64_t>(pause, 0), detail);
        skipShortPause(task, now, period, pause, pagesDirtied, hz);
        return {};
      }
      if (pause > maxPause) {
        // An occasional dip of task_ratelimit: move the virtual clock instead of sleeping long.
        now += std::min(pause - maxPause, maxPause);
        pause = maxPause;
        detail.clamp = PauseClamp::MaxPause;
      }
    }

    emitTrace(host, task, sg, sw, dirtyRatelimit, taskRatelimit, pagesDirtied, period, pause,
              detail);
    task.dirtyPausedWhen = now + pause;
    task.nrDirtied = 0;
    task.nrDirtiedPause = mp.nrDirtiedPause;
    return sleepOutcome(task, pause, hz, taskRatelimit, sw, pagesDirtied);
  }

 private:
  /// wb_stat_error(): the per-CPU counter slack below which a device counts as clean.
  static constexpr Pages kWbStatError = 8;

  /// Below the freerun ceiling (of every domain the task is in): no pause; the next call comes
  /// after dirty_poll_interval pages, the shorter of the domains' intervals.
  static void runFree(Task& task, std::int64_t now, bool strict, const GlobalView& g,
                      const WbView& w, int cg, const MemcgView& m, const WbView& mw) {
    task.dirtyPausedWhen = now;
    task.nrDirtied = 0;
    task.nrDirtiedPause =
        strict ? dirtyPollInterval(w.wbDirty, w.wbThresh) : dirtyPollInterval(g.dirty, g.thresh);
    if (cg >= 0)
      task.nrDirtiedPause =
          std::min(task.nrDirtiedPause, strict ? dirtyPollInterval(mw.wbDirty, mw.wbThresh)
                                               : dirtyPollInterval(m.dirty, m.thresh));
    task.balancePages = 0;
    task.taskRatelimit = 0;
  }

  /// What the cgroup's panels show: its own pos_ratio, whether it set the pause, and the
  /// smaller of the two domains' ratios on its wb.
  static void recordMemcgPosRatio(CgroupState& cs, CgroupWb& cw, const PositionResult& pos,
                                  const PositionResult& mpos, bool memcgSets) {
    cs.lastPosRatio = static_cast<double>(mpos.posRatio) / kPosRatioOne;
    cs.lastSetPause = memcgSets;
    cw.lastPosRatio = static_cast<double>(std::min(pos.posRatio, mpos.posRatio)) / kPosRatioOne;
  }

  /// The global view with the memcg domain's limits and dirty count, for the trace record
  /// when the memcg domain set the pause.
  static GlobalView withMemcgLimits(const GlobalView& g, const MemcgView& m) {
    GlobalView sg = g;
    sg.thresh = m.thresh;
    sg.bgThresh = m.bgThresh;
    sg.freerun = m.freerun;
    sg.dirty = m.dirty;
    return sg;
  }

  /// A pause below min_pause is not taken: the time is banked (or forgotten after a long
  /// think) and the task dirties on.
  static void skipShortPause(Task& task, std::int64_t now, std::int64_t period, std::int64_t pause,
                             Pages pagesDirtied, int hz) {
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
  }

  static BalanceOutcome sleepOutcome(Task& task, std::int64_t pause, int hz,
                                     std::int64_t taskRatelimit, const WbView& sw,
                                     Pages pagesDirtied) {
    BalanceOutcome out;
    out.action = BalanceOutcome::Action::Sleep;
    out.sleep = SimDuration{pause * 1'000'000'000LL / hz};
    // Over the hard limit (task_ratelimit = 0) the loop sleeps again, unless the device has
    // almost nothing dirty (its pages may be stuck elsewhere).
    out.recheck = taskRatelimit == 0 && sw.wbDirty > kWbStatError;
    task.balancePages = out.recheck ? pagesDirtied : 0;
    return out;
  }

  static void updateBandwidth(ThrottleHost& host, const Task& task, const GlobalView& g,
                              const WbView& w, const PositionResult& pos, int cg,
                              const MemcgView& m, const WbView& mw, const PositionResult& mpos) {
    const int hz = host.hz();
    const std::int64_t now = host.jiffies();
    const int dev = task.info.device;
    DeviceState& wb = host.device(dev);
    CgroupWb* cw = cg >= 0 ? &host.cgroupState(cg).wbs[static_cast<std::size_t>(dev)] : nullptr;
    WbBandwidth& bw = cw ? cw->bw : wb.bw;
    const Pages dirtied = cw ? cw->dirtied : wb.dirtied;
    const Pages written = cw ? cw->written : wb.written;
    const std::int64_t elapsed = std::max<std::int64_t>(now - bw.bwTimeStampJiffies, 1);
    updateDomainDirtyLimit(host, g);
    const bool strict = wb.device.config().strictLimit;
    RateInputs rin{.dirtied = dirtied,
                   .elapsedJiffies = elapsed,
                   .posRatio = pos.posRatio,
                   .dirty = strict ? w.wbDirty : g.dirty,
                   .setpoint = !strict         ? g.setpoint
                               : w.wbDirty < 8 ? w.wbDirty + 1
                                               : freerunCeiling(w.wbThresh, w.wbBgThresh),
                   .hz = hz};
    // The trace shows the bandwidth estimate from before this update.
    const std::int64_t prevWriteBw = bw.writeBw, prevAvg = bw.avgWriteBw;
    updateDirtyRatelimit(bw, rin);
    if (cg >= 0) {
      // __wb_update_bandwidth() 4.2+: the memcg domain's dirty_limit follows, and the same wb's
      // rate is updated again against the memcg domain's setpoint.
      updateMemcgDirtyLimit(host, cg, m);
      RateInputs mrin = rin;
      mrin.posRatio = mpos.posRatio;
      mrin.dirty = strict ? mw.wbDirty : m.dirty;
      mrin.setpoint = !strict          ? m.setpoint
                      : mw.wbDirty < 8 ? mw.wbDirty + 1
                                       : freerunCeiling(mw.wbThresh, mw.wbBgThresh);
      updateDirtyRatelimit(bw, mrin);
    }
    if (host.tracing()) {
      BdiDirtyRatelimit r;
      r.header = host.traceHeader(task);
      r.bdi = host.deviceName(task.info.device);
      r.writeBw = static_cast<std::int64_t>(pagesToKBps(static_cast<double>(prevWriteBw)));
      r.awriteBw = static_cast<std::int64_t>(pagesToKBps(static_cast<double>(prevAvg)));
      r.dirtyRate = static_cast<std::int64_t>(pagesToKBps(static_cast<double>(bw.lastDirtyRate)));
      r.dirtyRatelimit =
          static_cast<std::int64_t>(pagesToKBps(static_cast<double>(bw.dirtyRatelimit)));
      r.taskRatelimit =
          static_cast<std::int64_t>(pagesToKBps(static_cast<double>(bw.lastTaskRatelimit)));
      r.balancedDirtyRatelimit =
          static_cast<std::int64_t>(pagesToKBps(static_cast<double>(bw.balancedDirtyRatelimit)));
      r.cgroupIno = host.traceCgroupIno(task);
      host.trace(r);
    }
    updateBandwidthAndRestamp(bw, written, dirtied, now, hz);
  }

  static void emitTrace(ThrottleHost& host, const Task& task, const GlobalView& g, const WbView& w,
                        std::int64_t dirtyRatelimit, std::int64_t taskRatelimit, Pages pagesDirtied,
                        std::int64_t period, std::int64_t pause, const PassDetail& detail) {
    recordPass(host, task, g, w, dirtyRatelimit, taskRatelimit, pagesDirtied, period, pause,
               /*withThink=*/true, detail);
  }
};

}  // namespace

std::unique_ptr<ThrottlePolicy> makeIolessPolicy() {
  return std::make_unique<IolessPolicy>();
}

}  // namespace throttlelab::engine
