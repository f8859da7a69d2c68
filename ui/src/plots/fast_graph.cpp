// SPDX-License-Identifier: GPL-3.0-or-later
#include "fast_graph.h"

#include <QFontMetrics>
#include <QPainter>
#include <algorithm>
#include <cmath>
#include <functional>
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

QRect TextPixmap::draw(QCPPainter* painter, const QRect& rect, int flags, const QString& text,
                       const QFont& font, const QColor& colour) {
  if (painter->modes().testFlag(QCPPainter::pmVectorized) ||
      painter->modes().testFlag(QCPPainter::pmNoCaching)) {
    painter->setFont(font);
    painter->setPen(QPen(colour));
    QRect bounds;
    painter->drawText(rect, flags, text, &bounds);
    return bounds;
  }
  const qreal ratio = painter->device() ? painter->device()->devicePixelRatioF() : 1.0;
  if (text != m_text || flags != m_flags || !(font == m_font) || colour != m_colour ||
      rect.size() != m_size || ratio != m_ratio) {
    m_text = text;
    m_flags = flags;
    m_font = font;
    m_colour = colour;
    m_size = rect.size();
    m_ratio = ratio;
    const QRect local(QPoint(0, 0), rect.size());
    // Unclipped text may reach past its rect: the pixmap covers both.
    m_bounds = QFontMetrics(font).boundingRect(local, flags, text).united(local);
    m_pixmap = QPixmap(m_bounds.size() * ratio);
    m_pixmap.setDevicePixelRatio(ratio);
    m_pixmap.fill(Qt::transparent);
    QPainter p(&m_pixmap);
    p.setFont(font);
    p.setPen(QPen(colour));
    p.translate(-m_bounds.topLeft());
    QRect drawn;
    p.drawText(local, flags, text, &drawn);
    m_bounds = m_bounds.isEmpty() ? drawn : m_bounds;
  }
  painter->drawPixmap(rect.topLeft() + m_bounds.topLeft(), m_pixmap);
  return QFontMetrics(font).boundingRect(rect, flags, text);
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
/// The first paint buffer of a FastPlot: cleared to the plot's background instead of to
/// transparency (when that is opaque), and then copied to the screen rather than blended.
class OpaqueBuffer : public QCPPaintBufferPixmap {
 public:
  OpaqueBuffer(const QSize& size, double ratio, std::function<std::optional<QColor>()> background)
      : QCPPaintBufferPixmap(size, ratio), m_background(std::move(background)) {}

  void clear(const QColor& colour) override {
    m_opaque = m_background();
    mBuffer.fill(m_opaque ? *m_opaque : colour);
  }
  void draw(QCPPainter* painter) const override {
    if (!m_opaque) {
      QCPPaintBufferPixmap::draw(painter);
      return;
    }
    const QPainter::CompositionMode mode = painter->compositionMode();
    painter->setCompositionMode(QPainter::CompositionMode_Source);
    QCPPaintBufferPixmap::draw(painter);
    painter->setCompositionMode(mode);
  }
  bool opaque() const { return m_opaque.has_value(); }

 private:
  std::function<std::optional<QColor>()> m_background;
  std::optional<QColor> m_opaque;
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
    if (!item || item->metaObject() != &QCPPlottableLegendItem::staticMetaObject) continue;
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
  // QCustomPlot keeps its buffers from replot to replot and only ever adds or removes them at
  // the end, so the first one, once ours, stays ours.
  if (!mPaintBuffers.isEmpty() && dynamic_cast<OpaqueBuffer*>(mPaintBuffers.first().data())) return;
  auto* buffer = new OpaqueBuffer(viewport().size() * mBufferDevicePixelRatio,
                                  mBufferDevicePixelRatio, [this] { return opaqueBackground(); });
  if (mPaintBuffers.isEmpty())
    mPaintBuffers.append(QSharedPointer<QCPAbstractPaintBuffer>(buffer));
  else
    mPaintBuffers.first().reset(buffer);
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
      mPaintBuffers.isEmpty() ? nullptr : dynamic_cast<OpaqueBuffer*>(mPaintBuffers.first().data());
  const bool opaque = first && first->opaque();
  if (!opaque && mBackgroundBrush.style() != Qt::NoBrush)
    painter.fillRect(viewport(), mBackgroundBrush);
  drawBackground(&painter);
  const QVector<bool> used = buffersInUse();
  for (qsizetype i = 0; i < mPaintBuffers.size(); ++i)
    if (i == 0 || used[i]) mPaintBuffers.at(i)->draw(&painter);
}

}  // namespace throttlelab::ui
