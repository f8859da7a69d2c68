// SPDX-License-Identifier: GPL-3.0-or-later
#include "ioless_common.h"

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

namespace {
// The traced record of pass `p` (the kernel's TP_printk fields; docs/model.md, Tracepoints).
BalanceDirtyPages passRecord(const ThrottleHost& host, const Task& task, const IolessPass& p) {
  BalanceDirtyPages r;
  r.header = host.traceHeader(task);
  r.bdi = host.deviceName(task.info.device);
  r.cgroupIno = host.traceCgroupIno(task);
  // The traced limit and setpoint use the stored global dirty_limit (docs/model.md, Tracepoints),
  // not Eq. 9/11.
  r.limit = p.limit;
  r.setpoint = (r.limit + p.freerun) / 2;
  r.dirty = p.dirty;
  r.wbSetpoint = r.setpoint * p.wbThresh / (p.thresh + 1);
  r.wbDirty = p.wbDirty;
  r.dirtyRatelimit = p.dirtyRatelimitKBps;
  r.taskRatelimit = p.taskRatelimitKBps;
  r.dirtied = static_cast<std::uint32_t>(p.pagesDirtied);
  r.dirtiedPause = static_cast<std::uint32_t>(p.dirtiedPause);
  r.paused = p.pausedMs;
  r.pause = p.pauseMs;
  r.period = p.periodMs;
  r.think = p.thinkMs;
  r.domain = p.cgroupDomain ? ThrottleDomain::Cgroup : ThrottleDomain::Global;
  return r;
}
}  // namespace

void recordPass(ThrottleHost& host, const Task& task, const GlobalView& g, const WbView& w,
                std::int64_t dirtyRatelimit, std::int64_t taskRatelimit, Pages pagesDirtied,
                std::int64_t period, std::int64_t pause, bool withThink, const PassDetail& d) {
  const int hz = host.hz();
  const std::int64_t now = host.jiffies();
  const auto ms = [hz](std::int64_t jiffies) { return jiffies * 1000 / hz; };
  IolessPass& p = host.iolessPassOf(task);
  p.set = true;
  p.time = host.now();
  p.realTime = isRealTime(task);
  p.strictLimit = host.device(task.info.device).device.config().strictLimit;
  p.cgroupDomain = d.domain == ThrottleDomain::Cgroup;
  p.dirty = g.dirty;
  p.thresh = g.thresh;
  p.bgThresh = g.bgThresh;
  p.normalThresh = p.realTime ? host.globalView(nullptr, false).thresh : g.thresh;
  p.freerun = g.freerun;
  p.hardLimit = g.limit;
  p.setpoint = g.setpoint;
  p.limit = host.domain().dirtyLimit;
  p.wbDirty = w.wbDirty;
  p.wbThresh = w.wbThresh;
  p.posRatio = d.posRatio;
  p.bandwidthUpdated = d.bandwidthUpdated;
  p.dirtyRatelimitKBps =
      static_cast<std::int64_t>(pagesToKBps(static_cast<double>(dirtyRatelimit)));
  p.taskRatelimitKBps = static_cast<std::int64_t>(pagesToKBps(static_cast<double>(taskRatelimit)));
  p.pagesDirtied = pagesDirtied;
  p.dirtiedPause = task.nrDirtiedPause;
  p.nextDirtiedPause = task.nrDirtiedPause;  // the kernel updates it once the pass is done
  p.pausedMs = ms(now - task.balanceStart);
  p.pauseMs = ms(pause);
  p.periodMs = withThink ? ms(period) : 0;
  p.thinkMs = withThink && task.dirtyPausedWhen != 0 ? ms(now - task.dirtyPausedWhen) : 0;
  p.minPauseMs = static_cast<std::int32_t>(ms(d.minPause));
  p.maxPauseMs = static_cast<std::int32_t>(ms(d.maxPause));
  p.clamp = d.clamp;
  if (host.tracing()) host.trace(passRecord(host, task, p));
}

ThrottleExplain explainFromPass(const IolessPass& p) {
  ThrottleExplain e;
  e.kind = ThrottleExplain::Kind::IoLess;
  e.time = p.time;
  e.realTime = p.realTime;
  e.strictLimit = p.strictLimit;
  e.cgroupDomain = p.cgroupDomain;
  e.dirty = p.dirty;
  e.thresh = p.thresh;
  e.bgThresh = p.bgThresh;
  e.normalThresh = p.normalThresh;
  e.freerun = p.freerun;
  e.hardLimit = p.hardLimit;
  e.limit = p.limit;
  // As traced: of the stored dirty_limit.
  e.setpoint = (p.limit + p.freerun) / 2;
  e.wbDirty = p.wbDirty;
  e.wbThresh = p.wbThresh;
  e.wbSetpoint = e.setpoint * p.wbThresh / (p.thresh + 1);
  const std::int64_t global = globalPosRatio(p.setpoint, p.dirty, p.hardLimit);
  e.posRatioGlobal = static_cast<double>(global) / kPosRatioOne;
  e.posRatio = static_cast<double>(p.posRatio) / kPosRatioOne;
  e.posRatioWb = global > 0 ? static_cast<double>(p.posRatio) / static_cast<double>(global) : 0;
  e.bandwidthUpdated = p.bandwidthUpdated;
  e.dirtyRatelimitKBps = p.dirtyRatelimitKBps;
  e.taskRatelimitKBps = p.taskRatelimitKBps;
  e.pagesDirtied = p.pagesDirtied;
  e.dirtiedPause = p.dirtiedPause;
  e.nextDirtiedPause = p.nextDirtiedPause;
  e.periodMs = p.periodMs;
  e.thinkMs = p.thinkMs;
  e.pauseMs = p.pauseMs;
  e.pausedMs = p.pausedMs;
  e.minPauseMs = p.minPauseMs;
  e.maxPauseMs = p.maxPauseMs;
  e.clamp = p.clamp;
  e.finished = true;
  return e;
}

}  // namespace throttlelab::engine
