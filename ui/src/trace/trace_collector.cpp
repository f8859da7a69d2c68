// SPDX-License-Identifier: GPL-3.0-or-later
#include "trace_collector.h"

#include <algorithm>
#include <cstring>

namespace throttlelab::ui {

namespace {
std::string commText(const engine::Comm& comm) {
  return {comm.data(), strnlen(comm.data(), comm.size())};
}

/// The value below which half of the counted pauses lie (the lower median, as a kernel
/// developer would read it off a histogram).
double medianOf(const std::map<std::int64_t, std::int64_t>& histogram, std::int64_t count) {
  if (count == 0) return 0;
  const std::int64_t half = (count + 1) / 2;
  std::int64_t seen = 0;
  for (const auto& [value, n] : histogram) {
    seen += n;
    if (seen >= half) return static_cast<double>(value);
  }
  return static_cast<double>(histogram.rbegin()->first);
}
}  // namespace

void EventPoints::add(double timeS, double value) {
  if (m_seen++ % m_stride != 0) return;
  if (m_points.size() == kMaxPoints) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < m_points.size(); i += 2) m_points[kept++] = m_points[i];
    m_points.resize(kept);
    m_stride *= 2;
    m_seen = 1;
  }
  m_points.emplace_back(timeS, value);
}

TraceCollector::TraceCollector() {
  m_samples.setWindow(HistoryWindow::Everything);
}

void TraceCollector::onDevice(int index, const std::string& name) {
  const auto i = static_cast<std::size_t>(std::max(index, 0));
  if (m_devices.size() <= i) m_devices.resize(i + 1);
  m_devices[i] = name;
}

void TraceCollector::onSample(const engine::Sample& sample) {
  if (m_streaming) m_pending.push_back(sample);
  m_samples.append(engine::Sample(sample));
}

void TraceCollector::onRecord(const engine::TraceRecord& record) {
  m_stats.add(record);
  const engine::TraceHeader& header =
      std::visit([](const auto& r) -> const engine::TraceHeader& { return r.header; }, record);
  const double traceS = engine::toSeconds(header.time);
  m_pids.try_emplace(header.pid, commText(header.comm));
  if (!m_firstS) m_firstS = traceS;
  const double rel = traceS - *m_firstS;
  if (const auto* g = std::get_if<engine::GlobalDirtyState>(&record)) {
    m_events.dirtyPages.add(rel, static_cast<double>(g->dirty + g->writeback));
    return;
  }
  if (const auto* b = std::get_if<engine::BdiDirtyRatelimit>(&record)) {
    m_events.writeBwKBps.add(rel, static_cast<double>(b->writeBw));
    m_events.dirtyRatelimitKBps.add(rel, static_cast<double>(b->dirtyRatelimit));
    return;
  }
  const auto* bdp = std::get_if<engine::BalanceDirtyPages>(&record);
  if (!bdp) return;
  if (bdp->pause > 0) m_events.pauseMs.add(rel, static_cast<double>(bdp->pause));
  const double t = traceS;
  auto [it, inserted] = m_tallies.try_emplace(bdp->header.pid);
  Tally& tally = it->second;
  if (inserted) {
    tally.comm = commText(bdp->header.comm);
    tally.firstS = t;
  }
  tally.lastS = t;
  tally.dirtied += bdp->dirtied;
  tally.taskRatelimitKBps = static_cast<double>(bdp->taskRatelimit);
  if (bdp->pause > 0) {
    ++tally.pauses;
    ++tally.pauseHistogram[bdp->pause];
  }
}

std::vector<engine::Sample> TraceCollector::takeNewSamples() {
  return std::exchange(m_pending, {});
}

ImportedTrace TraceCollector::result(const traceio::ImportStats& stats) const {
  ImportedTrace out;
  out.stats = stats;
  out.samples.assign(m_samples.begin(), m_samples.end());
  out.devices = m_devices;
  out.measured = m_stats.result();
  out.events = m_events;
  for (const auto& [pid, t] : m_tallies) {
    TraceTaskRow row;
    row.pid = pid;
    row.comm = QString::fromStdString(t.comm);
    row.dirtiedPages = t.dirtied;
    row.activeS = t.lastS - t.firstS;
    row.rateKBps = row.activeS > 0 ? static_cast<double>(t.dirtied) * 4.0 / row.activeS : 0;
    row.pauses = t.pauses;
    row.pauseMsP50 = medianOf(t.pauseHistogram, t.pauses);
    row.pauseMsMax =
        t.pauseHistogram.empty() ? 0 : static_cast<double>(t.pauseHistogram.rbegin()->first);
    row.taskRatelimitKBps = t.taskRatelimitKBps;
    out.tasks.push_back(std::move(row));
  }
  for (const auto& [pid, comm] : m_pids)
    if (!m_tallies.contains(pid)) ++out.otherPids;
  return out;
}

}  // namespace throttlelab::ui
