// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The samples the window keeps: a ring buffer holding a fixed span of simulated time (60 s,
/// 10 min) or everything. "Everything" stays bounded: when the cap is reached, the older half
/// is decimated by two (pairs folded, keeping the longest pause), so old data grows coarser
/// instead of memory growing without bound.
#include <boost/circular_buffer.hpp>
#include <cstddef>
#include <optional>

#include "history_window.h"
#include "throttlelab/engine/records.h"

namespace throttlelab::ui {

/// Samples in passing: a batch from the worker, a trace's intervals, a poll of this machine.
using SampleBuffer = boost::circular_buffer<engine::Sample>;
using TaskSampleBuffer = boost::circular_buffer<engine::TaskSample>;

class SampleHistory {
 public:
  static constexpr std::size_t kDefaultCap = 1 << 16;

  explicit SampleHistory(std::size_t cap = kDefaultCap);

  void setWindow(HistoryWindow window);
  HistoryWindow window() const { return m_window; }

  /// Appends (times must not decrease) and trims to the window. Returns true if older data
  /// was decimated, so views built on the history must be rebuilt.
  bool append(engine::Sample&& s);
  void clear();

  std::size_t size() const { return m_samples.size(); }
  bool empty() const { return m_samples.empty(); }
  const engine::Sample& operator[](std::size_t i) const { return m_samples[i]; }
  const engine::Sample& back() const { return m_samples.back(); }
  auto begin() const { return m_samples.begin(); }
  auto end() const { return m_samples.end(); }

  double firstTimeS() const;
  double lastTimeS() const;
  /// Index of the sample nearest to time t (seconds), if any.
  std::optional<std::size_t> indexNear(double t) const;
  /// First index with time >= t.
  std::size_t lowerBound(double t) const;
  /// How many times older data has been halved.
  int decimations() const { return m_decimations; }

 private:
  void trim();
  void decimateOlderHalf();

  std::size_t m_cap;
  HistoryWindow m_window = HistoryWindow::Last10min;
  boost::circular_buffer_space_optimized<engine::Sample> m_samples;
  int m_decimations = 0;
};

}  // namespace throttlelab::ui
