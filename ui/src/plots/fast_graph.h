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
///
/// FastPlot is a QCustomPlot that puts its picture on the screen with fewer passes over its
/// pixels. A plain QCustomPlot, per frame, fills its paint buffers with transparency, and then
/// in its paint event fills itself with the background (after Qt has painted the window's
/// background under it, as it does for widgets that are not opaque), blends the first buffer
/// over that and blends every other buffer, empty or not. FastPlot fills its first buffer with
/// its background (when that is opaque), copies it to the screen instead of blending it, says
/// it is opaque (so the window is not painted under it), and skips buffers whose layers show
/// nothing (the hover overlay, while nothing hovers). What it shows is the same; exports
/// (savePng, savePdf, toPainter) draw the layers afresh and use none of this.
///
/// Text is laid out and shaped again whenever QCustomPlot measures or draws it, several times a
/// replot for every title and legend entry. FastText (a title) remembers its size;
/// FastLegendItem (which FastPlot puts in place of each plain legend entry before a replot)
/// remembers its size and keeps its text as a pixmap, drawn anew only when its text, font,
/// colour or size changes, as QCustomPlot already does for tick labels. Exports draw the text
/// itself.
#include <QLineF>
#include <QPointF>
#include <QVector>
#include <optional>

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

/// Text drawn once into a pixmap and then copied, redrawn only when what it shows changes.
class TextPixmap {
 public:
  /// Draws `text` in `rect` as QPainter::drawText(rect, flags, text) would; returns the
  /// bounding rectangle of the text.
  QRect draw(QCPPainter* painter, const QRect& rect, int flags, const QString& text,
             const QFont& font, const QColor& colour);

 private:
  QString m_text;
  int m_flags = 0;
  QFont m_font;
  QColor m_colour;
  QSize m_size;
  qreal m_ratio = 0;
  QRect m_bounds;  ///< relative to the rect's top left
  QPixmap m_pixmap;
};

/// A QCPTextElement whose size is kept between replots (its text is drawn as QCustomPlot
/// draws it: a title centred in its cell lands on half pixels, which a pixmap would round).
class FastText : public QCPTextElement {
 public:
  FastText(QCustomPlot* plot, const QString& text = QString());

 protected:
  QSize minimumOuterSizeHint() const override;
  QSize maximumOuterSizeHint() const override;

 private:
  QSize textSize() const;
  mutable QString m_sizedText;
  mutable QFont m_sizedFont;
  mutable QSize m_size{-1, -1};
};

/// A legend entry whose size and text pixels are kept between replots (its icon is drawn live).
class FastLegendItem : public QCPPlottableLegendItem {
 public:
  FastLegendItem(QCPLegend* legend, QCPAbstractPlottable* plottable);

 protected:
  void draw(QCPPainter* painter) override;
  QSize minimumOuterSizeHint() const override;

 private:
  QRect textRect() const;
  mutable QString m_sizedText;
  mutable QFont m_sizedFont;
  mutable int m_sizedHeight = -1;
  mutable QRect m_textRect;
  TextPixmap m_pixmap;
};

class FastPlot : public QCustomPlot {
 public:
  explicit FastPlot(QWidget* parent = nullptr);

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  /// The plot's background, if it is an opaque colour (what the first buffer is filled with).
  std::optional<QColor> opaqueBackground() const;
  /// Before each replot: the first paint buffer is one that fills itself with the background,
  /// and every plain legend entry is a FastLegendItem.
  void prepareReplot();
  /// For each paint buffer, whether any of its layers has something visible on it.
  QVector<bool> buffersInUse() const;
};

}  // namespace throttlelab::ui
