// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Plot 6: why the disk writes less than it could. Seeks per second and the requests queued
/// (left axis) against the average size of a completed request (right axis): a disk that
/// seeks between many small requests writes a fraction of its sequential bandwidth (what
/// iostat's w/s, wareq-sz and aqu-sz show).
#include "time_plot.h"

namespace throttlelab::ui {

class DevicePlot final : public TimePlot {
  Q_OBJECT

 public:
  explicit DevicePlot(QWidget* parentWidget);

 protected:
  void updateAxisTitles() override;
};

}  // namespace throttlelab::ui
