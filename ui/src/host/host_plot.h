// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Time plots of live host mode, fed by host::VmstatSampler Samples: dirty + writeback against
/// bg_thresh, freerun, setpoint and thresh (nr_dirty_threshold, which a host without tracing
/// knows instead of the traced `limit`), and reclaim scanning with allocation stalls.
#include "time_plot.h"

namespace throttlelab::ui {

class HostPlot final : public TimePlot {
  Q_OBJECT

 public:
  enum class Kind { Dirty, Reclaim };
  /// Sources of the series: /proc polls, and (Dirty only) the recorded global_dirty_state.
  static constexpr int kPolled = 0;
  static constexpr int kTraced = 1;

  HostPlot(Kind kind, QWidget* parentWidget);
  Kind kind() const { return m_kind; }
  /// Shows the recorded series (hidden until a recording starts).
  void setTracedShown(bool shown);

 protected:
  void updateAxisTitles() override;

 private:
  Kind m_kind;
};

}  // namespace throttlelab::ui
