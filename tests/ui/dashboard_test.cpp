// SPDX-License-Identifier: GPL-3.0-or-later
// The plot panel: synchronised cursor, A/B markers, shared time axis, theme and units.
#include <gtest/gtest.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QMouseEvent>
#include <QSet>

#include "dashboard.h"
#include "live_controller.h"
#include "pause_plot.h"
#include "qcp.h"
#include "sample_history.h"
#include "series_spec.h"
#include "throttle_curve_plot.h"
#include "time_plot.h"
#include "ui_test_support.h"

namespace throttlelab::ui {
namespace {

using test::advance;
using test::builtin;

LiveController::Options paused() {
  return {.startRunning = false, .decimate = false};
}

class DashboardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    controller.setDashboard(&dashboard);
    dashboard.resize(1300, 900);
    dashboard.show();
    controller.load(builtin("default"));
    ASSERT_TRUE(advance(controller, 5));
    controller.frame(true, true);
  }
  std::vector<TimePlot*> timePlots() const {
    std::vector<TimePlot*> out;
    for (PlotId id : kAllPlots)
      if (TimePlot* p = dashboard.timePlot(id)) out.push_back(p);
    return out;
  }
  static QPoint pointAt(TimePlot* plot, double timeS) {
    QCustomPlot* w = plot->widget();
    return QPoint(static_cast<int>(w->xAxis->coordToPixel(timeS)), w->axisRect()->center().y());
  }
  static void send(QWidget* w, QEvent::Type type, QPoint pos,
                   Qt::KeyboardModifiers mods = Qt::NoModifier) {
    const Qt::MouseButton button = type == QEvent::MouseMove ? Qt::NoButton : Qt::LeftButton;
    const Qt::MouseButtons buttons =
        type == QEvent::MouseButtonPress ? Qt::LeftButton : Qt::NoButton;
    QMouseEvent event(type, QPointF(pos), w->mapToGlobal(QPointF(pos)), button, buttons, mods);
    QApplication::sendEvent(w, &event);
  }
  static void click(QWidget* w, QPoint pos, Qt::KeyboardModifiers mods = Qt::NoModifier) {
    send(w, QEvent::MouseButtonPress, pos, mods);
    send(w, QEvent::MouseButtonRelease, pos, mods);
  }

  LiveController controller{paused()};
  Dashboard dashboard;
};

TEST_F(DashboardTest, HoverDrawsTheCursorAtTheSameTimeInEveryPlot) {
  TimePlot* dirty = dashboard.timePlot(PlotId::DirtyPages);
  send(dirty->widget(), QEvent::MouseMove, pointAt(dirty, 2.5));
  const auto t = dashboard.cursorTime();
  ASSERT_TRUE(t.has_value());
  EXPECT_NEAR(*t, 2.5, 0.05);
  for (TimePlot* p : timePlots()) {
    ASSERT_TRUE(p->cursorTime().has_value()) << plotKey(p->id()).toStdString();
    EXPECT_DOUBLE_EQ(*p->cursorTime(), *t);
    EXPECT_TRUE(p->readoutText().contains(QStringLiteral("t = 2.")))
        << p->readoutText().toStdString();
  }
  EXPECT_TRUE(dirty->readoutText().contains(QStringLiteral("dirty+writeback: ")));
  EXPECT_TRUE(dirty->readoutText().contains(QStringLiteral("MiB")));
  QEvent leave(QEvent::Leave);
  QApplication::sendEvent(dirty->widget(), &leave);
  for (TimePlot* p : timePlots()) EXPECT_FALSE(p->cursorTime().has_value());
}

TEST_F(DashboardTest, ClickSetsMarkerAAndShiftClickMarkerB) {
  TimePlot* bandwidth = dashboard.timePlot(PlotId::Bandwidth);
  click(bandwidth->widget(), pointAt(bandwidth, 1.0));
  click(bandwidth->widget(), pointAt(bandwidth, 4.0), Qt::ShiftModifier);
  ASSERT_TRUE(dashboard.markerA() && dashboard.markerB());
  EXPECT_NEAR(*dashboard.markerA(), 1.0, 0.05);
  EXPECT_NEAR(*dashboard.markerB(), 4.0, 0.05);
  const QString text = dashboard.markerText();
  EXPECT_TRUE(text.contains(QStringLiteral("Δt = 3.0"))) << text.toStdString();
  EXPECT_TRUE(text.contains(QStringLiteral("write_bw: "))) << text.toStdString();
  EXPECT_TRUE(text.contains(QStringLiteral("(Δ "))) << text.toStdString();
  dashboard.clearMarkers();
  EXPECT_FALSE(dashboard.markerA());
}

TEST_F(DashboardTest, ZoomingOnePlotMovesEveryTimeAxisAndStopsFollowing) {
  ASSERT_TRUE(dashboard.followLive());
  int followChanges = 0;
  QObject::connect(&dashboard, &Dashboard::followLiveChanged, [&](bool on) {
    EXPECT_FALSE(on);
    ++followChanges;
  });
  // What a wheel zoom or drag does: change the x range of one plot's axis.
  dashboard.timePlot(PlotId::Memory)->widget()->xAxis->setRange(1.5, 3.5);
  for (TimePlot* p : timePlots()) {
    EXPECT_DOUBLE_EQ(p->timeRange().first, 1.5) << plotKey(p->id()).toStdString();
    EXPECT_DOUBLE_EQ(p->timeRange().second, 3.5) << plotKey(p->id()).toStdString();
  }
  EXPECT_FALSE(dashboard.followLive());
  EXPECT_EQ(followChanges, 1);
  // New samples do not move a view the user chose.
  ASSERT_TRUE(advance(controller, 1));
  EXPECT_DOUBLE_EQ(dashboard.timeRange().second, 3.5);
}

TEST_F(DashboardTest, AfterResetAPausedViewMovesToTheNewRun) {
  // Follow live off, looking at a long run's late stretch; Reset (or opening a session)
  // starts a new run at 0 s.
  dashboard.setTimeRange(41900, 42400);
  controller.reset();
  ASSERT_TRUE(advance(controller, 2));
  const double now = controller.status().simTimeS;
  ASSERT_LT(now, 100);
  const auto [lo, hi] = dashboard.timeRange();
  EXPECT_LE(lo, now);
  EXPECT_GE(hi, now);
  EXPECT_DOUBLE_EQ(hi - lo, 500);  // the span the user chose
  EXPECT_FALSE(dashboard.followLive());
}

TEST_F(DashboardTest, TheDevicePlotShowsSeeksRequestSizeAndQueueDepthWhenPicked) {
  // Hidden until picked (View, or presenter mode's choice of plots), then fed like the rest.
  EXPECT_FALSE(dashboard.isPlotVisible(PlotId::Device));
  dashboard.setPresenterMode(true);
  dashboard.setPlotVisible(PlotId::Device, true);
  EXPECT_TRUE(dashboard.isPlotVisible(PlotId::Device));
  ASSERT_TRUE(advance(controller, 2));
  controller.frame(true, true);
  TimePlot* plot = dashboard.timePlot(PlotId::Device);
  ASSERT_NE(plot, nullptr);
  QCustomPlot* w = plot->widget();
  const engine::Sample& last = controller.history().back();
  ASSERT_FALSE(last.devices.empty());
  const engine::DeviceSample& d = last.devices.front();
  const std::pair<const char*, double> expected[] = {
      {"seeks/s", d.seeksPerS},
      {"requests queued", d.queueDepth},
      {"request size (right axis)", d.avgRequestKiB}};
  for (const auto& [name, value] : expected) {
    QCPGraph* graph = nullptr;
    for (int g = 0; g < w->graphCount(); ++g)
      if (w->graph(g)->name() == QLatin1String(name)) graph = w->graph(g);
    ASSERT_NE(graph, nullptr) << name;
    ASSERT_FALSE(graph->data()->isEmpty()) << name;
    EXPECT_DOUBLE_EQ((graph->data()->constEnd() - 1)->value, value) << name;
  }
  EXPECT_GT(d.avgRequestKiB, 0);
  EXPECT_FALSE(plot->title().isEmpty());
  EXPECT_TRUE(w->yAxis->label().contains(QStringLiteral("seeks")));
  EXPECT_TRUE(w->yAxis2->visible());
  EXPECT_TRUE(w->yAxis2->label().contains(QStringLiteral("KiB")));
}

TEST_F(DashboardTest, FollowLiveKeepsTheNewestSampleInViewAndFitAllShowsEverything) {
  ASSERT_TRUE(advance(controller, 8));  // past the 10 s the axis shows at least
  EXPECT_DOUBLE_EQ(dashboard.timeRange().second, controller.history().lastTimeS());
  EXPECT_DOUBLE_EQ(dashboard.timeRange().first, controller.history().firstTimeS());
  dashboard.setTimeRange(0, 1);
  dashboard.fitAll();
  EXPECT_DOUBLE_EQ(dashboard.timeRange().first, controller.history().firstTimeS());
  EXPECT_DOUBLE_EQ(dashboard.timeRange().second, controller.history().lastTimeS());
}

TEST_F(DashboardTest, HistoryWindowLimitsWhatIsKeptAndShown) {
  controller.setHistoryWindow(HistoryWindow::Last60s);
  ASSERT_TRUE(advance(controller, 70));
  EXPECT_GE(controller.history().firstTimeS(), controller.history().lastTimeS() - 60 - 1e-9);
  QCPGraph* g = dashboard.timePlot(PlotId::DirtyPages)->widget()->graph(0);
  EXPECT_GE(g->data()->constBegin()->key, controller.history().firstTimeS() - 1e-9);
  EXPECT_EQ(static_cast<std::size_t>(g->data()->size()), controller.history().size());
}

TEST_F(DashboardTest, GraphsHoldEverySampleOfTheHistory) {
  for (TimePlot* p : timePlots()) {
    QCPGraph* g = p->widget()->graph(0);
    EXPECT_EQ(static_cast<std::size_t>(g->data()->size()), controller.history().size())
        << plotKey(p->id()).toStdString();
  }
}

TEST_F(DashboardTest, HiddenPlotsAreNotReplotted) {
  const int all = dashboard.refresh(true, true);
  EXPECT_EQ(all, 5);
  dashboard.setPlotVisible(PlotId::Memory, false);
  dashboard.setPlotVisible(PlotId::ThrottleCurve, false);
  EXPECT_EQ(dashboard.refresh(true, true), 3);
  EXPECT_EQ(dashboard.visiblePlots().size(), 3u);
}

TEST_F(DashboardTest, PaletteChangeRecoloursThePlots) {
  QPalette dark = dashboard.palette();
  dark.setColor(QPalette::Base, QColor(20, 20, 24));
  dark.setColor(QPalette::Text, QColor(230, 230, 230));
  dark.setColor(QPalette::Window, QColor(30, 30, 34));
  dashboard.setPalette(dark);
  EXPECT_TRUE(dashboard.theme().dark);
  QCustomPlot* w = dashboard.plotWidget(PlotId::DirtyPages);
  // The data area is drawn in the base colour (most of its pixels are background).
  const QImage image = w->toPixmap().toImage();
  const QRect area = w->axisRect()->rect().adjusted(4, 4, -4, -4);
  int base = 0, total = 0;
  for (int y = area.top(); y < area.bottom(); y += 7)
    for (int x = area.left(); x < area.right(); x += 7, ++total)
      if (QColor(image.pixel(x, y)) == QColor(20, 20, 24)) ++base;
  EXPECT_GT(base, total / 2);
  EXPECT_EQ(w->xAxis->tickLabelColor(), QColor(230, 230, 230));
}

TEST_F(DashboardTest, PresenterModeUsesLargerFontsAndThickerLines) {
  QCustomPlot* w = dashboard.plotWidget(PlotId::DirtyPages);
  const double width = w->graph(0)->pen().widthF();
  const double font = w->xAxis->tickLabelFont().pointSizeF();
  dashboard.setPresenterMode(true);
  EXPECT_GT(w->graph(0)->pen().widthF(), width * 2);
  EXPECT_GT(w->xAxis->tickLabelFont().pointSizeF(), font);
}

TEST_F(DashboardTest, PagesToggleRedrawsMemoryInPages) {
  QCPGraph* g = dashboard.plotWidget(PlotId::DirtyPages)->graph(0);  // dirty+writeback
  const double mib = (g->data()->constEnd() - 1)->value;
  ASSERT_GT(mib, 0);
  dashboard.setUnitsPages(true);
  EXPECT_DOUBLE_EQ((g->data()->constEnd() - 1)->value, mib * 256);
  EXPECT_TRUE(dashboard.plotWidget(PlotId::DirtyPages)->yAxis->label().contains("pages"));
}

TEST_F(DashboardTest, ThrottleCurveShowsTheOperatingPointAndExplainsThePause) {
  ASSERT_TRUE(test::waitFor([&] {
    controller.frame();
    return controller.snapshot() && !dashboard.curvePlot()->curve().dirtyPages.empty();
  }));
  const auto& curve = dashboard.curvePlot()->curve();
  EXPECT_GT(curve.limit, curve.setpoint);
  EXPECT_GT(curve.setpoint, curve.freerun);
  const QString text = dashboard.curvePlot()->explanation();
  EXPECT_TRUE(text.contains(QStringLiteral("pos_ratio"))) << text.toStdString();
  EXPECT_TRUE(text.contains(QStringLiteral("task_ratelimit = dirty_ratelimit × pos_ratio")));
}

// The words beside the curve ("below freerun", "over the limit") were computed with the
// curve of the frame before: after vm.dirty_bytes moved the thresholds they contradicted the
// lines drawn (dirty 62 MiB "below freerun" with freerun drawn at 48 MiB).
TEST_F(DashboardTest, TheThrottleCurvesWordsFollowTheCurveDrawn) {
  ASSERT_TRUE(test::waitFor([&] {
    controller.frame();
    return controller.snapshot() && !dashboard.curvePlot()->curve().dirtyPages.empty() &&
           !controller.history().empty();
  }));
  const engine::Sample& now = controller.history().back();
  const double dirty = static_cast<double>(now.dirtyPages + now.writebackPages);
  ASSERT_GT(dirty, 100);
  engine::ThrottleCurve curve = dashboard.curvePlot()->curve();
  ASSERT_TRUE(curve.throttling);
  curve.freerun = dirty * 2;
  curve.setpoint = dirty * 3;
  curve.limit = dirty * 4;
  dashboard.setThrottleCurve(curve);
  EXPECT_TRUE(dashboard.curvePlot()->explanation().contains(QStringLiteral("below freerun")))
      << dashboard.curvePlot()->explanation().toStdString();
  curve.freerun = dirty / 4;
  curve.setpoint = dirty / 3;
  curve.limit = dirty / 2;
  dashboard.setThrottleCurve(curve);
  EXPECT_TRUE(dashboard.curvePlot()->explanation().contains(QStringLiteral("over the limit")))
      << dashboard.curvePlot()->explanation().toStdString();
}

// On a narrow throttle-curve plot (presenter mode's large font) the formula fits the plot's
// width instead of being clipped and pushing the axes and legend past the plot's edge.
TEST_F(DashboardTest, TheFormulaFitsANarrowThrottleCurvePlot) {
  dashboard.setPresenterMode(true);
  dashboard.resize(900, 700);
  ASSERT_TRUE(test::waitFor([&] {
    controller.frame();
    return dashboard.curvePlot()->explanation().contains(QStringLiteral("task_ratelimit"));
  }));
  QCustomPlot* w = dashboard.plotWidget(PlotId::ThrottleCurve);
  ASSERT_LT(w->width(), 480) << "the plot must be narrow for this test";
  w->replot(QCustomPlot::rpImmediateRefresh);
  EXPECT_LE(dashboard.curvePlot()->explanationWidth(), w->width() - 16);
  EXPECT_LE(w->axisRect()->outerRect().right(), w->width());
  EXPECT_LE(w->legend->outerRect().right(), w->width());
}

// --- The throttle curve on its own, fed samples made here ------------------------------------

constexpr double kMiB = 256;  // pages

/// A curve as the engine reports it: freerun 600 MiB, setpoint 700 MiB, limit 800 MiB.
engine::ThrottleCurve curveOf(bool positionControl) {
  engine::ThrottleCurve c;
  c.bgThresh = 400 * kMiB;
  c.thresh = 800 * kMiB;
  c.freerun = 600 * kMiB;
  c.setpoint = 700 * kMiB;
  c.limit = 800 * kMiB;
  c.throttling = positionControl;
  for (int i = 0; i <= 100; ++i) {
    const double x = (500 + 3.3 * i) * kMiB;
    c.dirtyPages.push_back(x);
    const double r = x < c.limit ? 2.0 * (c.limit - x) / (c.limit - c.freerun) : 0.0;
    c.globalRatio.push_back(r);
    c.deviceRatio.push_back(r);
  }
  return c;
}

engine::Sample sampleAt(double t, double dirtyMiB, double ratio, bool positionControl = true) {
  engine::Sample s;
  s.time = engine::atSeconds(t);
  s.dirtyPages = static_cast<engine::Pages>(dirtyMiB * kMiB);
  s.threshPages = static_cast<engine::Pages>(800 * kMiB);
  s.freerunPages = static_cast<engine::Pages>(600 * kMiB);
  s.setpointPages = static_cast<engine::Pages>(700 * kMiB);
  s.limitPages = static_cast<engine::Pages>(800 * kMiB);
  s.maxPauseMs = 200;
  s.positionControl = positionControl;
  engine::DeviceSample d;
  d.posRatio = ratio;
  d.dirtyRatelimitKBps = 20000;
  d.taskRatelimitKBps = 20000 * ratio;
  s.devices.push_back(d);
  return s;
}

class CurveTest : public ::testing::Test {
 protected:
  void SetUp() override {
    host.resize(600, 500);
    curve.widget()->resize(600, 500);
    host.show();
    QCoreApplication::processEvents();
  }
  void live(double t, double dirtyMiB, double ratio, bool positionControl = true) {
    history.append(sampleAt(t, dirtyMiB, ratio, positionControl));
    curve.setLive(history);
  }
  QCPGraph* graph(const QString& name) const {
    for (int i = 0; i < curve.widget()->graphCount(); ++i)
      if (curve.widget()->graph(i)->name() == name) return curve.widget()->graph(i);
    return nullptr;
  }
  bool labelShown(const QString& text) const {
    for (int i = 0; i < curve.widget()->itemCount(); ++i)
      if (auto* t = qobject_cast<QCPItemText*>(curve.widget()->item(i)); t && t->text() == text)
        return t->visible();
    return false;
  }
  QWidget host;
  ThrottleCurvePlot curve{&host};
  SampleHistory history;
};

// Under a policy without position control there is no pos_ratio curve: no cubic, no setpoint
// or freerun, no operating point, and the formula says so (it said "pos_ratio 0.211 …" after a
// switch to perbdi-2.6.24, over the IO-less curve).
TEST_F(CurveTest, APolicyWithoutPositionControlHasNoCurveAndSaysSo) {
  curve.setCurve(curveOf(true));
  live(1, 750, 0.5);
  curve.flushText();
  ASSERT_TRUE(curve.explanation().contains(QStringLiteral("pos_ratio 0.5")))
      << curve.explanation().toStdString();
  live(1.1, 760, 0.4, false);
  curve.setCurve(curveOf(false));  // the engine's next report: the policy changed
  curve.flushText();
  curve.replot(true);
  const QString text = curve.explanation();
  EXPECT_TRUE(text.contains(QStringLiteral("no position control"))) << text.toStdString();
  EXPECT_FALSE(text.contains(QStringLiteral("pos_ratio 0."))) << text.toStdString();
  EXPECT_EQ(graph(QStringLiteral("global cubic"))->dataCount(), 0);
  EXPECT_EQ(graph(QStringLiteral("with the bdi line"))->dataCount(), 0);
  EXPECT_EQ(graph(QStringLiteral("now"))->dataCount(), 0);
  EXPECT_FALSE(labelShown(QStringLiteral("setpoint")));
  EXPECT_FALSE(labelShown(QStringLiteral("freerun")));
  EXPECT_TRUE(labelShown(QStringLiteral("thresh")));
}

// Dirty over the limit: the x axis goes on to the operating point (it ended at the curve's end,
// 100 MiB short of the point).
TEST_F(CurveTest, TheOperatingPointIsAlwaysOnTheAxis) {
  curve.setCurve(curveOf(true));
  live(1, 1200, 0);
  curve.replot(true);
  const QCPRange x = curve.widget()->xAxis->range();
  EXPECT_GE(x.upper, 1200) << x.lower << ".." << x.upper;
  EXPECT_LE(x.lower, 600);
}

// The formula follows a live run at most kTextHz times a wall second (it changed with every
// frame: 60 times a second cannot be read), and shows the newest numbers once the wait is over;
// the point moves with every sample.
TEST_F(CurveTest, TheFormulaChangesAtMostFourTimesASecond) {
  curve.setCurve(curveOf(true));
  QSet<QString> texts;
  QElapsedTimer clock;
  clock.start();
  for (int i = 0; i < 40; ++i) {
    live(1 + 0.1 * i, 700 + i, 0.5 + 0.01 * i);
    texts.insert(curve.explanation());
    EXPECT_DOUBLE_EQ(graph(QStringLiteral("now"))->data()->begin()->key, 700.0 + i);
  }
  const qint64 took = clock.elapsed();
  EXPECT_LE(texts.size(), 1 + took / (1000 / ThrottleCurvePlot::kTextHz) + 1);
  ASSERT_TRUE(test::waitFor([&] { return curve.explanation().contains(formatValue(0.89)); }));
}

// Pointing at a moment of the time plots gives that moment's numbers at once.
TEST_F(CurveTest, TheCursorsMomentIsExplainedAtOnce) {
  curve.setCurve(curveOf(true));
  live(1, 700, 0.5);
  live(1.1, 710, 0.6);  // within the wait: the formula still says 0.5
  const engine::Sample then = sampleAt(0.5, 650, 1.25);
  curve.setCursorSample(&then);
  EXPECT_TRUE(curve.explanation().startsWith(QStringLiteral("At 0.5 s")))
      << curve.explanation().toStdString();
  EXPECT_TRUE(curve.explanation().contains(formatValue(1.25)));
  curve.setCursorSample(nullptr);
  EXPECT_TRUE(curve.explanation().startsWith(QStringLiteral("Now")))
      << curve.explanation().toStdString();
}

TEST(PausePlotModes, ManyWritersSwitchToABandAndASelectedTaskGetsACurve) {
  LiveController controller(paused());
  Dashboard dashboard;
  controller.setDashboard(&dashboard);
  dashboard.resize(1200, 800);
  dashboard.show();
  controller.load(builtin("default", {{"tasks[0].count", "40"}}));
  controller.setSelectedTask(30);
  ASSERT_TRUE(advance(controller, 4));
  PausePlot* pauses = dashboard.pausePlot();
  EXPECT_TRUE(pauses->manyTasks());
  QCPGraph* selected = pauses->taskGraph(30);
  ASSERT_NE(selected, nullptr);
  EXPECT_GT(selected->data()->size(), 0);
  EXPECT_TRUE(selected->visible());
  QCPGraph* other = pauses->taskGraph(3);
  ASSERT_NE(other, nullptr);
  EXPECT_FALSE(other->visible());  // past 16 writers, individual curves give way to the band
  EXPECT_GT(selected->pen().widthF(), other->pen().widthF());
}

TEST(PausePlotModes, FewWritersGetACurveEach) {
  LiveController controller(paused());
  Dashboard dashboard;
  controller.setDashboard(&dashboard);
  dashboard.show();
  controller.load(builtin("ten-dd"));
  ASSERT_TRUE(advance(controller, 6));
  PausePlot* pauses = dashboard.pausePlot();
  EXPECT_FALSE(pauses->manyTasks());
  int curves = 0;
  for (int task = 0; task < 10; ++task)
    if (QCPGraph* g = pauses->taskGraph(task); g && g->visible() && g->data()->size() > 0) ++curves;
  EXPECT_EQ(curves, 10);
}

}  // namespace
}  // namespace throttlelab::ui
