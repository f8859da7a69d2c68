// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Plot 1, Wu Fengguang's key graph: dirty and writeback pages against bg_thresh, freerun,
/// setpoint and limit, with the three ratelimits on a log₂ MB/s axis on the right.
#include "time_plot.h"

namespace throttlelab::ui {

class DirtyPagesPlot final : public TimePlot {
  Q_OBJECT

 public:
  explicit DirtyPagesPlot(QWidget* parentWidget);

 protected:
  void updateAxisTitles() override;
};

}  // namespace throttlelab::ui
