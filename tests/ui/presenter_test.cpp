// SPDX-License-Identifier: GPL-3.0-or-later
// Presenter mode on a projector's screen: at 1280x720 and 1024x768 every shown plot keeps its
// least height and no legend is drawn over a plot's title (geometry, not pixels).
#include <gtest/gtest.h>

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QIcon>
#include <QImage>
#include <QTest>

#include "dashboard.h"
#include "qcp.h"
#include "run_controls.h"
#include "window_parts.h"
#include "window_rig.h"

namespace throttlelab::ui {
namespace {

/// Every entry of the plot's legend has room for its icon and its whole name, inside the
/// plot: QCustomPlot squashes or clips entries silently when the layout runs out of room.
void expectLegendReadable(QCustomPlot* plot) {
  QCPLegend* legend = plot->legend;
  const QFontMetrics fm(legend->font());
  const QRect inside = plot->rect();
  for (int i = 0; i < legend->itemCount(); ++i) {
    auto* item = qobject_cast<QCPPlottableLegendItem*>(legend->item(i));
    if (!item || !item->visible()) continue;
    const QString name = item->plottable()->name();
    SCOPED_TRACE(name.toStdString());
    const QRect r = item->rect();
    EXPECT_GE(r.width(),
              legend->iconSize().width() + legend->iconTextPadding() + fm.horizontalAdvance(name))
        << "squashed to " << r.width() << " px";
    EXPECT_GE(r.height(), std::max(fm.height(), legend->iconSize().height()))
        << "squashed to " << r.height() << " px";
    EXPECT_TRUE(inside.contains(item->outerRect())) << "clipped at the plot's edge";
  }
}

void checkAt(QSize size, const char* lesson = nullptr, bool presenter = true) {
  SCOPED_TRACE(std::to_string(size.width()) + "x" + std::to_string(size.height()) +
               (lesson ? std::string(" with lesson ") + lesson : std::string()) +
               (presenter ? " in presenter mode" : " in normal mode"));
  test::WindowRig rig;
  MainWindow& window = *rig.window;
  if (lesson) {
    ASSERT_TRUE(window.openLesson(QString::fromLatin1(lesson)));
  }
  window.setPresenterMode(presenter);
  window.setGeometry(QRect(QPoint(0, 0), size));
  window.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  QTest::qWait(50);
  auto* dashboard = window.findChild<Dashboard*>();
  ASSERT_NE(dashboard, nullptr);
  const auto shown = dashboard->visiblePlots();
  EXPECT_GE(shown.size(), 2u);
  if (presenter) {
    EXPECT_LE(shown.size(), 3u);
  }
  for (PlotId id : shown) {
    SCOPED_TRACE(plotKey(id).toStdString());
    QCustomPlot* plot = dashboard->plotWidget(id);
    EXPECT_GE(plot->height(),
              presenter ? Dashboard::kPresenterMinPlotHeight : Dashboard::kMinPlotHeight);
    // The window must not have grown past the screen to make room.
    EXPECT_LE(plot->mapTo(&window, QPoint(0, plot->height())).y(), size.height());
    plot->replot(QCustomPlot::rpImmediateRefresh);
    const QRect legend = plot->legend->outerRect();
    ASSERT_TRUE(plot->legend->visible());
    for (QCPLayoutElement* e : plot->plotLayout()->elements(true)) {
      auto* text = qobject_cast<QCPTextElement*>(e);
      if (!text || text->text().isEmpty()) continue;
      EXPECT_FALSE(legend.intersects(text->outerRect()))
          << text->text().toStdString() << " under the legend";
    }
    expectLegendReadable(plot);
    EXPECT_GE(plot->axisRect()->height(), Dashboard::kMinDataHeight);
  }
}

TEST(Presenter, At1280x720EveryPlotKeepsItsHeightAndLegendsClearTheTitles) {
  checkAt(QSize(1280, 720));
}

TEST(Presenter, At1024x768EveryPlotKeepsItsHeightAndLegendsClearTheTitles) {
  checkAt(QSize(1024, 768));
}

TEST(Presenter, WithALessonOpenLegendsStayReadableAt1280x720) {
  checkAt(QSize(1280, 720), "one-to-a-thousand");
}

TEST(Presenter, WithALessonOpenLegendsStayReadableAt1024x768) {
  checkAt(QSize(1024, 768), "one-to-a-thousand");
}

// Normal mode shows five plots on a large screen; on a projector's it shows those that keep
// a data area of kMinDataHeight (the dirty pages plot had 34 px at 1280x720).
TEST(Presenter, InNormalModeAt1280x720EveryPlotKeepsItsDataArea) {
  checkAt(QSize(1280, 720), nullptr, false);
}

TEST(Presenter, InNormalModeAt1024x768EveryPlotKeepsItsDataArea) {
  checkAt(QSize(1024, 768), nullptr, false);
}

TEST(Presenter, InNormalModeWithALessonOpenEveryPlotKeepsItsDataArea) {
  checkAt(QSize(1280, 720), "one-to-a-thousand", false);
  checkAt(QSize(1024, 768), "one-to-a-thousand", false);
}

/// The plots a short window puts away are still the user's choice: they come back when the
/// window grows, a session keeps them, and one the user turns on stays on.
TEST(Presenter, PlotsPutAwayForRoomComeBackAndTheUsersChoiceStands) {
  test::WindowRig rig;
  MainWindow& window = *rig.window;
  window.setGeometry(QRect(0, 0, 1280, 720));
  window.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  // Paused, so that no legend grows a row while the test acts: a taller header takes room
  // and puts a plot away again, and on a loaded machine the first samples (and their legend
  // entries) could arrive after the user's choice below.
  test::part<RunControls>(window, "runControls").runAction()->trigger();
  QTest::qWait(50);
  auto* dashboard = window.findChild<Dashboard*>();
  ASSERT_NE(dashboard, nullptr);
  const std::vector<PlotId> chosen = {PlotId::DirtyPages, PlotId::Pauses, PlotId::Bandwidth,
                                      PlotId::Memory, PlotId::ThrottleCurve};
  EXPECT_LT(dashboard->visiblePlots().size(), chosen.size());
  EXPECT_FALSE(dashboard->isPlotVisible(PlotId::Bandwidth));
  EXPECT_EQ(dashboard->chosenPlots(), chosen);
  EXPECT_EQ(window.captureSession().visiblePlots, chosen);

  window.setGeometry(QRect(0, 0, 1600, 1000));
  QTest::qWait(50);
  EXPECT_EQ(dashboard->visiblePlots(), chosen);

  window.setGeometry(QRect(0, 0, 1280, 720));
  QTest::qWait(50);
  ASSERT_FALSE(dashboard->isPlotVisible(PlotId::Bandwidth));
  dashboard->setPlotVisible(PlotId::Bandwidth, true);  // View ▸ Bandwidth
  QTest::qWait(50);
  EXPECT_TRUE(dashboard->isPlotVisible(PlotId::Bandwidth));
  EXPECT_LE(window.height(), 720);
}

}  // namespace
}  // namespace throttlelab::ui

namespace throttlelab::ui {
namespace {

double opaqueLightness(const QIcon& icon) {
  const QImage image = icon.pixmap(16, 16).toImage().convertToFormat(QImage::Format_ARGB32);
  double sum = 0;
  int n = 0;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) {
      const QColor c = image.pixelColor(x, y);
      if (c.alpha() < 128) continue;
      sum += c.lightnessF();
      ++n;
    }
  return n ? sum / n : -1;
}

TEST(Presenter, TheDarkPaletteSwitchKeepsTheToolbarIconsVisible) {
  test::WindowRig rig;
  auto* dark = rig.window->findChild<QAction*>(QStringLiteral("darkPaletteAction"));
  ASSERT_NE(dark, nullptr);
  QAction* run = rig.window->findChild<QAction*>(QStringLiteral("runAction"));
  ASSERT_NE(run, nullptr);
  dark->setChecked(true);
  QCoreApplication::processEvents();
  EXPECT_LT(QApplication::palette().color(QPalette::Window).lightnessF(), 0.5);
  EXPECT_GT(opaqueLightness(run->icon()), 0.6);  // light strokes on the dark tool bar
  dark->setChecked(false);
  QCoreApplication::processEvents();
  EXPECT_GT(QApplication::palette().color(QPalette::Window).lightnessF(), 0.5);
  const double onLight = opaqueLightness(run->icon());
  EXPECT_GE(onLight, 0);
  EXPECT_LT(onLight, 0.5);
}

}  // namespace
}  // namespace throttlelab::ui

namespace throttlelab::ui {
namespace {

/// A projector's 1024 px: with a lesson open (a tab beside the parameters) the window's least
/// width still fits in every central view, so nothing is pushed off the screen's right edge.
/// The other views' bars wrap instead of widening the window (the trace view held it at
/// 1116 px, the compare view at 1122 px).
TEST(Presenter, WithALessonOpenEveryViewFits1024PixelsWide) {
  for (bool presenter : {false, true}) {
    SCOPED_TRACE(presenter ? "presenter mode" : "normal mode");
    test::WindowRig rig;
    MainWindow& window = *rig.window;
    ASSERT_TRUE(window.openLesson(QStringLiteral("one-to-a-thousand")));
    window.setPresenterMode(presenter);
    window.setGeometry(QRect(0, 0, 1024, 768));
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    QTest::qWait(50);
    auto* lesson = window.findChild<QDockWidget*>(QStringLiteral("lessonDock"));
    ASSERT_NE(lesson, nullptr);
    EXPECT_TRUE(lesson->isVisible());
    EXPECT_LE(lesson->mapTo(&window, QPoint(lesson->width(), 0)).x(), 1024);
    for (CentralView view : {CentralView::Dashboard, CentralView::Compare, CentralView::RealKernel,
                             CentralView::Host, CentralView::Dashboard}) {
      SCOPED_TRACE(static_cast<int>(view));
      window.showCentralView(view);
      QTest::qWait(30);
      EXPECT_LE(window.minimumSizeHint().width(), 1024);
      EXPECT_LE(window.width(), 1024);
      QWidget* central = window.centralWidget();
      EXPECT_LE(central->mapTo(&window, QPoint(central->width(), 0)).x(), 1024);
    }
  }
}

}  // namespace
}  // namespace throttlelab::ui
