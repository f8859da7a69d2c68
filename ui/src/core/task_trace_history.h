// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Per-task points of the tasks that get a curve (the first 16 and the selection), kept over
/// the same span of simulated time as the SampleHistory.
#include <boost/circular_buffer.hpp>
#include <cstddef>
#include <map>
#include <vector>

#include "throttlelab/engine/records.h"

namespace throttlelab::ui {

/// A task's point is the engine's own sample, kept as it came, so that what the window draws
/// and exports is what headless --task-csv writes. Decimation folds two points into the
/// earlier, keeping the longer pause.
using TaskPoint = engine::TaskSample;

class TaskTraceHistory {
 public:
  using Points = boost::circular_buffer_space_optimized<TaskPoint>;

  explicit TaskTraceHistory(std::size_t capPerTask = 1 << 16);

  /// Returns true if this task's older points were decimated (its curve must be rebuilt).
  bool append(const engine::TaskSample& s);
  void trimBefore(double timeS);
  void clear();

  const Points* points(int task) const;
  std::vector<int> tasks() const;
  /// The point of `task` nearest to time t, if it has any within `toleranceS`.
  const TaskPoint* pointNear(int task, double t, double toleranceS) const;

 private:
  std::size_t m_cap;
  std::map<int, Points> m_points;
};

}  // namespace throttlelab::ui
