// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// A QCPGraph that strokes its line for the screen with less work and the same picture.
/// Include it from .cpp files only (it needs the whole QCustomPlot header, through qcp.h).
///
/// What a live frame spends on a graph is mostly the stroke (measured by gui_bench's
/// --per-graph). Two things make it dear: points that add nothing, and wide or dashed pens,
/// which QPainter outlines and fills as one path (a 2 px dotted line of 6,000 points took
/// 5–12 ms; presenter mode's lines are 2–5 px). On a raster painter this graph
///  - drops the points that lie on a horizontal or vertical run between their neighbours
///    (flat thresholds, watermarks, steps: thousands of points become a few), and
///  - draws lines wider than a pixel as separate segments, laying the dash pattern along the
///    line itself, so every dash is a short solid segment (about 1 ms per graph).
/// Vector exports (PDF, SVG) keep QCustomPlot's own drawing: one path, the pen's own dashes.
#include <QLineF>
#include <QPointF>
#include <QVector>

#include "qcp.h"

namespace throttlelab::ui {

class FastGraph : public QCPGraph {
 public:
  FastGraph(QCPAxis* keyAxis, QCPAxis* valueAxis);

  /// `pixels` without the points that lie between their neighbours on a horizontal or
  /// vertical straight run; NaN points (gaps) are kept.
  static QVector<QPointF> withoutRunPoints(const QVector<QPointF>& pixels);
  /// The "on" stretches of the dash `pattern` (lengths in pixels, on first) laid along the
  /// polyline from `offset` pixels into the pattern; the pattern starts again after each NaN
  /// gap, as QPainter's does for each polyline. An empty pattern: every segment.
  static QVector<QLineF> dashSegments(const QVector<QPointF>& pixels, const QVector<qreal>& pattern,
                                      qreal offset);

 protected:
  void drawLinePlot(QCPPainter* painter, const QVector<QPointF>& lines) const override;
};

/// A FastGraph on `keyAxis`/`valueAxis` (the plot's xAxis/yAxis when null), as addGraph makes
/// a QCPGraph.
FastGraph* addFastGraph(QCustomPlot* plot, QCPAxis* keyAxis = nullptr,
                        QCPAxis* valueAxis = nullptr);

}  // namespace throttlelab::ui
