// SPDX-License-Identifier: GPL-3.0-or-later
#include "memory_plot.h"

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
  for (const MemoryLevel& l : levels)
    addSeries(memorySeries(l.name, l.field, l.colour, l.style, l.width));
  updateAxisTitles();
}

void MemoryPlot::updateAxisTitles() {
  m_plot->yAxis->setLabel(QStringLiteral("memory (%1)").arg(m_units.memoryUnit()));
}

}  // namespace throttlelab::ui
