// SPDX-License-Identifier: GPL-3.0-or-later
#include "memory_plot.h"

#include <cmath>

#include "log2_ticker.h"
#include "qcp.h"

namespace throttlelab::ui {

using engine::Sample;

MemoryPlot::MemoryPlot(QWidget* parentWidget) : TimePlot(PlotId::Memory, parentWidget) {
  const MemoryLevel levels[] = {
      {"free", &Sample::freePages, SeriesColour::Green, Qt::SolidLine, 1.5},
      {"file cache", &Sample::filePages, SeriesColour::Blue, Qt::SolidLine, 1.5},
      {"anon", &Sample::anonPages, SeriesColour::Purple},
      {"dirty", &Sample::dirtyPages, SeriesColour::Orange},
      {"writeback", &Sample::writebackPages, SeriesColour::SkyBlue},
      {"wmark_high", &Sample::wmarkHighPages, SeriesColour::Vermillion, Qt::DashLine},
      {"wmark_low", &Sample::wmarkLowPages, SeriesColour::Vermillion, Qt::DashDotLine},
      {"wmark_min", &Sample::wmarkMinPages, SeriesColour::Vermillion, Qt::DotLine},
  };
  // Gigabytes of free memory and page cache against watermarks of a few MiB: on a linear axis
  // the watermarks lie in the bottom pixel. On a log₂ axis each doubling has the same height,
  // so free memory nearing wmark_low (where kswapd wakes) shows at any memory size.
  for (const MemoryLevel& l : levels) {
    SeriesSpec spec = memorySeries(l.name, l.field, l.colour, l.style, l.width);
    spec.value = [value = std::move(spec.value)](const Sample& s, const DisplayUnits& u) {
      const double v = value(s, u);
      return v > 0 ? v : std::nan("");  // a log axis has no 0
    };
    addSeries(std::move(spec));
  }
  makeLog2Axis(m_plot->yAxis);
  updateAxisTitles();
}

void MemoryPlot::updateAxisTitles() {
  m_plot->yAxis->setLabel(QStringLiteral("memory (%1, log₂)").arg(m_units.memoryUnit()));
}

}  // namespace throttlelab::ui
