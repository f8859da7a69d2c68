// SPDX-License-Identifier: GPL-3.0-or-later
// A lesson step's highlight on a time plot (docs/lessons.md): the time range to look at as a
// band behind the curves, and the curves to look at drawn wider than the others, which fade.
// Items and pens of the plot itself, so what the screen shows every export shows too.
#include <algorithm>

#include "qcp.h"
#include "time_plot.h"

namespace throttlelab::ui {

namespace {
/// `colour` faded half way into `background`: still readable, no longer competing.
QColor faded(const QColor& colour, const QColor& background) {
  constexpr float kKeep = 0.5F;
  const auto mix = [](float a, float b) { return a * kKeep + b * (1 - kKeep); };
  return QColor::fromRgbF(mix(colour.redF(), background.redF()),
                          mix(colour.greenF(), background.greenF()),
                          mix(colour.blueF(), background.blueF()));
}
}  // namespace

void TimePlot::setHighlight(std::optional<std::pair<double, double>> range,
                            const QStringList& curves) {
  if (range && range->second < range->first) std::swap(range->first, range->second);
  m_highlightRange = range;
  m_highlightCurves = curves;
  if (range && !m_highlightBand) {
    m_highlightBand = new QCPItemRect(m_plot);
    // Under the grid and the curves: it marks the time, it hides nothing.
    m_highlightBand->setLayer(QStringLiteral("background"));
    m_highlightBand->setClipToAxisRect(true);
    m_highlightBand->setSelectable(false);
    for (QCPItemPosition* p : {m_highlightBand->topLeft, m_highlightBand->bottomRight}) {
      p->setTypeX(QCPItemPosition::ptPlotCoords);
      p->setTypeY(QCPItemPosition::ptAxisRectRatio);
    }
  }
  if (m_highlightBand) {
    m_highlightBand->setVisible(range.has_value());
    if (range) {
      m_highlightBand->topLeft->setCoords(range->first, 0);
      m_highlightBand->bottomRight->setCoords(range->second, 1);
    }
  }
  // The series' own pens first, then the emphasis on top of them.
  for (int i = 0; i < seriesCount(); ++i) {
    const SeriesSpec& s = series(i);
    styleGraph(seriesGraph(i), m_theme.colour(s.colour), s.style, s.width, s.dots);
  }
  styleHighlight();
  m_dirty = true;
}

QStringList TimePlot::emphasisedSeries() const {
  QStringList out;
  for (int i = 0; i < seriesCount(); ++i)
    if (m_highlightCurves.contains(series(i).name)) out << series(i).name;
  return out;
}

void TimePlot::styleHighlight() {
  if (m_highlightBand) {
    // Yellow, the one hue no series uses for a line of its own here; strong enough to read on
    // a washed-out projector, light enough that the curves over it keep their colours.
    QColor fill = m_theme.colour(SeriesColour::Yellow);
    fill.setAlpha(m_theme.dark ? 45 : 55);
    QColor edge = m_theme.colour(SeriesColour::Yellow);
    edge.setAlpha(220);
    m_highlightBand->setBrush(fill);
    m_highlightBand->setPen(QPen(edge, m_theme.presenter ? 2.5 : 1.5));
  }
  const QStringList emphasised = emphasisedSeries();
  if (emphasised.isEmpty()) return;
  // Wider than any other series of the plot (presenter mode draws its main one at 5 px).
  double widest = 1;
  for (int i = 0; i < seriesCount(); ++i)
    if (!emphasised.contains(series(i).name))
      widest = std::max(widest, seriesGraph(i)->pen().widthF());
  for (int i = 0; i < seriesCount(); ++i) {
    QCPGraph* graph = seriesGraph(i);
    QPen pen = graph->pen();
    if (emphasised.contains(series(i).name)) {
      pen.setWidthF(std::max({pen.widthF() * 1.6, widest * 1.25, 3.0}));
    } else if (series(i).colour != SeriesColour::Foreground) {
      // The plot's own quantity (dirty+writeback, in the foreground colour) stays as it is:
      // the highlighted lines are what it is to be read against.
      pen.setColor(faded(pen.color(), m_theme.background));
    }
    graph->setPen(pen);
    if (series(i).dots) {
      QCPScatterStyle dots = graph->scatterStyle();
      dots.setPen(QPen(pen.color()));
      dots.setBrush(pen.color());
      graph->setScatterStyle(dots);
    }
  }
}

}  // namespace throttlelab::ui
