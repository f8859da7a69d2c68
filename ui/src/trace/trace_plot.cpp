// SPDX-License-Identifier: GPL-3.0-or-later
#include "trace_plot.h"

#include <cmath>

#include "log2_ticker.h"
#include "qcp.h"
#include "sample_fields.h"
#include "trace_collector.h"

namespace throttlelab::ui {

using engine::DeviceSample;
using engine::Sample;

namespace {
/// A memory level that a trace may not have reported yet (0 before the first event): a gap.
std::function<double(const Sample&, const DisplayUnits&)> level(engine::Pages Sample::*field) {
  return [field](const Sample& s, const DisplayUnits& u) {
    const auto v = s.*field;
    return v > 0 ? u.memory(static_cast<double>(v)) : kNoValue;
  };
}

double dirtyAndWriteback(const Sample& s, const DisplayUnits& u) {
  // A measured interval without global_dirty_state carries no levels at all.
  if (s.dirtyPages + s.writebackPages == 0 && s.threshPages == 0) return kNoValue;
  return u.memory(static_cast<double>(s.dirtyPages + s.writebackPages));
}
}  // namespace

TracePlot::TracePlot(PlotId id, QWidget* parentWidget) : TimePlot(id, parentWidget) {
  m_plot->setObjectName(QStringLiteral("trace-") + plotKey(id));
  m_plot->xAxis->setLabel(QStringLiteral("time since the trace's first event (s)"));
  // The measured trace per interval: a thin light line (the readout reads it); the dots of
  // addEventGraph show every record.
  auto measured = [this](const QString& what, SeriesSpec spec, bool inLegend = true) {
    spec.name = QStringLiteral("measured ") + what;
    spec.source = kMeasured;
    const int i = addSeries(std::move(spec));
    if (!inLegend) seriesGraph(i)->removeFromLegend();
  };
  auto simulated = [this](const QString& what, SeriesSpec spec) {
    spec.name = QStringLiteral("simulated ") + what;
    spec.source = kSimulated;
    addSeries(std::move(spec));
  };
  auto limit = [this](const QString& what, SeriesSpec spec) {
    spec.name = what;  // the traced thresholds; the derived scenario reproduces them
    spec.source = kMeasured;
    addSeries(std::move(spec));
  };
  switch (id) {
    case PlotId::DirtyPages:
      setTitle(QStringLiteral("Dirty pages: measured against simulated"));
      addEventGraph(QStringLiteral("measured dirty+writeback"), &TraceEvents::dirtyPages,
                    SeriesColour::Blue, true);
      measured(QStringLiteral("dirty+writeback, per 0.1 s"),
               {.memoryUnit = true, .value = dirtyAndWriteback, .colour = SeriesColour::SkyBlue});
      simulated(QStringLiteral("dirty+writeback"), {.memoryUnit = true,
                                                    .value = dirtyAndWriteback,
                                                    .colour = SeriesColour::Vermillion,
                                                    .width = 2});
      for (const MemoryLevel& l :
           {MemoryLevel{"thresh", &Sample::threshPages, SeriesColour::Foreground, Qt::DashLine},
            MemoryLevel{"setpoint", &Sample::setpointPages, SeriesColour::Purple, Qt::DashLine},
            MemoryLevel{"freerun", &Sample::freerunPages, SeriesColour::Green, Qt::DashLine},
            MemoryLevel{"bg_thresh", &Sample::bgThreshPages, SeriesColour::Grey, Qt::DashDotLine}})
        limit(l.name, {.memoryUnit = true,
                       .value = level(l.field),
                       .colour = l.colour,
                       .style = l.style,
                       .width = l.width});
      break;
    case PlotId::Pauses: {
      setTitle(QStringLiteral("Pauses per interval"));
      auto p50 = [](const Sample& s, const DisplayUnits&) {
        return s.pauses > 0 && s.pauseMsP50 > 0 ? s.pauseMsP50 : kNoValue;
      };
      auto max = [](const Sample& s, const DisplayUnits&) {
        return s.pauses > 0 && s.pauseMsMax > 0 ? s.pauseMsMax : kNoValue;
      };
      addEventGraph(QStringLiteral("measured pauses"), &TraceEvents::pauseMs, SeriesColour::Blue,
                    false);
      measured(QStringLiteral("pause p50, per 0.1 s"),
               {.unit = QStringLiteral("ms"), .value = p50, .colour = SeriesColour::SkyBlue});
      measured(QStringLiteral("pause max"),
               {.unit = QStringLiteral("ms"),
                .value = max,
                .colour = SeriesColour::SkyBlue,
                .style = Qt::NoPen},
               false);
      simulated(QStringLiteral("pause p50"), {.unit = QStringLiteral("ms"),
                                              .value = p50,
                                              .colour = SeriesColour::Vermillion,
                                              .width = 2});
      simulated(QStringLiteral("pause max"), {.unit = QStringLiteral("ms"),
                                              .value = max,
                                              .colour = SeriesColour::Orange,
                                              .style = Qt::DotLine});
      makeLog2Axis(m_plot->yAxis);
      m_plot->yAxis->setRange(1, 256);
      break;
    }
    default: {
      setTitle(QStringLiteral("The bdi's estimates"));
      auto writeBw = [](const Sample& s, const DisplayUnits&) {
        return deviceMBps(s, &DeviceSample::writeBwKBps, true);
      };
      auto ratelimit = [](const Sample& s, const DisplayUnits&) {
        return deviceMBps(s, &DeviceSample::dirtyRatelimitKBps, true);
      };
      addEventGraph(QStringLiteral("measured write_bw"), &TraceEvents::writeBwKBps,
                    SeriesColour::Blue, false, kbpsToMBps(1));
      addEventGraph(QStringLiteral("measured dirty_ratelimit"), &TraceEvents::dirtyRatelimitKBps,
                    SeriesColour::SkyBlue, false, kbpsToMBps(1));
      measured(QStringLiteral("write_bw"),
               {.unit = QStringLiteral("MB/s"),
                .value = writeBw,
                .colour = SeriesColour::Blue,
                .step = true},
               false);
      measured(QStringLiteral("dirty_ratelimit"),
               {.unit = QStringLiteral("MB/s"),
                .value = ratelimit,
                .colour = SeriesColour::SkyBlue,
                .step = true},
               false);
      simulated(QStringLiteral("write_bw"), {.unit = QStringLiteral("MB/s"),
                                             .value = writeBw,
                                             .colour = SeriesColour::Vermillion,
                                             .width = 2,
                                             .step = true});
      simulated(QStringLiteral("dirty_ratelimit"), {.unit = QStringLiteral("MB/s"),
                                                    .value = ratelimit,
                                                    .colour = SeriesColour::Orange,
                                                    .step = true});
      break;
    }
  }
  updateAxisTitles();
}

void TracePlot::addEventGraph(const QString& name, const EventPoints TraceEvents::*points,
                              SeriesColour colour, bool memory, double scale) {
  auto* graph = m_plot->addGraph(m_plot->xAxis, m_plot->yAxis);
  graph->setName(name);
  graph->setLineStyle(QCPGraph::lsNone);
  graph->setAdaptiveSampling(true);
  m_events.push_back({graph, points, colour, memory, scale});
}

void TracePlot::setEvents(const TraceEvents* events) {
  for (const EventGraph& e : m_events) {
    QVector<QCPGraphData> data;
    if (events) {
      const auto& points = ((*events).*(e.points)).points();
      data.reserve(static_cast<int>(points.size()));
      for (const auto& [t, v] : points)
        data.append(QCPGraphData(t, e.memory ? m_units.memory(v) : v * e.scale));
    }
    e.graph->data()->set(data, true);
  }
  markDirty();
}

int TracePlot::eventPointCount() const {
  int n = 0;
  for (const EventGraph& e : m_events) n += e.graph->data()->size();
  return n;
}

void TracePlot::applyTheme(const Theme& theme) {
  TimePlot::applyTheme(theme);
  for (const EventGraph& e : m_events) {
    const QColor c = theme.colour(e.colour);
    e.graph->setPen(QPen(c));
    e.graph->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssDisc, c, theme.presenter ? 5.0 : 3.0));
  }
}

void TracePlot::autoscaleValues() {
  TimePlot::autoscaleValues();
  if (id() != PlotId::Pauses) return;
  // Pauses come in whole jiffies: the shortest sits on the bottom of a log axis fitted to it.
  // One octave below keeps those dots off the axis line.
  const QCPRange r = m_plot->yAxis->range();
  m_plot->yAxis->setRange(r.lower / 2, r.upper);
}

void TracePlot::setSourceShown(int source, bool shown) {
  for (int i = 0; i < seriesCount(); ++i)
    if (series(i).source == source) setSeriesShown(i, shown);
  setLegendColumns();
}

int TracePlot::pointCount(int source) const {
  for (int i = 0; i < seriesCount(); ++i) {
    if (series(i).source != source) continue;
    int n = 0;
    for (const QCPGraphData& d : *seriesGraph(i)->data())
      if (std::isfinite(d.value)) ++n;
    return n;
  }
  return 0;
}

void TracePlot::updateAxisTitles() {
  setRunsAxisTitle(QStringLiteral("dirty"));
}

}  // namespace throttlelab::ui
