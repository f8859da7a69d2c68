// SPDX-License-Identifier: GPL-3.0-or-later
#include "compare_plot.h"

#include "log2_ticker.h"
#include "qcp.h"
#include "sample_fields.h"

namespace throttlelab::ui {

using engine::DeviceSample;
using engine::Sample;

namespace {
constexpr SeriesColour kRunColour[ComparePlot::kRuns] = {SeriesColour::Blue,
                                                         SeriesColour::Vermillion};

std::function<double(const Sample&, const DisplayUnits&)> memory(engine::Pages Sample::*field) {
  return [field](const Sample& s, const DisplayUnits& u) {
    return u.memory(static_cast<double>(s.*field));
  };
}
}  // namespace

ComparePlot::ComparePlot(PlotId id, QWidget* parentWidget) : TimePlot(id, parentWidget) {
  m_plot->setObjectName(QStringLiteral("compare-") + plotKey(id));
  for (int run = 0; run < kRuns; ++run) {
    const SeriesColour colour = kRunColour[run];
    auto add = [&](const QString& what, SeriesSpec spec) {
      spec.name = what;
      spec.colour = colour;
      spec.source = run;
      m_curves.push_back({what, addSeries(std::move(spec))});
    };
    switch (id) {
      case PlotId::DirtyPages:
        add(QStringLiteral("dirty+writeback"),
            {.memoryUnit = true,
             .value =
                 [](const Sample& s, const DisplayUnits& u) {
                   return u.memory(static_cast<double>(s.dirtyPages + s.writebackPages));
                 },
             .width = 2});
        add(QStringLiteral("setpoint"),
            {.memoryUnit = true, .value = memory(&Sample::setpointPages), .style = Qt::DashLine});
        add(QStringLiteral("limit"),
            {.memoryUnit = true, .value = memory(&Sample::limitPages), .style = Qt::DotLine});
        break;
      case PlotId::Pauses:
        add(QStringLiteral("median pause"),
            {.unit = QStringLiteral("ms"),
             .value = [](const Sample& s,
                         const DisplayUnits&) { return s.pauses > 0 ? s.pauseMsP50 : kNoValue; },
             .dots = true});
        add(QStringLiteral("max pause"),
            {.unit = QStringLiteral("ms"),
             .value = [](const Sample& s,
                         const DisplayUnits&) { return s.pauses > 0 ? s.pauseMsMax : kNoValue; },
             .style = Qt::DotLine});
        break;
      default:
        add(QStringLiteral("device writes"),
            {.unit = QStringLiteral("MB/s"), .value = [](const Sample& s, const DisplayUnits&) {
               return deviceMBps(s, &DeviceSample::deviceWriteKBps);
             }});
        break;
    }
  }
  if (id == PlotId::Pauses) {
    makeLog2Axis(m_plot->yAxis);
    m_plot->yAxis->setRange(1, 256);
  }
  setRunNames(QStringLiteral("A"), QStringLiteral("B"));
  updateAxisTitles();
}

void ComparePlot::setRunNames(const QString& a, const QString& b) {
  for (const Curve& c : m_curves)
    setSeriesName(c.series, (series(c.series).source == 0 ? a : b) + QLatin1Char(' ') + c.what);
}

void ComparePlot::updateAxisTitles() {
  setRunsAxisTitle(QStringLiteral("pages"));
}

}  // namespace throttlelab::ui
