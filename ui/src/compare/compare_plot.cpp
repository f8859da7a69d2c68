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
  // Run A above run B: where a branch is the run itself (before its branch point) the
  // original's colour shows.
  m_plot->addLayer(QStringLiteral("runA"), m_plot->layer(QStringLiteral("main")),
                   QCustomPlot::limAbove);
  for (const Curve& c : m_curves)
    if (series(c.series).source == 0) seriesGraph(c.series)->setLayer(QStringLiteral("runA"));
  if (id == PlotId::Pauses) {
    makeLog2Axis(m_plot->yAxis);
    m_plot->yAxis->setRange(1, 256);
  }
  setRunNames(QStringLiteral("A"), QStringLiteral("B"));
  updateAxisTitles();

  // The branch point: a solid line in run B's colour, labelled at the bottom so that it stays
  // clear of the legend and the hover readout.
  m_branchLine = new QCPItemStraightLine(m_plot);
  m_branchLine->point1->setTypeY(QCPItemPosition::ptAxisRectRatio);
  m_branchLine->point2->setTypeY(QCPItemPosition::ptAxisRectRatio);
  m_branchLine->point1->setCoords(0, 0);
  m_branchLine->point2->setCoords(0, 1);
  m_branchLine->setSelectable(false);
  m_branchLine->setVisible(false);
  m_branchLabel = new QCPItemText(m_plot);
  m_branchLabel->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
  m_branchLabel->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
  m_branchLabel->setPadding(QMargins(4, 2, 4, 2));
  m_branchLabel->setClipToAxisRect(true);
  m_branchLabel->setSelectable(false);
  m_branchLabel->setVisible(false);
}

void ComparePlot::setBranchMark(std::optional<double> timeS, const QString& label) {
  m_branchLine->setVisible(timeS.has_value());
  m_branchLabel->setVisible(timeS.has_value());
  m_branchLabel->setText(timeS ? label : QString());
  if (timeS) {
    m_branchLine->point1->setCoords(*timeS, 0);
    m_branchLine->point2->setCoords(*timeS, 1);
    m_branchLabel->position->setCoords(*timeS, 0.97);
  }
  markDirty();
}

QString ComparePlot::branchMarkLabel() const {
  return m_branchLabel->visible() ? m_branchLabel->text() : QString();
}

std::optional<double> ComparePlot::branchMarkTime() const {
  if (!m_branchLine->visible()) return std::nullopt;
  return m_branchLine->point1->coords().x();
}

void ComparePlot::applyTheme(const Theme& theme) {
  TimePlot::applyTheme(theme);
  const QColor colour = theme.colour(kRunColour[1]);
  m_branchLine->setPen(QPen(colour, theme.presenter ? 3 : 2, Qt::SolidLine));
  m_branchLabel->setFont(theme.legendFont());
  m_branchLabel->setColor(theme.background);
  m_branchLabel->setBrush(colour);
}

void ComparePlot::setRunNames(const QString& a, const QString& b) {
  for (const Curve& c : m_curves)
    setSeriesName(c.series, (series(c.series).source == 0 ? a : b) + QLatin1Char(' ') + c.what);
}

void ComparePlot::updateAxisTitles() {
  setRunsAxisTitle(QStringLiteral("pages"));
}

}  // namespace throttlelab::ui
