// SPDX-License-Identifier: GPL-3.0-or-later
#include "time_plot.h"

#include <QFontMetrics>
#include <QMouseEvent>
#include <QSplitter>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <limits>

#include "event_text.h"
#include "fast_graph.h"
#include "plot_style.h"
#include "qcp.h"
#include "sample_history.h"
#include "task_trace_history.h"

namespace throttlelab::ui {

namespace {
constexpr const char* kOverlay = "overlay";
/// The timeline's marks and labels: a layer of their own above the graphs, drawn into the same
/// paint buffer as they are (the buffered overlay, redrawn on every hover, is the cursor's).
constexpr const char* kEvents = "events";
constexpr double kLabelGap = 6;    ///< pixels between two labels in a row
constexpr double kNearPixels = 5;  ///< a mark this close to the cursor is named in the readout
}  // namespace

/// Draws the owner's event marks and labels.
class EventMarksLayerable final : public QCPLayerable {
 public:
  EventMarksLayerable(QCustomPlot* plot, const TimePlot* owner)
      : QCPLayerable(plot, QString::fromLatin1(kEvents)), m_owner(owner) {}

 protected:
  void applyDefaultAntialiasingHint(QCPPainter* painter) const override {
    painter->setAntialiasing(false);
  }
  void draw(QCPPainter* painter) override { m_owner->drawEvents(painter); }

 private:
  const TimePlot* m_owner;
};

TimePlot::TimePlot(PlotId id, QWidget* parentWidget)
    : QObject(parentWidget), m_plot(new FastPlot(parentWidget)), m_id(id) {
  m_plot->setObjectName(plotKey(id));
  m_plot->setMinimumSize(240, 150);
  m_plot->setNoAntialiasingOnDrag(true);
  m_plot->setMouseTracking(true);  // hover readout without a button held
  m_plot->setPlottingHint(QCP::phCacheLabels, true);
  m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  m_plot->axisRect()->setRangeDrag(Qt::Horizontal);
  m_plot->axisRect()->setRangeZoom(Qt::Horizontal);
  m_plot->axisRect()->setRangeZoomAxes(m_plot->xAxis, nullptr);
  m_plot->axisRect()->setRangeDragAxes(m_plot->xAxis, nullptr);
  m_plot->xAxis->setLabel(QStringLiteral("simulated time (s)"));
  m_plot->xAxis->setRange(0, 60);

  // Header row: the title on the left, the legend beside it, outside the data area.
  m_plot->plotLayout()->insertRow(0);
  m_header = new QCPLayoutGrid;
  m_plot->plotLayout()->addElement(0, 0, m_header);
  m_plot->plotLayout()->setRowStretchFactor(0, 0.001);
  m_titleText = plotTitle(id);
  m_title = new FastText(m_plot, m_titleText);
  m_header->addElement(0, 0, m_title);
  m_plot->axisRect()->insetLayout()->take(m_plot->legend);
  m_header->addElement(0, 1, m_plot->legend);
  m_header->setColumnStretchFactor(0, 0.001);
  m_header->setColumnSpacing(12);
  m_plot->legend->setVisible(true);
  m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  m_plot->legend->setBorderPen(Qt::NoPen);
  m_plot->legend->setBrush(Qt::NoBrush);
  m_plot->legend->setRowSpacing(0);
  m_plot->legend->setColumnSpacing(10);
  m_plot->legend->setMargins(QMargins(2, 2, 2, 2));

  m_plot->layer(kOverlay)->setMode(QCPLayer::lmBuffered);
  m_plot->addLayer(QString::fromLatin1(kEvents), m_plot->layer(QStringLiteral("main")),
                   QCustomPlot::limAbove);
  m_eventLayer = new EventMarksLayerable(m_plot, this);
  m_baseTopMargin = m_plot->axisRect()->minimumMargins().top();
  m_cursor = makeLine();
  m_markerA = makeLine();
  m_markerB = makeLine();
  auto makeLabel = [this](const QString& text) {
    auto* label = new QCPItemText(m_plot);
    label->setLayer(kOverlay);
    label->setText(text);
    label->position->setTypeX(QCPItemPosition::ptPlotCoords);
    label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    label->position->setCoords(0, 0);
    label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignTop);
    label->setPadding(QMargins(3, 1, 3, 1));
    label->setVisible(false);
    label->setClipToAxisRect(true);
    return label;
  };
  m_labelA = makeLabel(QStringLiteral("A"));
  m_labelB = makeLabel(QStringLiteral("B"));
  m_readout = new QCPItemText(m_plot);
  m_readout->setLayer(kOverlay);
  m_readout->position->setTypeX(QCPItemPosition::ptPlotCoords);
  m_readout->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
  m_readout->setPadding(QMargins(5, 3, 5, 3));
  m_readout->setTextAlignment(Qt::AlignLeft);
  m_readout->setVisible(false);
  m_readout->setClipToAxisRect(false);

  connect(m_plot, &QCustomPlot::mouseMove, this, &TimePlot::onMouseMove);
  connect(m_plot, &QCustomPlot::mousePress, this, &TimePlot::onMousePress);
  connect(m_plot, &QCustomPlot::mouseRelease, this, &TimePlot::onMouseRelease);
  connect(m_plot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
          [this](const QCPRange& r) {
            if (!m_settingRange) Q_EMIT userRangeChanged(r.lower, r.upper);
          });
  // The labels are laid out for the axis rect each layout gives (the screen's, an export's);
  // when they need another number of rows above the data area, the layout is made again.
  connect(m_plot, &QCustomPlot::afterLayout, this, [this] {
    if (layoutEventLabels()) {
      m_plot->plotLayout()->update(QCPLayoutElement::upMargins);
      m_plot->plotLayout()->update(QCPLayoutElement::upLayout);
      layoutEventLabels();
    }
  });
  m_plot->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(m_plot, &QWidget::customContextMenuRequested, this,
          [this](const QPoint& pos) { Q_EMIT contextMenuRequested(m_plot->mapToGlobal(pos)); });
  m_plot->installEventFilter(this);
}

TimePlot::~TimePlot() = default;

void TimePlot::setTitle(const QString& title) {
  m_titleText = title;
  m_title->setText(title);
  setLegendColumns();
  m_dirty = true;
}

QString TimePlot::title() const {
  return m_titleText;
}

QCPItemStraightLine* TimePlot::makeLine() {
  auto* line = new QCPItemStraightLine(m_plot);
  line->setLayer(kOverlay);
  line->point1->setTypeY(QCPItemPosition::ptAxisRectRatio);
  line->point2->setTypeY(QCPItemPosition::ptAxisRectRatio);
  line->point1->setCoords(0, 0);
  line->point2->setCoords(0, 1);
  line->setVisible(false);
  return line;
}

int TimePlot::addSeries(SeriesSpec spec) {
  QCPAxis* valueAxis = spec.rightAxis ? m_plot->yAxis2 : m_plot->yAxis;
  if (spec.rightAxis) m_plot->yAxis2->setVisible(true);
  auto* graph = addFastGraph(m_plot, m_plot->xAxis, valueAxis);
  graph->setName(spec.name);
  graph->setAdaptiveSampling(true);
  graph->setLineStyle(spec.dots ? QCPGraph::lsNone
                                : (spec.step ? QCPGraph::lsStepLeft : QCPGraph::lsLine));
  m_specs.push_back(std::move(spec));
  m_graphs.push_back(graph);
  m_shown.push_back(true);
  applySeriesVisibility(m_graphs.size() - 1);
  return static_cast<int>(m_graphs.size()) - 1;
}

void TimePlot::setSeriesShown(int i, bool shown) {
  const auto idx = static_cast<std::size_t>(i);
  if (m_shown[idx] == shown) return;
  m_shown[idx] = shown;
  applySeriesVisibility(idx);
}

bool TimePlot::seriesVisible(std::size_t i) const {
  return m_shown[i] && (m_focus.isEmpty() || m_focus.contains(m_specs[i].name));
}

void TimePlot::applySeriesVisibility(std::size_t i) {
  const bool visible = seriesVisible(i);
  if (m_graphs[i]->visible() == visible) return;
  m_graphs[i]->setVisible(visible);
  if (visible)
    m_graphs[i]->addToLegend();
  else
    m_graphs[i]->removeFromLegend();
  m_dirty = true;
}

void TimePlot::setFocusCurves(const QStringList& curves) {
  if (curves == m_focus) return;
  m_focus = curves;
  for (std::size_t i = 0; i < m_specs.size(); ++i) applySeriesVisibility(i);
  setLegendColumns();
  m_dirty = true;
}

QStringList TimePlot::visibleSeries() const {
  QStringList out;
  for (std::size_t i = 0; i < m_specs.size(); ++i)
    if (seriesVisible(i)) out << m_specs[i].name;
  return out;
}

void TimePlot::setSeriesName(int i, const QString& name) {
  const auto idx = static_cast<std::size_t>(i);
  m_specs[idx].name = name;
  m_graphs[idx]->setName(name);
  setLegendColumns();
  m_dirty = true;
}

int TimePlot::graphCount() const {
  return m_plot->graphCount();
}

template <typename Samples>
void TimePlot::fillGraphs(const Samples& samples, std::optional<int> source, bool replace) {
  QVector<QCPGraphData> points;
  points.reserve(static_cast<int>(samples.size()));
  for (std::size_t i = 0; i < m_specs.size(); ++i) {
    const auto& spec = m_specs[i];
    if (source && spec.source != *source) continue;
    points.clear();
    for (const auto& s : samples)
      points.append(QCPGraphData(engine::toSeconds(s.time), spec.value(s, m_units)));
    if (replace)
      m_graphs[i]->data()->set(points, true);
    else
      m_graphs[i]->data()->add(points, true);
  }
  m_dirty = true;
}

void TimePlot::appendSamples(const SampleBuffer& samples) {
  if (samples.empty()) return;
  fillGraphs(samples, std::nullopt, false);
}

void TimePlot::appendTaskSamples(const TaskSampleBuffer&) {}

void TimePlot::rebuild(const SampleHistory& history, const TaskTraceHistory&) {
  fillGraphs(history, std::nullopt, true);
}

void TimePlot::addDirtySeries(const QString& limitName, engine::Pages engine::Sample::*limit) {
  using engine::Sample;
  addSeries({.name = "dirty+writeback",
             .memoryUnit = true,
             .value = dirtyAndWritebackMemory,
             .colour = SeriesColour::Foreground,
             .width = 2});
  const MemoryLevel levels[] = {
      {"dirty", &Sample::dirtyPages, SeriesColour::Orange},
      {"writeback", &Sample::writebackPages, SeriesColour::SkyBlue},
      {limitName, limit, SeriesColour::Vermillion, Qt::DashLine, 1.5},
      {"setpoint", &Sample::setpointPages, SeriesColour::Blue, Qt::DashLine, 1.5, true},
      {"freerun", &Sample::freerunPages, SeriesColour::Green, Qt::DashLine, 1.5, true},
      {"bg_thresh", &Sample::bgThreshPages, SeriesColour::Grey, Qt::DashDotLine},
  };
  for (const MemoryLevel& l : levels) {
    SeriesSpec spec = memorySeries(l.name, l.field, l.colour, l.style, l.width);
    if (l.positionControlOnly) spec.value = onlyWithPositionControl(std::move(spec.value));
    addSeries(std::move(spec));
  }
}

void TimePlot::appendSourceSamples(int source, const SampleBuffer& samples) {
  if (samples.empty()) return;
  fillGraphs(samples, source, false);
}

void TimePlot::rebuildSource(int source, const SampleHistory& history) {
  fillGraphs(history, source, true);
}

void TimePlot::clearSource(int source) {
  for (std::size_t i = 0; i < m_specs.size(); ++i)
    if (m_specs[i].source == source) m_graphs[i]->data()->clear();
  m_dirty = true;
}

void TimePlot::clearData() {
  for (int i = 0; i < m_plot->graphCount(); ++i) m_plot->graph(i)->data()->clear();
  m_dirty = true;
}

void TimePlot::trimBefore(double timeS) {
  for (int i = 0; i < m_plot->graphCount(); ++i) m_plot->graph(i)->data()->removeBefore(timeS);
}

void TimePlot::setTimeRange(double lower, double upper) {
  if (!(upper > lower)) upper = lower + 1;
  const QCPRange current = m_plot->xAxis->range();
  if (current.lower == lower && current.upper == upper) return;
  m_settingRange = true;
  m_plot->xAxis->setRange(lower, upper);
  m_settingRange = false;
  m_dirty = true;
}

std::pair<double, double> TimePlot::timeRange() const {
  const QCPRange r = m_plot->xAxis->range();
  return {r.lower, r.upper};
}

void TimePlot::autoscaleValues() {
  const QCPRange keys = m_plot->xAxis->range();
  autoscaleValuesOver(keys.lower, keys.upper);
}

void TimePlot::autoscaleValuesOver(double fromS, double toS) {
  autoscaleAxis(m_plot->yAxis, QCPRange(fromS, toS));
  if (m_plot->yAxis2->visible()) autoscaleAxis(m_plot->yAxis2, QCPRange(fromS, toS));
}

void TimePlot::autoscaleAxis(QCPAxis* axis, const QCPRange& keys) {
  const bool log = axis->scaleType() == QCPAxis::stLogarithmic;
  bool any = false;
  QCPRange total;
  // Every graph, including those that are not series (per-task curves); a series counts
  // only while it is shown.
  for (int i = 0; i < m_plot->graphCount(); ++i) {
    QCPGraph* g = m_plot->graph(i);
    const auto series = std::find(m_graphs.begin(), m_graphs.end(), g);
    if (series != m_graphs.end() &&
        !seriesVisible(static_cast<std::size_t>(series - m_graphs.begin())))
      continue;
    if (!g->visible() || g->valueAxis() != axis) continue;
    bool found = false;
    const QCPRange r = valueRangeOver(*g->data(), keys, log, found);
    if (!found) continue;
    if (!any) {
      total = r;
      any = true;
    } else {
      total.expand(r);
    }
  }
  if (log) {
    double lo = any ? total.lower : 1;
    double hi = any ? total.upper : 100;
    lo = std::exp2(std::floor(std::log2(std::max(lo, 1.0 / 64))));
    hi = std::exp2(std::ceil(std::log2(std::max(hi, lo * 2))));
    axis->setRange(lo, hi);
    return;
  }
  if (!any) {
    total = QCPRange(0, 1);
  }
  const double lower = std::min(0.0, total.lower * 1.08);
  const double wanted = total.upper > 0 ? total.upper * 1.08 : 1.0;
  const QCPRange current = axis->range();
  // Grow at once; shrink only when the data uses less than 60 % of the axis.
  if (wanted > current.upper || wanted < current.upper * 0.6 || lower != current.lower)
    axis->setRange(lower, wanted * 1.05);
}

void TimePlot::setCursor(std::optional<double> timeS, const engine::Sample* nearest,
                         const TaskTraceHistory* tasks) {
  placeCursor(timeS, nearest != nullptr);
  if (!timeS || !nearest) return;
  QStringList lines;
  lines << QStringLiteral("t = %1 s").arg(engine::toSeconds(nearest->time), 0, 'f', 1);
  for (std::size_t i = 0; i < m_specs.size(); ++i) {
    if (!seriesVisible(i)) continue;
    const auto& spec = m_specs[i];
    lines << QStringLiteral("%1: %2 %3")
                 .arg(spec.name, formatValue(spec.value(*nearest, m_units)), unitOf(spec));
  }
  lines << extraReadout(*timeS, *nearest, tasks);
  lines << eventsNear(*timeS);
  showReadout(lines, *timeS);
}

void TimePlot::placeCursor(std::optional<double> timeS, bool readout) {
  m_cursor->setVisible(timeS.has_value());
  m_readout->setVisible(timeS.has_value() && readout);
  if (!timeS) return;
  m_cursor->point1->setCoords(*timeS, 0);
  m_cursor->point2->setCoords(*timeS, 1);
}

void TimePlot::showReadout(const QStringList& lines, double timeS) {
  m_readout->setText(lines.join(QLatin1Char('\n')));
  // Keep the box beside the cursor, on whichever side has room.
  const QCPRange keys = m_plot->xAxis->range();
  const bool leftHalf = timeS < keys.center();
  m_readout->setPositionAlignment((leftHalf ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignTop);
  const double offset = keys.size() * 0.01 * (leftHalf ? 1 : -1);
  m_readout->position->setCoords(timeS + offset, 0.09);  // below the A/B labels
}

void TimePlot::setCursor(std::optional<double> timeS,
                         const std::vector<const engine::Sample*>& nearest) {
  const auto at = [&](int source) -> const engine::Sample* {
    return source >= 0 && static_cast<std::size_t>(source) < nearest.size()
               ? nearest[static_cast<std::size_t>(source)]
               : nullptr;
  };
  const bool any = std::any_of(nearest.begin(), nearest.end(), [](auto* p) { return p; });
  placeCursor(timeS, any);
  if (!timeS || !any) return;
  QStringList lines;
  lines << QStringLiteral("t = %1 s").arg(*timeS, 0, 'f', 1);
  for (std::size_t i = 0; i < m_specs.size(); ++i) {
    const auto& spec = m_specs[i];
    const engine::Sample* sample = at(spec.source);
    if (!seriesVisible(i) || !sample) continue;
    lines << QStringLiteral("%1: %2 %3")
                 .arg(spec.name, formatValue(spec.value(*sample, m_units)), unitOf(spec));
  }
  lines << eventsNear(*timeS);
  showReadout(lines, *timeS);
}

std::optional<double> TimePlot::cursorTime() const {
  if (!m_cursor->visible()) return std::nullopt;
  return m_cursor->point1->coords().x();
}

QString TimePlot::readoutText() const {
  return m_readout->visible() ? m_readout->text() : QString();
}

QStringList TimePlot::extraReadout(double, const engine::Sample&, const TaskTraceHistory*) const {
  return {};
}

void TimePlot::setMarkers(std::optional<double> a, std::optional<double> b) {
  auto place = [](QCPItemStraightLine* line, QCPItemText* label, std::optional<double> t) {
    line->setVisible(t.has_value());
    label->setVisible(t.has_value());
    if (!t) return;
    line->point1->setCoords(*t, 0);
    line->point2->setCoords(*t, 1);
    label->position->setCoords(*t, 0);
  };
  place(m_markerA, m_labelA, a);
  place(m_markerB, m_labelB, b);
}

void TimePlot::setEvents(const std::vector<engine::RunEvent>& events,
                         const engine::Scenario* names) {
  std::vector<EventMark> marks;
  marks.reserve(events.size());
  for (const auto& e : events) {
    const EventText text = describeEvent(e, names);
    marks.push_back({e.timeS, text.label, text.full});
  }
  setEventMarks(std::move(marks));
}

void TimePlot::setEventMarks(std::vector<EventMark> marks) {
  std::stable_sort(marks.begin(), marks.end(),
                   [](const EventMark& a, const EventMark& b) { return a.timeS < b.timeS; });
  m_marks = std::move(marks);
  m_labelWidths.clear();  // measured at the next layout
  m_dirty = true;
}

void TimePlot::setEventLabelsShown(bool shown) {
  if (shown == m_labelsShown) return;
  m_labelsShown = shown;
  m_dirty = true;
}

double TimePlot::markPixel(double timeS, const QRect& rect) const {
  constexpr double kSlack = 2;
  const double x = m_plot->xAxis->coordToPixel(timeS);
  if (x < rect.left() - kSlack || x > rect.right() + kSlack)
    return std::numeric_limits<double>::quiet_NaN();
  return std::clamp<double>(x, rect.left(), rect.right());
}

QFont TimePlot::eventFont() const {
  QFont f = m_theme.font;
  f.setPointSizeF(f.pointSizeF() * 0.85);
  return f;
}

bool TimePlot::layoutEventLabels() {
  m_labelLayout.clear();
  const QRect rect = m_plot->axisRect()->rect();
  const QFontMetricsF fm(eventFont());
  const double rowHeight = std::ceil(fm.height()) + 2;
  // Two rows where the data area is tall enough for a strip of two above it; one in presenter
  // mode, whose larger text is for a room that reads few words.
  const int maxRows = m_theme.presenter || rect.height() < 110 ? 1 : 2;
  int rowsUsed = 0;
  if (m_labelsShown && !m_marks.empty() && rect.width() > 0) {
    if (m_labelWidths.size() != m_marks.size()) {
      m_labelWidths.clear();
      for (const EventMark& m : m_marks) m_labelWidths.push_back(fm.horizontalAdvance(m.label) + 6);
    }
    struct Span {
      double a, b;
    };
    std::vector<std::vector<Span>> rows(static_cast<std::size_t>(maxRows));
    const auto fits = [&](int row, double a, double b) {
      for (const Span& s : rows[static_cast<std::size_t>(row)])
        if (a < s.b + kLabelGap && b + kLabelGap > s.a) return false;
      return true;
    };
    // Beside its mark: to the right of it, or to the left where the right would leave the plot.
    const auto spanAt = [&](double x, double w) {
      return x + w <= rect.right() ? Span{x, x + w} : Span{std::max<double>(rect.left(), x - w), x};
    };
    // The pixel of each mark in the range, to keep a label in the last row clear of the other
    // marks (whose labels have no other row to go to): there each gets a share, shortened.
    // The marks are sorted by time, so the pixels of those in range are sorted too: the
    // neighbours of a pixel are a binary search away, which keeps 50,000 marks (a session's
    // notes) from costing a scan of all of them per mark.
    std::vector<double> xs;
    xs.reserve(m_marks.size());
    for (const EventMark& m : m_marks)
      if (const double x = markPixel(m.timeS, rect); !std::isnan(x)) xs.push_back(x);
    const auto coversAnother = [&](double own, double a, double b) {
      const auto from = std::upper_bound(xs.begin(), xs.end(), a - kLabelGap);
      const auto to = std::lower_bound(from, xs.end(), b + kLabelGap);
      return from != to && (*from != own || *(to - 1) != own);
    };
    // The nearest pixels of other marks below and above `x` (NaN: none).
    const auto neighbours = [&](double x) {
      const auto below = std::lower_bound(xs.begin(), xs.end(), x);
      const auto above = std::upper_bound(below, xs.end(), x);
      return std::pair{
          below == xs.begin() ? std::numeric_limits<double>::quiet_NaN() : *(below - 1),
          above == xs.end() ? std::numeric_limits<double>::quiet_NaN() : *above};
    };
    std::vector<int> waiting;
    for (int i = 0; i < static_cast<int>(m_marks.size()); ++i) {
      // Outside the visible range: no label (within a pixel or two of its edge, at the edge:
      // the first writers start a millisecond before the first sample the axis begins at).
      const double x = markPixel(m_marks[static_cast<std::size_t>(i)].timeS, rect);
      if (std::isnan(x)) continue;
      const Span s = spanAt(x, m_labelWidths[static_cast<std::size_t>(i)]);
      bool placed = false;
      for (int r = 0; r < maxRows && !placed; ++r)
        if (fits(r, s.a, s.b) && (r < maxRows - 1 || !coversAnother(x, s.a, s.b))) {
          rows[static_cast<std::size_t>(r)].push_back(s);
          m_labelLayout.push_back({i, m_marks[static_cast<std::size_t>(i)].label,
                                   QRectF(s.a, 0, s.b - s.a, rowHeight), r});
          placed = true;
        }
      if (!placed) waiting.push_back(i);
    }
    // Labels with no room for all of their words: as many as fit beside the mark, else none.
    const double least = fm.horizontalAdvance(QStringLiteral("ab…")) + 6;
    for (int i : waiting) {
      const double x = markPixel(m_marks[static_cast<std::size_t>(i)].timeS, rect);
      int bestRow = -1;
      Span best{0, 0};
      for (int r = 0; r < maxRows; ++r) {
        // The free stretch of this row around x.
        double lo = rect.left();
        double hi = rect.right();
        bool inside = true;
        for (const Span& s : rows[static_cast<std::size_t>(r)]) {
          if (x >= s.a - kLabelGap && x <= s.b + kLabelGap) inside = false;
          if (s.b + kLabelGap <= x) lo = std::max(lo, s.b + kLabelGap);
          if (s.a - kLabelGap >= x) hi = std::min(hi, s.a - kLabelGap);
        }
        if (!inside) continue;
        if (r == maxRows - 1) {  // the last row: a share between the neighbouring marks
          const auto [below, above] = neighbours(x);
          if (!std::isnan(above)) hi = std::min(hi, above - kLabelGap);
          if (!std::isnan(below)) lo = std::max(lo, below + kLabelGap);
        }
        const Span s = hi - x >= x - lo ? Span{x, hi} : Span{lo, x};
        if (s.b - s.a > best.b - best.a) {
          best = s;
          bestRow = r;
        }
      }
      if (bestRow < 0 || best.b - best.a < least) continue;
      const QString text = fm.elidedText(m_marks[static_cast<std::size_t>(i)].label, Qt::ElideRight,
                                         best.b - best.a - 6);
      const double w = std::min(best.b - best.a, fm.horizontalAdvance(text) + 6);
      const Span s = best.a == x ? Span{x, x + w} : Span{x - w, x};
      rows[static_cast<std::size_t>(bestRow)].push_back(s);
      m_labelLayout.push_back({i, text, QRectF(s.a, 0, s.b - s.a, rowHeight), bestRow});
    }
    for (auto& l : m_labelLayout) {
      rowsUsed = std::max(rowsUsed, l.row + 1);
      l.box.moveBottom(rect.top() - 1 - l.row * rowHeight);
    }
    std::sort(m_labelLayout.begin(), m_labelLayout.end(),
              [](const EventLabelBox& a, const EventLabelBox& b) { return a.mark < b.mark; });
  }
  // The strip above the data area: as tall as the rows of labels (the axis rect's own margin
  // above its data already holds one row of small text).
  const int top = std::max(m_baseTopMargin, static_cast<int>(rowsUsed * rowHeight) + 3);
  QMargins margins = m_plot->axisRect()->minimumMargins();
  m_labelRows = rowsUsed;
  if (margins.top() == top) return false;
  margins.setTop(top);
  m_plot->axisRect()->setMinimumMargins(margins);
  return true;
}

void TimePlot::drawEvents(QCPPainter* painter) const {
  if (m_marks.empty()) return;
  const QRect rect = m_plot->axisRect()->rect();
  QColor mark = m_theme.foreground;
  mark.setAlpha(150);
  QPen dashed(mark, m_theme.presenter ? 2 : 1, Qt::DashLine);
  dashed.setCosmetic(true);
  painter->setPen(dashed);
  for (const EventMark& m : m_marks) {
    const double x = std::round(markPixel(m.timeS, rect)) + 0.5;
    if (std::isnan(x)) continue;
    painter->drawLine(QLineF(x, rect.top(), x, rect.bottom()));
  }
  if (m_labelLayout.empty()) return;
  // Each label hangs from its mark: a solid stroke from the label down to the data area, then
  // the boxes (a lower row's box covers the strokes of labels above it).
  painter->setPen(QPen(mark, 1));
  for (const EventLabelBox& l : m_labelLayout) {
    const double x =
        std::round(markPixel(m_marks[static_cast<std::size_t>(l.mark)].timeS, rect)) + 0.5;
    painter->drawLine(QLineF(x, l.box.bottom(), x, rect.top()));
  }
  painter->setFont(eventFont());
  QColor border = m_theme.foreground;
  border.setAlpha(90);
  for (const EventLabelBox& l : m_labelLayout) {
    painter->setPen(QPen(border, 1));
    painter->setBrush(m_theme.background);
    painter->drawRect(l.box.adjusted(0.5, 0.5, -0.5, -0.5));
    painter->setPen(m_theme.foreground);
    painter->drawText(l.box.adjusted(3, 0, -3, 0), Qt::AlignLeft | Qt::AlignVCenter, l.text);
  }
}

QStringList TimePlot::eventLabels() const {
  QStringList out;
  for (const EventLabelBox& l : m_labelLayout) out << l.text;
  return out;
}

QStringList TimePlot::eventsNear(double timeS) const {
  QStringList out;
  const double x = m_plot->xAxis->coordToPixel(timeS);
  for (const EventMark& m : m_marks)
    if (std::abs(m_plot->xAxis->coordToPixel(m.timeS) - x) <= kNearPixels)
      out << QStringLiteral("%1 s: %2").arg(m.timeS, 0, 'f', 1).arg(m.full);
  return out;
}

QStringList TimePlot::deltaLines(const engine::Sample& a, const engine::Sample& b) const {
  QStringList out;
  for (std::size_t i = 0; i < m_specs.size(); ++i) {
    if (!seriesVisible(i)) continue;
    const auto& spec = m_specs[i];
    const double va = spec.value(a, m_units);
    const double vb = spec.value(b, m_units);
    const double d = vb - va;
    out << QStringLiteral("%1: %2 → %3 (Δ %4%5 %6)")
               .arg(spec.name, formatValue(va), formatValue(vb), d >= 0 ? "+" : "", formatValue(d),
                    unitOf(spec));
  }
  return out;
}

QString TimePlot::unitOf(const SeriesSpec& s) const {
  return s.memoryUnit ? m_units.memoryUnit() : s.unit;
}

void TimePlot::styleGraph(QCPGraph* graph, QColor colour, Qt::PenStyle style, double width,
                          bool dots) {
  // Pens wider than one pixel cost about ten times more to rasterise (measured: the dirty
  // pages plot replots in 26 ms instead of 2.3 ms at 6,000 points), so emphasis comes from
  // colour and dashes; only presenter mode, where readability beats frame time, widens lines.
  // Wide dashes are the dearest of all (the dash stroker runs per segment): at most 2 px.
  double w = 1.0;
  if (m_theme.presenter)
    w = style == Qt::SolidLine ? width * m_theme.penScale : std::min(width * m_theme.penScale, 2.0);
  QPen pen(colour, w, style);
  pen.setCosmetic(true);
  graph->setPen(pen);
  if (dots) {
    graph->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssDisc, colour, (m_theme.presenter ? 7.0 : 4.0)));
  }
}

void TimePlot::applyTheme(const Theme& theme) {
  m_theme = theme;
  m_labelWidths.clear();  // in the new font
  // Presenter mode's thick lines (measured by gui_bench: the dirty pages plot replotted in
  // 50–130 ms with antialiased 5 px polylines of 6,000 points): solid lines as separate
  // segments and without antialiasing; a projector blurs the steps anyway.
  m_plot->setPlottingHint(QCP::phFastPolylines, theme.presenter);
  m_plot->setNotAntialiasedElements(theme.presenter ? QCP::aePlottables : QCP::aeNone);
  m_plot->setBackground(theme.background);
  // No fill of its own for the axis rect: the plot's background is the same colour, and a second
  // fill of most of the plot costs every frame.
  m_plot->axisRect()->setBackground(Qt::NoBrush);
  for (QCPAxis* axis : {m_plot->xAxis, m_plot->yAxis, m_plot->xAxis2, m_plot->yAxis2}) {
    styleAxis(axis, theme);
    axis->grid()->setSubGridPen(QPen(theme.subGrid, 1, Qt::DotLine));
  }
  m_plot->yAxis2->grid()->setVisible(false);
  m_title->setFont(theme.titleFont());
  m_title->setTextColor(theme.foreground);
  m_plot->legend->setTextColor(theme.foreground);
  for (std::size_t i = 0; i < m_specs.size(); ++i) {
    const auto& s = m_specs[i];
    styleGraph(m_graphs[i], theme.colour(s.colour), s.style, s.width, s.dots);
  }
  QPen cursorPen(theme.foreground, theme.presenter ? 2 : 1, Qt::SolidLine);
  m_cursor->setPen(cursorPen);
  m_markerA->setPen(
      QPen(theme.colour(SeriesColour::Blue), theme.presenter ? 3 : 1.5, Qt::DashLine));
  m_markerB->setPen(
      QPen(theme.colour(SeriesColour::Vermillion), theme.presenter ? 3 : 1.5, Qt::DashLine));
  for (auto* label : {m_labelA, m_labelB}) {
    label->setFont(theme.titleFont());
    label->setColor(theme.background);
  }
  m_labelA->setBrush(theme.colour(SeriesColour::Blue));
  m_labelB->setBrush(theme.colour(SeriesColour::Vermillion));
  m_readout->setFont(theme.legendFont());
  m_readout->setColor(theme.foreground);
  m_readout->setBrush(theme.legendBackground);
  m_readout->setPen(QPen(theme.grid));
  setLegendColumns();
  m_dirty = true;
}

void TimePlot::setLegendColumns() {
  // Beside the title while the entries fit in a row or two there; otherwise in a row of their
  // own under it, and compact if even that takes more than two rows: a legend QCustomPlot
  // cannot fit is squashed or clipped without a word.
  QCPLegend* legend = m_plot->legend;
  const int width = m_plot->width();
  // A title wider than the plot (a narrow column, presenter mode's fonts) is broken between
  // words onto as many lines as it needs, instead of running off both edges.
  const QFontMetrics titleMetrics(m_title->font());
  const QStringList titleLines = wrapWords(m_titleText, titleMetrics, width - 24);
  if (m_title->text() != titleLines.join(QLatin1Char('\n')))
    m_title->setText(titleLines.join(QLatin1Char('\n')));
  int titleWidth = 0;
  for (const QString& line : titleLines)
    titleWidth = std::max(titleWidth, titleMetrics.horizontalAdvance(line) + 24);
  m_title->setMinimumSize(titleWidth - 12, 0);
  // Whether the legend goes below the title, and whether it then fits in two rows.
  const auto fit = [&]() -> std::pair<bool, bool> {
    styleLegend(legend, m_theme, false);
    const bool below = wrapLegend(legend, width - titleWidth - 16) > (m_theme.presenter ? 1 : 2);
    if (!below || wrapLegend(legend, width - 16) <= 2) return {below, true};
    styleLegend(legend, m_theme, true);
    return {below, wrapLegend(legend, width - 16) <= 2};
  };
  summariseLegend(false);
  auto [below, fits] = fit();
  // Even compact it takes more rows than a plot can spare (the pauses of ten writers took
  // four in presenter mode at 1024x768): entries that can share one do. A plot not laid out
  // yet has no width to judge by.
  if (!fits && m_plot->isVisible() && summariseLegend(true)) std::tie(below, fits) = fit();
  const bool isBelow = m_header->elementCount() > 1 && m_header->rowCount() > 1;
  if (below != isBelow) {
    m_header->take(legend);
    m_header->simplify();
    if (below)
      m_header->addElement(1, 0, legend);
    else
      m_header->addElement(0, 1, legend);
    m_header->setColumnStretchFactor(0, below ? 1 : 0.001);
  }
  // The dashboard keeps every plot's data area: a header of another height changes what
  // each plot needs.
  const auto header = std::tuple(titleLines.size(), below, legend->rowCount(),
                                 legend->font().pointSizeF(), legend->itemCount());
  if (header != m_headerShape) {
    m_headerShape = header;
    Q_EMIT headerChanged();
  }
}

void TimePlot::setRunsAxisTitle(const QString& memory) {
  switch (id()) {
    case PlotId::DirtyPages:
      m_plot->yAxis->setLabel(QStringLiteral("%1 (%2)").arg(memory, m_units.memoryUnit()));
      break;
    case PlotId::Pauses:
      m_plot->yAxis->setLabel(QStringLiteral("pause (ms, log₂)"));
      break;
    default:
      m_plot->yAxis->setLabel(QStringLiteral("MB/s"));
      break;
  }
}

void TimePlot::setUnits(const DisplayUnits& units) {
  m_units = units;
  updateAxisTitles();
  m_dirty = true;
}

void TimePlot::replotOverlay() {
  m_plot->layer(kOverlay)->replot();
}

bool TimePlot::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_plot) {
    if (event->type() == QEvent::Leave) Q_EMIT hoverLeft();
    if (event->type() == QEvent::Resize) setLegendColumns();
  }
  return QObject::eventFilter(watched, event);
}

void TimePlot::onMouseMove(QMouseEvent* event) {
  const QPointF pos = event->position();
  if (!m_plot->axisRect()->rect().contains(pos.toPoint())) {
    // Over a label above the data area: its whole text, which the label may have shortened.
    QStringList texts;
    for (const EventLabelBox& l : m_labelLayout)
      if (l.box.contains(pos)) {
        const EventMark& m = m_marks[static_cast<std::size_t>(l.mark)];
        texts << QStringLiteral("%1 s: %2").arg(m.timeS, 0, 'f', 1).arg(m.full);
      }
    if (texts.isEmpty())
      QToolTip::hideText();
    else
      QToolTip::showText(event->globalPosition().toPoint(), texts.join(QLatin1Char('\n')), m_plot);
    Q_EMIT hoverLeft();
    return;
  }
  Q_EMIT hovered(m_plot->xAxis->pixelToCoord(pos.x()));
}

void TimePlot::onMousePress(QMouseEvent* event) {
  m_pressPos = event->position().toPoint();
}

void TimePlot::onMouseRelease(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return;
  const QPoint pos = event->position().toPoint();
  if ((pos - m_pressPos).manhattanLength() > 3) return;  // that was a drag (pan)
  if (!m_plot->axisRect()->rect().contains(pos)) return;
  Q_EMIT clicked(m_plot->xAxis->pixelToCoord(pos.x()),
                 event->modifiers().testFlag(Qt::ShiftModifier));
  if (event->modifiers().testFlag(Qt::ControlModifier))
    Q_EMIT branchClicked(m_plot->xAxis->pixelToCoord(pos.x()));
  if (const int task = taskAtPixel(pos); task >= 0)
    Q_EMIT taskClicked(task, m_plot->xAxis->pixelToCoord(pos.x()));
}

QSplitter* stackRunPlots(QObject* context, const RunPlotHooks& hooks) {
  auto* splitter = new QSplitter(Qt::Vertical);
  for (PlotId id : {PlotId::DirtyPages, PlotId::Pauses, PlotId::Bandwidth}) {
    TimePlot* plot = hooks.make(id, splitter);
    splitter->addWidget(plot->widget());
    QObject::connect(plot, &TimePlot::hovered, context,
                     [cursor = hooks.cursor](double t) { cursor(t); });
    QObject::connect(plot, &TimePlot::hoverLeft, context,
                     [cursor = hooks.cursor] { cursor(std::nullopt); });
    QObject::connect(
        plot, &TimePlot::userRangeChanged, context,
        [range = hooks.userRange, plot](double lo, double hi) { range(plot, lo, hi); });
  }
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 2);
  splitter->setStretchFactor(2, 2);
  // The dirty pages' legend of two runs takes three rows: by the stretch alone, the pauses and
  // the bandwidth were left 30 to 40 px of data at 1024x768.
  keepDataAreasOnResize(splitter, kRunPlotMinDataHeight);
  return splitter;
}

}  // namespace throttlelab::ui
