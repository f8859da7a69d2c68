// SPDX-License-Identifier: GPL-3.0-or-later
#include "throttle_curve_plot.h"

#include <QEvent>
#include <QFontMetrics>
#include <algorithm>
#include <cmath>

#include "fast_graph.h"
#include "plot_id.h"
#include "plot_style.h"
#include "qcp.h"
#include "sample_fields.h"
#include "sample_history.h"
#include "series_spec.h"

namespace throttlelab::ui {

namespace {
constexpr double kTrailSeconds = 20;

QCPItemText* makeText(QCustomPlot* plot) {
  auto* t = new QCPItemText(plot);
  t->setClipToAxisRect(true);
  t->setPadding(QMargins(3, 1, 3, 1));
  return t;
}
}  // namespace

ThrottleCurvePlot::ThrottleCurvePlot(QWidget* parentWidget)
    : QObject(parentWidget), m_plot(new FastPlot(parentWidget)) {
  m_plot->setObjectName(plotKey(PlotId::ThrottleCurve));
  m_plot->setMinimumSize(240, 150);
  m_plot->setPlottingHint(QCP::phCacheLabels, true);
  m_plot->plotLayout()->insertRow(0);
  m_title = new FastText(m_plot, plotTitle(PlotId::ThrottleCurve));
  m_title->setObjectName(QStringLiteral("title"));
  m_plot->plotLayout()->addElement(0, 0, m_title);
  m_plot->plotLayout()->setRowStretchFactor(0, 0.001);
  m_plot->yAxis->setLabel(QStringLiteral("pos_ratio (× dirty_ratelimit)"));
  m_plot->yAxis->setRange(0, 2.2);

  m_freeArea = new QCPItemRect(m_plot);
  m_overArea = new QCPItemRect(m_plot);
  for (auto* r : {m_freeArea, m_overArea}) {
    r->topLeft->setTypeY(QCPItemPosition::ptAxisRectRatio);
    r->bottomRight->setTypeY(QCPItemPosition::ptAxisRectRatio);
    r->setPen(Qt::NoPen);
    r->setLayer(QStringLiteral("background"));
    r->setClipToAxisRect(true);
  }
  m_freeAreaLabel = makeText(m_plot);
  m_freeAreaLabel->setText(QStringLiteral("free run:\nno pauses"));
  m_overAreaLabel = makeText(m_plot);
  m_overAreaLabel->setText(QStringLiteral("over limit:\nmax_pause"));
  for (auto* t : {m_freeAreaLabel, m_overAreaLabel}) {
    t->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    t->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
  }
  // The area over the limit is narrow: keep its label inside the plot's right edge.
  m_overAreaLabel->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
  m_overAreaLabel->setTextAlignment(Qt::AlignRight);

  m_global = addFastGraph(m_plot);
  m_global->setName(QStringLiteral("global cubic"));
  m_device = addFastGraph(m_plot);
  m_device->setName(QStringLiteral("with the bdi line"));
  m_trail = addFastGraph(m_plot);
  m_trail->setName(QStringLiteral("last 20 s"));
  m_trail->setLineStyle(QCPGraph::lsNone);
  m_point = addFastGraph(m_plot);
  m_point->setName(QStringLiteral("now"));
  m_point->setLineStyle(QCPGraph::lsNone);
  // What moves each frame (the point, its trail, the formula) and the hover mark are on a
  // buffered layer of their own, redrawn without the curves, areas, axes and legend under it.
  m_plot->layer(QStringLiteral("overlay"))->setMode(QCPLayer::lmBuffered);
  m_trail->setLayer(QStringLiteral("overlay"));
  m_point->setLayer(QStringLiteral("overlay"));
  m_cursorPoint = addFastGraph(m_plot);
  m_cursorPoint->setName(QStringLiteral("at the cursor"));
  m_cursorPoint->setLineStyle(QCPGraph::lsNone);
  m_cursorPoint->setLayer(QStringLiteral("overlay"));
  m_cursorPoint->removeFromLegend();

  auto makeLine = [this](const QString& name, QCPItemText*& label) {
    auto* line = new QCPItemStraightLine(m_plot);
    line->point1->setTypeY(QCPItemPosition::ptAxisRectRatio);
    line->point2->setTypeY(QCPItemPosition::ptAxisRectRatio);
    label = makeText(m_plot);
    label->setText(name);
    label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    return line;
  };
  m_bgLine = makeLine(QStringLiteral("bg_thresh"), m_bgLabel);
  m_freerunLine = makeLine(QStringLiteral("freerun"), m_freerunLabel);
  m_setpointLine = makeLine(QStringLiteral("setpoint"), m_setpointLabel);
  m_limitLine = makeLine(QStringLiteral("limit"), m_limitLabel);
  // The axis ends 5 % past the limit, too little room for its label on a narrow plot: it reads
  // to the left of its line, over the empty top of the curve's last stretch.
  m_limitLabel->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);

  // The arithmetic of the current pause, in words, between the title and the plot.
  m_plot->plotLayout()->insertRow(1);
  m_explain = new QCPTextElement(m_plot);
  m_explain->setTextFlags(Qt::AlignLeft | Qt::AlignVCenter);
  m_explain->setMargins(QMargins(8, 2, 8, 4));
  m_explain->setText(QStringLiteral("Waiting for the engine's first estimate…"));
  m_explain->setLayer(QStringLiteral("overlay"));
  m_plot->plotLayout()->addElement(1, 0, m_explain);
  m_plot->plotLayout()->setRowStretchFactor(1, 0.001);

  // The legend goes below the plot: inside, it would cover part of the curve.
  m_plot->legend->setVisible(true);
  m_plot->axisRect()->insetLayout()->take(m_plot->legend);
  m_plot->plotLayout()->addElement(3, 0, m_plot->legend);
  m_plot->plotLayout()->setRowStretchFactor(3, 0.001);
  m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  m_plot->legend->setWrap(4);
  m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
  m_plot->xAxis->setLabel(QStringLiteral("dirty + writeback (MiB)"));
  m_plot->installEventFilter(this);
}

void ThrottleCurvePlot::setUnits(const DisplayUnits& units) {
  m_units = units;
  m_plot->xAxis->setLabel(QStringLiteral("dirty + writeback (%1)").arg(units.memoryUnit()));
  redrawCurve();
}

void ThrottleCurvePlot::setCurve(const engine::ThrottleCurve& curve) {
  m_curve = curve;
  redrawCurve();
}

void ThrottleCurvePlot::placeMarker(QCPItemStraightLine* line, QCPItemText* label, double pages) {
  const double x = m_units.memory(pages);
  line->point1->setCoords(x, 0);
  line->point2->setCoords(x, 1);
  // Alternate label heights so neighbouring lines' labels do not overlap.
  const bool lower = label == m_setpointLabel || label == m_bgLabel;
  label->position->setCoords(x, lower ? 0.07 : 0.0);
  const bool shown = pages > 0;
  line->setVisible(shown);
  label->setVisible(shown);
}

void ThrottleCurvePlot::redrawCurve() {
  const auto& c = m_curve;
  QVector<double> xs, global, device;
  const auto n = std::min({c.dirtyPages.size(), c.globalRatio.size(), c.deviceRatio.size()});
  for (std::size_t i = 0; i < n; ++i) {
    xs.append(m_units.memory(c.dirtyPages[i]));
    global.append(c.globalRatio[i]);
    device.append(c.deviceRatio[i]);
  }
  m_global->setData(xs, global, true);
  m_device->setData(xs, device, true);
  placeMarker(m_bgLine, m_bgLabel, c.bgThresh);
  placeMarker(m_freerunLine, m_freerunLabel, c.freerun);
  placeMarker(m_setpointLine, m_setpointLabel, c.setpoint);
  placeMarker(m_limitLine, m_limitLabel, c.limit);
  double lo = xs.isEmpty() ? 0 : xs.front();
  double hi = xs.isEmpty() ? 1 : xs.back();
  if (c.limit > 0) hi = std::max(hi, m_units.memory(c.limit) * 1.05);
  if (hi <= lo) hi = lo + 1;
  m_plot->xAxis->setRange(lo, hi);
  double top = 2.2;
  for (double v : device) top = std::max(top, std::min(v * 1.05, 8.0));
  m_plot->yAxis->setRange(0, top);

  const double freerun = m_units.memory(c.freerun);
  const double limit = m_units.memory(c.limit);
  const bool areas = c.limit > 0 && c.throttling;
  m_freeArea->setVisible(areas);
  m_overArea->setVisible(areas);
  m_freeAreaLabel->setVisible(areas);
  m_overAreaLabel->setVisible(areas);
  if (areas) {
    // Kept inside the axis range: vector exports (SVG) do not honour clipping.
    m_freeArea->topLeft->setCoords(lo, 0);
    m_freeArea->bottomRight->setCoords(std::clamp(freerun, lo, hi), 1);
    m_overArea->topLeft->setCoords(std::clamp(limit, lo, hi), 0);
    m_overArea->bottomRight->setCoords(hi, 1);
    m_freeAreaLabel->position->setCoords((std::max(lo, 0.0) + freerun) / 2, 0.45);
    m_overAreaLabel->position->setCoords(hi, 0.45);
  }
  m_dirty = true;
}

void ThrottleCurvePlot::setLive(const SampleHistory& history) {
  if (history.empty()) return;
  const engine::Sample& now = history.back();
  const auto* dev = firstDevice(now);
  const double dirty = static_cast<double>(now.dirtyPages + now.writebackPages);
  const double ratio = dev ? dev->posRatio : 0;
  // Without position control there is no operating point on the curve (and no trail for the
  // stretch of time such a policy ran).
  if (now.positionControl)
    m_point->setData({m_units.memory(dirty)}, {ratio}, true);
  else
    m_point->data()->clear();

  QVector<double> tx, ty;
  const double from = engine::toSeconds(now.time) - kTrailSeconds;
  for (std::size_t i = history.lowerBound(from); i < history.size(); ++i) {
    const auto& s = history[i];
    const auto* d = firstDevice(s);
    if (!d || !s.positionControl) continue;
    tx.append(m_units.memory(static_cast<double>(s.dirtyPages + s.writebackPages)));
    ty.append(d->posRatio);
  }
  m_trail->setData(tx, ty);
  m_liveDirty = true;

  if (!m_curve.throttling && m_curve.dirtyPages.empty()) {
    m_explain->setText(QStringLiteral("The engine has not reported a control curve yet."));
  } else if (!m_curve.throttling) {
    m_explain->setText(
        QStringLiteral("This policy has no position control:\n"
                       "pauses do not follow a pos_ratio curve."));
  } else {
    const double rl = dev ? kbpsToMBps(dev->dirtyRatelimitKBps) : 0;
    const double task = dev ? kbpsToMBps(dev->taskRatelimitKBps) : 0;
    QString where;
    if (dirty <= m_curve.freerun)
      where = QStringLiteral("below freerun, no throttling");
    else if (dirty >= m_curve.limit)
      where = QStringLiteral("over the limit, writers sleep max_pause");
    else if (dirty < m_curve.setpoint)
      where = QStringLiteral("below setpoint, writers may speed up");
    else
      where = QStringLiteral("above setpoint, writers slowed");
    m_explain->setText(QStringLiteral("Now: dirty %1 %2 → pos_ratio %3\n(%4)\n"
                                      "task_ratelimit = dirty_ratelimit × pos_ratio\n"
                                      "                    = %5 MB/s × %3 = %6 MB/s\n"
                                      "pause = pages dirtied ÷ task_ratelimit,\n"
                                      "            at most max_pause (%7 ms)")
                           .arg(formatValue(m_units.memory(dirty)), m_units.memoryUnit(),
                                formatValue(ratio), where, formatValue(rl), formatValue(task),
                                formatValue(now.maxPauseMs)));
  }
  fitExplain();
}

void ThrottleCurvePlot::fitExplain() {
  // The formula in the legend's font, smaller (down to 70 %) where its widest line would not
  // fit the plot: QCustomPlot clips a text element wider than its row, and widens the row.
  QFont font = m_theme.legendFont();
  const int available = m_plot->width() - 16;
  const auto widest = [this](const QFont& f) {
    int w = 0;
    const QFontMetrics fm(f);
    for (const QString& line : m_explain->text().split(QLatin1Char('\n')))
      w = std::max(w, fm.horizontalAdvance(line));
    return w;
  };
  const double full = font.pointSizeF();
  for (double scale = 1.0; scale > 0.69 && widest(font) > available; scale -= 0.05)
    font.setPointSizeF(full * scale);
  if (font != m_explain->font()) m_explain->setFont(font);
}

void ThrottleCurvePlot::setCursorSample(const engine::Sample* sample) {
  const auto* dev = sample && sample->positionControl ? firstDevice(*sample) : nullptr;
  if (!dev) {
    m_cursorPoint->data()->clear();
    return;
  }
  const double dirty = static_cast<double>(sample->dirtyPages + sample->writebackPages);
  m_cursorPoint->setData({m_units.memory(dirty)}, {dev->posRatio}, true);
}

void ThrottleCurvePlot::replot(bool immediate) {
  // The layout sizes the formula's row to its text: text of another size moves the axes.
  const QSize explainSize = static_cast<QCPLayoutElement*>(m_explain)->minimumOuterSizeHint();
  if (m_dirty || explainSize != m_explainSize) {
    m_explainSize = explainSize;
    replotPlot(m_plot, immediate);
  } else {
    replotOverlay();  // a whole replot instead while the plot's buffers are not set up
    if (immediate) m_plot->repaint();
  }
  m_dirty = false;
  m_liveDirty = false;
}

void ThrottleCurvePlot::replotOverlay() {
  m_plot->layer(QStringLiteral("overlay"))->replot();
}

QString ThrottleCurvePlot::explanation() const {
  return m_explain->text();
}

int ThrottleCurvePlot::explanationWidth() const {
  int w = 0;
  const QFontMetrics fm(m_explain->font());
  for (const QString& line : m_explain->text().split(QLatin1Char('\n')))
    w = std::max(w, fm.horizontalAdvance(line));
  return w;
}

void ThrottleCurvePlot::clearData() {
  m_curve = {};
  m_point->data()->clear();
  m_trail->data()->clear();
  redrawCurve();
  m_explain->setText(QStringLiteral("Waiting for the engine's first estimate…"));
}

void ThrottleCurvePlot::applyTheme(const Theme& theme) {
  m_theme = theme;
  m_plot->setBackground(theme.background);
  // No fill of its own for the axis rect: the plot's background is the same colour, and a second
  // fill of most of the plot costs every frame.
  m_plot->axisRect()->setBackground(Qt::NoBrush);
  for (QCPAxis* axis : {m_plot->xAxis, m_plot->yAxis}) styleAxis(axis, theme);
  m_title->setFont(theme.titleFont());
  m_title->setTextColor(theme.foreground);
  const double s = theme.penScale;
  m_global->setPen(QPen(theme.foreground, 1.2 * s, Qt::DashLine));
  m_device->setPen(QPen(theme.colour(SeriesColour::Orange), 2.5 * s));
  QColor trail = theme.colour(SeriesColour::Vermillion);
  trail.setAlpha(90);
  m_trail->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, trail, 4 * s));
  // ssCircle, not ssDisc: a disc is filled with its pen colour, a circle with the brush.
  m_point->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle,
                                           QPen(theme.foreground, 1.5 * s),
                                           QBrush(theme.colour(SeriesColour::Vermillion)), 13 * s));
  m_cursorPoint->setScatterStyle(QCPScatterStyle(
      QCPScatterStyle::ssCircle, QPen(theme.foreground, 2 * s), Qt::NoBrush, 15 * s));
  auto lineStyle = [&](QCPItemStraightLine* line, QCPItemText* label, SeriesColour c,
                       Qt::PenStyle st) {
    line->setPen(QPen(theme.colour(c), 1.5 * s, st));
    label->setColor(theme.colour(c));
    label->setFont(theme.legendFont());
    label->setBrush(theme.legendBackground);
  };
  lineStyle(m_bgLine, m_bgLabel, SeriesColour::Grey, Qt::DashDotLine);
  lineStyle(m_freerunLine, m_freerunLabel, SeriesColour::Green, Qt::DashLine);
  lineStyle(m_setpointLine, m_setpointLabel, SeriesColour::Blue, Qt::DashLine);
  lineStyle(m_limitLine, m_limitLabel, SeriesColour::Vermillion, Qt::DashLine);
  QColor free = theme.colour(SeriesColour::Green);
  free.setAlpha(theme.dark ? 40 : 28);
  QColor over = theme.colour(SeriesColour::Vermillion);
  over.setAlpha(theme.dark ? 40 : 28);
  m_freeArea->setBrush(free);
  m_overArea->setBrush(over);
  for (auto* t : {m_freeAreaLabel, m_overAreaLabel}) {
    t->setFont(theme.legendFont());
    t->setColor(theme.foreground);
  }
  m_explain->setFont(theme.legendFont());
  fitExplain();
  m_explain->setTextColor(theme.foreground);
  m_plot->legend->setTextColor(theme.foreground);
  m_plot->legend->setBrush(Qt::NoBrush);
  m_plot->legend->setBorderPen(Qt::NoPen);
  styleHighlight();
  fitToWidth();
  m_dirty = true;
}

void ThrottleCurvePlot::setHighlightedCurves(const QStringList& names) {
  if (names == m_highlighted) return;
  m_highlighted = names;
  applyTheme(m_theme);  // the plain pens, then the emphasis
}

QStringList ThrottleCurvePlot::emphasisedCurves() const {
  QStringList out;
  for (QCPGraph* g : {m_global, m_device, m_trail, m_point})
    if (m_highlighted.contains(g->name())) out << g->name();
  for (QCPItemText* label : {m_bgLabel, m_freerunLabel, m_setpointLabel, m_limitLabel})
    if (m_highlighted.contains(label->text())) out << label->text();
  return out;
}

void ThrottleCurvePlot::styleHighlight() {
  const auto wider = [](QPen pen) {
    pen.setWidthF(pen.widthF() * 2);
    return pen;
  };
  for (QCPGraph* g : {m_global, m_device, m_trail, m_point}) {
    if (!m_highlighted.contains(g->name())) continue;
    g->setPen(wider(g->pen()));
    QCPScatterStyle dots = g->scatterStyle();
    if (!dots.isNone()) {
      dots.setSize(dots.size() * 1.5);
      g->setScatterStyle(dots);
    }
  }
  const std::pair<QCPItemStraightLine*, QCPItemText*> lines[] = {{m_bgLine, m_bgLabel},
                                                                 {m_freerunLine, m_freerunLabel},
                                                                 {m_setpointLine, m_setpointLabel},
                                                                 {m_limitLine, m_limitLabel}};
  for (const auto& [line, label] : lines) {
    if (!m_highlighted.contains(label->text())) continue;
    line->setPen(wider(line->pen()));
    QFont bold = label->font();
    bold.setBold(true);
    label->setFont(bold);
  }
}

void ThrottleCurvePlot::fitToWidth() {
  // The legend in as many columns as the width takes (compact if it would need more than
  // two rows); a title wider than the plot on two lines.
  const int width = m_plot->width() - 16;
  styleLegend(m_plot->legend, m_theme, false);
  if (wrapLegend(m_plot->legend, width) > 2) {
    styleLegend(m_plot->legend, m_theme, true);
    wrapLegend(m_plot->legend, width);
  }
  // Presenter mode's tick labels of a narrow plot would run into each other.
  m_plot->xAxis->ticker()->setTickCount(width < 420 ? 3 : 5);
  QString title = plotTitle(PlotId::ThrottleCurve);
  if (QFontMetrics(m_title->font()).horizontalAdvance(title) > width)
    title.replace(QStringLiteral(": "), QStringLiteral(":\n"));
  m_title->setText(title);
  fitExplain();
}

bool ThrottleCurvePlot::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_plot && event->type() == QEvent::Resize) fitToWidth();
  return QObject::eventFilter(watched, event);
}

}  // namespace throttlelab::ui
