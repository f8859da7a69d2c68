// SPDX-License-Identifier: GPL-3.0-or-later
#include "line_raster.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace throttlelab::ui::raster {

namespace {
bool finite(QPointF p) {
  return std::isfinite(p.x()) && std::isfinite(p.y());
}

constexpr float kEmptyTop = std::numeric_limits<float>::infinity();
constexpr float kEmptyBottom = -std::numeric_limits<float>::infinity();
/// Stretches are kept within this many pixels of the origin: far enough outside any plot that
/// clipping decides, near enough that a float keeps a pixel's precision.
constexpr double kFar = 1 << 22;
}  // namespace

ColumnSpans::ColumnSpans(int first, int count)
    : m_first(first),
      m_top(static_cast<std::size_t>(std::max(count, 0)), kEmptyTop),
      m_bottom(static_cast<std::size_t>(std::max(count, 0)), kEmptyBottom) {}

bool ColumnSpans::covered(int column) const {
  return column >= m_first && column < m_first + count() &&
         m_top[index(column)] <= m_bottom[index(column)];
}

void ColumnSpans::extend(int column, double y0, double y1) {
  const auto i = index(column);
  const auto lo = static_cast<float>(std::clamp(std::min(y0, y1), -kFar, kFar));
  const auto hi = static_cast<float>(std::clamp(std::max(y0, y1), -kFar, kFar));
  m_top[i] = std::min(m_top[i], lo);
  m_bottom[i] = std::max(m_bottom[i], hi);
}

void ColumnSpans::addSegment(QPointF a, QPointF b) {
  if (!finite(a) || !finite(b) || count() == 0) return;
  if (a.x() > b.x()) std::swap(a, b);
  const double left = m_first;
  const double right = static_cast<double>(m_first) + count();  // one past the last column
  if (b.x() < left || a.x() >= right) return;
  const double dx = b.x() - a.x();
  const double slope = dx > 0 ? (b.y() - a.y()) / dx : 0;
  // Whole columns only, so the conversions below cannot overflow whatever the pixels are.
  const int c0 = static_cast<int>(floorOf(std::clamp(a.x(), left, right - 0.5)));
  const int c1 = static_cast<int>(floorOf(std::clamp(b.x(), left, right - 0.5)));
  if (!(dx > 0) || c0 == c1) {
    // Within one column (most segments of a dense line): its ends, or where it crosses the
    // column's edges if it reaches past them.
    const double x0 = std::max(a.x(), left);
    const double x1 = std::min(b.x(), right);
    extend(c0, dx > 0 ? a.y() + (x0 - a.x()) * slope : a.y(),
           dx > 0 ? a.y() + (x1 - a.x()) * slope : b.y());
    return;
  }
  for (int c = c0; c <= c1; ++c) {
    const double x0 = std::max(a.x(), static_cast<double>(c));
    const double x1 = std::min(b.x(), static_cast<double>(c) + 1);
    extend(c, a.y() + (x0 - a.x()) * slope, a.y() + (x1 - a.x()) * slope);
  }
}

void ColumnSpans::addJoin(QPointF a, QPointF b) {
  // Most segments of a dense line begin and end in one column.
  const double column = floorOf(a.x());
  if (finite(a) && finite(b) && column == floorOf(b.x()) && column >= m_first &&
      column < static_cast<double>(m_first) + count()) {
    extend(static_cast<int>(column), a.y(), b.y());
    return;
  }
  // The join from one column's last point to the next column's first: addSegment's arithmetic
  // for two columns, without its general case.
  if (finite(a) && finite(b) && floorOf(b.x()) == column + 1 && column >= m_first &&
      column + 1 < static_cast<double>(m_first) + count() && b.x() > a.x()) {
    const double slope = (b.y() - a.y()) / (b.x() - a.x());
    const double edge = a.y() + (column + 1 - a.x()) * slope;
    extend(static_cast<int>(column), a.y() + (a.x() - a.x()) * slope, edge);
    extend(static_cast<int>(column) + 1, edge, a.y() + (b.x() - a.x()) * slope);
    return;
  }
  addSegment(a, b);
}

void ColumnSpans::addRun(const QPointF* previous, const QPointF* points, int count) {
  if (count <= 0) return;
  if (previous) addJoin(*previous, points[0]);
  if (count == 1) return;
  // The points are in x order, so if the first and the last share a column all of them do, and
  // the segments between them cover there just what their highest and lowest point span.
  const double column = floorOf(points[0].x());
  bool oneColumn = column == floorOf(points[count - 1].x()) && column >= m_first &&
                   column < static_cast<double>(m_first) + this->count();
  double low = points[0].y();
  double high = low;
  for (int i = 0; oneColumn && i < count; ++i) {
    oneColumn = finite(points[i]);
    low = std::min(low, points[i].y());
    high = std::max(high, points[i].y());
  }
  if (oneColumn) {
    extend(static_cast<int>(column), low, high);
    return;
  }
  for (int i = 1; i < count; ++i) addJoin(points[i - 1], points[i]);
}

void ColumnSpans::addPolyline(const QVector<QPointF>& points, bool stepLeft) {
  for (qsizetype i = 1; i < points.size(); ++i) {
    const QPointF a = points[i - 1];
    const QPointF b = points[i];
    if (!stepLeft) {
      addJoin(a, b);
      continue;
    }
    const QPointF corner(b.x(), a.y());
    addSegment(a, corner);
    addSegment(corner, b);
  }
  // A lone point between gaps is no line (QPainter draws nothing for it either).
}

QRgb blendOver(QRgb destination, QRgb source, unsigned coverage) {
  // The usual byte arithmetic on two channels at once: (x * a + 128) / 255, rounded.
  const auto scale = [](QRgb pixel, unsigned alpha) {
    quint32 rb = (pixel & 0x00ff00ffU) * alpha;
    rb = ((rb + ((rb >> 8) & 0x00ff00ffU) + 0x00800080U) >> 8) & 0x00ff00ffU;
    quint32 ag = ((pixel >> 8) & 0x00ff00ffU) * alpha;
    ag = (ag + ((ag >> 8) & 0x00ff00ffU) + 0x00800080U) & 0xff00ff00U;
    return rb | ag;
  };
  const QRgb src = coverage >= 256 ? source : scale(source, (coverage * 255 + 128) >> 8);
  return src + scale(destination, 255 - qAlpha(src));
}

bool dashCovers(const Stroke& stroke, double x) {
  double period = 0;
  for (double d : stroke.dash) period += std::max(d, 0.0);
  if (stroke.dash.size() < 2 || !(period > 0)) return true;
  double into = std::fmod(x - stroke.dashStart, period);
  if (into < 0) into += period;
  for (qsizetype i = 0; i < stroke.dash.size(); ++i) {
    const double d = std::max(stroke.dash[i], 0.0);
    if (into < d) return i % 2 == 0;
    into -= d;
  }
  return false;
}

bool drawableFormat(const QImage& image) {
  return image.format() == QImage::Format_ARGB32_Premultiplied ||
         image.format() == QImage::Format_RGB32;
}

void fillSpans(QImage& image, const QRect& clip, const ColumnSpans& spans, const Stroke& stroke,
               QPoint offset) {
  const QRect area = clip & image.rect();
  if (area.isEmpty() || spans.count() == 0 || !drawableFormat(image) ||
      qAlpha(stroke.premultiplied) == 0)
    return;
  const double width = std::max(stroke.width, 1.0);
  const double half = width / 2;
  // A pen n pixels wide reaches (n - 1) / 2 columns to the left of its line and the rest to the
  // right; antialiased lines are at most one pixel wide.
  const int across = stroke.antialias ? 1 : std::max(1, static_cast<int>(std::lround(width)));
  const int reachLeft = (across - 1) / 2;
  const int reachRight = across - 1 - reachLeft;
  // A round pen: the line's stretch in a column k columns away widens this column by
  // sqrt(half² - k²) above and below (QPainter strokes a pen's width across the line, so a wide
  // line is no thicker on a slope than a row of discs along it would be).
  double reachOf[8] = {};
  for (int k = 0; k < 8; ++k)
    reachOf[k] = k == 0 ? half : std::sqrt(std::max(0.0, half * half - 1.0 * k * k));
  const bool opaque = qAlpha(stroke.premultiplied) == 255;
  const bool dashed = stroke.dash.size() >= 2;
  uchar* bits = image.bits();
  const qsizetype stride = image.bytesPerLine();
  const auto pixel = [&](int x, int y) {
    return reinterpret_cast<QRgb*>(bits + static_cast<qsizetype>(y) * stride) + x;
  };
  for (int x = area.left(); x <= area.right(); ++x) {
    const int column = x - offset.x();
    double top = std::numeric_limits<double>::infinity();
    double bottom = -std::numeric_limits<double>::infinity();
    for (int c = column - reachRight; c <= column + reachLeft; ++c)
      if (spans.covered(c)) {
        const double widen = reachOf[std::min(std::abs(c - column), 7)];
        top = std::min(top, static_cast<double>(spans.top(c)) - widen);
        bottom = std::max(bottom, static_cast<double>(spans.bottom(c)) + widen);
      }
    if (!(top <= bottom) || (dashed && !dashCovers(stroke, x + 0.5))) continue;
    // Rows outside the clip cannot matter: clamp first, so the conversions stay in range.
    const double y0 = std::clamp(top + offset.y(), area.top() - 1.0, area.bottom() + 2.0);
    const double y1 = std::clamp(bottom + offset.y(), area.top() - 1.0, area.bottom() + 2.0);
    if (!stroke.antialias) {
      const int first = static_cast<int>(floorOf(y0 + 0.5));
      const int r0 = std::max(area.top(), first);
      const int r1 =
          std::min(area.bottom(), std::max(first, static_cast<int>(floorOf(y1 + 0.5)) - 1));
      for (int r = r0; r <= r1; ++r) {
        QRgb* p = pixel(x, r);
        *p = opaque ? stroke.premultiplied : blendOver(*p, stroke.premultiplied, 256);
      }
      continue;
    }
    const int r0 = std::max(area.top(), static_cast<int>(floorOf(y0)));
    const int r1 = std::min(area.bottom(), static_cast<int>(-floorOf(-y1)) - 1);
    const auto partRow = [&](int r) {
      const double cover = std::min(r + 1.0, y1) - std::max(static_cast<double>(r), y0);
      if (!(cover > 0)) return;
      QRgb* p = pixel(x, r);
      const auto coverage = static_cast<unsigned>(std::min(cover, 1.0) * 256 + 0.5);
      *p = opaque && coverage >= 256 ? stroke.premultiplied
                                     : blendOver(*p, stroke.premultiplied, coverage);
    };
    if (r0 > r1) continue;
    // Only the first and the last row can be partly covered; the rows between are whole (most
    // of a tall stretch's pixels), written without the arithmetic of coverage.
    partRow(r0);
    if (r1 > r0) partRow(r1);
    QRgb* p = r1 - r0 >= 2 ? pixel(x, r0 + 1) : nullptr;
    const qsizetype step = stride / static_cast<qsizetype>(sizeof(QRgb));
    for (int r = r0 + 1; r < r1; ++r, p += step)
      *p = opaque ? stroke.premultiplied : blendOver(*p, stroke.premultiplied, 256);
  }
}

void fillBand(QImage& image, const QRect& clip, const ColumnSpans& upper, const ColumnSpans& lower,
              QRgb premultiplied, bool antialias) {
  const QRect area = clip & image.rect();
  if (area.isEmpty() || !drawableFormat(image) || qAlpha(premultiplied) == 0) return;
  for (int x = area.left(); x <= area.right(); ++x) {
    if (!upper.covered(x) || !lower.covered(x)) continue;
    const double top = std::clamp(static_cast<double>(std::min(upper.top(x), lower.top(x))),
                                  area.top() - 1.0, area.bottom() + 2.0);
    const double bottom =
        std::clamp(static_cast<double>(std::max(upper.bottom(x), lower.bottom(x))),
                   area.top() - 1.0, area.bottom() + 2.0);
    const int r0 = std::max(area.top(), static_cast<int>(floorOf(antialias ? top : top + 0.5)));
    const int r1 = std::min(area.bottom(), static_cast<int>(antialias ? -floorOf(-bottom) - 1
                                                                      : floorOf(bottom + 0.5) - 1));
    for (int r = r0; r <= r1; ++r) {
      auto* p = reinterpret_cast<QRgb*>(image.scanLine(r)) + x;
      const double cover =
          antialias ? std::min(r + 1.0, bottom) - std::max(static_cast<double>(r), top) : 1.0;
      if (!(cover > 0)) continue;
      *p = blendOver(*p, premultiplied, static_cast<unsigned>(std::min(cover, 1.0) * 256 + 0.5));
    }
  }
}

void stampDots(QImage& image, const QRect& clip, const Stamp& stamp, const QVector<QPoint>& at) {
  const QRect area = clip & image.rect();
  if (area.isEmpty() || stamp.image.isNull() || !drawableFormat(image) ||
      stamp.image.format() != QImage::Format_ARGB32_Premultiplied)
    return;
  const QRect local = stamp.image.rect();
  for (const QPoint& point : at) {
    const QPoint origin = point - stamp.centre;
    const QRect placed = local.translated(origin) & area;
    if (placed.isEmpty()) continue;
    for (int y = placed.top(); y <= placed.bottom(); ++y) {
      auto* row = reinterpret_cast<QRgb*>(image.scanLine(y));
      const auto* from = reinterpret_cast<const QRgb*>(stamp.image.constScanLine(y - origin.y()));
      for (int x = placed.left(); x <= placed.right(); ++x) {
        const QRgb s = from[x - origin.x()];
        if (qAlpha(s) == 0) continue;
        row[x] = qAlpha(s) == 255 ? s : blendOver(row[x], s, 256);
      }
    }
  }
}

}  // namespace throttlelab::ui::raster
