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
  m_device = addSeries(
      {.name = "device writes",
       .unit = "MB/s",
       .value = [](const Sample& s,
                   const DisplayUnits&) { return deviceMBps(s, &DeviceSample::deviceWriteKBps); },
       .colour = SeriesColour::Grey});
  m_writeBw = addSeries(
      {.name = "write_bw",
       .unit = "MB/s",
       .value = [](const Sample& s,
                   const DisplayUnits&) { return deviceMBps(s, &DeviceSample::writeBwKBps); },
       .colour = SeriesColour::Orange,
       .step = true});
  m_avgWriteBw = addSeries(
      {.name = "avg_write_bw",
       .unit = "MB/s",
       .value = [](const Sample& s,
                   const DisplayUnits&) { return deviceMBps(s, &DeviceSample::avgWriteBwKBps); },
       .colour = SeriesColour::Vermillion,
       .width = 2,
       .step = true});
  addSeries(
      {.name = "dirty_rate",
       .unit = "MB/s",
       .value = [](const Sample& s,
                   const DisplayUnits&) { return deviceMBps(s, &DeviceSample::dirtyRateKBps); },
       .colour = SeriesColour::SkyBlue,
       .step = true});
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
  TimePlot::autoscaleValues();
  const QCPRange keys = m_plot->xAxis->range();
  double disk = 0;
  for (int i : {m_device, m_writeBw, m_avgWriteBw}) {
    bool found = false;
    const QCPRange r = seriesGraph(i)->getValueRange(found, QCP::sdBoth, keys);
    if (found) disk = std::max(disk, r.upper);
  }
  const double ceiling = disk * 3;
  if (disk > 0 && m_plot->yAxis->range().upper > ceiling)
    m_plot->yAxis->setRange(m_plot->yAxis->range().lower, ceiling);
}

void BandwidthPlot::updateAxisTitles() {
  m_plot->yAxis->setLabel(QStringLiteral("bandwidth (MB/s)"));
}

}  // namespace throttlelab::ui
