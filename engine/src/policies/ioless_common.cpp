// SPDX-License-Identifier: GPL-3.0-or-later
#include "policies/ioless_common.h"

#include <algorithm>

#include "dirty_limits.h"
#include "kernel_math.h"
#include "position_control.h"

namespace throttlelab::engine {

Pages iolessRatelimit(const ThrottleHost& host, const Task& task) {
  Pages r = task.nrDirtiedPause;
  // The task's wb: its memory cgroup's on this device under cgroup writeback, else the root's.
  const int cg = host.memcgDomainOf(task);
  const bool exceeded =
      cg >= 0 ? host.cgroupState(cg).wbs[static_cast<std::size_t>(task.info.device)].dirtyExceeded
              : host.device(task.info.device).dirtyExceeded;
  if (exceeded) r = std::min<Pages>(r, 8);
  return std::max<Pages>(r, 1);
}

void updateDomainDirtyLimit(ThrottleHost& host, const GlobalView& g) {
  Domain& dom = host.domain();
  const std::int64_t now = host.jiffies();
  if (now - dom.dirtyLimitStamp < std::max(host.hz() / 5, 1)) return;
  dom.dirtyLimit = followDirtyLimit(dom.dirtyLimit, g.thresh, g.dirty);
  dom.dirtyLimitStamp = now;
}

void updateMemcgDirtyLimit(ThrottleHost& host, int cg, const MemcgView& m) {
  CgroupState& c = host.cgroupState(cg);
  const std::int64_t now = host.jiffies();
  if (now - c.dirtyLimitStamp < std::max(host.hz() / 5, 1)) return;
  c.dirtyLimit = followDirtyLimit(c.dirtyLimit, m.thresh, m.dirty);
  c.dirtyLimitStamp = now;
}

BalanceDirtyPages balanceTrace(ThrottleHost& host, const Task& task, const GlobalView& g,
                               const WbView& w, std::int64_t dirtyRatelimit,
                               std::int64_t taskRatelimit, Pages pagesDirtied, std::int64_t period,
                               std::int64_t pause, bool withThink) {
  const int hz = host.hz();
  const std::int64_t now = host.jiffies();
  const auto ms = [hz](std::int64_t jiffies) { return jiffies * 1000 / hz; };
  BalanceDirtyPages r;
  r.header = host.traceHeader(task);
  r.bdi = host.deviceName(task.info.device);
  r.cgroupIno = host.traceCgroupIno(task);
  // The traced limit and setpoint use the stored global dirty_limit (docs/model.md, Tracepoints),
  // not Eq. 9/11.
  r.limit = host.domain().dirtyLimit;
  r.setpoint = (r.limit + g.freerun) / 2;
  r.dirty = g.dirty;
  r.wbSetpoint = r.setpoint * w.wbThresh / (g.thresh + 1);
  r.wbDirty = w.wbDirty;
  r.dirtyRatelimit = static_cast<std::int64_t>(pagesToKBps(static_cast<double>(dirtyRatelimit)));
  r.taskRatelimit = static_cast<std::int64_t>(pagesToKBps(static_cast<double>(taskRatelimit)));
  r.dirtied = static_cast<std::uint32_t>(pagesDirtied);
  r.dirtiedPause = static_cast<std::uint32_t>(task.nrDirtiedPause);
  r.paused = ms(now - task.balanceStart);
  r.pause = ms(pause);
  if (withThink) {
    r.period = ms(period);
    r.think = task.dirtyPausedWhen == 0 ? 0 : ms(now - task.dirtyPausedWhen);
  }
  return r;
}

void traceAndExplain(ThrottleHost& host, const Task& task, const GlobalView& g, const WbView& w,
                     const BalanceDirtyPages& r, const PassDetail& d) {
  if (host.tracing()) host.trace(r);
  ThrottleExplain& e = host.explainOf(task);
  const int hz = host.hz();
  const auto ms = [hz](std::int64_t jiffies) { return jiffies * 1000 / hz; };
  e.kind = ThrottleExplain::Kind::IoLess;
  e.time = host.now();
  e.task = task.info.index;
  e.pid = task.info.pid;
  e.realTime = isRealTime(task);
  e.strictLimit = host.device(task.info.device).device.config().strictLimit;
  e.cgroupDomain = d.domain == ThrottleDomain::Cgroup;
  e.dirty = r.dirty;
  e.thresh = g.thresh;
  e.bgThresh = g.bgThresh;
  e.normalThresh = e.realTime ? host.globalView(nullptr, false).thresh : g.thresh;
  e.freerun = g.freerun;
  e.hardLimit = g.limit;
  e.limit = r.limit;
  e.setpoint = r.setpoint;
  e.wbDirty = r.wbDirty;
  e.wbThresh = w.wbThresh;
  e.wbSetpoint = r.wbSetpoint;
  const std::int64_t global = globalPosRatio(g.setpoint, g.dirty, g.limit);
  e.posRatioGlobal = static_cast<double>(global) / kPosRatioOne;
  e.posRatio = static_cast<double>(d.posRatio) / kPosRatioOne;
  e.posRatioWb = global > 0 ? static_cast<double>(d.posRatio) / static_cast<double>(global) : 0;
  e.bandwidthUpdated = d.bandwidthUpdated;
  e.dirtyRatelimitKBps = r.dirtyRatelimit;
  e.taskRatelimitKBps = r.taskRatelimit;
  e.pagesDirtied = r.dirtied;
  e.dirtiedPause = r.dirtiedPause;
  e.nextDirtiedPause = task.nrDirtiedPause;  // the kernel updates it once the pass is done
  e.periodMs = r.period;
  e.thinkMs = r.think;
  e.pauseMs = r.pause;
  e.pausedMs = r.paused;
  e.minPauseMs = ms(d.minPause);
  e.maxPauseMs = ms(d.maxPause);
  e.clamp = d.clamp;
  e.stepCount = e.stepsTotal = 0;
  e.finished = true;
}

}  // namespace throttlelab::engine
