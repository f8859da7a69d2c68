// SPDX-License-Identifier: GPL-3.0-or-later
#include "throttle_curve_plot.h"

#include <QEvent>
#include <QFontMetrics>
#include <QTimer>
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
  for (auto* t : {m_freeAreaLabel, m_overAreaLabel})
    t->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
  // In free run the curves are high (pos_ratio 1 to 2 and more): the area's label sits at its
  // bottom, from its left edge, where nothing is drawn and nothing cuts it.
  m_freeAreaLabel->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
  m_freeAreaLabel->setTextAlignment(Qt::AlignLeft);
  m_freeAreaLabel->setPadding(QMargins(6, 1, 3, 1));  // clear of the value axis
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
  m_explain = new FastText(m_plot);  // its size and pixels kept while its text stays
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
  connect(m_plot, &QCustomPlot::afterLayout, this, [this] {
    // The x axis title on two lines where one is wider than the data area (it was cut at
    // "(MiB" in presenter mode); that changes the margins, so the layout is made again.
    if (fitXTitle()) {
      m_plot->plotLayout()->update(QCPLayoutElement::upMargins);
      m_plot->plotLayout()->update(QCPLayoutElement::upLayout);
    }
    layoutMarkerLabels();
  });
  m_textTimer = new QTimer(this);
  m_textTimer->setSingleShot(true);
  connect(m_textTimer, &QTimer::timeout, this, [this] {
    updateText();
    if (isShown()) replot(false);
  });
}

ThrottleCurvePlot::Moment ThrottleCurvePlot::momentOf(const engine::Sample& s) {
  Moment m;
  m.timeS = engine::toSeconds(s.time);
  m.dirty = static_cast<double>(s.dirtyPages + s.writebackPages);
  m.freerun = static_cast<double>(s.freerunPages);
  m.setpoint = static_cast<double>(s.setpointPages);
  m.limit = static_cast<double>(s.limitPages);
  m.thresh = static_cast<double>(s.threshPages);
  m.maxPauseMs = s.maxPauseMs;
  m.positionControl = s.positionControl;
  if (const auto* dev = firstDevice(s)) {
    m.ratio = dev->posRatio;
    m.ratelimitMBps = kbpsToMBps(dev->dirtyRatelimitKBps);
    m.taskMBps = kbpsToMBps(dev->taskRatelimitKBps);
  }
  return m;
}

void ThrottleCurvePlot::setUnits(const DisplayUnits& units) {
  m_units = units;
  m_pointX = -1;  // in the old unit; the next setLive() places it
  fitToWidth();   // the axis title names the unit
  redrawCurve();
  updateText();
}

void ThrottleCurvePlot::setCurve(const engine::ThrottleCurve& curve) {
  m_curve = curve;
  redrawCurve();
  // New lines drawn: the words beside them at once (twice a second; the live numbers wait
  // their turn after this).
  m_textTimer->stop();
  updateText();
}

void ThrottleCurvePlot::placeMarker(QCPItemStraightLine* line, QCPItemText* label, double pages) {
  const double x = m_units.memory(pages);
  line->point1->setCoords(x, 0);
  line->point2->setCoords(x, 1);
  label->position->setCoords(x, 0.0);  // its row: layoutMarkerLabels()
  // A line left or right of the x axis's range is not drawn, nor its label; nor one a
  // lesson's step leaves out (the limit line is "limit" to it, whatever its label says).
  const QCPRange range = m_plot->xAxis->range();
  const QString name = line == m_limitLine ? QStringLiteral("limit") : label->text();
  const bool shown = pages > 0 && x >= range.lower && x <= range.upper && focused(name);
  line->setVisible(shown);
  label->setVisible(shown);
}

bool ThrottleCurvePlot::fitXTitle() {
  const QString unit = QStringLiteral("(%1)").arg(m_units.memoryUnit());
  const QString oneLine = QStringLiteral("dirty + writeback ") + unit;
  const int room = std::min(m_plot->axisRect()->width(), m_plot->width() - 16);
  const QString title =
      QFontMetrics(m_plot->xAxis->labelFont()).horizontalAdvance(oneLine) > room - 4
          ? QStringLiteral("dirty + writeback\n") + unit
          : oneLine;
  if (title == m_plot->xAxis->label()) return false;
  m_plot->xAxis->setLabel(title);
  return true;
}

void ThrottleCurvePlot::layoutMarkerLabels() {
  // Left to right, each label beside its line (to the right, or to the left where the right
  // would leave the plot), in the first row where it overlaps no other.
  struct Entry {
    QCPItemText* label;
    double x;
  };
  std::vector<Entry> entries;
  for (auto* label : {m_bgLabel, m_freerunLabel, m_setpointLabel, m_limitLabel})
    if (label->visible())
      entries.push_back({label, m_plot->xAxis->coordToPixel(label->position->coords().x())});
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.x < b.x; });
  const QRect rect = m_plot->axisRect()->rect();
  if (rect.height() <= 0) return;
  constexpr int kRows = 3;
  std::vector<std::pair<double, double>> used[kRows];
  for (const Entry& e : entries) {
    const QFontMetricsF fm(e.label->font());
    const QMargins pad = e.label->padding();
    const double w = fm.horizontalAdvance(e.label->text()) + pad.left() + pad.right();
    const double h = fm.height() + pad.top() + pad.bottom();
    const bool right = e.x + w <= rect.right();
    const double a = right ? e.x : std::max<double>(rect.left(), e.x - w);
    const double b = right ? e.x + w : e.x;
    int row = 0;
    for (; row < kRows - 1; ++row) {
      bool free = true;
      for (const auto& [ua, ub] : used[row])
        if (a < ub + 2 && b + 2 > ua) free = false;
      if (free) break;
    }
    used[row].emplace_back(a, b);
    e.label->setPositionAlignment((right ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignTop);
    e.label->position->setCoords(e.label->position->coords().x(), row * h / rect.height());
  }
}

void ThrottleCurvePlot::redrawCurve() {
  const auto& c = m_curve;
  // Without position control there is no pos_ratio curve to draw, nor a setpoint or freerun:
  // only the thresholds the IO-ful loop compares dirty pages with.
  const bool curve = c.throttling;
  QVector<double> xs, global, device;
  const auto n = curve ? std::min({c.dirtyPages.size(), c.globalRatio.size(), c.deviceRatio.size()})
                       : std::size_t{0};
  for (std::size_t i = 0; i < n; ++i) {
    xs.append(m_units.memory(c.dirtyPages[i]));
    global.append(c.globalRatio[i]);
    device.append(c.deviceRatio[i]);
  }
  m_global->setData(xs, global, true);
  m_device->setData(xs, device, true);
  fitXRange();
  const QCPRange range = m_plot->xAxis->range();
  const double lo = range.lower;
  const double hi = range.upper;
  placeMarker(m_bgLine, m_bgLabel, c.bgThresh);
  placeMarker(m_freerunLine, m_freerunLabel, curve ? c.freerun : 0);
  placeMarker(m_setpointLine, m_setpointLabel, curve ? c.setpoint : 0);
  // Under an IO-ful policy the line the loop compares dirty with is thresh (a curve not yet
  // reported keeps the name a lesson may highlight).
  const bool reported = !c.dirtyPages.empty() || c.thresh > 0;
  m_limitLabel->setText(curve || !reported ? QStringLiteral("limit") : QStringLiteral("thresh"));
  placeMarker(m_limitLine, m_limitLabel, curve ? c.limit : c.thresh);
  double top = 2.2;
  for (double v : device) top = std::max(top, std::min(v * 1.05, 8.0));
  m_plot->yAxis->setRange(0, top);

  const double freerun = m_units.memory(c.freerun);
  const double limit = m_units.memory(c.limit);
  const bool areas = c.limit > 0 && curve;
  m_freeArea->setVisible(areas);
  m_overArea->setVisible(areas);
  m_freeAreaLabel->setVisible(areas && freerun > lo);
  m_overAreaLabel->setVisible(areas && limit < hi);
  if (areas) {
    // Kept inside the axis range: vector exports (SVG) do not honour clipping.
    m_freeArea->topLeft->setCoords(lo, 0);
    m_freeArea->bottomRight->setCoords(std::clamp(freerun, lo, hi), 1);
    m_overArea->topLeft->setCoords(std::clamp(limit, lo, hi), 0);
    m_overArea->bottomRight->setCoords(hi, 1);
    m_freeAreaLabel->position->setCoords(lo, 0.97);
    m_overAreaLabel->position->setCoords(hi, 0.45);
  }
  m_dirty = true;
}

bool ThrottleCurvePlot::fitXRange() {
  const auto& c = m_curve;
  double lo = 0;
  double hi = 1;
  if (c.throttling && !c.dirtyPages.empty()) {
    lo = m_units.memory(c.dirtyPages.front());
    hi = m_units.memory(c.dirtyPages.back());
    if (c.limit > 0) hi = std::max(hi, m_units.memory(c.limit) * 1.05);
  } else if (c.thresh > 0) {
    // The IO-ful thresholds from zero: where dirty stands against bg_thresh and thresh.
    hi = m_units.memory(c.thresh) * 1.15;
  }
  // The operating point is always on the plot (dirty over the limit: the axis goes past it).
  if (m_pointX >= 0) {
    if (m_pointX > hi) hi = m_pointX + 0.05 * (m_pointX - lo);
    if (m_pointX < lo) lo = std::max(0.0, m_pointX - 0.05 * (hi - m_pointX));
  }
  if (hi <= lo) hi = lo + 1;
  const QCPRange now = m_plot->xAxis->range();
  if (now.lower == lo && now.upper == hi) return false;
  m_plot->xAxis->setRange(lo, hi);
  return true;
}

void ThrottleCurvePlot::setLive(const SampleHistory& history) {
  if (history.empty()) return;
  const engine::Sample& now = history.back();
  m_now = momentOf(now);
  // Without position control there is no operating point on the curve (and no trail for the
  // stretch of time such a policy ran).
  const bool point = now.positionControl && m_curve.throttling && firstDevice(now);
  if (point) {
    m_pointX = m_units.memory(m_now->dirty);
    m_point->setData({m_pointX}, {m_now->ratio}, true);
  } else {
    m_pointX = -1;
    m_point->data()->clear();
  }
  const QCPRange range = m_plot->xAxis->range();
  if (point && (m_pointX < range.lower || m_pointX > range.upper)) redrawCurve();

  QVector<double> tx, ty;
  const double from = engine::toSeconds(now.time) - kTrailSeconds;
  for (std::size_t i = history.lowerBound(from); i < history.size() && m_curve.throttling; ++i) {
    const auto& s = history[i];
    const auto* d = firstDevice(s);
    if (!d || !s.positionControl) continue;
    tx.append(m_units.memory(static_cast<double>(s.dirtyPages + s.writebackPages)));
    ty.append(d->posRatio);
  }
  m_trail->setData(tx, ty);
  m_liveDirty = true;
  requestText();
}

void ThrottleCurvePlot::requestText() {
  // The live numbers change with every frame: the formula takes the newest at most kTextHz
  // times a second, and the newest once the wait is over.
  constexpr qint64 kIntervalMs = 1000 / kTextHz;
  if (m_cursor) return;  // the formula is the cursor's moment's
  if (!m_textClock.isValid() || m_textClock.elapsed() >= kIntervalMs) {
    m_textTimer->stop();
    updateText();
  } else if (!m_textTimer->isActive()) {
    m_textTimer->start(static_cast<int>(kIntervalMs - m_textClock.elapsed()));
  }
}

void ThrottleCurvePlot::flushText() {
  if (!m_textTimer->isActive()) return;
  m_textTimer->stop();
  updateText();
}

void ThrottleCurvePlot::updateText() {
  m_textClock.restart();
  const std::optional<Moment>& at = m_cursor ? m_cursor : m_now;
  // The sample says which policy ran at its moment (the curve, reported twice a second, which
  // runs now): the formula is the sample's own, with or without a curve drawn yet.
  const bool reported = !m_curve.dirtyPages.empty() || m_curve.thresh > 0;
  QString text;
  if (!at && !reported) {
    text = QStringLiteral("Waiting for the engine's first estimate…");
  } else if (at ? !at->positionControl : !m_curve.throttling) {
    // The sample says which policy ran at that moment; the curve, which one runs now.
    const QString when = at && m_cursor ? QStringLiteral("At %1 s").arg(at->timeS, 0, 'f', 1)
                                        : QStringLiteral("Now");
    text = QStringLiteral(
               "%1: no position control under this policy:\n"
               "no pos_ratio curve, setpoint or freerun. Writers\n"
               "wait in balance_dirty_pages() while dirty is over thresh.")
               .arg(when);
    if (at)
      text += QStringLiteral("\ndirty %1 %2, thresh %3 %2")
                  .arg(formatValue(m_units.memory(at->dirty)), m_units.memoryUnit(),
                       formatValue(m_units.memory(at->thresh)));
  } else if (!at) {
    text = QStringLiteral("Waiting for the engine's first estimate…");
  } else {
    // Where dirty stands against the lines drawn (the curve's), so the words never contradict
    // the plot; before a curve is drawn, against the sample's own thresholds.
    const bool drawn = m_curve.throttling && !m_curve.dirtyPages.empty() && !m_cursor;
    const double freerun = drawn ? m_curve.freerun : at->freerun;
    const double setpoint = drawn ? m_curve.setpoint : at->setpoint;
    const double limit = drawn ? m_curve.limit : at->limit;
    QString where;
    if (at->dirty <= freerun)
      where = QStringLiteral("below freerun, no throttling");
    else if (at->dirty >= limit)
      where = QStringLiteral("over the limit, writers sleep max_pause");
    else if (at->dirty < setpoint)
      where = QStringLiteral("below setpoint, writers may speed up");
    else
      where = QStringLiteral("above setpoint, writers slowed");
    const QString when =
        m_cursor ? QStringLiteral("At %1 s").arg(at->timeS, 0, 'f', 1) : QStringLiteral("Now");
    text = QStringLiteral(
               "%8: dirty %1 %2 → pos_ratio %3\n(%4)\n"
               "task_ratelimit = dirty_ratelimit × pos_ratio\n"
               "                    = %5 MB/s × %3 = %6 MB/s\n"
               "pause = pages dirtied ÷ task_ratelimit,\n"
               "            at most max_pause (%7 ms)")
               .arg(formatValue(m_units.memory(at->dirty)), m_units.memoryUnit(),
                    formatValue(at->ratio), where, formatValue(at->ratelimitMBps),
                    formatValue(at->taskMBps), formatValue(at->maxPauseMs), when);
  }
  if (text != m_explainSource) {
    m_explainSource = text;
    fitExplain();
    m_liveDirty = true;
  }
}

void ThrottleCurvePlot::fitExplain() {
  // The formula in the legend's font, smaller (down to 70 %) where its widest line would not
  // fit the plot: QCustomPlot clips a text element wider than its row, and widens the row.
  // Lines still too wide (presenter mode's large font on a narrow plot) wrap at a space.
  QFont font = m_theme.legendFont();
  const int available = m_plot->width() - 16;
  const QStringList lines = m_explainSource.split(QLatin1Char('\n'));
  const auto widest = [&lines](const QFont& f) {
    int w = 0;
    const QFontMetrics fm(f);
    for (const QString& line : lines) w = std::max(w, fm.horizontalAdvance(line));
    return w;
  };
  const double full = font.pointSizeF();
  for (double scale = 1.0; scale > 0.69 && widest(font) > available; scale -= 0.05)
    font.setPointSizeF(full * scale);
  if (font != m_explain->font()) m_explain->setFont(font);
  QString text = m_explainSource;
  if (widest(font) > available) {
    const QFontMetrics fm(font);
    QStringList wrapped;
    for (QString line : lines) {
      // The spaces that align a continued line under the one above mean nothing once wrapped.
      if (line.startsWith(QLatin1Char(' '))) line = QStringLiteral("  ") + line.trimmed();
      while (fm.horizontalAdvance(line) > available) {
        // The last space that leaves the head within the width (words never split).
        int cut = static_cast<int>(line.size());
        while (cut > 0 && (line[cut - 1] != QLatin1Char(' ') ||
                           fm.horizontalAdvance(line.left(cut - 1)) > available))
          --cut;
        if (cut <= 1) break;
        wrapped << line.left(cut - 1);
        line = QStringLiteral("  ") + line.mid(cut).trimmed();
      }
      wrapped << line;
    }
    text = wrapped.join(QLatin1Char('\n'));
  }
  if (text != m_explain->text()) m_explain->setText(text);
}

void ThrottleCurvePlot::setCursorSample(const engine::Sample* sample) {
  if (sample)
    m_cursor = momentOf(*sample);
  else
    m_cursor.reset();
  m_textTimer->stop();
  updateText();  // a moment the user points at: its numbers at once
  const auto* dev =
      sample && sample->positionControl && m_curve.throttling ? firstDevice(*sample) : nullptr;
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
  m_now.reset();
  m_cursor.reset();
  m_pointX = -1;
  m_point->data()->clear();
  m_trail->data()->clear();
  m_cursorPoint->data()->clear();
  redrawCurve();
  m_textTimer->stop();
  m_explainSource = QStringLiteral("Waiting for the engine's first estimate…");
  fitExplain();
  m_textClock.invalidate();
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

bool ThrottleCurvePlot::focused(const QString& name) const {
  return m_focus.isEmpty() || m_focus.contains(name);
}

void ThrottleCurvePlot::setFocusCurves(const QStringList& names) {
  if (names == m_focus) return;
  m_focus = names;
  for (QCPGraph* g : {m_global, m_device, m_trail, m_point}) {
    const bool shown = focused(g->name());
    g->setVisible(shown);
    if (shown)
      g->addToLegend();
    else
      g->removeFromLegend();
  }
  redrawCurve();
  m_dirty = true;
}

QStringList ThrottleCurvePlot::visibleCurves() const {
  QStringList out;
  for (QCPGraph* g : {m_global, m_device, m_trail, m_point})
    if (g->visible()) out << g->name();
  const std::pair<QCPItemStraightLine*, QString> lines[] = {
      {m_bgLine, QStringLiteral("bg_thresh")},
      {m_freerunLine, QStringLiteral("freerun")},
      {m_setpointLine, QStringLiteral("setpoint")},
      {m_limitLine, QStringLiteral("limit")}};
  for (const auto& [line, name] : lines)
    if (line->visible()) out << name;
  return out;
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
  fitXTitle();
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
