// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Plot 1, Wu Fengguang's key graph: dirty and writeback pages against bg_thresh, freerun,
/// setpoint and limit, with the three ratelimits on a log₂ MB/s axis on the right. When the run
/// has a memory cgroup with a dirty domain of its own (4.2+), the first cgroup's dirty pages and
/// its own freerun, setpoint and limit appear beside the global ones.
#include "time_plot.h"

namespace throttlelab::ui {

class DirtyPagesPlot final : public TimePlot {
  Q_OBJECT

 public:
  explicit DirtyPagesPlot(QWidget* parentWidget);

  void appendSamples(const SampleBuffer& samples) override;
  void rebuild(const SampleHistory& history, const TaskTraceHistory& tasks) override;

 protected:
  void updateAxisTitles() override;

 private:
  /// Shows the cgroup series once a sample carries a cgroup domain (hidden until then, so
  /// runs without cgroups keep their legend).
  void showCgroupSeries(bool shown);
  int m_cgroupFirst = 0;  ///< index of the first of the cgroup series
  int m_cgroupCount = 0;
  bool m_cgroupShown = true;
};

}  // namespace throttlelab::ui
