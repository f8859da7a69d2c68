// SPDX-License-Identifier: GPL-3.0-or-later
#include "sample_history.h"

#include <algorithm>
#include <vector>

#include "sample_decimator.h"

namespace throttlelab::ui {

SampleHistory::SampleHistory(std::size_t cap) : m_cap(std::max<std::size_t>(cap, 8)) {
  m_samples.set_capacity(m_cap);
}

void SampleHistory::setWindow(HistoryWindow window) {
  m_window = window;
  trim();
}

bool SampleHistory::append(engine::Sample&& s) {
  bool decimated = false;
  if (m_samples.full()) {
    decimateOlderHalf();
    decimated = true;
  }
  m_samples.push_back(std::move(s));
  trim();
  return decimated;
}

void SampleHistory::clear() {
  m_samples.clear();
  m_decimations = 0;
}

void SampleHistory::trim() {
  if (m_samples.empty()) return;
  const double keep = historySeconds(m_window);
  const double newest = lastTimeS();
  while (m_samples.size() > 1 && newest - firstTimeS() > keep) m_samples.pop_front();
}

void SampleHistory::decimateOlderHalf() {
  // Fold pairs in the older half into their earlier sample (so the oldest time stays put),
  // keeping the pair's longest pause and largest top pauses, which a plain drop would lose.
  const std::size_t half = m_samples.size() / 2;
  std::vector<engine::Sample> kept;
  kept.reserve(m_samples.size() - half / 2);
  for (std::size_t i = 0; i + 1 < half; i += 2) {
    engine::Sample merged = std::move(m_samples[i]);
    const engine::Sample& b = m_samples[i + 1];
    merged.pauseMsMax = std::max(merged.pauseMsMax, b.pauseMsMax);
    merged.pauseMsMin = std::min(merged.pauseMsMin, b.pauseMsMin);
    merged.maxPauseMs = std::max(merged.maxPauseMs, b.maxPauseMs);
    merged.pauses += b.pauses;
    engine::Sample peak = merged;
    SampleDecimator::foldExtreme(peak, b, true);
    merged.topPauses = peak.topPauses;
    kept.push_back(std::move(merged));
  }
  const std::size_t restStart = half - (half % 2);
  for (std::size_t i = restStart; i < m_samples.size(); ++i)
    kept.push_back(std::move(m_samples[i]));
  m_samples.clear();
  for (auto& s : kept) m_samples.push_back(std::move(s));
  ++m_decimations;
}

double SampleHistory::firstTimeS() const {
  return m_samples.empty() ? 0 : engine::toSeconds(m_samples.front().time);
}

double SampleHistory::lastTimeS() const {
  return m_samples.empty() ? 0 : engine::toSeconds(m_samples.back().time);
}

std::size_t SampleHistory::lowerBound(double t) const {
  // Index-based binary search (boost's iterators trip GCC's null-dereference analysis).
  std::size_t lo = 0, hi = m_samples.size();
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (engine::toSeconds(m_samples[mid].time) < t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

std::optional<std::size_t> SampleHistory::indexNear(double t) const {
  if (m_samples.empty()) return std::nullopt;
  const std::size_t i = lowerBound(t);
  if (i == 0) return 0;
  if (i >= m_samples.size()) return m_samples.size() - 1;
  const double before = t - engine::toSeconds(m_samples[i - 1].time);
  const double after = engine::toSeconds(m_samples[i].time) - t;
  return before <= after ? i - 1 : i;
}

}  // namespace throttlelab::ui
