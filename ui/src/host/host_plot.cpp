// SPDX-License-Identifier: GPL-3.0-or-later
#include "host_plot.h"

#include "qcp.h"
#include "sample_fields.h"

namespace throttlelab::ui {

using engine::Sample;

namespace {
std::function<double(const Sample&, const DisplayUnits&)> rate(double Sample::*field) {
  return [field](const Sample& s, const DisplayUnits&) { return s.*field; };
}

/// A page count of the watched cgroup; a gap without one, and for a limit of 0 (none: "max",
/// or a v1 cgroup's absent dirty domain).
SeriesValue cgroupPages(engine::Pages engine::CgroupSample::*field, bool isLimit = false,
                        engine::Pages engine::CgroupSample::*plus = nullptr) {
  return [=](const Sample& s, const DisplayUnits& u) {
    if (s.cgroups.empty()) return kNoValue;
    const engine::CgroupSample& c = s.cgroups.front();
    if (isLimit && c.*field <= 0) return kNoValue;
    return u.memory(static_cast<double>(c.*field + (plus ? c.*plus : 0)));
  };
}

QString plotName(HostPlot::Kind kind) {
  switch (kind) {
    case HostPlot::Kind::Dirty:
      return QStringLiteral("host-dirty");
    case HostPlot::Kind::Reclaim:
      return QStringLiteral("host-reclaim");
    case HostPlot::Kind::Cgroup:
      return QStringLiteral("host-cgroup");
  }
  return {};
}
}  // namespace

HostPlot::HostPlot(Kind kind, QWidget* parentWidget)
    : TimePlot(kind == Kind::Dirty ? PlotId::DirtyPages : PlotId::Memory, parentWidget),
      m_kind(kind) {
  m_plot->setObjectName(plotName(kind));
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
  } else if (kind == Kind::Cgroup) {
    setTitle(QStringLiteral("The watched cgroup: dirty pages and its own limits"));
    using C = engine::CgroupSample;
    // The cgroup's levels: a threshold or limit it lacks (v1 has no dirty domain; a memory
    // limit of "max") leaves a gap. Its page cache and memory limit use the right axis.
    struct Level {
      const char* name;
      engine::Pages C::*field;
      SeriesColour colour;
      Qt::PenStyle style;
      bool isLimit;
      bool right;
    };
    const Level levels[] = {
        {"cgroup dirty", &C::dirtyPages, SeriesColour::Orange, Qt::SolidLine, false, false},
        {"cgroup writeback", &C::writebackPages, SeriesColour::SkyBlue, Qt::SolidLine, false,
         false},
        {"cgroup thresh", &C::threshPages, SeriesColour::Vermillion, Qt::DashDotDotLine, true,
         false},
        {"cgroup freerun", &C::freerunPages, SeriesColour::Green, Qt::DashDotDotLine, true, false},
        {"cgroup bg_thresh", &C::bgThreshPages, SeriesColour::Grey, Qt::DashDotLine, true, false},
        {"page cache", &C::filePages, SeriesColour::Blue, Qt::SolidLine, false, true},
        {"memory limit", &C::maxPages, SeriesColour::Purple, Qt::DashLine, true, true},
    };
    addSeries({.name = "cgroup dirty+writeback",
               .memoryUnit = true,
               .value = cgroupPages(&C::dirtyPages, false, &C::writebackPages),
               .colour = SeriesColour::Yellow,
               .width = 2});
    for (const Level& l : levels) {
      const int index = addSeries({.name = l.name,
                                   .memoryUnit = true,
                                   .value = cgroupPages(l.field, l.isLimit),
                                   .colour = l.colour,
                                   .style = l.style,
                                   .rightAxis = l.right});
      if (l.isLimit && !l.right) {
        if (m_domainFirst < 0) m_domainFirst = index;
        ++m_domainCount;
      }
    }
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

void HostPlot::setDomainShown(bool shown) {
  for (int i = 0; i < m_domainCount; ++i) setSeriesShown(m_domainFirst + i, shown);
  setLegendColumns();
}

void HostPlot::setTracedShown(bool shown) {
  for (int i = 0; i < seriesCount(); ++i)
    if (series(i).source == kTraced) setSeriesShown(i, shown);
  setLegendColumns();
}

void HostPlot::updateAxisTitles() {
  if (m_kind == Kind::Dirty) {
    m_plot->yAxis->setLabel(QStringLiteral("pages (%1)").arg(m_units.memoryUnit()));
  } else if (m_kind == Kind::Cgroup) {
    m_plot->yAxis->setLabel(QStringLiteral("dirty, writeback (%1)").arg(m_units.memoryUnit()));
    m_plot->yAxis2->setLabel(QStringLiteral("page cache, limit (%1)").arg(m_units.memoryUnit()));
  } else {
    m_plot->yAxis->setLabel(QStringLiteral("pages/s"));
    m_plot->yAxis2->setLabel(QStringLiteral("allocation stalls"));
  }
}

}  // namespace throttlelab::ui
