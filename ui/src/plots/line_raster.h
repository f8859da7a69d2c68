// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Drawing a time series straight into a plot's paint buffer (a premultiplied ARGB32 image), one
/// pixel column at a time, instead of through QPainter's general stroker.
///
/// A line over time, drawn at a width of a pixel or so, is on the screen no more than the
/// vertical stretch it covers in each pixel column: from its lowest to its highest point there,
/// counting where it enters and leaves the column. So the line is first reduced to those stretches
/// (ColumnSpans, in time proportional to its points plus the columns it crosses), and then each
/// stretch is filled as a short vertical run of pixels, widened by the pen and, when antialiased,
/// with its two end pixels covered in proportion (fillSpans). That is the picture QPainter makes
/// of a dense series, within a pixel where the line is steep; it costs microseconds a column
/// where QPainter's antialiased stroker, which outlines every segment, cost a millisecond a graph
/// (measured by gui_bench --per-graph).
///
/// Dots (a scatter style) are drawn once into a small image and then copied to each place,
/// rounded to whole pixels and drawn once per pixel (stampDots).
#include <QImage>
#include <QPoint>
#include <QPointF>
#include <QRect>
#include <QRgb>
#include <QVector>
#include <vector>

namespace throttlelab::ui::raster {

/// Per pixel column of a range, the vertical stretch (in pixels, y down) a line covers there.
class ColumnSpans {
 public:
  /// Columns [first, first + count). Column c holds x in [c, c + 1).
  ColumnSpans(int first, int count);

  /// The straight segment from `a` to `b` (pixels, either order); nothing if either is NaN.
  void addSegment(QPointF a, QPointF b);
  /// A polyline, broken at NaN points; with `stepLeft`, each point holds its value until the
  /// next point's x (QCPGraph::lsStepLeft) and then steps to it.
  void addPolyline(const QVector<QPointF>& points, bool stepLeft);
  /// The next `count` points of a polyline (not stepped), joined to the point before them if
  /// `previous` is given: what addPolyline would add for them. Points that all lie in one
  /// column (a dense series reduced to a column's extremes) cost one stretch, not a segment each.
  void addRun(const QPointF* previous, const QPointF* points, int count);

  int first() const { return m_first; }
  int count() const { return static_cast<int>(m_top.size()); }
  bool covered(int column) const;
  /// The stretch of a covered column: top <= bottom.
  float top(int column) const { return m_top[index(column)]; }
  float bottom(int column) const { return m_bottom[index(column)]; }

 private:
  std::size_t index(int column) const { return static_cast<std::size_t>(column - m_first); }
  void extend(int column, double y0, double y1);
  /// One segment of a polyline that is not stepped.
  void addJoin(QPointF a, QPointF b);

  int m_first;
  std::vector<float> m_top;
  std::vector<float> m_bottom;
};

/// How a line is drawn: its colour (premultiplied ARGB), width in pixels (at least 1), and
/// whether its ends are antialiased (only for widths up to one pixel, where a column's stretch
/// is the whole picture; wider antialiased lines go through QPainter).
struct Stroke {
  QRgb premultiplied = 0;
  double width = 1;
  bool antialias = false;
  /// A dash pattern (pixels on, off, on, …) laid along x from `dashStart`; empty: solid. Along
  /// x, not along the line: a threshold or a watermark is flat, and a dash that crosses a step
  /// is drawn whole or not at all.
  QVector<double> dash;
  double dashStart = 0;
};

/// Whether the column starting at `x` is in a dash ("on") of `stroke`'s pattern.
bool dashCovers(const Stroke& stroke, double x);

/// Fills each covered column's stretch into `image` (ARGB32 premultiplied or RGB32), widened by
/// half the pen's width above and below and, for wider pens, by the columns the pen reaches left
/// and right. Only pixels inside `clip` (image coordinates) are touched. `offset` is added to
/// every column and row of `spans` (the painter's translation).
void fillSpans(QImage& image, const QRect& clip, const ColumnSpans& spans, const Stroke& stroke,
               QPoint offset = {});

/// Fills, in each column both `upper` and `lower` cover, from the top of the two stretches to
/// their bottom (the band between two lines, QCPGraph's channel fill), antialiased at its two
/// ends if `antialias`.
void fillBand(QImage& image, const QRect& clip, const ColumnSpans& upper, const ColumnSpans& lower,
              QRgb premultiplied, bool antialias);

/// A small premultiplied image of one dot, with the pixel its centre is on.
struct Stamp {
  QImage image;
  QPoint centre;
};

/// Draws `stamp` at each of `at` (whole pixels, image coordinates), inside `clip`.
void stampDots(QImage& image, const QRect& clip, const Stamp& stamp, const QVector<QPoint>& at);

/// floor(x) as a double, without a library call on CPUs without SSE 4.1 (x is clamped to
/// ±2^52 first: beyond that every double is whole).
inline double floorOf(double x) {
  constexpr double kWhole = 4503599627370496.0;  // 2^52
  if (!(x > -kWhole && x < kWhole)) return x;
  const auto truncated = static_cast<double>(static_cast<long long>(x));
  return truncated > x ? truncated - 1 : truncated;
}

/// Source-over of premultiplied `source`, scaled by `coverage` (0–256), onto premultiplied
/// `destination`.
QRgb blendOver(QRgb destination, QRgb source, unsigned coverage);

/// Whether fillSpans and stampDots can write into `image` directly.
bool drawableFormat(const QImage& image);

}  // namespace throttlelab::ui::raster
