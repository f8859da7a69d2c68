// SPDX-License-Identifier: GPL-3.0-or-later
#include "task_trace_history.h"

#include <algorithm>
#include <cmath>

namespace throttlelab::ui {

TaskTraceHistory::TaskTraceHistory(std::size_t capPerTask)
    : m_cap(std::max<std::size_t>(capPerTask, 8)) {}

bool TaskTraceHistory::append(const engine::TaskSample& s) {
  auto [it, inserted] = m_points.try_emplace(s.task);
  Points& pts = it->second;
  if (inserted) pts.set_capacity(m_cap);
  bool decimated = false;
  if (pts.full()) {
    // Fold pairs of the older half into their earlier point, keeping the longer pause.
    const std::size_t half = pts.size() / 2;
    std::vector<TaskPoint> kept;
    for (std::size_t i = 0; i + 1 < half; i += 2) {
      TaskPoint p = pts[i];
      p.pauseMs = std::max(p.pauseMs, pts[i + 1].pauseMs);
      kept.push_back(p);
    }
    for (std::size_t i = half - (half % 2); i < pts.size(); ++i) kept.push_back(pts[i]);
    pts.clear();
    for (const auto& p : kept) pts.push_back(p);
    decimated = true;
  }
  pts.push_back(s);
  return decimated;
}

void TaskTraceHistory::trimBefore(double timeS) {
  for (auto& [task, pts] : m_points)
    while (!pts.empty() && engine::toSeconds(pts.front().time) < timeS) pts.pop_front();
}

void TaskTraceHistory::clear() {
  m_points.clear();
}

const TaskTraceHistory::Points* TaskTraceHistory::points(int task) const {
  auto it = m_points.find(task);
  return it == m_points.end() ? nullptr : &it->second;
}

std::vector<int> TaskTraceHistory::tasks() const {
  std::vector<int> out;
  out.reserve(m_points.size());
  for (const auto& [task, pts] : m_points) out.push_back(task);
  return out;
}

const TaskPoint* TaskTraceHistory::pointNear(int task, double t, double toleranceS) const {
  const Points* pts = points(task);
  if (!pts || pts->empty()) return nullptr;
  // Index-based binary search: first point at or after t.
  std::size_t lo = 0, hi = pts->size();
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (engine::toSeconds((*pts)[mid].time) < t)
      lo = mid + 1;
    else
      hi = mid;
  }
  const TaskPoint* best = nullptr;
  if (lo < pts->size()) best = &(*pts)[lo];
  if (lo > 0) {
    const TaskPoint* prev = &(*pts)[lo - 1];
    if (!best || t - engine::toSeconds(prev->time) < engine::toSeconds(best->time) - t) best = prev;
  }
  if (best && std::abs(engine::toSeconds(best->time) - t) > toleranceS) return nullptr;
  return best;
}

}  // namespace throttlelab::ui
