// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Plot 2: each writer's pause in balance_dirty_pages() over time, with the max_pause bound.
/// Up to 16 writers get a curve each; with more, a min/median/max band and the longest
/// pauses of each interval keep 10,000 writers readable. A selected task always gets a
/// highlighted curve of its own.
#include <map>

#include "throttlelab/engine/records.h"
#include "time_plot.h"

namespace throttlelab::ui {

class PausePlot final : public TimePlot {
  Q_OBJECT

 public:
  static constexpr int kMaxCurves = 16;

  explicit PausePlot(QWidget* parentWidget);

  void appendSamples(const SampleBuffer& samples) override;
  void appendTaskSamples(const TaskSampleBuffer& samples) override;
  void rebuild(const SampleHistory& history, const TaskTraceHistory& tasks) override;
  void clearData() override;
  void applyTheme(const Theme& theme) override;

  void setTaskInfos(const std::map<int, engine::TaskInfo>& infos);
  /// -1 for none.
  void setSelectedTask(int task);
  int selectedTask() const { return m_selected; }
  bool manyTasks() const { return m_many; }
  /// The graph of one task, if it has one (for tests).
  QCPGraph* taskGraph(int task) const;

 protected:
  void updateAxisTitles() override;
  int taskAtPixel(QPoint pos) const override;
  QStringList extraReadout(double timeS, const engine::Sample& nearest,
                           const TaskTraceHistory* tasks) const override;
  /// The tasks' curves share one legend entry ("10 tasks, pid 1000–1009"); a selected task
  /// keeps its own.
  bool summariseLegend(bool on) override;

 private:
  QCPGraph* ensureTaskGraph(int task);
  QString taskName(int task) const;
  void setManyTasks(bool many);
  void restyleTasks();

  int m_min = -1, m_median = -1, m_max = -1, m_maxPause = -1;
  QCPGraph* m_top = nullptr;
  std::map<int, QCPGraph*> m_taskGraphs;
  std::map<int, engine::TaskInfo> m_infos;
  int m_selected = -1;
  bool m_many = false;
  QCPGraph* m_summary = nullptr;  ///< no data: the legend entry of the tasks' curves merged
  bool m_summarise = false;       ///< asked to merge the tasks' legend entries
  bool m_summarised = false;      ///< merged (two or more entries to merge)
};

}  // namespace throttlelab::ui
