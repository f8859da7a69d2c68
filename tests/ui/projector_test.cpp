// SPDX-License-Identifier: GPL-3.0-or-later
// The window on a teacher's projector (1280x720, 1024x768) and under a teacher's hands: the
// defects an audit of the window found, each checked where it showed (geometry, not pixels).
#include <gtest/gtest.h>

#include <QtTest/qtestspontaneevent.h>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QTableView>
#include <QTest>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <limits>

#include "compare_view.h"
#include "dashboard.h"
#include "live_controller.h"
#include "log_slider.h"
#include "memory_plot.h"
#include "parameter_panel.h"
#include "pause_plot.h"
#include "qcp.h"
#include "theme.h"
#include "trace_view.h"
#include "window_parts.h"
#include "window_rig.h"
#include "window_session.h"

namespace throttlelab::ui {
namespace {

using test::part;

// --- The mouse wheel over the Parameters panel -------------------------------------------

/// A notch of the wheel as the window system delivers it: spontaneous, so that what the widget
/// under the pointer ignores goes on to its parents (QApplication::notify() gives a wheel event
/// made by a program to its receiver only, and sendEvent() makes every event such a one).
void wheelOver(QWidget* w) {
  const QPointF at = QRectF(w->rect()).center();
  QWheelEvent wheel(at, w->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier,
                    Qt::NoScrollPhase, false);
  QSpontaneKeyEvent::setSpontaneous(&wheel);
  qApp->notify(w, &wheel);
}

/// Scrolling the panel with the wheel went through the controls under the pointer: the RT
/// priority went from 50 to 35, a timeline event a notch. They take the wheel once focused.
TEST(Projector, TheWheelScrollsTheParametersInsteadOfChangingThem) {
  QScrollArea scroll;
  auto* panel = new ParameterPanel;
  panel->setScenario(test::builtin("default"));
  scroll.setWidget(panel);
  scroll.setWidgetResizable(true);
  scroll.resize(360, 300);
  scroll.show();
  scroll.activateWindow();
  ASSERT_TRUE(QTest::qWaitForWindowActive(&scroll));
  QSignalSpy edits(panel, &ParameterPanel::scenarioEdited);

  QSpinBox* priority = panel->rtPriority();
  const int before = priority->value();
  EXPECT_NE(priority->focusPolicy(), Qt::WheelFocus) << "the wheel would focus it";
  wheelOver(priority->findChild<QLineEdit*>());  // what the pointer is over
  EXPECT_EQ(priority->value(), before);
  EXPECT_GT(scroll.verticalScrollBar()->value(), 0) << "the panel did not scroll";
  const int scrolled = scroll.verticalScrollBar()->value();
  // A window shown gives its first control the focus (here the Writers slider): not the user's
  // choice, and no reason for the wheel to change it.
  panel->writers()->slider()->setFocus(Qt::ActiveWindowFocusReason);
  ASSERT_TRUE(panel->writers()->slider()->hasFocus());
  const double writers = panel->writers()->value();
  wheelOver(panel->writers()->slider());
  EXPECT_EQ(panel->writers()->value(), writers);
  wheelOver(panel->policy());
  EXPECT_GT(scroll.verticalScrollBar()->value(), scrolled);
  EXPECT_EQ(edits.count(), 0);

  // Focused (clicked, or Tab), a control takes the wheel as before.
  priority->setFocus(Qt::TabFocusReason);
  ASSERT_TRUE(priority->hasFocus());
  wheelOver(priority->findChild<QLineEdit*>());
  EXPECT_NE(priority->value(), before);
}

void showAt(MainWindow& window, QSize size) {
  window.setGeometry(QRect(QPoint(0, 0), size));
  window.show();
  window.activateWindow();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  QTest::qWait(50);
}

// --- The keyboard after a spin box -----------------------------------------------------

/// F1 says Escape leaves a spin box; it did nothing. Space and "." typed into a box without
/// Enter went into the box (or nowhere) instead of running and stepping.
TEST(Projector, EscapeLeavesASpinBoxAndSpaceAndPointDriveTheRun) {
  test::WindowRig rig;
  MainWindow& window = *rig.window;
  showAt(window, QSize(1280, 720));
  ASSERT_TRUE(QTest::qWaitForWindowActive(&window));
  auto* params = window.findChild<ParameterPanel*>();
  ASSERT_NE(params, nullptr);
  QAction* run = window.findChild<QAction*>(QStringLiteral("runAction"));
  QAction* step = window.findChild<QAction*>(QStringLiteral("stepAction"));
  ASSERT_NE(run, nullptr);
  ASSERT_NE(step, nullptr);
  QSignalSpy steps(step, &QAction::triggered);

  // Typed, no Enter, then Space: the value is taken and the run toggles.
  QSpinBox* priority = params->rtPriority();
  priority->setFocus();
  ASSERT_TRUE(priority->hasFocus());
  QTest::keyClick(priority, Qt::Key_A, Qt::ControlModifier);
  QTest::keyClicks(priority, QStringLiteral("60"));
  const bool running = run->isChecked();
  QTest::keyClick(priority, Qt::Key_Space);
  EXPECT_NE(run->isChecked(), running) << "Space did not run or pause";
  EXPECT_EQ(priority->value(), 60);
  const auto& tasks = params->scenario().tasks;
  EXPECT_TRUE(std::any_of(tasks.begin(), tasks.end(), [](const auto& t) {
    return t.rtPriority == 60;
  })) << "the value typed was not entered";

  // "." in a whole-number box is Step.
  QTest::keyClick(priority, Qt::Key_A, Qt::ControlModifier);
  QTest::keyClicks(priority, QStringLiteral("55"));
  QTest::keyClick(priority, Qt::Key_Period);
  EXPECT_EQ(steps.count(), 1) << "\".\" did not step";
  EXPECT_EQ(priority->value(), 55);

  // In a box with decimals "." is the decimal point.
  QDoubleSpinBox* think = params->thinkTime()->spinBox();
  think->setFocus();
  ASSERT_TRUE(think->hasFocus());
  QTest::keyClick(think, Qt::Key_A, Qt::ControlModifier);
  QTest::keyClicks(think, QStringLiteral("3"));
  QTest::keyClick(think, Qt::Key_Period);
  QTest::keyClicks(think, QStringLiteral("5"));
  EXPECT_EQ(steps.count(), 1);

  // Escape leaves it, its value entered; the keyboard is the view's, and Space runs again.
  QTest::keyClick(think, Qt::Key_Escape);
  EXPECT_FALSE(think->hasFocus());
  EXPECT_DOUBLE_EQ(think->value(), 3.5);
  auto* dashboard = window.findChild<Dashboard*>();
  EXPECT_EQ(QApplication::focusWidget(), dashboard);
  const bool now = run->isChecked();
  QTest::keyClick(QApplication::focusWidget() ? QApplication::focusWidget() : &window,
                  Qt::Key_Space);
  EXPECT_NE(run->isChecked(), now);
}

// --- Tool tips ---------------------------------------------------------------------------

/// The Writers tooltip was one line 975 px wide, wider than the slider's whole column.
TEST(Projector, LongToolTipsWrap) {
  test::WindowRig rig;
  MainWindow& window = *rig.window;
  showAt(window, QSize(1280, 720));
  auto* params = window.findChild<ParameterPanel*>();
  ASSERT_NE(params, nullptr);
  for (QWidget* control :
       {static_cast<QWidget*>(params->writers()), static_cast<QWidget*>(params->rtPriority())}) {
    SCOPED_TRACE(control->toolTip().toStdString());
    ASSERT_GT(control->toolTip().size(), 100);
    const QPoint at = control->rect().center();
    QHelpEvent help(QEvent::ToolTip, at, control->mapToGlobal(at));
    QApplication::sendEvent(control, &help);
    QWidget* tip = nullptr;
    ASSERT_TRUE(test::waitFor(
        [&] {
          for (QWidget* w : QApplication::topLevelWidgets())
            if (w->inherits("QTipLabel") && w->isVisible()) tip = w;
          return tip != nullptr;
        },
        std::chrono::seconds(5)));
    EXPECT_LE(tip->width(), 640) << "px";
    EXPECT_GE(tip->height(), 2 * QFontMetrics(tip->font()).height()) << "one line";
    QToolTip::hideText();
    QTest::qWait(20);
  }
}

// --- A session opened on a smaller screen ------------------------------------------------

/// Saved on a larger screen, or placed 20 px down (Qt keeps room for a title bar that a screen
/// without a window manager does not draw), the window came back partly off the screen: at
/// 1280x720 its status bar was below the edge.
TEST(Projector, ARestoredGeometryStaysOnTheScreen) {
  QWidget saved;
  const QRect screen = saved.screen()->availableGeometry();
  saved.setGeometry(QRect(screen.topLeft() + QPoint(30, 20), screen.size() + QSize(200, 120)));
  const QByteArray geometry = saved.saveGeometry();

  QWidget restored;
  restoreGeometryOnScreen(restored, geometry);
  EXPECT_TRUE(screen.contains(restored.frameGeometry()))
      << restored.frameGeometry().x() << "," << restored.frameGeometry().y() << " "
      << restored.frameGeometry().width() << "x" << restored.frameGeometry().height();

  // A window that fits stays where it was.
  saved.setGeometry(QRect(screen.topLeft() + QPoint(10, 20), screen.size() / 2));
  restoreGeometryOnScreen(restored, saved.saveGeometry());
  EXPECT_EQ(restored.geometry(), saved.geometry());
}

TEST(Projector, ASessionOpensWithTheStatusBarOnTheScreen) {
  test::WindowRig rig;
  MainWindow& window = *rig.window;
  const QRect screen = window.screen()->availableGeometry();
  window.setGeometry(QRect(screen.topLeft() + QPoint(0, 20), QSize(1280, 720)));
  const SessionState session = window.captureSession();
  window.setGeometry(QRect(screen.topLeft(), QSize(640, 480)));
  window.applySession(session);
  const QRect frame = window.frameGeometry();
  // No lower than the screen's bottom, unless the window cannot be that short.
  EXPECT_LE(frame.bottom(),
            std::max(screen.bottom(), screen.top() + window.minimumSizeHint().height() - 1));
  EXPECT_GE(frame.top(), screen.top());
}

// --- The Real kernel view ----------------------------------------------------------------

const QString kTenDd =
    QStringLiteral(THROTTLELAB_TEST_DATA_DIR) + QStringLiteral("/kernel-6.18/ftrace-10-dd.txt");

TEST(Projector, TheRealKernelViewNamesItsCgroupBoxAndExportsWhatItShows) {
  test::WindowRig rig;
  MainWindow& window = *rig.window;
  showAt(window, QSize(1024, 768));
  window.showCentralView(CentralView::RealKernel);
  QTest::qWait(50);
  auto& cgroup = part<QComboBox>(window, "traceCgroup");
  EXPECT_FALSE(cgroup.currentText().isEmpty()) << "an empty box before any trace";
  const QLabel* label = nullptr;
  for (const QLabel* l : window.findChildren<QLabel*>())
    if (l->buddy() == &cgroup) label = l;
  ASSERT_NE(label, nullptr) << "the cgroup box has no label";
  EXPECT_TRUE(label->isVisible());

  window.importTrace(kTenDd);
  auto& view = part<TraceView>(window, "traceView");
  ASSERT_TRUE(test::waitFor([&] { return !view.isImporting(); }));
  ASSERT_NE(view.trace(), nullptr);
  QTest::qWait(50);
  // --open-trace FILE --export-png F: the view the trace is in, not the empty dashboard.
  const QString png = rig.path(QStringLiteral("trace.png"));
  ASSERT_EQ(window.exportTo(png, {.plot = std::nullopt, .format = ExportFormat::Png1x}), "");
  const QImage image(png);
  ASSERT_FALSE(image.isNull());
  EXPECT_EQ(image.size(), window.size());
  auto* simulate = window.findChild<QPushButton*>(QStringLiteral("simulateTrace"));
  ASSERT_NE(simulate, nullptr);
  const QRect at(simulate->mapTo(&window, QPoint(0, 0)), simulate->size());
  EXPECT_EQ(image.copy(at).convertToFormat(QImage::Format_RGB32),
            simulate->grab().toImage().convertToFormat(QImage::Format_RGB32))
      << "the export does not show the Real kernel view";
  // SVG and PDF would be the dashboard's plots: said, not written.
  EXPECT_NE(window.exportTo(rig.path(QStringLiteral("trace.svg")),
                            {.plot = std::nullopt, .format = ExportFormat::Svg}),
            "");
}

// --- Titles and legends that do not fit --------------------------------------------------

std::string sizeName(QSize size) {
  return std::to_string(size.width()) + "x" + std::to_string(size.height());
}

/// Every plot the dashboard shows keeps kMinDataHeight of data area.
void expectDataAreas(const Dashboard& dashboard) {
  for (PlotId id : dashboard.visiblePlots()) {
    SCOPED_TRACE(plotKey(id).toStdString());
    QCustomPlot* plot = dashboard.plotWidget(id);
    plot->replot(QCustomPlot::rpImmediateRefresh);
    EXPECT_GE(plot->axisRect()->height(), Dashboard::kMinDataHeight);
  }
}

/// The host view's titles in presenter mode ran off both sides of a narrow plot.
TEST(Projector, ATitleWiderThanItsPlotWrapsInsideIt) {
  QWidget host;
  MemoryPlot plot(&host);
  plot.setTitle(QStringLiteral("This machine: memory and the watermarks"));
  plot.applyTheme(Theme::fromPalette(host.palette(), QApplication::font(), true));
  host.resize(330, 320);
  plot.widget()->setGeometry(0, 0, 330, 320);
  host.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&host));
  QCustomPlot* w = plot.widget();
  w->replot(QCustomPlot::rpImmediateRefresh);
  EXPECT_EQ(plot.title(), QStringLiteral("This machine: memory and the watermarks"));
  int titles = 0;
  for (QCPLayoutElement* e : w->plotLayout()->elements(true)) {
    auto* text = qobject_cast<QCPTextElement*>(e);
    if (!text || !text->text().contains(QStringLiteral("machine"))) continue;
    ++titles;
    const QRect r = text->outerRect();
    EXPECT_GE(r.left(), 0);
    EXPECT_LE(r.right(), w->width());
    const int drawn = QFontMetrics(text->font()).boundingRect(QRect(), 0, text->text()).width();
    EXPECT_LE(drawn, w->width()) << text->text().toStdString();
  }
  EXPECT_EQ(titles, 1);
}

/// Ten writers where there was one: the pauses' legend grew (four rows in presenter mode at
/// 1024x768) and the plots of the lesson's step were left 55 to 60 px of data.
void tenWritersJoin(MainWindow& window, Dashboard& dashboard) {
  window.findChild<LiveController*>(QStringLiteral("liveController"))->setRunning(false);
  QTest::qWait(20);
  std::map<int, engine::TaskInfo> infos;
  TaskSampleBuffer samples(16);
  for (int task = 0; task < 10; ++task) {
    infos[task] = engine::TaskInfo{.index = task, .pid = 1000 + task, .name = "dd"};
    samples.push_back(
        engine::TaskSample{.time = engine::atSeconds(1), .task = task, .pauseMs = 200});
  }
  dashboard.setTaskInfos(infos);
  dashboard.appendBatch(SampleBuffer(1), samples);
  dashboard.refresh(true, true);
  QTest::qWait(50);
}

TEST(Projector, ALegendThatGrowsKeepsEveryPlotsDataArea) {
  for (bool presenter : {false, true})
    for (QSize size : {QSize(1280, 720), QSize(1024, 768)}) {
      SCOPED_TRACE(sizeName(size) + (presenter ? " in presenter mode" : " in normal mode"));
      test::WindowRig rig;
      MainWindow& window = *rig.window;
      ASSERT_TRUE(window.openLesson(QStringLiteral("one-to-a-thousand")));
      window.setPresenterMode(presenter);
      showAt(window, size);
      auto* dashboard = window.findChild<Dashboard*>();
      tenWritersJoin(window, *dashboard);
      expectDataAreas(*dashboard);
      if (dashboard->isPlotVisible(PlotId::Pauses)) {
        QCustomPlot* pauses = dashboard->plotWidget(PlotId::Pauses);
        EXPECT_LE(pauses->legend->rowCount(), 2);
      }
    }
}

/// Merged or not, the legend says which curves are the tasks', and a selected task keeps an
/// entry of its own.
TEST(Projector, ThePausesLegendMergesTheTasksOnlyWhenItMust) {
  for (QSize size : {QSize(1024, 768), QSize(1600, 1000)}) {
    SCOPED_TRACE(sizeName(size));
    test::WindowRig rig;
    MainWindow& window = *rig.window;
    window.setPresenterMode(true);
    showAt(window, size);
    auto* dashboard = window.findChild<Dashboard*>();
    tenWritersJoin(window, *dashboard);
    QCustomPlot* pauses = dashboard->plotWidget(PlotId::Pauses);
    const auto names = [&] {
      QStringList out;
      for (int i = 0; i < pauses->legend->itemCount(); ++i)
        if (auto* item = qobject_cast<QCPPlottableLegendItem*>(pauses->legend->item(i)))
          out << item->plottable()->name();
      return out;
    };
    const bool merged = names().contains(QStringLiteral("10 tasks, pid 1000–1009"));
    EXPECT_EQ(merged, !names().contains(QStringLiteral("dd 1004")))
        << names().join(QStringLiteral(", ")).toStdString();
    if (size.width() == 1024) {
      EXPECT_TRUE(merged);
      dashboard->setSelectedTask(4);
      QTest::qWait(20);
      EXPECT_TRUE(names().contains(QStringLiteral("dd 1004")));
      EXPECT_TRUE(names().contains(QStringLiteral("9 other tasks, pid 1000–1009")));
    }
  }
}

// --- "Why this pause" at 1280x720 --------------------------------------------------------

TEST(Projector, WhyThisPauseHasRoomAt1280x720) {
  test::WindowRig rig;
  MainWindow& window = *rig.window;
  showAt(window, QSize(1280, 720));
  auto* controller = window.findChild<LiveController*>(QStringLiteral("liveController"));
  ASSERT_TRUE(test::waitFor([&] {
    return controller->explainAt(0, std::numeric_limits<double>::infinity()).has_value();
  }));
  auto* dashboard = window.findChild<Dashboard*>();
  Q_EMIT dashboard->taskClicked(0, controller->status().simTimeS);  // a click on its curve
  QTest::qWait(100);
  auto& text = part<QPlainTextEdit>(window, "explainText");
  ASSERT_TRUE(text.isVisible());
  ASSERT_GT(text.toPlainText().count(QLatin1Char('\n')), 20);
  EXPECT_EQ(text.horizontalScrollBar()->maximum(), 0) << "lines cut at the right";
  const int lines = text.viewport()->height() / QFontMetrics(text.font()).lineSpacing();
  EXPECT_GE(lines, 8) << "lines of the breakdown shown (three and a half were)";
  expectDataAreas(*dashboard);
  // The task table, its tab again, gives the plots their height back.
  auto& explainDock = part<QDockWidget>(window, "explainDock");
  const int explainHeight = explainDock.height();
  auto& tasks = part<QDockWidget>(window, "taskDock");
  tasks.raise();
  QTest::qWait(100);
  EXPECT_LT(tasks.height(), explainHeight);
}

// --- The compare view at 1024x768 --------------------------------------------------------

TEST(Projector, TheCompareViewShowsItsValuesAt1024x768WithTheDefaultPanels) {
  test::WindowRig rig;
  MainWindow& window = *rig.window;
  showAt(window, QSize(1024, 768));
  auto& parameters = part<QDockWidget>(window, "parameterDock");
  ASSERT_TRUE(parameters.isVisible());
  auto& explain = part<QDockWidget>(window, "explainDock");
  explain.raise();  // the tab in front of the bottom panels
  QTest::qWait(50);
  window.setCompareMode(true);
  auto& table = part<QTableView>(window, "compareTable");
  ASSERT_TRUE(test::waitFor([&] {
    QTest::qWait(20);
    return table.model()->rowCount() > 0 && !table.model()->index(0, 1).data().toString().isEmpty();
  }));
  QTest::qWait(50);
  for (int column = 0; column < table.model()->columnCount(); ++column) {
    SCOPED_TRACE(table.model()->headerData(column, Qt::Horizontal).toString().toStdString());
    EXPECT_GT(table.columnWidth(column), 20);
    EXPECT_LE(table.columnViewportPosition(column) + table.columnWidth(column),
              table.viewport()->width())
        << "cut at the table's right edge";
  }
  for (CompareView* view : window.findChildren<CompareView*>())
    for (QCustomPlot* plot : view->findChildren<QCustomPlot*>()) {
      if (!plot->isVisible()) continue;
      plot->replot(QCustomPlot::rpImmediateRefresh);
      EXPECT_GE(plot->axisRect()->height(), Dashboard::kMinDataHeight);
    }
  // Back on the dashboard, the panels are as they were, the same tab in front (Qt counts the
  // tabs behind it as visible too).
  window.setCompareMode(false);
  QTest::qWait(50);
  EXPECT_TRUE(parameters.isVisible());
  EXPECT_TRUE(part<QDockWidget>(window, "taskDock").isVisible());
  EXPECT_FALSE(explain.visibleRegion().isEmpty()) << "another tab in front";
}

}  // namespace
}  // namespace throttlelab::ui
