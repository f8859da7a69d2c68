// SPDX-License-Identifier: GPL-3.0-or-later
// The plot panel: synchronised cursor, A/B markers, shared time axis, theme and units.
#include <gtest/gtest.h>

#include <QApplication>
#include <QImage>
#include <QMouseEvent>

#include "dashboard.h"
#include "live_controller.h"
#include "pause_plot.h"
#include "qcp.h"
#include "sample_history.h"
#include "throttle_curve_plot.h"
#include "time_plot.h"
#include "ui_test_support.h"

namespace throttlelab::ui {
namespace {

using test::advance;
using test::builtin;

LiveController::Options paused() {
  LiveController::Options o;
  o.startRunning = false;
  o.decimate = false;
  return o;
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
