// SPDX-License-Identifier: GPL-3.0-or-later
#include "fast_graph.h"

#include <algorithm>
#include <cmath>

namespace throttlelab::ui {

namespace {
bool finite(QPointF p) {
  return std::isfinite(p.x()) && std::isfinite(p.y());
}

bool between(double a, double b, double c) {
  return (a <= b && b <= c) || (c <= b && b <= a);
}

/// `b` lies on the straight horizontal or vertical segment from `a` to `c`.
bool onRun(QPointF a, QPointF b, QPointF c) {
  return (a.y() == b.y() && b.y() == c.y() && between(a.x(), b.x(), c.x())) ||
         (a.x() == b.x() && b.x() == c.x() && between(a.y(), b.y(), c.y()));
}
}  // namespace

FastGraph::FastGraph(QCPAxis* keyAxis, QCPAxis* valueAxis) : QCPGraph(keyAxis, valueAxis) {}

FastGraph* addFastGraph(QCustomPlot* plot, QCPAxis* keyAxis, QCPAxis* valueAxis) {
  auto* graph = new FastGraph(keyAxis ? keyAxis : plot->xAxis, valueAxis ? valueAxis : plot->yAxis);
  graph->setName(QStringLiteral("Graph %1").arg(plot->graphCount() - 1));
  return graph;
}

QVector<QPointF> FastGraph::withoutRunPoints(const QVector<QPointF>& pixels) {
  QVector<QPointF> out;
  out.reserve(pixels.size());
  for (const QPointF& p : pixels) {
    const auto n = out.size();
    // Each point merged lies between the run's two ends, so merging again keeps it there.
    if (n >= 2 && finite(p) && finite(out[n - 1]) && finite(out[n - 2]) &&
        onRun(out[n - 2], out[n - 1], p)) {
      out.back() = p;
      continue;
    }
    out.append(p);
  }
  return out;
}

QVector<QLineF> FastGraph::dashSegments(const QVector<QPointF>& pixels,
                                        const QVector<qreal>& pattern, qreal offset) {
  QVector<QLineF> out;
  double period = 0;
  for (qreal d : pattern) period += std::max(d, 0.0);
  const bool solid = pattern.size() < 2 || !(period > 0);
  // Where in the pattern the line is: which entry, and how far into it.
  int index = 0;
  double into = 0;
  const auto restart = [&] {
    index = 0;
    into = solid ? 0 : std::fmod(std::max(offset, 0.0), period);
    while (!solid && into >= pattern[index]) {
      into -= pattern[index];
      index = (index + 1) % static_cast<int>(pattern.size());
    }
  };
  restart();
  for (qsizetype i = 1; i < pixels.size(); ++i) {
    const QPointF a = pixels[i - 1];
    const QPointF b = pixels[i];
    if (!finite(a) || !finite(b)) {
      restart();
      continue;
    }
    const double length = std::hypot(b.x() - a.x(), b.y() - a.y());
    if (!(length > 0)) continue;
    if (solid) {
      out.append(QLineF(a, b));
      continue;
    }
    double at = 0;  // pixels along this segment
    while (at < length) {
      const double step = std::min(pattern[index] - into, length - at);
      if (index % 2 == 0 && step > 0) {
        const QPointF from = a + (b - a) * (at / length);
        const QPointF to = a + (b - a) * ((at + step) / length);
        out.append(QLineF(from, to));  // a dash across a vertex is two segments
      }
      at += step;
      into += step;
      if (into >= pattern[index]) {
        into = 0;
        index = (index + 1) % static_cast<int>(pattern.size());
      }
    }
  }
  return out;
}

void FastGraph::drawLinePlot(QCPPainter* painter, const QVector<QPointF>& lines) const {
  const QPen pen = painter->pen();
  if (pen.style() == Qt::NoPen || pen.color().alpha() == 0) return;
  if (painter->modes().testFlag(QCPPainter::pmVectorized)) {
    QCPGraph::drawLinePlot(painter, lines);  // PDF, SVG: one path with the pen's own dashes
    return;
  }
  applyDefaultAntialiasingHint(painter);
  const QVector<QPointF> points = withoutRunPoints(lines);
  const double width = std::max(pen.widthF(), 1.0);
  if (width <= 1) {
    // One pixel: QPainter's cosmetic stroker is fast for these, dashed or not.
    drawPolyline(painter, points);
    return;
  }
  QVector<qreal> pattern;
  if (pen.style() != Qt::SolidLine)
    for (qreal d : pen.dashPattern()) pattern.append(d * width);
  const QVector<QLineF> segments = dashSegments(points, pattern, pen.dashOffset() * width);
  QPen solid = pen;
  solid.setStyle(Qt::SolidLine);
  painter->setPen(solid);
  painter->drawLines(segments);
  painter->setPen(pen);
}

}  // namespace throttlelab::ui
