// SPDX-License-Identifier: GPL-3.0-or-later
#include "bandwidth_plot.h"

#include <cmath>

#include <algorithm>

#include "qcp.h"
#include "sample_fields.h"

namespace throttlelab::ui {

using engine::DeviceSample;
using engine::Sample;

BandwidthPlot::BandwidthPlot(QWidget* parentWidget) : TimePlot(PlotId::Bandwidth, parentWidget) {
  const auto rate = [this](const char* name, double DeviceSample::*field, SeriesColour colour,
                           double width, bool step) {
    return addSeries({.name = name,
                      .unit = "MB/s",
                      .value = deviceMBpsOf(field),
                      .colour = colour,
                      .width = width,
                      .step = step});
  };
  m_device = rate("device writes", &DeviceSample::deviceWriteKBps, SeriesColour::Grey, 1, false);
  m_writeBw = rate("write_bw", &DeviceSample::writeBwKBps, SeriesColour::Orange, 1, true);
  m_avgWriteBw =
      rate("avg_write_bw", &DeviceSample::avgWriteBwKBps, SeriesColour::Vermillion, 2, true);
  rate("dirty_rate", &DeviceSample::dirtyRateKBps, SeriesColour::SkyBlue, 1, true);
  addSeries({.name = "N × dirty_ratelimit",
             .unit = "MB/s",
             .value =
                 [](const Sample& s, const DisplayUnits&) {
                   // N: the writers alive, the count the rate control divides write_bw among.
                   return s.positionControl
                              ? deviceMBps(s, &DeviceSample::dirtyRatelimitKBps) * s.tasks
                              : std::nan("");
                 },
             .colour = SeriesColour::Purple,
             .style = Qt::DashLine,
             .width = 1.5,
             .step = true});
  updateAxisTitles();
}

void BandwidthPlot::autoscaleValues() {
  // Everything in view counts, but not the start-up: the estimates begin at the kernel's
  // first guess (write_bw 100 MB/s) and writers dirty at memory speed while they run free,
  // which would hold a 10 MB/s disk's axis at 300 MB/s for as long as the start is in view.
  // Those curves are cut above 3 × what the disk did of late (the last kRecentS in view), but
  // never below what the device wrote anywhere in view: a disk that wrote 56 MB/s under
  // 10,000 writers and 13 MB/s a minute later keeps its 56 MB/s on the axis.
  const QCPRange shown = m_plot->xAxis->range();
  autoscaleValuesOver(shown.lower, shown.upper);
  const auto highest = [this](int series, const QCPRange& keys) {
    bool found = false;
    const QCPRange r = seriesGraph(series)->getValueRange(found, QCP::sdBoth, keys);
    return found && std::isfinite(r.upper) ? r.upper : 0.0;
  };
  const QCPRange recent(std::max(shown.lower, shown.upper - kRecentS), shown.upper);
  double disk = 0;
  for (int i : {m_device, m_writeBw, m_avgWriteBw}) disk = std::max(disk, highest(i, recent));
  const double written = highest(m_device, shown);
  // The same headroom over the device's highest as autoscaleAxis gives (1.08 × 1.05).
  const double ceiling = std::max(disk * 3, written * 1.08 * 1.05);
  if (ceiling > 0 && m_plot->yAxis->range().upper > ceiling)
    m_plot->yAxis->setRange(m_plot->yAxis->range().lower, ceiling);
}

void BandwidthPlot::updateAxisTitles() {
  m_plot->yAxis->setLabel(QStringLiteral("bandwidth (MB/s)"));
}

}  // namespace throttlelab::ui
