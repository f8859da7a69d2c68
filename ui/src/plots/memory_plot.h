// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Plot 4: where the memory is (free, page cache, dirty, writeback, anonymous) and the page
/// allocator's watermarks.
#include "time_plot.h"

namespace throttlelab::ui {

class MemoryPlot final : public TimePlot {
  Q_OBJECT

 public:
  explicit MemoryPlot(QWidget* parentWidget);

 protected:
  void updateAxisTitles() override;
};

}  // namespace throttlelab::ui
