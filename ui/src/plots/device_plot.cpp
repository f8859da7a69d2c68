// SPDX-License-Identifier: GPL-3.0-or-later
#include "device_plot.h"

#include "qcp.h"
#include "sample_fields.h"

namespace throttlelab::ui {

using engine::DeviceSample;
using engine::Sample;

namespace {
/// A field of the first device as it is, NaN without a device.
template <typename Field>
SeriesValue deviceValue(Field DeviceSample::*field) {
  return [field](const Sample& s, const DisplayUnits&) {
    const DeviceSample* d = firstDevice(s);
    return d ? static_cast<double>(d->*field) : kNoValue;
  };
}
}  // namespace

DevicePlot::DevicePlot(QWidget* parentWidget) : TimePlot(PlotId::Device, parentWidget) {
  addSeries({.name = "seeks/s",
             .unit = "seeks/s",
             .value = deviceValue(&DeviceSample::seeksPerS),
             .colour = SeriesColour::Vermillion,
             .width = 2});
  addSeries({.name = "requests queued",
             .unit = "requests",
             .value = deviceValue(&DeviceSample::queueDepth),
             .colour = SeriesColour::Green,
             .step = true});
  addSeries({.name = "request size (right axis)",
             .unit = "KiB",
             .value = deviceValue(&DeviceSample::avgRequestKiB),
             .colour = SeriesColour::Blue,
             .width = 1.5,
             .rightAxis = true,
             .step = true});
  updateAxisTitles();
}

void DevicePlot::updateAxisTitles() {
  m_plot->yAxis->setLabel(QStringLiteral("seeks per second · requests in the queue"));
  m_plot->yAxis2->setLabel(QStringLiteral("average request size (KiB)"));
}

}  // namespace throttlelab::ui
