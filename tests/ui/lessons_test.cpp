// SPDX-License-Identifier: GPL-3.0-or-later
// Lessons in the window: every shipped lesson loads and every step of it applies to the live
// run; Page Down/Page Up move between steps; a bad lesson file changes nothing.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QTest>

#include "dashboard.h"
#include "lesson_panel.h"
#include "parameter_panel.h"
#include "throttlelab/engine/simulator.h"
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
  rig.window->show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(rig.window.get()));
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
  rig.window->show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(rig.window.get()));
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
