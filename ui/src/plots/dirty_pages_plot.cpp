// SPDX-License-Identifier: GPL-3.0-or-later
#include "dirty_pages_plot.h"

#include "log2_ticker.h"
#include "qcp.h"
#include "sample_fields.h"

namespace throttlelab::ui {

using engine::DeviceSample;
using engine::Sample;

DirtyPagesPlot::DirtyPagesPlot(QWidget* parentWidget) : TimePlot(PlotId::DirtyPages, parentWidget) {
  addDirtySeries(QStringLiteral("limit"), &Sample::limitPages);
  // The ratelimits on the log₂ axis, which cannot show 0 (deviceMBps's `positive`).
  const auto ratelimit = [this](const char* name, double DeviceSample::*field, SeriesColour colour,
                                Qt::PenStyle style, bool step) {
    addSeries({.name = name,
               .unit = "MB/s",
               .value = deviceMBpsOf(field, true),
               .colour = colour,
               .style = style,
               .rightAxis = true,
               .step = step});
  };
  ratelimit("task_ratelimit", &DeviceSample::taskRatelimitKBps, SeriesColour::Purple, Qt::DotLine,
            false);
  ratelimit("dirty_ratelimit", &DeviceSample::dirtyRatelimitKBps, SeriesColour::Blue, Qt::SolidLine,
            true);
  ratelimit("balanced_ratelimit", &DeviceSample::balancedDirtyRatelimitKBps, SeriesColour::Green,
            Qt::DotLine, true);
  makeLog2Axis(m_plot->yAxis2);
  m_plot->yAxis2->setRange(0.25, 128);
  updateAxisTitles();
}

void DirtyPagesPlot::updateAxisTitles() {
  m_plot->yAxis->setLabel(QStringLiteral("pages (%1)").arg(m_units.memoryUnit()));
  m_plot->yAxis2->setLabel(QStringLiteral("ratelimit (MB/s, log₂)"));
}

}  // namespace throttlelab::ui
