// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// A QCPGraph that draws itself for the screen with less work and the same picture, and a
/// QCustomPlot that puts its picture on the screen with fewer passes over its pixels.
/// Include it from .cpp files only (it needs the whole QCustomPlot header, through qcp.h).
///
/// What a live frame spends on a graph (measured by gui_bench --per-graph and perf) went to
/// three things: turning every point into pixels through QCPAxis::coordToPixel (a virtual call
/// per value, and two logarithms per value on a log axis), thinning the points (QCustomPlot's
/// adaptive sampling), and stroking the result with QPainter, whose antialiased stroker outlines
/// every segment. For the screen, FastGraph instead
///  - reduces the visible data to what a pixel column can show, in the data's own units: the
///    first, lowest, highest and last point of each column, in their order (the "M4" reduction
///    of Jugel et al., VLDB 2014, which draws the same line as all the points do), and maps only
///    those to pixels, with the axis's transform taken once per replot (PixelMap);
///  - draws a solid line (of any width without antialiasing, of up to a pixel with) straight
///    into the plot's paint buffer, one vertical run of pixels per column (line_raster.h);
///  - draws dots as copies of one dot drawn once, at whole pixels, once per pixel.
/// Anything else (dashes, wide antialiased pens, fills, selections) is drawn through QPainter
/// from the same reduced points: wide pens as separate segments with the dash pattern laid
/// along the line, so every dash is a short solid segment, and flat runs (thresholds,
/// watermarks, steps) reduced to their ends. Exports (PDF, SVG, and savePng, which draws without
/// caching) keep QCustomPlot's own drawing of every point.
///
/// FastPlot is a QCustomPlot whose paint buffers are images the graphs can write into. A plain
/// QCustomPlot, per frame, fills its paint buffers with transparency, and then in its paint
/// event fills itself with the background (after Qt has painted the window's background under
/// it, as it does for widgets that are not opaque), blends the first buffer over that and blends
/// every other buffer, empty or not. FastPlot fills its first buffer with its background (when
/// that is opaque), copies it to the screen instead of blending it, says it is opaque (so the
/// window is not painted under it), and skips buffers whose layers show nothing (the hover
/// overlay, while nothing hovers). What it shows is the same; exports (savePng, savePdf,
/// toPainter) draw the layers afresh and use none of this.
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
#include <cmath>
#include <optional>

#include "line_raster.h"
#include "qcp.h"

namespace throttlelab::ui {

/// One axis's coordinate-to-pixel transform for one replot (QCPAxis::coordToPixel without its
/// per-call branches, and with one logarithm per value on a log axis instead of two).
class PixelMap {
 public:
  explicit PixelMap(const QCPAxis* axis);
  /// The coordinate at `pixel` (QCPAxis::pixelToCoord).
  double coord(double pixel) const;
  /// Linear axes, and logarithmic ones over positive ranges, with a range of some size.
  static bool handles(const QCPAxis* axis);
  double operator()(double coord) const {
    if (!m_log) return m_origin + (coord - m_lower) * m_scale;
    // Values a log axis cannot show go where QCPAxis puts them (outside the axis rect).
    // In single precision (a quarter of the time): a pixel's worth of a log axis is far coarser.
    return coord > 0
               ? m_origin +
                     (static_cast<double>(std::log(static_cast<float>(coord))) - m_lower) * m_scale
               : m_axis->coordToPixel(coord);
  }

 private:
  const QCPAxis* m_axis;
  bool m_log;
  double m_lowerCoord = 0;  ///< the range's lower end
  double m_lower = 0;       ///< the same, or its logarithm on a log axis
  double m_origin = 0;      ///< its pixel
  double m_scale = 0;       ///< pixels per unit (per unit of logarithm)
};

class FastGraph : public QCPGraph {
 public:
  FastGraph(QCPAxis* keyAxis, QCPAxis* valueAxis);

  /// The points of the line through [begin, end) (keys ascending) that it shows at the
  /// resolution of whole pixel columns (column = floor(x * columnScale + columnOffset) for x
  /// in pixels of `key`, so a painter's scale and translation can be followed): in each
  /// column, the first, the lowest, the highest and the last, in their order, each once, in
  /// pixels. A NaN value breaks the line: one NaN point stands for the gap.
  static QVector<QPointF> columnPoints(QCPGraphDataContainer::const_iterator begin,
                                       QCPGraphDataContainer::const_iterator end,
                                       const PixelMap& key, const PixelMap& value,
                                       double columnScale = 1, double columnOffset = 0);
  /// The points of [begin, end) in pixels, one for each whole pixel they fall in (the first
  /// there); NaN values are left out.
  static QVector<QPointF> dotPoints(QCPGraphDataContainer::const_iterator begin,
                                    QCPGraphDataContainer::const_iterator end, const PixelMap& key,
                                    const PixelMap& value);
  /// The steps of QCPGraph::lsStepLeft through `points`: each holds its value until the next
  /// point's x.
  static QVector<QPointF> stepLeftPoints(const QVector<QPointF>& points);
  /// `pixels` without the points that lie between their neighbours on a horizontal or
  /// vertical straight run; NaN points (gaps) are kept.
  static QVector<QPointF> withoutRunPoints(const QVector<QPointF>& pixels);
  /// The "on" stretches of the dash `pattern` (lengths in pixels, on first) laid along the
  /// polyline from `offset` pixels into the pattern; the pattern starts again after each NaN
  /// gap, as QPainter's does for each polyline. An empty pattern: every segment.
  static QVector<QLineF> dashSegments(const QVector<QPointF>& pixels, const QVector<qreal>& pattern,
                                      qreal offset);

 protected:
  void draw(QCPPainter* painter) override;
  void drawLinePlot(QCPPainter* painter, const QVector<QPointF>& lines) const override;

 private:
  /// Whether draw() can take its own way for this painter and this graph's settings.
  bool drawsItself(const QCPPainter* painter) const;
  /// The graph this one's fill reaches to, if draw() can fill the band between them itself.
  const FastGraph* fillPartner() const;
  /// The visible line's stretch in each device column of `clip`, the painter's transform `t`
  /// (a translation) applied.
  raster::ColumnSpans spansOf(const QRect& clip, const QTransform& t) const;
  /// The dot of the scatter style, drawn once (antialiased or not).
  const raster::Stamp& dotStamp(bool antialias) const;

  struct StampKey {
    int shape = -1;
    double size = 0;
    QPen pen;
    QBrush brush;
    bool antialias = false;
    bool operator==(const StampKey&) const = default;
  };
  mutable StampKey m_stampKey;
  mutable raster::Stamp m_stamp;
};

/// The lowest and highest value of the points of `data` whose keys lie in `keys` (only positive
/// values if `positiveOnly`; NaN values left out), as QCPDataContainer::valueRange finds them in
/// a quarter of the time (autoscaling scans every visible point of every graph each frame).
QCPRange valueRangeOver(const QCPGraphDataContainer& data, const QCPRange& keys, bool positiveOnly,
                        bool& found);

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
  QPointF m_fraction{-1, -1};
  QRect m_bounds;      ///< the pixmap's, relative to the rect's top left
  QRect m_textBounds;  ///< the text's, relative to the rect's top left
  QPixmap m_pixmap;
};

/// A QCPTextElement whose size and text pixels are kept between replots (laid out within a
/// rect of its cell's size, as QCustomPlot lays it out, so a title centred on a half pixel
/// stays there).
class FastText : public QCPTextElement {
 public:
  FastText(QCustomPlot* plot, const QString& text = QString());

 protected:
  QSize minimumOuterSizeHint() const override;
  QSize maximumOuterSizeHint() const override;
  void draw(QCPPainter* painter) override;

 private:
  QSize textSize() const;
  mutable QString m_sizedText;
  mutable QFont m_sizedFont;
  mutable QSize m_size{-1, -1};
  TextPixmap m_pixmap;
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
  /// Before each replot: every paint buffer is an image (the first one filled with the
  /// background), and every plain legend entry is a FastLegendItem.
  void prepareReplot();
  /// How many paint buffers the layers need (as QCustomPlot::setupPaintBuffers counts them).
  qsizetype buffersNeeded() const;
  /// For each paint buffer, whether any of its layers has something visible on it.
  QVector<bool> buffersInUse() const;
};

}  // namespace throttlelab::ui
