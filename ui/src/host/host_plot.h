// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Time plots of live host mode, fed by host::VmstatSampler Samples: dirty + writeback against
/// bg_thresh, freerun, setpoint and thresh (nr_dirty_threshold, which a host without tracing
/// knows instead of the traced `limit`), reclaim scanning with allocation stalls, and one
/// watched memory cgroup (Sample::cgroups, first entry): its dirty and writeback pages against
/// its own domain's thresholds (cgroup v2 only), and its page cache against memory.max on the
/// right axis.
#include "time_plot.h"

namespace throttlelab::ui {

class HostPlot final : public TimePlot {
  Q_OBJECT

 public:
  enum class Kind { Dirty, Reclaim, Cgroup };
  /// Sources of the series: /proc polls, and (Dirty only) the recorded global_dirty_state.
  static constexpr int kPolled = 0;
  static constexpr int kTraced = 1;

  HostPlot(Kind kind, QWidget* parentWidget);
  Kind kind() const { return m_kind; }
  /// Shows the recorded series (hidden until a recording starts).
  void setTracedShown(bool shown);
  /// Cgroup only: shows the thresholds of the cgroup's own dirty domain (a v1 cgroup has none,
  /// so their legend entries would name lines that are never drawn).
  void setDomainShown(bool shown);

 protected:
  void updateAxisTitles() override;

 private:
  Kind m_kind;
  int m_domainFirst = -1;  ///< Cgroup: index of the first threshold series
  int m_domainCount = 0;
};

}  // namespace throttlelab::ui
