// SPDX-License-Identifier: GPL-3.0-or-later
#include "dashboard.h"

#include <QApplication>
#include <QDataStream>
#include <QEvent>
#include <QLabel>
#include <QMenu>
#include <QResizeEvent>
#include <QSplitter>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>

#include "bandwidth_plot.h"
#include "device_plot.h"
#include "dirty_pages_plot.h"
#include "memory_plot.h"
#include "pause_plot.h"
#include "plot_style.h"
#include "qcp.h"
#include "sample_history.h"
#include "task_trace_history.h"
#include "throttle_curve_plot.h"

namespace throttlelab::ui {

namespace {
constexpr quint32 kLayoutMagic = 0x544c4431;  // "TLD1"
constexpr double kMinSpanS = 10;              // the time axis never shows less while following

}  // namespace

Dashboard::Dashboard(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("dashboard"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  m_columns = new QSplitter(Qt::Horizontal, this);
  m_left = new QSplitter(Qt::Vertical, m_columns);
  m_right = new QSplitter(Qt::Vertical, m_columns);
  for (auto* s : {m_columns, m_left, m_right}) s->setChildrenCollapsible(false);

  auto* dirty = new DirtyPagesPlot(m_left);
  m_pauses = new PausePlot(m_left);
  auto* bandwidth = new BandwidthPlot(m_left);
  m_curve = new ThrottleCurvePlot(m_right);
  auto* memory = new MemoryPlot(m_right);
  auto* device = new DevicePlot(m_right);
  m_timePlots = {dirty, m_pauses, bandwidth, memory, device};
  m_left->addWidget(dirty->widget());
  m_left->addWidget(m_pauses->widget());
  m_left->addWidget(bandwidth->widget());
  m_right->addWidget(m_curve->widget());
  m_right->addWidget(memory->widget());
  m_right->addWidget(device->widget());
  // The disk's requests are for when the bandwidth needs explaining: chosen from View.
  device->widget()->hide();
  labelTopPlots();
  m_left->setSizes({400, 300, 300});
  m_right->setSizes({600, 400, 300});
  m_columns->setStretchFactor(0, 3);
  m_columns->setStretchFactor(1, 2);
  m_columns->setSizes({600, 400});
  layout->addWidget(m_columns, 1);

  m_markerLabel = new QLabel(this);
  m_markerLabel->setObjectName(QStringLiteral("markerReadout"));
  m_markerLabel->setWordWrap(true);
  m_markerLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_markerLabel->setContentsMargins(6, 0, 6, 2);
  layout->addWidget(m_markerLabel);

  for (TimePlot* plot : m_timePlots) {
    const PlotId id = plot->id();
    connect(plot, &TimePlot::hovered, this, [this](double t) { onHover(t); });
    connect(plot, &TimePlot::hoverLeft, this, [this] { setCursorTime(std::nullopt); });
    connect(plot, &TimePlot::clicked, this, [this, id](double t, bool shift) {
      setMarker(t, shift, id);
      Q_EMIT markerPlaced(t, shift);
    });
    connect(plot, &TimePlot::branchClicked, this, &Dashboard::branchRequested);
    connect(plot, &TimePlot::taskClicked, this, &Dashboard::taskClicked);
    connect(plot, &TimePlot::userRangeChanged, this,
            [this, plot](double lo, double hi) { onUserRange(plot, lo, hi); });
    connect(plot, &TimePlot::contextMenuRequested, this,
            [this, id](QPoint pos) { showContextMenu(id, pos); });
    // A legend that grows a row (ten writers where there was one, in a lesson's step) needs
    // more of the column: fit again once the change is laid out.
    connect(plot, &TimePlot::headerChanged, this, [this] {
      if (m_fitQueued) return;
      m_fitQueued = true;
      QTimer::singleShot(0, this, [this] {
        m_fitQueued = false;
        fitPlots(true, true);
      });
    });
  }
  m_curve->widget()->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(m_curve->widget(), &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
    showContextMenu(PlotId::ThrottleCurve, m_curve->widget()->mapToGlobal(pos));
  });
  applyTheme();
  for (TimePlot* plot : m_timePlots) plot->setUnits(m_units);
  m_curve->setUnits(m_units);
  updateMarkers();
}

Dashboard::~Dashboard() {
  // Destroying a plot under the mouse sends it a Leave event, which would reach this object
  // after its members are gone; disconnect first, and delete the plots while they exist.
  for (TimePlot* plot : m_timePlots) disconnect(plot, nullptr, this, nullptr);
  m_timePlots.clear();
  delete m_columns;
}

void Dashboard::setSources(const SampleHistory* history, const TaskTraceHistory* tasks) {
  m_history = history;
  m_tasks = tasks;
}

void Dashboard::appendBatch(const SampleBuffer& samples, const TaskSampleBuffer& taskSamples) {
  for (TimePlot* plot : m_timePlots) {
    plot->appendSamples(samples);
    plot->appendTaskSamples(taskSamples);
  }
}

void Dashboard::historyUpdated(bool rebuilt) {
  if (!m_history) return;
  if (rebuilt) rebuild();
  if (!m_history->empty()) {
    const double first = m_history->firstTimeS();
    if (m_rehome) {
      // A new run (Reset, a session): a paused view of the old run's times would show
      // nothing; keep the span the user chose, from the new run's start.
      m_rehome = false;
      if (!m_follow) {
        const auto [lo, hi] = timeRange();
        for (TimePlot* plot : m_timePlots) plot->setTimeRange(first, first + (hi - lo));
      }
    }
    for (TimePlot* plot : m_timePlots) plot->trimBefore(first);
    m_curve->setLive(*m_history);
  }
}

void Dashboard::rebuild() {
  if (!m_history || !m_tasks) return;
  for (TimePlot* plot : m_timePlots) plot->rebuild(*m_history, *m_tasks);
  if (!m_history->empty()) m_curve->setLive(*m_history);
}

void Dashboard::clearData() {
  for (TimePlot* plot : m_timePlots) plot->clearData();
  m_curve->clearData();
  m_rehome = true;
  m_cursor.reset();
  clearMarkers();
}

void Dashboard::setThrottleCurve(const engine::ThrottleCurve& curve) {
  m_curve->setCurve(curve);
  // The words beside it (where dirty stands: below freerun, over the limit) against this curve,
  // not the one before.
  if (m_history && !m_history->empty()) m_curve->setLive(*m_history);
}

void Dashboard::setTaskInfos(const std::map<int, engine::TaskInfo>& infos) {
  m_pauses->setTaskInfos(infos);
}

void Dashboard::setSelectedTask(int task) {
  m_pauses->setSelectedTask(task);
}

int Dashboard::refresh(bool immediate, bool force) {
  if (m_timePlots.empty()) return 0;
  if (m_follow) applyFollowRange();
  int replotted = 0;
  for (TimePlot* plot : m_timePlots) {
    if (!plot->isShown() || (!force && !plot->isDirty())) continue;
    plot->autoscaleValues();
    plot->replot(immediate);
    ++replotted;
  }
  if (force) m_curve->flushText();  // a forced frame (a run's end, an export) is exact
  if (m_curve->isShown() && (force || m_curve->isDirty())) {
    m_curve->replot(immediate);
    ++replotted;
  }
  return replotted;
}

void Dashboard::applyFollowRange() {
  if (!m_history || m_history->empty()) return;
  const double last = m_history->lastTimeS();
  const double first = m_history->firstTimeS();
  const double span = historySeconds(m_history->window());
  const double lo = std::max(first, last - span);
  const double hi = std::max(last, lo + kMinSpanS);
  for (TimePlot* plot : m_timePlots) plot->setTimeRange(lo, hi);
}

void Dashboard::setFollowLive(bool follow) {
  if (follow == m_follow) return;
  m_follow = follow;
  if (follow) applyFollowRange();
  Q_EMIT followLiveChanged(follow);
}

void Dashboard::fitAll() {
  if (!m_history || m_history->empty()) return;
  setTimeRange(m_history->firstTimeS(),
               std::max(m_history->lastTimeS(), m_history->firstTimeS() + 1));
}

void Dashboard::setTimeRange(double lower, double upper) {
  setFollowLive(false);
  for (TimePlot* plot : m_timePlots) plot->setTimeRange(lower, upper);
}

std::pair<double, double> Dashboard::timeRange() const {
  return m_timePlots.front()->timeRange();
}

void Dashboard::onUserRange(TimePlot* source, double lower, double upper) {
  // A drag or wheel zoom in one plot: the others follow, and live following stops.
  if (m_syncing) return;
  m_syncing = true;
  setFollowLive(false);
  for (TimePlot* plot : m_timePlots)
    if (plot != source) plot->setTimeRange(lower, upper);
  source->markDirty();
  m_syncing = false;
  refresh(false);
}

QCustomPlot* Dashboard::plotWidget(PlotId id) const {
  if (id == PlotId::ThrottleCurve) return m_curve->widget();
  TimePlot* p = timePlot(id);
  return p ? p->widget() : nullptr;
}

TimePlot* Dashboard::timePlot(PlotId id) const {
  for (TimePlot* p : m_timePlots)
    if (p->id() == id) return p;
  return nullptr;
}

void Dashboard::setPlotVisible(PlotId id, bool visible) {
  if (!plotWidget(id) || isPlotVisible(id) == visible) return;
  // The user's (or a lesson's, or a session's) choice: a plot shown now stays, squeezed if it
  // must, until the dashboard next shrinks.
  std::erase(m_hiddenForRoom, id);
  showPlot(id, visible);
}

void Dashboard::showPlot(PlotId id, bool visible) {
  QWidget* w = plotWidget(id);
  w->setVisible(visible);
  if (TimePlot* p = timePlot(id)) p->markDirty();
  // A column whose plots are all hidden gives its space to the other.
  auto anyVisible = [this](QSplitter* s) {
    for (int i = 0; i < s->count(); ++i)
      if (!s->widget(i)->isHidden()) return true;
    return false;
  };
  m_left->setVisible(anyVisible(m_left));
  m_right->setVisible(anyVisible(m_right));
  labelTopPlots();
  Q_EMIT plotVisibilityChanged(id, visible);
}

void Dashboard::labelTopPlots() {
  // The plots of a column share one time axis: the labels of the timeline's marks go above the
  // top one's data, and the marks alone through the rest (their labels would pile up there, and
  // take each plot's height again).
  for (QSplitter* column : {m_left, m_right}) {
    bool labelled = false;
    for (int i = 0; i < column->count(); ++i)
      for (TimePlot* plot : m_timePlots)
        if (plot->widget() == column->widget(i)) {
          const bool top = !labelled && !plot->widget()->isHidden();
          plot->setEventLabelsShown(top);
          labelled |= top;
        }
  }
}

bool Dashboard::isPlotVisible(PlotId id) const {
  QWidget* w = plotWidget(id);
  return w && !w->isHidden();
}

std::vector<PlotId> Dashboard::visiblePlots() const {
  std::vector<PlotId> out;
  for (PlotId id : kAllPlots)
    if (isPlotVisible(id)) out.push_back(id);
  return out;
}

std::vector<PlotId> Dashboard::chosenPlots() const {
  std::vector<PlotId> out;
  for (PlotId id : kAllPlots)
    if (isPlotVisible(id) ||
        std::find(m_hiddenForRoom.begin(), m_hiddenForRoom.end(), id) != m_hiddenForRoom.end())
      out.push_back(id);
  return out;
}

void Dashboard::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  const QSize old = event->oldSize();
  const QSize now = event->size();
  // Narrower is shorter too: the legends wrap into more rows.
  const bool first = !old.isValid();
  fitPlots(first || now.height() < old.height() || now.width() < old.width(),
           !first && (now.height() > old.height() || now.width() > old.width()));
}

void Dashboard::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  fitPlots(true, true);  // its size may have changed while another view was shown
}

void Dashboard::fitPlots(bool mayHide, bool mayShow) {
  if (m_fitting || !isVisible()) return;  // a hidden dashboard has no height to go by
  m_fitting = true;
  const int handle = m_left->handleWidth();
  const int room = m_columns->height();
  for (QSplitter* column : {m_left, m_right}) {
    std::vector<PlotId> shown;  // top to bottom
    std::vector<int> index;     // their places in the column
    for (int i = 0; i < column->count(); ++i)
      for (PlotId id : kAllPlots)
        if (plotWidget(id) == column->widget(i) && isPlotVisible(id)) {
          shown.push_back(id);
          index.push_back(i);
        }
    const auto needOf = [this](PlotId id) {
      return plotOverheadHeight(plotWidget(id)) + kMinDataHeight;
    };
    std::vector<int> need;
    int total = 0;
    for (PlotId id : shown) total += need.emplace_back(needOf(id)) + handle;
    // The lowest plot of the column goes first, unless a lesson step points at it; then the
    // one above it. The top one stays, unless it is that one's last companion.
    while (mayHide && shown.size() > 1 && total - handle > room) {
      std::size_t k = shown.size() - 1;
      if (m_highlightPlot && shown[k] == *m_highlightPlot) --k;
      const auto at = static_cast<std::ptrdiff_t>(k);
      total -= need[k] + handle;
      m_hiddenForRoom.push_back(shown[k]);
      showPlot(shown[k], false);
      shown.erase(shown.begin() + at);
      index.erase(index.begin() + at);
      need.erase(need.begin() + at);
    }
    if (mayShow) {
      const std::vector<PlotId> away(m_hiddenForRoom.rbegin(), m_hiddenForRoom.rend());
      for (PlotId id : away) {
        const int at = column->indexOf(plotWidget(id));
        if (at < 0) continue;  // the other column's
        const int wanted = needOf(id);
        if (total + wanted > room) break;
        total += wanted + handle;
        std::erase(m_hiddenForRoom, id);
        showPlot(id, true);
        const auto place = std::upper_bound(index.begin(), index.end(), at);
        const auto k = place - index.begin();
        index.insert(place, at);
        shown.insert(shown.begin() + k, id);
        need.insert(need.begin() + k, wanted);
      }
    }
    if (shown.empty() || total - handle > room) continue;
    // Each plot at least its need, taken from those above theirs in proportion.
    QList<int> sizes = column->sizes();
    int deficit = 0;
    int surplus = 0;
    for (std::size_t k = 0; k < shown.size(); ++k) {
      const int have = sizes[index[k]];
      if (have < need[k])
        deficit += need[k] - have;
      else
        surplus += have - need[k];
    }
    if (deficit == 0 || surplus < deficit) continue;
    for (std::size_t k = 0; k < shown.size(); ++k) {
      int& have = sizes[index[k]];
      if (have < need[k])
        have = need[k];
      else
        have -= static_cast<int>(static_cast<long long>(have - need[k]) * deficit / surplus);
    }
    column->setSizes(sizes);
  }
  m_fitting = false;
}

int Dashboard::heightForShownPlots() const {
  const int handle = m_left->handleWidth();
  int tallest = 0;
  for (QSplitter* column : {m_left, m_right}) {
    if (column->isHidden()) continue;
    int total = 0;
    for (int i = 0; i < column->count(); ++i) {
      auto* plot = qobject_cast<QCustomPlot*>(column->widget(i));
      if (!plot || plot->isHidden()) continue;
      total += (total > 0 ? handle : 0) +
               std::max(plotOverheadHeight(plot) + kMinDataHeight, plot->minimumHeight());
    }
    tallest = std::max(tallest, total);
  }
  return height() - m_columns->height() + tallest;  // with the marker line under the plots
}

void Dashboard::setHighlight(const std::optional<engine::LessonHighlight>& highlight) {
  m_highlight = highlight;
  m_highlightPlot.reset();
  if (highlight) m_highlightPlot = plotFromLessonName(QString::fromStdString(highlight->plot));
  drawHighlight();
  keepHighlightInView();
  if (isVisible()) refresh(false, true);
}

void Dashboard::setFocusCurves(const std::vector<engine::LessonCurves>& focus) {
  const auto curvesOf = [&](PlotId id) {
    QStringList out;
    for (const engine::LessonCurves& c : focus)
      if (plotFromLessonName(QString::fromStdString(c.plot)) == id)
        for (const std::string& name : c.curves) out << QString::fromStdString(name);
    return out;
  };
  for (TimePlot* plot : m_timePlots) plot->setFocusCurves(curvesOf(plot->id()));
  m_curve->setFocusCurves(curvesOf(PlotId::ThrottleCurve));
  if (isVisible()) refresh(false, true);
}

void Dashboard::drawHighlight() {
  std::optional<std::pair<double, double>> range;
  QStringList curves;
  if (m_highlight) {
    // A range open at its end runs to "now": far past any run a lesson makes.
    if (m_highlight->fromS || m_highlight->toS)
      range = std::pair(m_highlight->fromS.value_or(0.0), m_highlight->toS.value_or(1e6));
    for (const std::string& c : m_highlight->curves) curves << QString::fromStdString(c);
  }
  for (TimePlot* plot : m_timePlots)
    plot->setHighlight(range, plot->id() == m_highlightPlot ? curves : QStringList());
  m_curve->setHighlightedCurves(m_highlightPlot == PlotId::ThrottleCurve ? curves : QStringList());
}

void Dashboard::keepHighlightInView() {
  if (!m_highlightPlot) return;
  const PlotId id = *m_highlightPlot;
  if (isPlotVisible(id)) return;  // the plots chosen stay as they are
  setPlotVisible(id, true);
  if (m_presenter) {
    // Two or three plots at a readable height: the step's plot is one; the others leave in
    // this order until three are left.
    for (PlotId other : {PlotId::Device, PlotId::Memory, PlotId::Bandwidth, PlotId::ThrottleCurve,
                         PlotId::Pauses}) {
      if (visiblePlots().size() <= 3) break;
      if (other != id && isPlotVisible(other)) setPlotVisible(other, false);
    }
  }
  // Room for it, taken from the others (fitPlots never puts it away).
  fitPlots(true, false);
}

void Dashboard::setPresenterMode(bool on) {
  if (on == m_presenter) return;
  m_presenter = on;
  // A projector has room for two or three plots at a readable height: the dirty pages, the
  // pauses and the throttle curve, unless fewer were chosen. Leaving restores the choice.
  if (on) {
    m_plotsBeforePresenter = chosenPlots();
    m_hiddenForRoom.clear();
    if (m_plotsBeforePresenter.size() > 3)
      for (PlotId id : kAllPlots)
        setPlotVisible(
            id, id == PlotId::DirtyPages || id == PlotId::Pauses || id == PlotId::ThrottleCurve);
  } else if (!m_plotsBeforePresenter.empty()) {
    for (PlotId id : kAllPlots)
      setPlotVisible(id, std::find(m_plotsBeforePresenter.begin(), m_plotsBeforePresenter.end(),
                                   id) != m_plotsBeforePresenter.end());
    m_plotsBeforePresenter.clear();
  }
  for (PlotId id : kAllPlots)
    if (QWidget* w = plotWidget(id))
      w->setMinimumHeight(on ? kPresenterMinPlotHeight : kMinPlotHeight);
  applyTheme();
  fitPlots(true, false);  // in the new fonts
  if (on) keepHighlightInView();
}

void Dashboard::setUnitsPages(bool pages) {
  if (pages == m_units.pages) return;
  m_units.pages = pages;
  for (TimePlot* plot : m_timePlots) plot->setUnits(m_units);
  m_curve->setUnits(m_units);
  rebuild();
  updateMarkers();
}

void Dashboard::applyTheme() {
  m_theme = Theme::fromPalette(palette(), QApplication::font(), m_presenter);
  for (TimePlot* plot : m_timePlots) plot->applyTheme(m_theme);
  m_curve->applyTheme(m_theme);
  drawHighlight();  // over the theme's plain pens, in its colours
  QFont f = m_theme.font;
  m_markerLabel->setFont(f);
  for (TimePlot* plot : m_timePlots) plot->markDirty();
  if (isVisible()) refresh(false, true);
}

void Dashboard::changeEvent(QEvent* event) {
  if (event->type() == QEvent::PaletteChange || event->type() == QEvent::ApplicationPaletteChange)
    applyTheme();
  QWidget::changeEvent(event);
}

void Dashboard::onHover(double timeS) {
  setCursorTime(timeS);
}

void Dashboard::setCursorTime(std::optional<double> timeS) {
  m_cursor = timeS;
  const engine::Sample* nearest = nullptr;
  if (timeS && m_history) {
    if (auto i = m_history->indexNear(*timeS)) nearest = &(*m_history)[*i];
  }
  for (TimePlot* plot : m_timePlots) {
    plot->setCursor(timeS, nearest, m_tasks);
    if (plot->isShown()) plot->replotOverlay();
  }
  m_curve->setCursorSample(nearest);
  if (m_curve->isShown()) m_curve->replotOverlay();
}

void Dashboard::setMarker(double timeS, bool markerB, PlotId plot) {
  (markerB ? m_markerB : m_markerA) = timeS;
  m_markerPlot = plot;
  updateMarkers();
}

void Dashboard::setEvents(const std::vector<engine::RunEvent>& events,
                          const engine::Scenario* names) {
  m_events = events;
  for (TimePlot* plot : m_timePlots) plot->setEvents(m_events, names);
  if (isVisible()) refresh(false);
}

void Dashboard::clearMarkers() {
  m_markerA.reset();
  m_markerB.reset();
  updateMarkers();
}

QString Dashboard::markerText() const {
  return m_markerLabel->text();
}

void Dashboard::updateMarkers() {
  for (TimePlot* plot : m_timePlots) {
    plot->setMarkers(m_markerA, m_markerB);
    if (plot->isShown()) plot->replotOverlay();
  }
  if (!m_markerA && !m_markerB) {
    m_markerLabel->setText(
        tr("Hover to read values · click a time plot to set marker A, Shift+click for B · "
           "drag to pan, wheel to zoom the time axis"));
    return;
  }
  QStringList parts;
  if (m_markerA) parts << tr("A = %1 s").arg(*m_markerA, 0, 'f', 2);
  if (m_markerB) parts << tr("B = %1 s").arg(*m_markerB, 0, 'f', 2);
  if (m_markerA && m_markerB) {
    parts << tr("Δt = %1 s").arg(*m_markerB - *m_markerA, 0, 'f', 2);
    const TimePlot* plot = timePlot(m_markerPlot);
    if (plot && m_history && !m_history->empty()) {
      const auto ia = m_history->indexNear(*m_markerA);
      const auto ib = m_history->indexNear(*m_markerB);
      if (ia && ib) {
        parts << QStringLiteral("%1: %2").arg(
            plotTitle(m_markerPlot),
            plot->deltaLines((*m_history)[*ia], (*m_history)[*ib]).join(QStringLiteral(" · ")));
      }
    }
  }
  m_markerLabel->setText(parts.join(QStringLiteral("   ")));
}

void Dashboard::showContextMenu(PlotId id, QPoint globalPos) {
  QMenu menu(this);
  menu.addAction(tr("Export this plot…"), this, [this, id] { Q_EMIT exportPlotRequested(id); });
  menu.addSeparator();
  if (id != PlotId::ThrottleCurve) {
    QAction* follow = menu.addAction(tr("Follow live"));
    follow->setCheckable(true);
    follow->setChecked(m_follow);
    connect(follow, &QAction::toggled, this, &Dashboard::setFollowLive);
    menu.addAction(tr("Fit all"), this, &Dashboard::fitAll);
    menu.addAction(tr("Clear markers"), this, &Dashboard::clearMarkers);
  }
  menu.addAction(tr("Hide this plot"), this, [this, id] { setPlotVisible(id, false); });
  menu.exec(globalPos);
}

QByteArray Dashboard::saveLayoutState() const {
  QByteArray out;
  QDataStream stream(&out, QIODevice::WriteOnly);
  stream << kLayoutMagic << m_columns->saveState() << m_left->saveState() << m_right->saveState();
  return out;
}

bool Dashboard::restoreLayoutState(const QByteArray& state) {
  QDataStream stream(state);
  quint32 magic = 0;
  QByteArray columns, left, right;
  stream >> magic >> columns >> left >> right;
  if (stream.status() != QDataStream::Ok || magic != kLayoutMagic) return false;
  const bool restored = m_columns->restoreState(columns) && m_left->restoreState(left) &&
                        m_right->restoreState(right);
  labelTopPlots();
  return restored;
}

void Dashboard::captureSession(SessionState& session) const {
  session.visiblePlots = chosenPlots();
  session.presenter = presenterMode();
  session.unitsPages = unitsPages();
  session.followLive = followLive();
  session.dashboardLayout = saveLayoutState();
}

void Dashboard::applySessionLayout(const SessionState& session) {
  if (!session.dashboardLayout.isEmpty()) restoreLayoutState(session.dashboardLayout);
  for (PlotId id : kAllPlots)
    setPlotVisible(id, std::find(session.visiblePlots.begin(), session.visiblePlots.end(), id) !=
                           session.visiblePlots.end());
  fitPlots(true, false);
}

}  // namespace throttlelab::ui
