// SPDX-License-Identifier: GPL-3.0-or-later
// Lessons in the window: every shipped lesson loads and every step of it applies to the live
// run; Page Down/Page Up move between steps; a bad lesson file changes nothing.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QTest>

#include "dashboard.h"
#include "lesson_panel.h"
#include "parameter_panel.h"
#include "qcp.h"
#include "throttlelab/engine/simulator.h"
#include "time_plot.h"
#include "ui_test_support.h"
#include "window_parts.h"
#include "window_rig.h"

namespace throttlelab::ui {
namespace {

using test::waitFor;

QStringList lessonFiles() {
  QDir dir(QStringLiteral(THROTTLELAB_SOURCE_DIR "/resources/lessons"));
  QStringList files;
  for (const QString& f : dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name))
    files << dir.filePath(f);
  return files;
}

TEST(Lessons, EveryShippedLessonLoadsAndEveryStepAppliesToTheLiveRun) {
  const QStringList files = lessonFiles();
  ASSERT_GE(files.size(), 5);
  for (const QString& file : files) {
    SCOPED_TRACE(file.toStdString());
    LiveController::Options o;
    o.startRunning = false;
    LiveController controller(o);
    controller.start();
    LessonPanel panel(controller);
    const engine::Lesson lesson = engine::loadLesson(file.toStdString());
    panel.setLesson(lesson);
    bool host = false;
    QObject::connect(&panel, &LessonPanel::hostViewRequested, [&](bool on) { host = on; });
    for (int i = 0; i < static_cast<int>(lesson.steps.size()); ++i) {
      SCOPED_TRACE("step " + std::to_string(i + 1));
      const engine::LessonStep& step = lesson.steps[static_cast<std::size_t>(i)];
      panel.goToStep(i, true);
      ASSERT_TRUE(waitFor([&] { return panel.stepSettled(); }));
      EXPECT_EQ(panel.currentStep(), i);
      EXPECT_EQ(host, step.view == engine::LessonView::Host);
      if (step.view == engine::LessonView::Host) continue;
      const engine::LessonPlan plan = engine::planLessonStep(lesson, i);
      EXPECT_EQ(controller.scenario(), plan.scenario());
      ASSERT_TRUE(waitFor([&] {
        controller.frame();
        return std::abs(controller.status().simTimeS - plan.stepToS()) < 1e-6;
      }));
      if (step.question) {
        const QString reveal = panel.findChild<QLabel*>(QStringLiteral("lessonReveal"))->text();
        EXPECT_FALSE(reveal.isEmpty());
        EXPECT_FALSE(reveal.contains('{')) << reveal.toStdString();
      }
    }
    controller.stop();
  }
}

TEST(Lessons, AQuestionWaitsForThePredictionBeforeTheStepRuns) {
  LiveController::Options o;
  o.startRunning = false;
  LiveController controller(o);
  controller.start();
  LessonPanel panel(controller);
  panel.setLesson(engine::loadLesson("one-to-a-thousand"));
  panel.goToStep(0);
  for (int i = 0; i < 20; ++i) {
    QCoreApplication::processEvents();
    controller.frame();
  }
  EXPECT_FALSE(panel.stepSettled());
  EXPECT_LT(controller.status().simTimeS, 1.0);
  panel.answer(0);
  ASSERT_TRUE(waitFor([&] { return panel.stepSettled(); }));
  const QString reveal = panel.findChild<QLabel*>(QStringLiteral("lessonReveal"))->text();
  EXPECT_TRUE(reveal.contains(QStringLiteral("The answer is B"))) << reveal.toStdString();
  controller.stop();
}

TEST(Lessons, PageDownAndPageUpMoveBetweenSteps) {
  GuiLaunchOptions options;
  options.lesson = "wu2010-ioful-ioless";
  test::WindowRig rig(options);
  ASSERT_TRUE(rig.shown());
  auto* panel = rig.window->findChild<LessonPanel*>(QStringLiteral("lessonPanel"));
  ASSERT_NE(panel, nullptr);
  EXPECT_EQ(panel->currentStep(), 0);
  QTest::keyClick(rig.window.get(), Qt::Key_PageDown);
  EXPECT_EQ(panel->currentStep(), 1);
  QTest::keyClick(rig.window.get(), Qt::Key_PageDown);
  EXPECT_EQ(panel->currentStep(), 2);
  QTest::keyClick(rig.window.get(), Qt::Key_PageDown);  // the last step: stays
  EXPECT_EQ(panel->currentStep(), 2);
  QTest::keyClick(rig.window.get(), Qt::Key_PageUp);
  EXPECT_EQ(panel->currentStep(), 1);
}

TEST(Lessons, ABadLessonFileNamesTheStepAndKeyAndChangesNothing) {
  test::WindowRig rig;
  const engine::Scenario before =
      throttlelab::ui::test::part<LiveController>(*rig.window, "liveController").scenario();
  const QString path = rig.path(QStringLiteral("bad.json"));
  QFile f(path);
  ASSERT_TRUE(f.open(QIODevice::WriteOnly));
  f.write(R"({"name": "bad", "title": "Bad", "steps": [
      {"caption": "ok", "scenario": "ten-dd", "runFor": 1},
      {"caption": "broken", "question": {"text": "?", "choices": ["a", "b"], "answer": 5, "reveal": "r"}}]})");
  f.close();
  EXPECT_FALSE(rig.window->openLesson(path));
  ASSERT_EQ(rig.notifier.messages.size(), 1);
  EXPECT_TRUE(rig.notifier.messages.front().contains(QStringLiteral("step 2")));
  EXPECT_TRUE(rig.notifier.messages.front().contains(QStringLiteral("question.answer")));
  EXPECT_EQ(throttlelab::ui::test::part<LiveController>(*rig.window, "liveController").scenario(),
            before);
  auto* panel = rig.window->findChild<LessonPanel*>(QStringLiteral("lessonPanel"));
  ASSERT_NE(panel, nullptr);
  EXPECT_FALSE(panel->hasLesson());
}

TEST(Lessons, AStepThatNamesTheDevicePlotShowsIt) {
  test::WindowRig rig;
  const QString path = rig.path(QStringLiteral("disk.json"));
  QFile f(path);
  ASSERT_TRUE(f.open(QIODevice::WriteOnly));
  f.write(R"({"name": "disk", "title": "Disk", "steps": [
      {"caption": "the disk", "scenario": "ten-dd", "runFor": 1, "plots": ["bandwidth", "device"],
       "highlight": {"plot": "device"}}]})");
  f.close();
  auto* dashboard = rig.window->findChild<Dashboard*>(QStringLiteral("dashboard"));
  ASSERT_NE(dashboard, nullptr);
  ASSERT_FALSE(dashboard->isPlotVisible(PlotId::Device));  // chosen from View otherwise
  ASSERT_TRUE(rig.window->openLesson(path)) << rig.notifier.messages.join('\n').toStdString();
  EXPECT_TRUE(dashboard->isPlotVisible(PlotId::Device));
  EXPECT_TRUE(dashboard->isPlotVisible(PlotId::Bandwidth));
  EXPECT_FALSE(dashboard->isPlotVisible(PlotId::DirtyPages));
}

LessonPanel* lessonPanelOf(MainWindow& window) {
  return window.findChild<LessonPanel*>(QStringLiteral("lessonPanel"));
}

// The audit's finding: opened in the window, step 1 ran at once (the live run was going) and
// said "running…" while its question waited; from step 2 the run waited, but the header
// still said "running…".
TEST(Lessons, AQuestionKeepsTheLiveRunPausedAndTheHeaderSaysWhatIsTrue) {
  GuiLaunchOptions options;
  options.lesson = "one-to-a-thousand";
  test::WindowRig rig(options);
  ASSERT_TRUE(rig.shown());
  auto& controller = test::part<LiveController>(*rig.window, "liveController");
  LessonPanel* panel = lessonPanelOf(*rig.window);
  ASSERT_NE(panel, nullptr);
  ASSERT_EQ(panel->currentStep(), 0);
  QTest::qWait(500);  // half a second of a live run at 1x, had it been going
  controller.frame();
  EXPECT_FALSE(controller.isRunning());
  EXPECT_LT(controller.status().simTimeS, 0.05);
  EXPECT_FALSE(panel->stepSettled());
  EXPECT_TRUE(panel->positionText().contains(QStringLiteral("paused")))
      << panel->positionText().toStdString();
  EXPECT_FALSE(panel->positionText().contains(QStringLiteral("running")))
      << panel->positionText().toStdString();

  // Step 2: the run is brought to the step's start (40 s) and waits there.
  QTest::keyClick(rig.window.get(), Qt::Key_PageDown);
  ASSERT_EQ(panel->currentStep(), 1);
  ASSERT_TRUE(waitFor([&] {
    controller.frame();
    return !controller.isRunning() && std::abs(controller.status().simTimeS - 40) < 1e-6;
  }));
  QTest::qWait(100);
  EXPECT_FALSE(controller.isRunning());
  EXPECT_TRUE(panel->positionText().contains(QStringLiteral("paused")))
      << panel->positionText().toStdString();
  EXPECT_FALSE(panel->positionText().contains(QStringLiteral("running")))
      << panel->positionText().toStdString();

  // Answered, it runs to its end (70 s) and says neither.
  panel->answer(1);
  ASSERT_TRUE(waitFor([&] { return panel->stepSettled(); }));
  EXPECT_NEAR(controller.status().simTimeS, 70, 1e-6);
  EXPECT_FALSE(panel->positionText().contains(QStringLiteral("paused")));
  EXPECT_FALSE(panel->positionText().contains(QStringLiteral("running")));
  EXPECT_FALSE(panel->revealText().isEmpty());
}

// The "Look at:" line was part of the caption, which the panel squeezed when the answer came
// at 1280x720: the line vanished.
TEST(Lessons, TheLookAtLineStaysInViewAfterTheReveal) {
  for (const QSize size : {QSize(1280, 720), QSize(1024, 768)}) {
    SCOPED_TRACE(std::to_string(size.width()) + "x" + std::to_string(size.height()));
    test::WindowRig rig;
    rig.window->setGeometry(QRect(QPoint(0, 0), size));
    ASSERT_TRUE(rig.shown());
    ASSERT_TRUE(rig.window->openLesson(QStringLiteral("one-to-a-thousand")));
    LessonPanel* panel = lessonPanelOf(*rig.window);
    auto* lookAt = panel->findChild<QLabel*>(QStringLiteral("lessonLookAt"));
    ASSERT_NE(lookAt, nullptr);
    panel->answer(1);
    ASSERT_TRUE(waitFor([&] { return panel->stepSettled(); }));
    QTest::qWait(50);
    EXPECT_TRUE(lookAt->isVisible());
    EXPECT_TRUE(lookAt->text().contains(QStringLiteral("Look at: the dirty plot")));
    EXPECT_GE(lookAt->height(), lookAt->heightForWidth(lookAt->width()));
    EXPECT_FALSE(lookAt->visibleRegion().isEmpty());
    // Nothing of the step's text is squeezed: what does not fit scrolls.
    for (const char* name : {"lessonCaption", "lessonReveal"}) {
      auto* label = panel->findChild<QLabel*>(QString::fromLatin1(name));
      ASSERT_NE(label, nullptr);
      EXPECT_GE(label->height(), label->heightForWidth(label->width())) << name;
    }
    // The answer is scrolled into view.
    auto* reveal = panel->findChild<QLabel*>(QStringLiteral("lessonReveal"));
    EXPECT_FALSE(reveal->visibleRegion().isEmpty());
  }
}

/// How many of the plot's pixels in the column at time `t` (inside its axis rect) differ
/// between two renderings.
int changedPixelsAt(QCustomPlot* plot, const QImage& a, const QImage& b, double t) {
  const int x = static_cast<int>(plot->xAxis->coordToPixel(t));
  const QRect r = plot->axisRect()->rect();
  int changed = 0;
  for (int y = r.top() + 2; y < r.bottom() - 2; ++y)
    if (a.pixel(x, y) != b.pixel(x, y)) ++changed;
  return changed;
}

TEST(Lessons, AStepsHighlightIsDrawnOnThePlotsAndInTheirExports) {
  test::WindowRig rig;
  rig.window->setGeometry(QRect(0, 0, 1280, 720));
  ASSERT_TRUE(rig.shown());
  auto* dashboard = rig.window->findChild<Dashboard*>(QStringLiteral("dashboard"));
  ASSERT_NE(dashboard, nullptr);
  // Step 1 of one-to-a-thousand: the dirty plot, setpoint and freerun, from 10 s to 40 s.
  ASSERT_TRUE(rig.window->openLesson(QStringLiteral("one-to-a-thousand")));
  TimePlot* dirty = dashboard->timePlot(PlotId::DirtyPages);
  TimePlot* pause = dashboard->timePlot(PlotId::Pauses);
  const std::pair<double, double> range(10, 40);
  EXPECT_EQ(dirty->highlightRange(), range);
  EXPECT_EQ(pause->highlightRange(), range);  // the time range on every time plot
  EXPECT_EQ(dirty->emphasisedSeries(), QStringList({"setpoint", "freerun"}));
  EXPECT_TRUE(pause->emphasisedSeries().isEmpty());
  EXPECT_EQ(dashboard->highlightedPlot(), PlotId::DirtyPages);
  // Closing the lesson's panel takes its highlight away; opening it brings it back.
  auto* lessonDock = rig.window->findChild<QDockWidget*>(QStringLiteral("lessonDock"));
  ASSERT_NE(lessonDock, nullptr);
  lessonDock->close();
  EXPECT_FALSE(dirty->highlightRange());
  EXPECT_TRUE(dirty->emphasisedSeries().isEmpty());
  lessonDock->toggleViewAction()->trigger();
  EXPECT_EQ(dirty->highlightRange(), range);
  EXPECT_EQ(dirty->emphasisedSeries(), QStringList({"setpoint", "freerun"}));
  // The emphasised curves are drawn wider than the rest, also after a change of theme
  // (presenter mode and back), which draws every series plain first.
  QCustomPlot* plot = dirty->widget();
  const auto expectEmphasised = [&] {
    double emphasised = 1e9, others = 0;
    for (int i = 0; i < plot->graphCount(); ++i) {
      const QString name = plot->graph(i)->name();
      const double w = plot->graph(i)->pen().widthF();
      if (name == QLatin1String("setpoint") || name == QLatin1String("freerun"))
        emphasised = std::min(emphasised, w);
      else
        others = std::max(others, w);
    }
    EXPECT_GT(emphasised, others);
  };
  expectEmphasised();
  dashboard->setPresenterMode(true);
  expectEmphasised();
  dashboard->setPresenterMode(false);
  expectEmphasised();

  // The band is in the picture an export renders (toPixmap): inside the range the plot's
  // pixels change, outside it they do not.
  plot = pause->widget();
  dashboard->setTimeRange(0, 60);
  const QImage with = plot->toPixmap(plot->width(), plot->height()).toImage();
  dashboard->setHighlight(std::nullopt);
  const QImage without = plot->toPixmap(plot->width(), plot->height()).toImage();
  const int height = plot->axisRect()->rect().height() - 4;
  EXPECT_GT(changedPixelsAt(plot, with, without, 25), height / 2);
  EXPECT_EQ(changedPixelsAt(plot, with, without, 50), 0);
  EXPECT_FALSE(dirty->highlightRange());
  EXPECT_TRUE(dirty->emphasisedSeries().isEmpty());
}

TEST(Lessons, TheHighlightedPlotIsShownInPresenterModeOnAProjector) {
  for (const QSize size : {QSize(1280, 720), QSize(1024, 768)}) {
    SCOPED_TRACE(std::to_string(size.width()) + "x" + std::to_string(size.height()));
    test::WindowRig rig;
    MainWindow& window = *rig.window;
    // Step 2 of the compile lesson names the memory plot, which presenter mode's usual three
    // (dirty pages, pauses, throttle curve) leave out.
    ASSERT_TRUE(window.openLesson(QStringLiteral("arcangeli2002-compile"), 1));
    window.setPresenterMode(true);
    window.setGeometry(QRect(QPoint(0, 0), size));
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    QTest::qWait(50);
    auto* dashboard = window.findChild<Dashboard*>(QStringLiteral("dashboard"));
    const auto shown = dashboard->visiblePlots();
    EXPECT_LE(shown.size(), 3u);
    EXPECT_NE(std::find(shown.begin(), shown.end(), PlotId::Memory), shown.end());
    QCustomPlot* memory = dashboard->plotWidget(PlotId::Memory);
    EXPECT_GE(memory->height(), Dashboard::kPresenterMinPlotHeight);
    memory->replot(QCustomPlot::rpImmediateRefresh);
    EXPECT_GE(memory->axisRect()->height(), Dashboard::kMinDataHeight);
    EXPECT_EQ(dashboard->timePlot(PlotId::Memory)->emphasisedSeries(),
              QStringList({"free", "wmark_low", "wmark_min"}));
    // Leaving presenter mode gives back the plots chosen before.
    window.setPresenterMode(false);
    EXPECT_TRUE(dashboard->isPlotVisible(PlotId::Memory));
  }
}

/// The names a lesson may give a plot's curves (the engine's list, which the lesson checker
/// holds lessons to) are the names the window's plots draw, and every shipped lesson's
/// highlighted curves are among them.
TEST(Lessons, TheCheckersCurveNamesAreTheCurvesThePlotsDraw) {
  Dashboard dashboard;
  const auto drawnIn = [&](PlotId id) {
    QStringList names;
    QCustomPlot* plot = dashboard.plotWidget(id);
    for (int i = 0; i < plot->graphCount(); ++i) names << plot->graph(i)->name();
    for (int i = 0; i < plot->itemCount(); ++i)
      if (auto* text = qobject_cast<QCPItemText*>(plot->item(i))) names << text->text();
    return names;
  };
  for (const auto& name : engine::lessonPlotNames()) {
    SCOPED_TRACE(std::string(name));
    const auto id =
        plotFromLessonName(QString::fromUtf8(name.data(), static_cast<int>(name.size())));
    ASSERT_TRUE(id);
    const QStringList drawn = drawnIn(*id);
    QStringList known;
    for (const auto& c : engine::lessonCurveNames(name))
      known << QString::fromUtf8(c.data(), static_cast<int>(c.size()));
    for (const QString& c : known) EXPECT_TRUE(drawn.contains(c)) << c.toStdString();
    // And every entry of the plot's legend can be named.
    QCPLegend* legend = dashboard.plotWidget(*id)->legend;
    for (int i = 0; i < legend->itemCount(); ++i) {
      if (auto* item = qobject_cast<QCPPlottableLegendItem*>(legend->item(i))) {
        EXPECT_TRUE(known.contains(item->plottable()->name()))
            << item->plottable()->name().toStdString();
      }
    }
  }
  for (const QString& file : lessonFiles()) {
    const engine::Lesson lesson = engine::loadLesson(file.toStdString());
    for (const auto& step : lesson.steps) {
      if (!step.highlight) continue;
      const auto id = plotFromLessonName(QString::fromStdString(step.highlight->plot));
      ASSERT_TRUE(id) << file.toStdString();
      for (const auto& c : step.highlight->curves)
        EXPECT_TRUE(drawnIn(*id).contains(QString::fromStdString(c)))
            << file.toStdString() << ": " << c;
    }
  }
}

TEST(Descriptions, EveryPolicyInTheBoxSaysWhenItWasTheKernelsAndWhatItDoes) {
  ParameterPanel panel;
  const auto policies = engine::Simulator::policyDescriptions();
  QComboBox* policy = nullptr;
  for (auto* c : panel.findChildren<QComboBox*>())
    if (c->findText(QStringLiteral("ioless")) >= 0) policy = c;
  ASSERT_NE(policy, nullptr);
  for (const auto& p : policies) {
    const int i = policy->findText(QString::fromStdString(p.name));
    ASSERT_GE(i, 0) << p.name;
    EXPECT_FALSE(p.kernels.empty()) << p.name;
    const QString tip = policy->itemData(i, Qt::ToolTipRole).toString();
    EXPECT_TRUE(tip.contains(QString::fromStdString(p.kernels).toHtmlEscaped())) << p.name;
    EXPECT_GT(p.details.size(), 80u) << p.name;
  }
}

TEST(Descriptions, EveryControlHasATooltipAndTheScenarioItsDescription) {
  ParameterPanel panel;
  panel.setScenario(engine::loadScenario("default"));
  for (QWidget* w : panel.findChildren<QWidget*>()) {
    if (!qobject_cast<QAbstractSpinBox*>(w) && !qobject_cast<QComboBox*>(w) &&
        !qobject_cast<QAbstractSlider*>(w))
      continue;
    // A control inside a LogSlider shares the slider's tooltip.
    QWidget* owner = w;
    while (owner && owner->toolTip().isEmpty() && owner != &panel) owner = owner->parentWidget();
    EXPECT_TRUE(owner && owner != &panel) << w->metaObject()->className();
  }
  auto* description = panel.findChild<QLabel*>(QStringLiteral("scenarioDescription"));
  ASSERT_NE(description, nullptr);
  EXPECT_EQ(description->text().toStdString(), engine::loadScenario("default").description);
}

}  // namespace
}  // namespace throttlelab::ui
