// SPDX-License-Identifier: GPL-3.0-or-later
#include "fast_graph.h"

#include <QFontMetrics>
#include <QPainter>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <typeinfo>
#include <utility>

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

PixelMap::PixelMap(const QCPAxis* axis)
    : m_axis(axis), m_log(axis->scaleType() == QCPAxis::stLogarithmic) {
  const QCPRange range = axis->range();
  m_lowerCoord = range.lower;
  const double from = axis->coordToPixel(range.lower);
  const double to = axis->coordToPixel(range.upper);
  m_origin = from;
  if (m_log) {
    m_lower = std::log(range.lower);
    m_scale = (to - from) / (std::log(range.upper) - m_lower);
  } else {
    m_lower = range.lower;
    m_scale = (to - from) / (range.upper - range.lower);
  }
}

double PixelMap::coord(double pixel) const {
  const double units = (pixel - m_origin) / m_scale;
  return m_log ? std::exp(m_lower + units) : m_lowerCoord + units;
}

bool PixelMap::handles(const QCPAxis* axis) {
  const QCPRange range = axis->range();
  if (!(range.upper > range.lower) || !std::isfinite(range.lower) || !std::isfinite(range.upper))
    return false;
  return axis->scaleType() == QCPAxis::stLinear || range.lower > 0;
}

namespace {
/// Walks [begin, end) a device pixel column at a time and hands each column's points (see
/// FastGraph::columnPoints: the first, the lowest, the highest and the last, in their order,
/// each once; in pixels) to `run(points, count)`, and each gap (NaN values) to `gap()`.
template <typename Run, typename Gap>
void forEachColumn(QCPGraphDataContainer::const_iterator begin,
                   QCPGraphDataContainer::const_iterator end, const PixelMap& key,
                   const PixelMap& value, double columnScale, double columnOffset, Run&& run,
                   Gap&& gap) {
  const qsizetype n = end - begin;
  if (n <= 0) return;
  if (!(columnScale > 0)) columnScale = 1;
  const QCPGraphData* data = &*begin;
  QPointF points[4];
  qsizetype i = 0;
  while (i < n) {
    if (std::isnan(data[i].value)) {
      gap();
      ++i;
      continue;
    }
    // A column starts at this point; the points before the key where the next one starts are
    // its own. Only the point that opens a column is mapped to pixels here.
    const double column = raster::floorOf(key(data[i].key) * columnScale + columnOffset);
    const double nextKey = key.coord((column + 1 - columnOffset) / columnScale);
    qsizetype first = i;
    qsizetype low = i;
    qsizetype high = i;
    for (++i; i < n && data[i].key < nextKey; ++i) {
      const double v = data[i].value;
      if (std::isnan(v)) break;
      if (v < data[low].value)
        low = i;
      else if (v > data[high].value)
        high = i;
    }
    const qsizetype last = i - 1;
    int count = 0;
    const auto put = [&](qsizetype k) {
      points[count++] = QPointF(key(data[k].key), value(data[k].value));
    };
    put(first);
    const qsizetype a = std::min(low, high);
    const qsizetype b = std::max(low, high);
    if (a != first && a != last) put(a);
    if (b != a && b != first && b != last) put(b);
    if (last != first) put(last);
    run(static_cast<const QPointF*>(points), count);
  }
}
}  // namespace

QVector<QPointF> FastGraph::columnPoints(QCPGraphDataContainer::const_iterator begin,
                                         QCPGraphDataContainer::const_iterator end,
                                         const PixelMap& key, const PixelMap& value,
                                         double columnScale, double columnOffset) {
  QVector<QPointF> out;
  out.reserve(std::min<qsizetype>(end - begin, 4096));
  forEachColumn(
      begin, end, key, value, columnScale, columnOffset,
      [&](const QPointF* points, int count) {
        for (int k = 0; k < count; ++k) out.append(points[k]);
      },
      [&] {
        if (!out.isEmpty() && !std::isnan(out.back().y())) out.append(QPointF(qQNaN(), qQNaN()));
      });
  return out;
}

QCPRange valueRangeOver(const QCPGraphDataContainer& data, const QCPRange& keys, bool positiveOnly,
                        bool& found) {
  const auto begin = data.findBegin(keys.lower, false);
  const auto end = data.findEnd(keys.upper, false);
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  const qsizetype n = end - begin;
  const QCPGraphData* p = n > 0 ? &*begin : nullptr;
  for (qsizetype i = 0; i < n; ++i) {
    if (p[i].key < keys.lower || p[i].key > keys.upper) continue;
    const double v = p[i].value;
    if (positiveOnly && !(v > 0)) continue;  // NaN too
    // NaN compares false both ways, so it changes neither end.
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
  }
  found = lo <= hi;
  return found ? QCPRange(lo, hi) : QCPRange();
}

QVector<QPointF> FastGraph::dotPoints(QCPGraphDataContainer::const_iterator begin,
                                      QCPGraphDataContainer::const_iterator end,
                                      const PixelMap& key, const PixelMap& value) {
  QVector<QPointF> out;
  // Keys ascend, so the pixels already drawn that matter are those of the current column.
  double column = qQNaN();
  QVector<double> rows;
  for (auto it = begin; it != end; ++it) {
    if (std::isnan(it->value)) continue;
    const QPointF p(key(it->key), value(it->value));
    if (!std::isfinite(p.x()) || !std::isfinite(p.y())) continue;
    const double c = std::floor(p.x());
    const double r = std::floor(p.y());
    if (c != column) {
      column = c;
      rows.clear();
    } else if (rows.contains(r)) {
      continue;
    }
    rows.append(r);
    out.append(p);
  }
  return out;
}

QVector<QPointF> FastGraph::stepLeftPoints(const QVector<QPointF>& points) {
  QVector<QPointF> out;
  out.reserve(points.size() * 2);
  for (qsizetype i = 0; i < points.size(); ++i) {
    const QPointF p = points[i];
    if (i > 0 && finite(p) && finite(points[i - 1])) out.append(QPointF(p.x(), points[i - 1].y()));
    out.append(p);
  }
  return out;
}

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
    // (The run test first: it fails for most points, and for every NaN.)
    if (n >= 2 && onRun(out[n - 2], out[n - 1], p) && finite(p) && finite(out[n - 1]) &&
        finite(out[n - 2])) {
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
    const double dx = b.x() - a.x();
    const double dy = b.y() - a.y();
    const double length = std::sqrt(dx * dx + dy * dy);
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

namespace {
/// The image a painter draws on, if lines can be written into it directly: a raster image in a
/// format line_raster knows, drawn on with a translation only (QCPPainter shifts antialiased
/// drawing by half a pixel), with plain source-over; `clip` is then the painter's clip there.
QImage* rasterTarget(QCPPainter* painter, QPointF& offset, QRect& clip) {
  QPaintDevice* device = painter->device();
  if (!device || device->devType() != QInternal::Image) return nullptr;
  auto* image = static_cast<QImage*>(device);
  const QTransform t = painter->deviceTransform();
  if (!raster::drawableFormat(*image) || t.type() > QTransform::TxTranslate ||
      painter->opacity() != 1 || painter->compositionMode() != QPainter::CompositionMode_SourceOver)
    return nullptr;
  offset = QPointF(t.dx(), t.dy());
  clip = painter->hasClipping() ? t.mapRect(painter->clipBoundingRect()).toAlignedRect()
                                : image->rect();
  return image;
}

QVector<QPointF> translated(QVector<QPointF> points, QPointF offset) {
  for (QPointF& p : points) p += offset;
  return points;
}
}  // namespace

bool FastGraph::drawsItself(const QCPPainter* painter) const {
  const QCPAxis* key = mKeyAxis.data();
  const QCPAxis* value = mValueAxis.data();
  // A fill only as a band to another graph of ours on the same key axis (fillPartner()).
  const bool fill = mBrush.style() != Qt::NoBrush || mChannelFillGraph;
  return !painter->modes().testFlag(QCPPainter::pmVectorized) &&
         !painter->modes().testFlag(QCPPainter::pmNoCaching) && key && value &&
         key->orientation() == Qt::Horizontal && value->orientation() == Qt::Vertical &&
         !key->rangeReversed() && PixelMap::handles(key) && PixelMap::handles(value) &&
         selection().isEmpty() && (!fill || fillPartner()) &&
         (mLineStyle == lsNone || mLineStyle == lsLine || mLineStyle == lsStepLeft);
}

const FastGraph* FastGraph::fillPartner() const {
  const auto* other = dynamic_cast<const FastGraph*>(mChannelFillGraph.data());
  if (!other || mBrush.style() != Qt::SolidPattern || other->keyAxis() != mKeyAxis.data() ||
      other->lineStyle() != mLineStyle)
    return nullptr;
  const QCPAxis* value = other->valueAxis();
  return value && value->orientation() == Qt::Vertical && PixelMap::handles(value) ? other
                                                                                   : nullptr;
}

raster::ColumnSpans FastGraph::spansOf(const QRect& clip, const QTransform& t) const {
  raster::ColumnSpans spans(clip.left() - 4, clip.width() + 8);
  const QCPAxis* keyAxis = mKeyAxis.data();
  const auto begin = mDataContainer->findBegin(keyAxis->range().lower);
  const auto end = mDataContainer->findEnd(keyAxis->range().upper);
  const PixelMap key(keyAxis);
  const PixelMap value(mValueAxis.data());
  if (mLineStyle == lsStepLeft) {
    const QVector<QPointF> points = columnPoints(begin, end, key, value, t.m11(), t.dx());
    spans.addPolyline(translated(points, QPointF(t.dx(), t.dy())), true);
    return spans;
  }
  // Column by column, without a list of points in between (this is most of a frame's work).
  const QPointF offset(t.dx(), t.dy());
  QPointF last;
  bool joined = false;
  forEachColumn(
      begin, end, key, value, t.m11(), t.dx(),
      [&](const QPointF* points, int count) {
        QPointF moved[4];
        for (int k = 0; k < count; ++k) moved[k] = points[k] + offset;
        spans.addRun(joined ? &last : nullptr, moved, count);
        last = moved[count - 1];
        joined = true;
      },
      [&] { joined = false; });
  return spans;
}

const raster::Stamp& FastGraph::dotStamp(bool antialias) const {
  const StampKey key{static_cast<int>(mScatterStyle.shape()), mScatterStyle.size(),
                     mScatterStyle.pen(), mScatterStyle.brush(), antialias};
  if (key == m_stampKey && !m_stamp.image.isNull()) return m_stamp;
  m_stampKey = key;
  const double reach = mScatterStyle.size() / 2 + std::max(mScatterStyle.pen().widthF(), 1.0) + 2;
  const int half = static_cast<int>(std::ceil(reach));
  QImage image(2 * half + 1, 2 * half + 1, QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::transparent);
  {
    QCPPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing, antialias);
    mScatterStyle.applyTo(&painter, mPen);
    // Centred on the middle of its centre pixel: a dot drawn at x lands within half a pixel.
    mScatterStyle.drawShape(&painter, half + 0.5, half + 0.5);
  }
  m_stamp = {image, QPoint(half, half)};
  return m_stamp;
}

void FastGraph::draw(QCPPainter* painter) {
  const QCPAxis* keyAxis = mKeyAxis.data();
  const QCPAxis* valueAxis = mValueAxis.data();
  if (!keyAxis || !valueAxis || !drawsItself(painter)) {
    QCPGraph::draw(painter);
    return;
  }
  if (mDataContainer->isEmpty() || (mLineStyle == lsNone && mScatterStyle.isNone())) return;
  const auto begin = mDataContainer->findBegin(keyAxis->range().lower);
  const auto end = mDataContainer->findEnd(keyAxis->range().upper);
  if (begin == end) return;
  const PixelMap key(keyAxis);
  const PixelMap value(valueAxis);

  if (const FastGraph* partner = fillPartner()) {
    // The band between this graph and its partner, under both lines, as QCPGraph draws it.
    applyFillAntialiasingHint(painter);
    QPointF offset;
    QRect clip;
    QImage* image = rasterTarget(painter, offset, clip);
    if (!image) {
      QCPGraph::draw(painter);  // a painter this graph cannot write into: all as QCustomPlot does
      return;
    }
    const QTransform t = painter->deviceTransform();
    raster::fillBand(*image, clip, spansOf(clip, t), partner->spansOf(clip, t),
                     qPremultiply(mBrush.color().rgba()),
                     painter->testRenderHint(QPainter::Antialiasing));
  }

  if (mLineStyle != lsNone && mPen.style() != Qt::NoPen && mPen.color().alpha() != 0) {
    const bool step = mLineStyle == lsStepLeft;
    applyDefaultAntialiasingHint(painter);
    const bool antialias = painter->testRenderHint(QPainter::Antialiasing);
    const QTransform t = painter->deviceTransform();
    const double width = std::max(mPen.widthF(), 1.0);
    QPointF offset;
    QRect clip;
    QImage* image = rasterTarget(painter, offset, clip);
    if (image && mPen.brush().style() == Qt::SolidPattern && (!antialias || width <= 1)) {
      raster::Stroke stroke{qPremultiply(mPen.color().rgba()), width, antialias};
      if (mPen.style() != Qt::SolidLine) {
        // The pattern is in units of the pen's width, as QPen has it.
        for (qreal d : mPen.dashPattern()) stroke.dash.append(d * width);
        stroke.dashStart = clip.left() - mPen.dashOffset() * width;
      }
      raster::fillSpans(*image, clip, spansOf(clip, t), stroke);
    } else {
      // Reduced in the columns of the device, so that no column's points are split in two.
      const QVector<QPointF> points = columnPoints(begin, end, key, value, t.m11(), t.dx());
      painter->setPen(mPen);
      painter->setBrush(Qt::NoBrush);
      drawLinePlot(painter, step ? stepLeftPoints(points) : points);
    }
  }

  if (!mScatterStyle.isNone()) {
    const QVector<QPointF> dots = dotPoints(begin, end, key, value);
    applyScattersAntialiasingHint(painter);
    QPointF offset;
    QRect clip;
    QImage* image = rasterTarget(painter, offset, clip);
    if (image && mScatterStyle.shape() != QCPScatterStyle::ssPixmap) {
      const raster::Stamp& stamp = dotStamp(painter->testRenderHint(QPainter::Antialiasing));
      QVector<QPoint> at;
      at.reserve(dots.size());
      for (const QPointF& p : translated(dots, offset))
        at.append(QPoint(static_cast<int>(std::floor(std::clamp(p.x(), -1e6, 1e6))),
                         static_cast<int>(std::floor(std::clamp(p.y(), -1e6, 1e6)))));
      raster::stampDots(*image, clip, stamp, at);
    } else {
      drawScatterPlot(painter, dots, mScatterStyle);
    }
  }
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

QRect TextPixmap::draw(QCPPainter* painter, const QRect& rect, int flags, const QString& text,
                       const QFont& font, const QColor& colour) {
  const QTransform t = painter->deviceTransform();
  if (painter->modes().testFlag(QCPPainter::pmVectorized) ||
      painter->modes().testFlag(QCPPainter::pmNoCaching) || t.type() > QTransform::TxTranslate) {
    painter->setFont(font);
    painter->setPen(QPen(colour));
    QRect bounds;
    painter->drawText(rect, flags, text, &bounds);
    return bounds;
  }
  // Where the rect lands on the device: a whole pixel, and the fraction past it (QCPPainter
  // shifts antialiased drawing by half a pixel), at which the text is drawn into the pixmap so
  // that its glyphs land where drawText would put them.
  const QPointF at = QPointF(rect.topLeft()) + QPointF(t.dx(), t.dy());
  const QPoint whole(static_cast<int>(std::floor(at.x())), static_cast<int>(std::floor(at.y())));
  const QPointF fraction = at - QPointF(whole);
  if (text != m_text || flags != m_flags || !(font == m_font) || colour != m_colour ||
      rect.size() != m_size || fraction != m_fraction) {
    m_text = text;
    m_flags = flags;
    m_font = font;
    m_colour = colour;
    m_size = rect.size();
    m_fraction = fraction;
    const QRect local(QPoint(0, 0), rect.size());
    // Unclipped text may reach past its rect: the pixmap covers both, and the fraction.
    m_textBounds = QFontMetrics(font).boundingRect(local, flags, text);
    m_bounds = m_textBounds.united(local).adjusted(0, 0, 1, 1);
    m_pixmap = QPixmap(m_bounds.size());
    m_pixmap.fill(Qt::transparent);
    QPainter p(&m_pixmap);
    p.setFont(font);
    p.setPen(QPen(colour));
    p.translate(fraction - QPointF(m_bounds.topLeft()));
    p.drawText(local, flags, text);
  }
  painter->save();
  painter->resetTransform();
  painter->drawPixmap(whole + m_bounds.topLeft(), m_pixmap);
  painter->restore();
  return m_textBounds.translated(rect.topLeft());
}

FastText::FastText(QCustomPlot* plot, const QString& text) : QCPTextElement(plot, text) {}

QSize FastText::textSize() const {
  if (m_size.width() < 0 || m_sizedText != mText || !(m_sizedFont == mFont)) {
    m_sizedText = mText;
    m_sizedFont = mFont;
    m_size = QFontMetrics(mFont).boundingRect(0, 0, 0, 0, Qt::TextDontClip, mText).size();
  }
  return m_size;
}

void FastText::draw(QCPPainter* painter) {
  mTextBoundingRect = m_pixmap.draw(painter, mRect, mTextFlags, mText, mainFont(), mainTextColor());
}

QSize FastText::minimumOuterSizeHint() const {
  QSize size = textSize();
  size.rwidth() += mMargins.left() + mMargins.right();
  size.rheight() += mMargins.top() + mMargins.bottom();
  return size;
}

QSize FastText::maximumOuterSizeHint() const {
  QSize size = textSize();
  size.setWidth(QWIDGETSIZE_MAX);
  size.rheight() += mMargins.top() + mMargins.bottom();
  return size;
}

namespace {
/// drawLegendIcon is protected; QCPPlottableLegendItem is its friend, a subclass of it is not.
/// The member pointer taken through a subclass calls the plottable's own (virtual) icon.
struct IconAccess : QCPAbstractPlottable {
  static auto icon() { return &IconAccess::drawLegendIcon; }
};
}  // namespace

FastLegendItem::FastLegendItem(QCPLegend* legend, QCPAbstractPlottable* plottable)
    : QCPPlottableLegendItem(legend, plottable) {}

QRect FastLegendItem::textRect() const {
  const QString& name = mPlottable->name();
  const QFont font = getFont();
  const int height = mParentLegend->iconSize().height();
  if (m_sizedHeight != height || m_sizedText != name || !(m_sizedFont == font)) {
    m_sizedText = name;
    m_sizedFont = font;
    m_sizedHeight = height;
    m_textRect = QFontMetrics(font).boundingRect(0, 0, 0, height, Qt::TextDontClip, name);
  }
  return m_textRect;
}

QSize FastLegendItem::minimumOuterSizeHint() const {
  if (!mPlottable) return {};
  const QSize icon = mParentLegend->iconSize();
  const QRect text = textRect();
  return {icon.width() + mParentLegend->iconTextPadding() + text.width() + mMargins.left() +
              mMargins.right(),
          std::max(text.height(), icon.height()) + mMargins.top() + mMargins.bottom()};
}

void FastLegendItem::draw(QCPPainter* painter) {
  // QCPPlottableLegendItem::draw, with the text from a pixmap.
  if (!mPlottable) return;
  const QSize icon = mParentLegend->iconSize();
  const QRect text = textRect();
  const int height = std::max(text.height(), icon.height());
  m_pixmap.draw(painter,
                QRect(mRect.x() + icon.width() + mParentLegend->iconTextPadding(), mRect.y(),
                      text.width(), height),
                Qt::TextDontClip, mPlottable->name(), getFont(), getTextColor());
  const QRect iconRect(mRect.topLeft(), icon);
  painter->save();
  painter->setClipRect(iconRect, Qt::IntersectClip);
  (mPlottable->*IconAccess::icon())(painter, iconRect);
  painter->restore();
  if (getIconBorderPen().style() != Qt::NoPen) {
    painter->setPen(getIconBorderPen());
    painter->setBrush(Qt::NoBrush);
    const int half = qCeil(painter->pen().widthF() * 0.5) + 1;
    painter->setClipRect(mOuterRect.adjusted(-half, -half, half, half));
    painter->drawRect(iconRect);
  }
}

namespace {
/// A paint buffer that is an image, so that FastGraph can write into it. The first buffer of a
/// FastPlot is cleared to the plot's background instead of to transparency (when that is
/// opaque), and then copied to the screen rather than blended.
class ImageBuffer : public QCPAbstractPaintBuffer {
 public:
  ImageBuffer(const QSize& size, double ratio, std::function<std::optional<QColor>()> background)
      : QCPAbstractPaintBuffer(size, ratio), m_background(std::move(background)) {
    ImageBuffer::reallocateBuffer();
  }

  QCPPainter* startPainting() override { return new QCPPainter(&m_image); }
  void draw(QCPPainter* painter) const override {
    if (!painter || !painter->isActive()) return;
    if (!m_opaque) {
      painter->drawImage(QPointF(0, 0), m_image);
      return;
    }
    const QPainter::CompositionMode mode = painter->compositionMode();
    painter->setCompositionMode(QPainter::CompositionMode_Source);
    painter->drawImage(QPointF(0, 0), m_image);
    painter->setCompositionMode(mode);
  }
  void clear(const QColor& colour) override {
    m_opaque = m_background ? m_background() : std::nullopt;
    m_image.fill(m_opaque ? *m_opaque : colour);
  }
  bool opaque() const { return m_opaque.has_value(); }

 protected:
  void reallocateBuffer() override {
    setInvalidated();
    m_image = QImage(mSize * mDevicePixelRatio, QImage::Format_ARGB32_Premultiplied);
    m_image.setDevicePixelRatio(mDevicePixelRatio);
  }

 private:
  std::function<std::optional<QColor>()> m_background;
  std::optional<QColor> m_opaque;
  QImage m_image;
};
}  // namespace

FastPlot::FastPlot(QWidget* parent) : QCustomPlot(parent) {
  connect(this, &QCustomPlot::beforeReplot, this, [this] { prepareReplot(); });
}

std::optional<QColor> FastPlot::opaqueBackground() const {
  const QBrush& brush = mBackgroundBrush;
  if (brush.style() != Qt::SolidPattern || brush.color().alpha() != 255 ||
      !mBackgroundPixmap.isNull())
    return std::nullopt;
  return brush.color();
}

void FastPlot::prepareReplot() {
  for (int i = 0; i < legend->elementCount(); ++i) {
    auto* item = legend->elementAt(i);
    // Only entries of the plain class (FastLegendItem has no Q_OBJECT of its own, so its
    // metaObject() is its base's: ask the C++ type).
    if (!item || typeid(*item) != typeid(QCPPlottableLegendItem)) continue;
    auto* plain = static_cast<QCPPlottableLegendItem*>(item);
    int row = 0;
    int column = 0;
    legend->indexToRowCol(i, row, column);
    legend->take(plain);
    auto* fast = new FastLegendItem(legend, plain->plottable());
    // What this project sets on entries (wrapLegend: margins); font and colours come from the
    // legend, as for the plain entry.
    fast->setMargins(plain->margins());
    fast->setMinimumMargins(plain->minimumMargins());
    fast->setAutoMargins(plain->autoMargins());
    fast->setSelectable(plain->selectable());
    fast->setVisible(plain->visible());
    legend->addElement(row, column, fast);
    delete plain;
  }
  // Opaque: Qt need not paint the window under this widget before it paints itself.
  setAttribute(Qt::WA_OpaquePaintEvent, opaqueBackground().has_value());
  // QCustomPlot keeps its buffers from replot to replot, adds the ones it lacks and drops the
  // ones it no longer needs, always at the end: given as many images as it needs, it keeps them.
  const qsizetype needed = buffersNeeded();
  for (qsizetype i = 0; i < needed; ++i) {
    if (i < mPaintBuffers.size() && dynamic_cast<ImageBuffer*>(mPaintBuffers.at(i).data()))
      continue;
    std::function<std::optional<QColor>()> background;
    if (i == 0) background = [this] { return opaqueBackground(); };
    QSharedPointer<QCPAbstractPaintBuffer> buffer(
        new ImageBuffer(viewport().size(), mBufferDevicePixelRatio, std::move(background)));
    if (i < mPaintBuffers.size())
      mPaintBuffers[i] = buffer;
    else
      mPaintBuffers.append(buffer);
  }
}

qsizetype FastPlot::buffersNeeded() const {
  qsizetype index = 0;
  for (qsizetype i = 0; i < mLayers.size(); ++i)
    if (mLayers.at(i)->mode() == QCPLayer::lmBuffered) {
      ++index;
      if (i + 1 < mLayers.size() && mLayers.at(i + 1)->mode() == QCPLayer::lmLogical) ++index;
    }
  return index + 1;
}

QVector<bool> FastPlot::buffersInUse() const {
  // The same walk as QCustomPlot::setupPaintBuffers: logical layers share the current buffer, a
  // buffered layer has one of its own, and the logical layers after it start another.
  QVector<bool> used(mPaintBuffers.size(), false);
  qsizetype index = 0;
  const auto mark = [&](const QCPLayer* layer) {
    if (index >= used.size() || !layer->visible()) return;
    for (const QCPLayerable* child : layer->children())
      if (child->visible()) {
        used[index] = true;
        return;
      }
  };
  for (qsizetype i = 0; i < mLayers.size(); ++i) {
    const QCPLayer* layer = mLayers.at(i);
    if (layer->mode() == QCPLayer::lmBuffered) {
      ++index;
      mark(layer);
      if (i + 1 < mLayers.size() && mLayers.at(i + 1)->mode() == QCPLayer::lmLogical) ++index;
    } else {
      mark(layer);
    }
  }
  return used;
}

void FastPlot::paintEvent(QPaintEvent*) {
  QCPPainter painter(this);
  if (!painter.isActive()) return;
  const auto* first =
      mPaintBuffers.isEmpty() ? nullptr : dynamic_cast<ImageBuffer*>(mPaintBuffers.first().data());
  const bool opaque = first && first->opaque();
  if (!opaque && mBackgroundBrush.style() != Qt::NoBrush)
    painter.fillRect(viewport(), mBackgroundBrush);
  drawBackground(&painter);
  const QVector<bool> used = buffersInUse();
  for (qsizetype i = 0; i < mPaintBuffers.size(); ++i)
    if (i == 0 || used[i]) mPaintBuffers.at(i)->draw(&painter);
}

}  // namespace throttlelab::ui
