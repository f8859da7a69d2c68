// SPDX-License-Identifier: GPL-3.0-or-later
#include "dirty_pages_plot.h"

#include <algorithm>

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
               .value = onlyWithPositionControl(deviceMBpsOf(field, true)),
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
  // The first memory cgroup's own domain (docs/model.md, Memory cgroups).
  auto cg = [](engine::Pages engine::CgroupSample::*field, bool withWriteback = false) {
    return [field, withWriteback](const Sample& s, const DisplayUnits& u) {
      if (s.cgroups.empty() || s.cgroups.front().threshPages <= 0) return kNoValue;
      const engine::CgroupSample& c = s.cgroups.front();
      return u.memory(static_cast<double>(c.*field + (withWriteback ? c.writebackPages : 0)));
    };
  };
  m_cgroupFirst = addSeries({.name = "cgroup dirty+writeback",
                             .memoryUnit = true,
                             .value = cg(&engine::CgroupSample::dirtyPages, true),
                             .colour = SeriesColour::Yellow,
                             .width = 2});
  addSeries({.name = "cgroup limit",
             .memoryUnit = true,
             .value = cg(&engine::CgroupSample::limitPages),
             .colour = SeriesColour::Vermillion,
             .style = Qt::DashDotDotLine});
  addSeries({.name = "cgroup setpoint",
             .memoryUnit = true,
             .value = cg(&engine::CgroupSample::setpointPages),
             .colour = SeriesColour::Blue,
             .style = Qt::DashDotDotLine});
  m_cgroupCount = addSeries({.name = "cgroup freerun",
                             .memoryUnit = true,
                             .value = cg(&engine::CgroupSample::freerunPages),
                             .colour = SeriesColour::Green,
                             .style = Qt::DashDotDotLine}) -
                  m_cgroupFirst + 1;
  showCgroupSeries(false);
  makeLog2Axis(m_plot->yAxis2);
  m_plot->yAxis2->setRange(0.25, 128);
  updateAxisTitles();
}

void DirtyPagesPlot::showCgroupSeries(bool shown) {
  if (m_cgroupShown == shown) return;
  m_cgroupShown = shown;
  for (int i = 0; i < m_cgroupCount; ++i) setSeriesShown(m_cgroupFirst + i, shown);
}

namespace {
bool hasCgroupDomain(const engine::Sample& s) {
  return !s.cgroups.empty() && s.cgroups.front().threshPages > 0;
}
}  // namespace

void DirtyPagesPlot::appendSamples(const SampleBuffer& samples) {
  if (!m_cgroupShown && std::any_of(samples.begin(), samples.end(), hasCgroupDomain))
    showCgroupSeries(true);
  TimePlot::appendSamples(samples);
}

void DirtyPagesPlot::rebuild(const SampleHistory& history, const TaskTraceHistory& tasks) {
  showCgroupSeries(std::any_of(history.begin(), history.end(), hasCgroupDomain));
  TimePlot::rebuild(history, tasks);
}

void DirtyPagesPlot::updateAxisTitles() {
  // The series are amounts of memory; the unit alone says whether in pages or MiB.
  m_plot->yAxis->setLabel(QStringLiteral("dirty memory (%1)").arg(m_units.memoryUnit()));
  m_plot->yAxis2->setLabel(QStringLiteral("ratelimit (MB/s, log₂)"));
}

}  // namespace throttlelab::ui
