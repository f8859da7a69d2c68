// SPDX-License-Identifier: GPL-3.0-or-later
// The lesson panel's additions for issue #26: a numeric prediction's number box and its
// verdict, the answer's first layer and "More", the glossary and the step's own terms, the
// lesson's kernel line, a step's curves alone on their plots until "All curves", progress and
// Cancel for a long step, and the question in view at 1280x720 in presenter mode, before and
// after the answer (geometry, not pixels).
#include <gtest/gtest.h>

#include <QCheckBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRadioButton>
#include <QScrollArea>
#include <QTest>

#include "dashboard.h"
#include "lesson_panel.h"
#include "live_controller.h"
#include "qcp.h"
#include "throttle_curve_plot.h"
#include "time_plot.h"
#include "ui_test_support.h"
#include "window_parts.h"
#include "window_rig.h"

namespace throttlelab::ui {
namespace {

using test::waitFor;

/// A panel on its own controller, playing `json`.
struct PanelRig {
  explicit PanelRig(const std::string& json) : controller(paused()), panel(controller) {
    controller.start();
    panel.setLesson(engine::parseLesson(json, "test.json"));
    panel.resize(420, 700);
    panel.show();
  }
  ~PanelRig() { controller.stop(); }
  static LiveController::Options paused() {
    LiveController::Options o;
    o.startRunning = false;
    return o;
  }
  template <class T>
  T* find(const char* name) {
    return panel.findChild<T*>(QString::fromLatin1(name));
  }
  LiveController controller;
  LessonPanel panel;
};

const std::string kLesson = R"({"name": "t", "title": "A test lesson",
  "kernel": "Runs the 3.2+ model (ioless); the story is today's kernels.",
  "steps": [
    {"caption": "Ten dd write. The setpoint is where dirty pages go.", "scenario": "ten-dd",
     "runFor": 10,
     "terms": {"setpoint": "Where the controller steers dirty pages.",
               "freerun": "Below it nobody waits."},
     "curves": {"dirty": ["dirty+writeback", "setpoint"], "curve": ["global cubic", "setpoint"]},
     "question": {"text": "How many MiB are dirty after 10 s?",
                  "numeric": {"figure": "dirty_mib", "unit": "MiB", "expected": 600,
                              "tolerance": "20%"},
                  "reveal": "Dirty pages had a median of {dirty_mib} MiB.",
                  "more": "The rest: {tasks:dd} writers share the disk."}},
    {"caption": "On.", "runFor": 5,
     "terms": {"limit": "The most dirty pages may be."},
     "question": {"text": "Where are they now?", "choices": ["Below freerun", "Above freerun"],
                  "answer": 1, "check": "dirty_mib > freerun_mib",
                  "reveal": "At {dirty_mib} MiB."}}]})";

TEST(LessonPanel, ANumericQuestionTakesANumberAndShowsTheMeasuredValueBesideIt) {
  PanelRig rig(kLesson);
  rig.panel.goToStep(0);
  auto* number = rig.find<QLineEdit>("lessonNumber");
  auto* unit = rig.find<QLabel>("lessonUnit");
  auto* answer = rig.find<QPushButton>("lessonAnswer");
  ASSERT_TRUE(number && unit && answer);
  EXPECT_TRUE(number->isVisible());
  EXPECT_EQ(unit->text(), QStringLiteral("MiB"));
  EXPECT_FALSE(answer->isEnabled());  // nothing typed yet
  EXPECT_FALSE(rig.find<QRadioButton>("lessonChoice0"));
  QTest::keyClicks(number, QStringLiteral("abc"));
  EXPECT_FALSE(answer->isEnabled());  // not a number
  number->clear();
  QTest::keyClicks(number, QStringLiteral("1e9"));
  number->clear();
  QTest::keyClicks(number, QStringLiteral("2.5"));
  EXPECT_TRUE(answer->isEnabled());
  answer->click();
  ASSERT_TRUE(waitFor([&] {
    rig.controller.frame();
    return rig.panel.stepSettled();
  }));
  const QString reveal = rig.panel.revealText();
  // The measured value, the guess and the verdict; the placeholders filled.
  EXPECT_TRUE(reveal.contains(QStringLiteral("Measured: "))) << reveal.toStdString();
  EXPECT_TRUE(reveal.contains(QStringLiteral("Your prediction: 2.50 MiB"))) << reveal.toStdString();
  EXPECT_TRUE(reveal.contains(QStringLiteral("not within it"))) << reveal.toStdString();
  EXPECT_TRUE(reveal.contains(QStringLiteral("Dirty pages had a median of")))
      << reveal.toStdString();
  EXPECT_FALSE(reveal.contains('{')) << reveal.toStdString();
  EXPECT_FALSE(number->isEnabled());
  // The measured figure is the one the engine measures for the step.
  const engine::LessonMeasurement m = engine::measureLessonStep(rig.panel.lesson(), 0);
  const QString measured = QString::fromStdString(
      engine::formatLessonNumber(engine::lessonFigureValue({"dirty_mib", "", ""}, m)));
  EXPECT_TRUE(reveal.contains(QStringLiteral("Measured: %1 MiB").arg(measured)))
      << reveal.toStdString() << " / " << measured.toStdString();
  // A guess within the tolerance is right.
  rig.panel.goToStep(0);
  rig.panel.answerNumber(measured.toDouble() * 1.1);
  ASSERT_TRUE(waitFor([&] {
    rig.controller.frame();
    return rig.panel.stepSettled();
  }));
  EXPECT_TRUE(rig.panel.revealText().contains(QStringLiteral(" — right")))
      << rig.panel.revealText().toStdString();
}

TEST(LessonPanel, TheRestOfTheAnswerIsBehindMore) {
  PanelRig rig(kLesson);
  rig.panel.goToStep(0, true);
  ASSERT_TRUE(waitFor([&] {
    rig.controller.frame();
    return rig.panel.stepSettled();
  }));
  auto* more = rig.find<QLabel>("lessonMore");
  auto* button = rig.find<QPushButton>("lessonMoreButton");
  ASSERT_TRUE(more && button);
  EXPECT_TRUE(button->isVisible());
  EXPECT_FALSE(more->isVisible());
  EXPECT_FALSE(rig.panel.revealText().contains(QStringLiteral("The rest")));
  button->click();
  EXPECT_TRUE(more->isVisible());
  EXPECT_TRUE(rig.panel.moreText().contains(QStringLiteral("The rest: 10 writers share")))
      << rig.panel.moreText().toStdString();
  button->click();
  EXPECT_FALSE(more->isVisible());
  // A question without `more` has no button.
  rig.panel.goToStep(1, true);
  ASSERT_TRUE(waitFor([&] {
    rig.controller.frame();
    return rig.panel.stepSettled();
  }));
  EXPECT_FALSE(button->isVisible());
}

TEST(LessonPanel, TheGlossaryListsEveryTermWithItsStepAndAStepShowsItsOwn) {
  PanelRig rig(kLesson);
  EXPECT_EQ(rig.panel.glossaryEntries(),
            QStringList({"freerun (step 1): Below it nobody waits.",
                         "limit (step 2): The most dirty pages may be.",
                         "setpoint (step 1): Where the controller steers dirty pages."}));
  rig.panel.goToStep(0);
  auto* terms = rig.find<QLabel>("lessonTerms");
  ASSERT_NE(terms, nullptr);
  EXPECT_TRUE(terms->isVisible());
  EXPECT_TRUE(terms->text().contains(QStringLiteral("<b>setpoint</b>: Where the controller")));
  EXPECT_FALSE(terms->text().contains(QStringLiteral("limit")));
  auto* glossary = rig.find<QLabel>("lessonGlossary");
  auto* button = rig.find<QPushButton>("lessonGlossaryButton");
  ASSERT_TRUE(glossary && button);
  EXPECT_FALSE(glossary->isVisible());
  button->click();
  EXPECT_TRUE(glossary->isVisible());
  EXPECT_TRUE(glossary->text().contains(QStringLiteral("step 2")));
  EXPECT_FALSE(rig.find<QLabel>("lessonCaption")->isVisible());
  button->click();
  EXPECT_FALSE(glossary->isVisible());
  EXPECT_TRUE(rig.find<QLabel>("lessonCaption")->isVisible());
  // The kernel line is under the title.
  auto* kernel = rig.find<QLabel>("lessonKernel");
  ASSERT_NE(kernel, nullptr);
  EXPECT_TRUE(kernel->isVisible());
  EXPECT_TRUE(kernel->text().contains(QStringLiteral("3.2+ model")));
  EXPECT_TRUE(kernel->wordWrap());
  // After the first step it keeps one line, so that the question stays in view; the whole
  // line is its tooltip.
  rig.panel.goToStep(1);
  EXPECT_FALSE(kernel->wordWrap());
  EXPECT_TRUE(kernel->toolTip().contains(QStringLiteral("3.2+ model")));
  rig.panel.goToStep(0);
  EXPECT_TRUE(kernel->wordWrap());
  EXPECT_TRUE(kernel->toolTip().isEmpty());
}

TEST(LessonPanel, AStepsCurvesAreAloneOnTheirPlotsUntilAllCurves) {
  test::WindowRig rig;
  const QString path = rig.path(QStringLiteral("curves.json"));
  QFile f(path);
  ASSERT_TRUE(f.open(QIODevice::WriteOnly));
  f.write(kLesson.c_str());
  f.close();
  ASSERT_TRUE(rig.shown());
  ASSERT_TRUE(rig.window->openLesson(path));
  auto* dashboard = rig.window->findChild<Dashboard*>(QStringLiteral("dashboard"));
  TimePlot* dirty = dashboard->timePlot(PlotId::DirtyPages);
  TimePlot* pause = dashboard->timePlot(PlotId::Pauses);
  auto* panel = rig.window->findChild<LessonPanel*>(QStringLiteral("lessonPanel"));
  // Step 2 names no curves: every curve of the run is drawn.
  panel->goToStep(1);
  const QStringList everyDirtyCurve = dirty->visibleSeries();
  panel->goToStep(0);
  EXPECT_EQ(dirty->visibleSeries(), QStringList({"dirty+writeback", "setpoint"}));
  EXPECT_GT(everyDirtyCurve.size(), 4);
  EXPECT_FALSE(pause->visibleSeries().isEmpty());  // a plot the step does not name: all
  EXPECT_EQ(pause->focusCurves(), QStringList());
  auto* curve = rig.window->findChild<ThrottleCurvePlot*>();
  ASSERT_NE(curve, nullptr);
  EXPECT_FALSE(curve->visibleCurves().contains(QStringLiteral("with the bdi line")));
  EXPECT_FALSE(curve->visibleCurves().contains(QStringLiteral("limit")));
  // The legend lists what is drawn.
  QCustomPlot* plot = dirty->widget();
  int entries = 0;
  for (int i = 0; i < plot->legend->itemCount(); ++i)
    if (qobject_cast<QCPPlottableLegendItem*>(plot->legend->item(i))) ++entries;
  EXPECT_EQ(entries, 2);
  auto* all = panel->findChild<QCheckBox*>(QStringLiteral("lessonAllCurves"));
  ASSERT_NE(all, nullptr);
  EXPECT_TRUE(all->isVisible());
  all->click();
  EXPECT_EQ(dirty->visibleSeries(), everyDirtyCurve);
  EXPECT_TRUE(curve->visibleCurves().contains(QStringLiteral("with the bdi line")));
  all->click();
  EXPECT_EQ(dirty->visibleSeries(), QStringList({"dirty+writeback", "setpoint"}));
  // A step without curves shows them all, and the box goes.
  panel->goToStep(1);
  EXPECT_EQ(dirty->visibleSeries(), everyDirtyCurve);
  EXPECT_FALSE(all->isVisible());
  // Closing the panel gives the plots all their curves; opening it brings the step's back.
  panel->goToStep(0);
  auto* dock = rig.window->findChild<QDockWidget*>(QStringLiteral("lessonDock"));
  dock->close();
  EXPECT_EQ(dirty->visibleSeries(), everyDirtyCurve);
  dock->toggleViewAction()->trigger();
  EXPECT_EQ(dirty->visibleSeries(), QStringList({"dirty+writeback", "setpoint"}));
}

TEST(LessonPanel, ALongStepShowsItsProgressAndCanBeCancelled) {
  PanelRig rig(R"({"name": "t", "title": "Long", "steps": [
      {"caption": "A thousand writers for twenty minutes.", "scenario": "thousand-dd",
       "runFor": 1200},
      {"caption": "Then a short one.", "runFor": 1}]})");
  rig.panel.goToStep(0);
  auto* row = rig.find<QWidget>("lessonProgressRow");
  auto* bar = rig.find<QProgressBar>("lessonProgress");
  auto* cancel = rig.find<QPushButton>("lessonCancel");
  ASSERT_TRUE(row && bar && cancel);
  ASSERT_TRUE(waitFor([&] {
    rig.controller.frame();
    return row->isVisible() && bar->value() > 0;
  }));
  EXPECT_FALSE(rig.panel.stepSettled());
  EXPECT_TRUE(rig.find<QLabel>("lessonProgressText")->text().contains(QStringLiteral("1200")));
  cancel->click();
  EXPECT_TRUE(rig.panel.stepCancelled());
  EXPECT_FALSE(row->isVisible());
  EXPECT_FALSE(rig.controller.isRunning());
  EXPECT_TRUE(rig.panel.positionText().contains(QStringLiteral("cancelled")))
      << rig.panel.positionText().toStdString();
  QTest::qWait(200);
  rig.controller.frame();
  const double stoppedAt = rig.controller.status().simTimeS;
  EXPECT_LT(stoppedAt, 1200);
  QTest::qWait(200);
  rig.controller.frame();
  EXPECT_EQ(rig.controller.status().simTimeS, stoppedAt);  // it stays stopped
  EXPECT_FALSE(rig.panel.stepSettled());
  // The next step replays what it needs, its own progress shown again.
  rig.panel.nextStep();
  EXPECT_FALSE(rig.panel.stepCancelled());
  ASSERT_TRUE(waitFor([&] {
    rig.controller.frame();
    return row->isVisible();
  }));
  cancel->click();
}

/// Whether all of `w` is on screen inside `clip` (none of it cut or scrolled away).
bool wholly(const QWidget* w, const QWidget* clip) {
  if (!w->isVisible()) return false;
  const QRect r(w->mapTo(clip->window(), QPoint(0, 0)), w->size());
  const QRect c(clip->mapTo(clip->window(), QPoint(0, 0)), clip->size());
  return c.contains(r) && w->visibleRegion().boundingRect() == w->rect();
}

TEST(LessonPanel, TheQuestionAndEveryChoiceAreInViewAt1280x720InPresenterMode) {
  QDir dir(QStringLiteral(THROTTLELAB_SOURCE_DIR "/resources/lessons"));
  int questions = 0;
  for (const QString& file : dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) {
    SCOPED_TRACE(file.toStdString());
    test::WindowRig rig;
    MainWindow& window = *rig.window;
    window.setPresenterMode(true);
    window.setGeometry(QRect(0, 0, 1280, 720));
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    ASSERT_TRUE(window.openLesson(dir.filePath(file)));
    auto* panel = window.findChild<LessonPanel*>(QStringLiteral("lessonPanel"));
    const engine::Lesson& lesson = panel->lesson();
    for (int i = 0; i < static_cast<int>(lesson.steps.size()); ++i) {
      const auto& step = lesson.steps[static_cast<std::size_t>(i)];
      if (!step.question) continue;
      SCOPED_TRACE("step " + std::to_string(i + 1));
      ++questions;
      panel->goToStep(i);
      QTest::qWait(30);
      auto* question = panel->findChild<QLabel*>(QStringLiteral("lessonQuestion"));
      EXPECT_TRUE(wholly(question, panel)) << "the question is cut or scrolled away";
      EXPECT_GE(question->height(), question->heightForWidth(question->width()));
      for (std::size_t c = 0; c < step.question->choices.size(); ++c) {
        auto* text = panel->findChild<QLabel*>(QStringLiteral("lessonChoiceText%1").arg(c));
        ASSERT_NE(text, nullptr);
        EXPECT_TRUE(wholly(text, panel)) << "choice " << c << " is cut or scrolled away";
        EXPECT_GE(text->height(), text->heightForWidth(text->width())) << "choice " << c;
        EXPECT_TRUE(wholly(panel->findChild<QRadioButton*>(QStringLiteral("lessonChoice%1").arg(c)),
                           panel));
      }
      if (step.question->numeric) {
        EXPECT_TRUE(wholly(panel->findChild<QLineEdit*>(QStringLiteral("lessonNumber")), panel));
      }
      EXPECT_TRUE(wholly(panel->findChild<QPushButton*>(QStringLiteral("lessonAnswer")), panel));
    }
    // After the answer: the question stays in view, the answer's first lines under it.
    for (int i = static_cast<int>(lesson.steps.size()) - 1; i >= 0; --i) {
      if (!lesson.steps[static_cast<std::size_t>(i)].question) continue;
      panel->goToStep(i, true);
      ASSERT_TRUE(waitFor([&] { return panel->stepSettled(); }, std::chrono::seconds(300)));
      QTest::qWait(30);
      EXPECT_TRUE(wholly(panel->findChild<QLabel*>(QStringLiteral("lessonQuestion")), panel));
      auto* reveal = panel->findChild<QLabel*>(QStringLiteral("lessonReveal"));
      EXPECT_FALSE(reveal->visibleRegion().isEmpty());
      // At least its first three lines.
      EXPECT_GE(reveal->visibleRegion().boundingRect().height(),
                std::min(reveal->height(), 3 * reveal->fontMetrics().lineSpacing()));
      break;
    }
  }
  EXPECT_GE(questions, 10);
}

}  // namespace
}  // namespace throttlelab::ui
