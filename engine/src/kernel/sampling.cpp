// SPDX-License-Identifier: GPL-3.0-or-later
// Samples (one per interval), per-task rows, statistics and the throttle curve.
#include <algorithm>
#include <cmath>

#include "kernel.h"
#include "kernel_math.h"
#include "position_control.h"

namespace throttlelab::engine {

DeviceSample Kernel::makeDeviceSample(int dev, double intervalS) const {
  const DeviceState& d = device(dev);
  const GlobalView g = globalViewFor(LimitBonus::None);
  const WbView w = wbView(dev, g);
  DeviceSample s;
  s.reclaimablePages = d.reclaimable;
  s.writebackPages = d.writeback;
  s.wbThreshPages = w.wbThresh;
  s.wbBgThreshPages = w.wbBgThresh;
  s.writeBwKBps = pagesToKBps(static_cast<double>(d.bw.writeBw));
  s.avgWriteBwKBps = pagesToKBps(static_cast<double>(d.bw.avgWriteBw));
  s.dirtyRateKBps = pagesToKBps(static_cast<double>(d.bw.lastDirtyRate));
  s.dirtyRatelimitKBps = pagesToKBps(static_cast<double>(d.bw.dirtyRatelimit));
  s.balancedDirtyRatelimitKBps = pagesToKBps(static_cast<double>(d.bw.balancedDirtyRatelimit));
  const PositionResult pos =
      wbPositionRatio(positionInputs(g, w, d.bw.avgWriteBw, d.device.config().strictLimit));
  s.posRatio = static_cast<double>(pos.posRatio) / kPosRatioOne;
  s.wbSetpointPages = pos.wbSetpoint;
  s.taskRatelimitKBps = s.dirtyRatelimitKBps * s.posRatio;
  const DeviceCounters& c = d.device.counters();
  const std::int64_t bytes = c.bytesWritten - d.atSample.bytesWritten;
  const std::int64_t reqs = c.requests - d.atSample.requests;
  if (intervalS > 0) {
    s.deviceWriteKBps = static_cast<double>(bytes) / 1024.0 / intervalS;
    s.seeksPerS = static_cast<double>(c.seeks - d.atSample.seeks) / intervalS;
    s.utilPct = 100.0 * toSeconds(d.device.busyUntil(m_now) - d.busyAtSample) / intervalS;
  }
  s.avgRequestKiB = reqs > 0 ? static_cast<double>(bytes) / 1024.0 / static_cast<double>(reqs) : 0;
  if (intervalS > 0) {
    s.readKBps = static_cast<double>(c.bytesRead - d.atSample.bytesRead) / 1024.0 / intervalS;
    s.swapOutKBps =
        static_cast<double>(c.swapBytesWritten - d.atSample.swapBytesWritten) / 1024.0 / intervalS;
  }
  s.queueDepth = d.device.allocated();
  s.congested = d.device.congested();
  s.dirtyExceeded = d.dirtyExceeded;
  s.bytesWritten = c.bytesWritten;
  s.requests = c.requests;
  s.seeks = c.seeks;
  s.sectorsWritten = c.sectors;
  return s;
}

Sample Kernel::makeSample(CpuTotals* totals) const {
  const GlobalView g = globalViewFor(LimitBonus::None);
  Sample s;
  s.time = m_now;
  s.positionControl = m_policy->hasPositionControl();
  s.dirtyPages = m_mem.nrDirty;
  s.writebackPages = m_mem.nrWriteback;
  reportThresholds(g, m_domain.dirtyLimit, s);
  s.totalPages = m_mem.total;
  s.freePages = m_mem.free;
  s.filePages = m_mem.file;
  s.anonPages = m_mem.anon;
  s.wmarkMinPages = m_mem.wmarkMin;
  s.wmarkLowPages = m_mem.wmarkLow;
  s.wmarkHighPages = m_mem.wmarkHigh;
  s.dirtiedPages = m_mem.dirtied;
  s.writtenPages = m_mem.written;
  // One pass over the tasks for the state counts and the CPU totals (each sum in task order,
  // as totalCpuSystemS() and totalCpuUserS() add them): with 10,000 tasks every pass is a
  // cache miss per task.
  // CPU time is counted as it is used: the done part of pieces still running, and of kernel
  // threads' work, belongs to this interval, not to the one in which the piece ends.
  double systemS = kernelThreadCpuS(), userS = 0;
  for (const auto& t : m_tasks) {
    systemS += t.systemS;
    userS += t.userS;
    if (t.state == TaskState::Running) addRunningShare(t, &systemS, &userS);
    if (t.allocWaiting) s.allocStallMsMax = std::max(s.allocStallMsMax, toMs(m_now - t.allocStart));
    if (t.removed || t.state == TaskState::Exited || t.state == TaskState::NotStarted) continue;
    ++s.tasks;
    switch (t.state) {
      case TaskState::Running:
      case TaskState::Runnable:
        ++s.runnableTasks;
        break;
      case TaskState::Paused:
        ++s.throttledTasks;
        break;
      case TaskState::IoWait:
        ++s.ioWaitTasks;
        break;
      default:
        break;
    }
  }
  s.maxPauseMs =
      m_devices.empty() ? 0 : static_cast<double>(m_devices[0]->lastMaxPause) * 1000.0 / hz();
  const double intervalS = m_stats.intervalS(m_now);
  for (int d = 0; d < static_cast<int>(m_devices.size()); ++d)
    s.devices.push_back(makeDeviceSample(d, intervalS));
  s.swapTotalPages = m_mem.swapTotal;
  s.swapUsedPages = m_mem.swapUsed;
  m_stats.fillInterval(s, m_mem, systemS, userS, m_scenario.machine.cpus, m_now);
  s.kswapdActive = m_pages.kswapdActive();
  s.oomKills = m_mem.oomKills;
  if (!m_memcg.empty()) s.cgroups = m_memcg.samples(*this, globalViewFor(LimitBonus::None));
  if (totals) *totals = CpuTotals{systemS, userS};
  return s;
}

double Kernel::kernelThreadCpuS() const {
  return std::max(0.0, m_mem.systemS - m_cpu.kernelBacklog(m_now));
}

void Kernel::addRunningShare(const Task& t, double* systemS, double* userS) const {
  const double used = m_cpu.usedSoFar(t.info.index, m_now);
  if (!(used > 0)) return;
  const double share = std::min(1.0, used / std::max(t.pieceSystemS + t.pieceUserS, 1e-9));
  *systemS += t.pieceSystemS * share;
  *userS += t.pieceUserS * share;
}

double Kernel::totalCpuSystemS() const {
  double s = kernelThreadCpuS(), user = 0;
  for (const auto& t : m_tasks) {
    s += t.systemS;
    if (t.state == TaskState::Running) addRunningShare(t, &s, &user);
  }
  return s;
}

double Kernel::totalCpuUserS() const {
  double s = 0, system = 0;
  for (const auto& t : m_tasks) {
    s += t.userS;
    if (t.state == TaskState::Running) addRunningShare(t, &system, &s);
  }
  return s;
}

void Kernel::takeSample() {
  CpuTotals totals;
  const Sample s = makeSample(&totals);
  m_stats.countSample(s);
  const double intervalS = m_stats.intervalS(m_now);
  if (m_sink) {
    m_sink->onSample(s);
    if (m_options.taskSamples) {
      for (const auto& t : m_tasks) {
        if (m_options.taskSampleLimit >= 0 && t.info.index >= m_options.taskSampleLimit &&
            std::find(m_options.taskSampleIndices.begin(), m_options.taskSampleIndices.end(),
                      t.info.index) == m_options.taskSampleIndices.end())
          continue;
        if (t.state == TaskState::NotStarted) continue;
        TaskSample ts;
        ts.time = m_now;
        ts.task = t.info.index;
        ts.dirtiedPages = t.dirtiedTotal;
        ts.writeKBps =
            intervalS > 0
                ? pagesToKBps(static_cast<double>(t.dirtiedTotal - t.dirtiedAtSample)) / intervalS
                : 0;
        ts.taskRatelimitKBps = pagesToKBps(t.taskRatelimit);
        ts.pauseMs = t.intervalMaxPauseMs;
        ts.state = t.state;
        ts.journalWaitS = t.journalWaitS;
        ts.readWaitS = t.readWaitS;
        m_sink->onTaskSample(ts);
        if (m_options.explains) {
          if (m_writers.lastExplainTime(t.info.index) > m_explainsSentUntil) {
            const ThrottleExplain e = lastExplain(t.info.index);
            if (e.kind != ThrottleExplain::Kind::None) m_sink->onTaskExplain(e);
          }
        }
      }
      m_explainsSentUntil = m_now;
    }
  }
  m_stats.snapshotTasks(taskTable(), m_now);
  for (auto& d : m_devices) {
    d->atSample = d->device.counters();
    d->busyAtSample = d->device.busyUntil(m_now);
  }
  m_stats.startInterval(m_mem, totals.system, totals.user,
                        m_now);  // nothing since makeSample() changed them
}

std::vector<TaskStats> Kernel::taskStats() const {
  std::vector<TaskStats> out;
  out.reserve(m_tasks.size());
  for (const auto& t : m_tasks) {
    TaskStats s;
    s.info = m_infos[static_cast<std::size_t>(t.info.index)];
    s.info.device = t.info.device;
    s.state = t.state;
    s.dirtiedPages = t.dirtiedTotal;
    s.writeKBps = m_stats.recentWriteKBps(t);
    const double endS = t.exitedS >= 0 ? t.exitedS : toSeconds(m_now);
    if (t.startedS >= 0 && endS > t.startedS)
      s.avgWriteKBps = pagesToKBps(static_cast<double>(t.dirtiedTotal)) / (endS - t.startedS);
    s.taskRatelimitKBps = pagesToKBps(t.taskRatelimit);
    s.pauseMsP50 = t.pauses.quantile(0.5);
    s.pauseMsP99 = t.pauses.quantile(0.99);
    s.pauseMsMax = t.pauses.max();
    s.pauses = t.pauses.count();
    s.pausedS = t.pausedS;
    s.cpuS = t.cpuS + m_cpu.usedSoFar(t.info.index, m_now);
    s.runsCompleted = t.runs;
    s.lastRunS = t.lastRunS;
    s.startedS = std::max(0.0, t.startedS);
    s.exitedS = t.exitedS;
    s.systemS = t.systemS;
    s.userS = t.userS;
    if (t.state == TaskState::Running) addRunningShare(t, &s.systemS, &s.userS);
    // A stall still in progress counts, up to now.
    PauseHistogram stalls;
    const PauseHistogram* latency = &t.allocLatency;
    if (t.allocWaiting && !t.removed) {
      stalls = t.allocLatency;
      stalls.add(toMs(m_now - t.allocStart));
      latency = &stalls;
    }
    s.allocMsP50 = latency->quantile(0.5);
    s.allocMsP99 = latency->quantile(0.99);
    s.allocMsMax = latency->max();
    s.allocStalls = t.allocStalls;
    s.rssPages = t.rss;
    s.swapPages = t.swapped;
    s.oomKilled = t.oomKilled;
    s.journalWaitS = t.journalWaitS;
    s.journalWaits = t.journalWaits;
    s.writeHandleWaitS = t.writeHandleWaitS;
    s.readMsP50 = t.readLatency.quantile(0.5);
    s.readMsMax = t.readLatency.max();
    s.reads = t.readLatency.count();
    out.push_back(std::move(s));
  }
  return out;
}

Summary Kernel::summary() const {
  Summary s;
  s.simulatedS = toSeconds(m_now);
  std::int64_t bytes = 0, reqs = 0, seeks = 0;
  double commitS = 0;
  std::int64_t jbdCommits = 0;
  for (const auto& d : m_devices) {
    const Journal::Stats& j = d->fs.journal().stats();
    s.journalCommits += j.commits;
    s.journalLogKiB += static_cast<double>(j.logPages) * 4.0;
    if (d->fs.jbd()) {
      commitS += j.commitSTotal;
      jbdCommits += j.commits;
    }
    s.fsExtents += d->fs.extentCount();
    bytes += d->device.counters().bytesWritten;
    reqs += d->device.counters().requests;
    seeks += d->device.counters().seeks;
  }
  if (jbdCommits > 0) s.commitSMean = commitS / static_cast<double>(jbdCommits);
  if (s.simulatedS > 0) {
    s.deviceWriteKBps = static_cast<double>(bytes) / 1024.0 / s.simulatedS;
    s.seeksPerS = static_cast<double>(seeks) / s.simulatedS;
  }
  s.avgRequestKiB = reqs > 0 ? static_cast<double>(bytes) / 1024.0 / static_cast<double>(reqs) : 0;
  s.events = m_events;
  if (s.simulatedS > 0) {
    const double span = s.simulatedS * std::max(1, m_scenario.machine.cpus) / 100.0;
    s.systemPct = totalCpuSystemS() / span;
    s.userPct = totalCpuUserS() / span;
  }
  std::int64_t sectors = 0;
  for (const auto& d : m_devices) sectors += d->device.counters().sectors;
  s.avgrqSzSectors = reqs > 0 ? static_cast<double>(sectors) / static_cast<double>(reqs) : 0;
  m_stats.fillSummary(s, {m_tasks.data(), m_tasks.size()}, m_now);
  s.allocStalls = m_mem.allocStalls;
  s.oomKills = m_mem.oomKills;
  s.swapOutKiB = pagesToKBps(static_cast<double>(m_mem.swapOutPages));
  s.swapInKiB = pagesToKBps(static_cast<double>(m_mem.swapInPages));
  s.tasks = taskStats();
  return s;
}

ThrottleCurve Kernel::throttleCurve(int dev, int points) const {
  ThrottleCurve c;
  if (dev < 0 || dev >= static_cast<int>(m_devices.size())) return c;
  c.throttling = m_policy->hasPositionControl();
  const DeviceState& d = device(dev);
  const GlobalView g = globalViewFor(LimitBonus::None);
  const WbView w = wbView(dev, g);
  c.freerun = static_cast<double>(g.freerun);
  c.setpoint = static_cast<double>(g.setpoint);
  c.limit = static_cast<double>(g.limit);
  c.bgThresh = static_cast<double>(g.bgThresh);
  c.thresh = static_cast<double>(g.thresh);
  c.throttling = m_policy->hasPositionControl();
  c.operatingDirty = static_cast<double>(g.dirty);
  PositionInputs in = positionInputs(g, w, d.bw.avgWriteBw, d.device.config().strictLimit);
  c.operatingRatio = static_cast<double>(wbPositionRatio(in).posRatio) / kPosRatioOne;
  // The device's share of dirty pages is taken to scale with the global count.
  const double share =
      g.dirty > 0 ? static_cast<double>(w.wbDirty) / static_cast<double>(g.dirty) : 1.0;
  const double span = static_cast<double>(g.limit - g.freerun);
  const double x0 = std::max(0.0, static_cast<double>(g.freerun) - 0.5 * span);
  const double x1 = static_cast<double>(g.limit) + 0.15 * span;
  points = std::max(points, 2);
  for (int i = 0; i < points; ++i) {
    const double x = x0 + (x1 - x0) * i / (points - 1);
    const auto dirty = static_cast<Pages>(x);
    c.dirtyPages.push_back(x);
    double global = 0;
    if (dirty < g.limit)
      global = static_cast<double>(globalPosRatio(g.setpoint, dirty, g.limit)) / kPosRatioOne;
    c.globalRatio.push_back(global);
    in.dirty = dirty;
    in.wbDirty = static_cast<Pages>(x * share);
    c.deviceRatio.push_back(static_cast<double>(wbPositionRatio(in).posRatio) / kPosRatioOne);
  }
  return c;
}

}  // namespace throttlelab::engine
