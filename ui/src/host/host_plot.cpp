// SPDX-License-Identifier: GPL-3.0-or-later
#include "host_plot.h"

#include "qcp.h"

namespace throttlelab::ui {

using engine::Sample;

namespace {
std::function<double(const Sample&, const DisplayUnits&)> rate(double Sample::*field) {
  return [field](const Sample& s, const DisplayUnits&) { return s.*field; };
}
}  // namespace

HostPlot::HostPlot(Kind kind, QWidget* parentWidget)
    : TimePlot(kind == Kind::Dirty ? PlotId::DirtyPages : PlotId::Memory, parentWidget),
      m_kind(kind) {
  m_plot->setObjectName(kind == Kind::Dirty ? QStringLiteral("host-dirty")
                                            : QStringLiteral("host-reclaim"));
  m_plot->xAxis->setLabel(QStringLiteral("time since watching began (s)"));
  if (kind == Kind::Dirty) {
    setTitle(QStringLiteral("This machine: dirty pages and the thresholds"));
    addDirtySeries(QStringLiteral("thresh"), &Sample::threshPages);
    // While recording: what global_dirty_state says, per 0.1 s, over what /proc says.
    const int traced = addSeries({.name = "traced dirty+writeback",
                                  .memoryUnit = true,
                                  .value = dirtyAndWritebackMemory,
                                  .colour = SeriesColour::Purple,
                                  .dots = true,
                                  .source = kTraced});
    setSeriesShown(traced, false);
  } else {
    setTitle(QStringLiteral("This machine: reclaim and allocation stalls"));
    addSeries({.name = "pgscan_kswapd",
               .unit = "pages/s",
               .value = rate(&Sample::pgscanKswapdPerS),
               .colour = SeriesColour::Blue});
    addSeries({.name = "pgscan_direct",
               .unit = "pages/s",
               .value = rate(&Sample::pgscanDirectPerS),
               .colour = SeriesColour::Vermillion});
    addSeries({.name = "pgsteal",
               .unit = "pages/s",
               .value = rate(&Sample::pgstealPerS),
               .colour = SeriesColour::Green,
               .style = Qt::DashLine});
    addSeries({.name = "allocstall",
               .unit = "per poll",
               .value = [](const Sample& s,
                           const DisplayUnits&) { return static_cast<double>(s.allocStalls); },
               .colour = SeriesColour::Purple,
               .rightAxis = true,
               .dots = true});
  }
  updateAxisTitles();
}

void HostPlot::setTracedShown(bool shown) {
  for (int i = 0; i < seriesCount(); ++i)
    if (series(i).source == kTraced) setSeriesShown(i, shown);
  setLegendColumns();
}

void HostPlot::updateAxisTitles() {
  if (m_kind == Kind::Dirty) {
    m_plot->yAxis->setLabel(QStringLiteral("pages (%1)").arg(m_units.memoryUnit()));
  } else {
    m_plot->yAxis->setLabel(QStringLiteral("pages/s"));
    m_plot->yAxis2->setLabel(QStringLiteral("allocation stalls"));
  }
}

}  // namespace throttlelab::ui
