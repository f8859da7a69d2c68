// SPDX-License-Identifier: GPL-3.0-or-later
// The run's statistics: per sample interval and for the whole run.
#include "run_statistics.h"

#include <algorithm>

#include "throttlelab/engine/statistics.h"

namespace throttlelab::engine {

void RunStatistics::pause(int task, double ms) {
  m_allPauses.add(ms);
  m_intervalPauses.push_back(ms);
  addTopPause(m_intervalTop, task, ms);
}

void RunStatistics::allocStallEnded(double ms) {
  m_allAllocLatency.add(ms);
  m_intervalAllocMsMax = std::max(m_intervalAllocMsMax, ms);
}

void RunStatistics::fillInterval(Sample& s, const Memory& mem, double systemS, double userS,
                                 int cpus, SimTime now) const {
  if (!m_intervalPauses.empty()) {
    const IntervalPauses p = intervalPauses(m_intervalPauses);  // reorders them
    s.pauseMsMin = p.minMs;
    s.pauseMsP50 = p.p50Ms;
    s.pauseMsMax = p.maxMs;
    s.pauses = static_cast<int>(m_intervalPauses.size());
  }
  s.topPauses = m_intervalTop;
  const double intervalS = this->intervalS(now);
  if (intervalS > 0) {
    const double cpuSpan = intervalS * std::max(1, cpus) / 100.0;
    // Each total is a fresh sum over tasks and kernel threads (charged minus not yet done):
    // an interval without CPU work may come out an ulp below the last one, never more.
    s.systemPct = std::max(0.0, (systemS - m_cpuSystemAtSample) / cpuSpan);
    s.userPct = std::max(0.0, (userS - m_cpuUserAtSample) / cpuSpan);
    s.pgscanKswapdPerS = static_cast<double>(mem.pgscanKswapd - m_pgscanKswapdAtSample) / intervalS;
    s.pgscanDirectPerS = static_cast<double>(mem.pgscanDirect - m_pgscanDirectAtSample) / intervalS;
    s.pgstealPerS = static_cast<double>(mem.pgsteal - m_pgstealAtSample) / intervalS;
    s.swapOutKBps =
        pagesToKBps(static_cast<double>(mem.swapOutPages - m_swapOutAtSample)) / intervalS;
    s.swapInKBps = pagesToKBps(static_cast<double>(mem.swapInPages - m_swapInAtSample)) / intervalS;
  }
  s.allocStalls = static_cast<int>(mem.allocStalls - m_allocStallsAtSample);
  s.allocStallMsMax = std::max(s.allocStallMsMax, m_intervalAllocMsMax);  // ended or still going
}

void RunStatistics::countSample(const Sample& s) {
  ++m_samples;
  const Pages dirty = s.dirtyPages + s.writebackPages;
  if (dirty > s.freerunPages) ++m_samplesAboveFreerun;
  if (dirty > s.limitPages) ++m_samplesAboveLimit;
  // Keep at most ~100k samples for the median, thinning by two when full.
  if (m_samples % m_dirtySampleStride == 0) m_dirtySamples.push_back(dirty);
  if (m_dirtySamples.size() >= 100'000) {
    for (std::size_t i = 0; i < m_dirtySamples.size() / 2; ++i)
      m_dirtySamples[i] = m_dirtySamples[2 * i];
    m_dirtySamples.resize(m_dirtySamples.size() / 2);
    m_dirtySampleStride *= 2;
  }
}

void RunStatistics::snapshotTasks(std::span<Task> tasks, SimTime now) {
  // One snapshot of every task's dirtied count per sample, kept for about a second: the task
  // table's "rate over the last second". One array for all tasks rather than a deque in each
  // keeps a sample with 10,000 tasks to one sequential write.
  DirtiedSnapshot snap;
  if (!m_spareSnapshots.empty()) {
    snap = std::move(m_spareSnapshots.back());
    m_spareSnapshots.pop_back();
  }
  snap.time = now;
  snap.index = m_snapshotCount++;
  snap.dirtied.resize(tasks.size());
  for (auto& t : tasks) {
    t.dirtiedAtSample = t.dirtiedTotal;
    t.intervalMaxPauseMs = 0;
    if (t.state == TaskState::NotStarted) continue;
    if (t.firstSnapshot < 0) t.firstSnapshot = snap.index;
    snap.dirtied[static_cast<std::size_t>(t.info.index)] = t.dirtiedTotal;
  }
  m_recentDirtied.push_back(std::move(snap));
  // Keep the newest snapshot at least a second old, and the ones after it.
  while (m_recentDirtied.size() > 2 && m_recentDirtied[1].time <= now - std::chrono::seconds(1)) {
    m_spareSnapshots.push_back(std::move(m_recentDirtied.front()));
    m_recentDirtied.pop_front();
  }
}

void RunStatistics::startInterval(const Memory& mem, double systemS, double userS, SimTime now) {
  m_intervalPauses.clear();
  m_intervalTop = {};
  m_intervalAllocMsMax = 0;
  m_allocStallsAtSample = mem.allocStalls;
  m_pgscanKswapdAtSample = mem.pgscanKswapd;
  m_pgscanDirectAtSample = mem.pgscanDirect;
  m_pgstealAtSample = mem.pgsteal;
  m_swapOutAtSample = mem.swapOutPages;
  m_swapInAtSample = mem.swapInPages;
  m_cpuSystemAtSample = systemS;
  m_cpuUserAtSample = userS;
  m_lastSample = now;
}

double RunStatistics::recentWriteKBps(const Task& t) const {
  // From the task's first snapshot, or the oldest one kept if that is later, to the newest.
  if (t.firstSnapshot < 0 || m_recentDirtied.empty()) return 0;
  const std::int64_t oldest = m_recentDirtied.front().index;
  const std::int64_t from = std::max(oldest, t.firstSnapshot);
  const DirtiedSnapshot& last = m_recentDirtied.back();
  if (last.index <= from) return 0;
  const DirtiedSnapshot& first = m_recentDirtied[static_cast<std::size_t>(from - oldest)];
  const auto i = static_cast<std::size_t>(t.info.index);
  const double dt = toSeconds(last.time - first.time);
  return dt > 0 ? pagesToKBps(static_cast<double>(last.dirtied[i] - first.dirtied[i])) / dt : 0;
}

void RunStatistics::fillSummary(Summary& s, std::span<const Task> tasks, SimTime now) const {
  if (m_samples > 0) {
    s.shareAboveFreerun =
        static_cast<double>(m_samplesAboveFreerun) / static_cast<double>(m_samples);
    s.shareAboveLimit = static_cast<double>(m_samplesAboveLimit) / static_cast<double>(m_samples);
  }
  s.pauseMsP50 = m_allPauses.quantile(0.5);
  s.pauseMsP99 = m_allPauses.quantile(0.99);
  s.pauseMsMax = m_allPauses.max();
  if (!m_dirtySamples.empty()) {
    std::vector<Pages> v = m_dirtySamples;
    const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
    std::nth_element(v.begin(), mid, v.end());
    s.dirtyPagesP50 = static_cast<double>(*mid);
  }
  // Stalls still in progress count, up to now.
  PauseHistogram stalls = m_allAllocLatency;
  for (const auto& t : tasks)
    if (t.allocWaiting && !t.removed) stalls.add(toMs(now - t.allocStart));
  s.allocMsP50 = stalls.quantile(0.5);
  s.allocMsP99 = stalls.quantile(0.99);
  s.allocMsMax = stalls.max();
}

}  // namespace throttlelab::engine
