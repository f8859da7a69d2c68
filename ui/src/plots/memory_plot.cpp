// SPDX-License-Identifier: GPL-3.0-or-later
#include "memory_plot.h"

#include "qcp.h"

namespace throttlelab::ui {

using engine::Sample;

MemoryPlot::MemoryPlot(QWidget* parentWidget) : TimePlot(PlotId::Memory, parentWidget) {
  auto mem = [](engine::Pages Sample::*field) {
    return [field](const Sample& s, const DisplayUnits& u) {
      return u.memory(static_cast<double>(s.*field));
    };
  };
  addSeries({.name = "free",
             .memoryUnit = true,
             .value = mem(&Sample::freePages),
             .colour = SeriesColour::Green,
             .width = 1.5});
  addSeries({.name = "file cache",
             .memoryUnit = true,
             .value = mem(&Sample::filePages),
             .colour = SeriesColour::Blue,
             .width = 1.5});
  addSeries({.name = "anon",
             .memoryUnit = true,
             .value = mem(&Sample::anonPages),
             .colour = SeriesColour::Purple});
  addSeries({.name = "dirty",
             .memoryUnit = true,
             .value = mem(&Sample::dirtyPages),
             .colour = SeriesColour::Orange});
  addSeries({.name = "writeback",
             .memoryUnit = true,
             .value = mem(&Sample::writebackPages),
             .colour = SeriesColour::SkyBlue});
  addSeries({.name = "wmark_high",
             .memoryUnit = true,
             .value = mem(&Sample::wmarkHighPages),
             .colour = SeriesColour::Vermillion,
             .style = Qt::DashLine});
  addSeries({.name = "wmark_low",
             .memoryUnit = true,
             .value = mem(&Sample::wmarkLowPages),
             .colour = SeriesColour::Vermillion,
             .style = Qt::DashDotLine});
  addSeries({.name = "wmark_min",
             .memoryUnit = true,
             .value = mem(&Sample::wmarkMinPages),
             .colour = SeriesColour::Vermillion,
             .style = Qt::DotLine});
  updateAxisTitles();
}

void MemoryPlot::updateAxisTitles() {
  m_plot->yAxis->setLabel(QStringLiteral("memory (%1)").arg(m_units.memoryUnit()));
}

}  // namespace throttlelab::ui
