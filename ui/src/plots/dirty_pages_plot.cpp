// SPDX-License-Identifier: GPL-3.0-or-later
#include "dirty_pages_plot.h"

#include <cmath>

#include "log2_ticker.h"
#include "qcp.h"
#include "sample_fields.h"

namespace throttlelab::ui {

using engine::DeviceSample;
using engine::Sample;

DirtyPagesPlot::DirtyPagesPlot(QWidget* parentWidget) : TimePlot(PlotId::DirtyPages, parentWidget) {
  auto mem = [](engine::Pages Sample::*field) {
    return [field](const Sample& s, const DisplayUnits& u) {
      return u.memory(static_cast<double>(s.*field));
    };
  };
  // setpoint and freerun are lines of position control: under a policy without it (the
  // IO-ful ones, none) they mean nothing, and the curve has a gap for that stretch of time.
  auto onlyWithPositionControl = [](auto value) {
    return [value](const Sample& s, const DisplayUnits& u) {
      return s.positionControl ? value(s, u) : std::nan("");
    };
  };
  addSeries({.name = "dirty+writeback",
             .memoryUnit = true,
             .value =
                 [](const Sample& s, const DisplayUnits& u) {
                   return u.memory(static_cast<double>(s.dirtyPages + s.writebackPages));
                 },
             .colour = SeriesColour::Foreground,
             .width = 2});
  addSeries({.name = "dirty",
             .memoryUnit = true,
             .value = mem(&Sample::dirtyPages),
             .colour = SeriesColour::Orange});
  addSeries({.name = "writeback",
             .memoryUnit = true,
             .value = mem(&Sample::writebackPages),
             .colour = SeriesColour::SkyBlue});
  addSeries({.name = "limit",
             .memoryUnit = true,
             .value = mem(&Sample::limitPages),
             .colour = SeriesColour::Vermillion,
             .style = Qt::DashLine,
             .width = 1.5});
  addSeries({.name = "setpoint",
             .memoryUnit = true,
             .value = onlyWithPositionControl(mem(&Sample::setpointPages)),
             .colour = SeriesColour::Blue,
             .style = Qt::DashLine,
             .width = 1.5});
  addSeries({.name = "freerun",
             .memoryUnit = true,
             .value = onlyWithPositionControl(mem(&Sample::freerunPages)),
             .colour = SeriesColour::Green,
             .style = Qt::DashLine,
             .width = 1.5});
  addSeries({.name = "bg_thresh",
             .memoryUnit = true,
             .value = mem(&Sample::bgThreshPages),
             .colour = SeriesColour::Grey,
             .style = Qt::DashDotLine});
  addSeries({.name = "task_ratelimit",
             .unit = "MB/s",
             .value =
                 [](const Sample& s, const DisplayUnits&) {
                   return s.positionControl ? deviceMBps(s, &DeviceSample::taskRatelimitKBps, true)
                                            : std::nan("");
                 },
             .colour = SeriesColour::Purple,
             .style = Qt::DotLine,
             .rightAxis = true});
  addSeries({.name = "dirty_ratelimit",
             .unit = "MB/s",
             .value =
                 [](const Sample& s, const DisplayUnits&) {
                   return s.positionControl ? deviceMBps(s, &DeviceSample::dirtyRatelimitKBps, true)
                                            : std::nan("");
                 },
             .colour = SeriesColour::Blue,
             .rightAxis = true,
             .step = true});
  addSeries({.name = "balanced_ratelimit",
             .unit = "MB/s",
             .value =
                 [](const Sample& s, const DisplayUnits&) {
                   return s.positionControl
                              ? deviceMBps(s, &DeviceSample::balancedDirtyRatelimitKBps, true)
                              : std::nan("");
                 },
             .colour = SeriesColour::Green,
             .style = Qt::DotLine,
             .rightAxis = true,
             .step = true});
  makeLog2Axis(m_plot->yAxis2);
  m_plot->yAxis2->setRange(0.25, 128);
  updateAxisTitles();
}

void DirtyPagesPlot::updateAxisTitles() {
  m_plot->yAxis->setLabel(QStringLiteral("pages (%1)").arg(m_units.memoryUnit()));
  m_plot->yAxis2->setLabel(QStringLiteral("ratelimit (MB/s, log₂)"));
}

}  // namespace throttlelab::ui
