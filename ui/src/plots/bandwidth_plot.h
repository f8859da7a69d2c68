// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Plot 3: what the device writes against the estimates the controller uses (write_bw,
/// avg_write_bw), the rate tasks dirty at, and N × dirty_ratelimit (which should approach
/// write_bw once the rate control has converged).
#include "time_plot.h"

namespace throttlelab::ui {

class BandwidthPlot final : public TimePlot {
  Q_OBJECT

 public:
  explicit BandwidthPlot(QWidget* parentWidget);
  /// Fits the axis to everything in view, but cuts the start-up (write_bw's first guess;
  /// dirty_rate at memory speed, GB/s, while writers run free) at 3 × the disk's bandwidth of
  /// the last kRecentS seconds in view, and never below the device's own writes in view.
  void autoscaleValues() override;
  static constexpr double kRecentS = 30;

 protected:
  void updateAxisTitles() override;

 private:
  int m_device = -1, m_writeBw = -1, m_avgWriteBw = -1;
};

}  // namespace throttlelab::ui
