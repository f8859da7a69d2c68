// SPDX-License-Identifier: GPL-3.0-or-later
// The first start: the Getting started panel in the window (not a dialog), in front of the
// Parameters, one click each for the first lesson of --list-lessons, the default run, a kernel
// trace and presenter mode; put away for good once dismissed, back from Help; never in a
// scripted run, which writes no settings.
#include <gtest/gtest.h>
#include <functional>

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QFile>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QTest>
#include <QTimer>

#include "central_view.h"
#include "dashboard.h"
#include "getting_started_panel.h"
#include "lesson_panel.h"
#include "live_controller.h"
#include "throttlelab/engine/lesson.h"
#include "window_parts.h"
#include "window_rig.h"

namespace throttlelab::ui {
namespace {

using test::part;
using test::WindowRig;

QDockWidget& dock(const MainWindow& window) {
  return part<QDockWidget>(window, "gettingStartedDock");
}

GettingStartedPanel& panel(const MainWindow& window) {
  return part<GettingStartedPanel>(window, "gettingStartedPanel");
}

void showAt(MainWindow& window, QSize size) {
  window.setGeometry(QRect(QPoint(0, 0), size));
  window.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  QTest::qWait(20);
}

TEST(GettingStarted, TheFirstStartShowsItInTheWindowInFrontOfTheParameters) {
  WindowRig rig({}, WindowRig::Start::First);
  MainWindow& window = *rig.window;
  showAt(window, {1280, 720});
  EXPECT_TRUE(isInFront(dock(window)));
  EXPECT_FALSE(isInFront(part<QDockWidget>(window, "parameterDock")));
  // In the window, not a dialog of its own: nothing modal, and the panel lives in the window.
  EXPECT_EQ(QApplication::activeModalWidget(), nullptr);
  EXPECT_EQ(panel(window).window(), &window);
  EXPECT_FALSE(dock(window).isFloating());
  // Beside the default run, which goes on.
  EXPECT_EQ(window.findChild<LiveController*>()->scenario().name, "default");
  EXPECT_TRUE(window.findChild<LiveController*>()->isRunning());
  EXPECT_EQ(rig.settings.value(Setting::GettingStarted).toString(), QStringLiteral("shown"));
  // Every choice is on the screen at a projector's 1280x720, without scrolling.
  auto* scroll = qobject_cast<QScrollArea*>(dock(window).widget());
  ASSERT_NE(scroll, nullptr);
  const QRect seen = scroll->viewport()->rect();
  for (QWidget* button : std::initializer_list<QWidget*>{
           panel(window).firstLessonButton(), panel(window).defaultRunButton(),
           panel(window).openTraceButton(), panel(window).presenterButton(),
           panel(window).dismissButton()}) {
    SCOPED_TRACE(button->objectName().toStdString());
    const QRect at(button->mapTo(scroll->viewport(), QPoint(0, 0)), button->size());
    EXPECT_TRUE(seen.contains(at)) << "at y " << at.y() << ", the panel shows " << seen.height();
  }
}

TEST(GettingStarted, ItTakesNoMoreWidthThanTheParametersItStandsBefore) {
  WindowRig first({}, WindowRig::Start::First);
  showAt(*first.window, {1280, 720});
  WindowRig returning;
  showAt(*returning.window, {1280, 720});
  const int withPanel = first.window->findChild<Dashboard*>()->width();
  const int without = returning.window->findChild<Dashboard*>()->width();
  EXPECT_EQ(withPanel, without);
  EXPECT_GT(withPanel, 0);
}

TEST(GettingStarted, TheFirstLessonIsTheFirstOfTheListAndOneClickAway) {
  const auto names = engine::builtinLessonNames();
  ASSERT_FALSE(names.empty());
  const engine::Lesson first =
      engine::parseLesson(*engine::builtinLessonJson(names.front()), names.front());
  WindowRig rig({}, WindowRig::Start::First);
  MainWindow& window = *rig.window;
  showAt(window, {1280, 720});
  QPushButton* button = panel(window).firstLessonButton();
  EXPECT_TRUE(button->toolTip().contains(QString::fromStdString(first.title)))
      << button->toolTip().toStdString();
  QTest::mouseClick(button, Qt::LeftButton);
  auto& lessons = part<LessonPanel>(window, "lessonPanel");
  ASSERT_TRUE(lessons.hasLesson());
  EXPECT_EQ(lessons.lesson().title, first.title);
  EXPECT_EQ(lessons.currentStep(), 0);
  EXPECT_TRUE(isInFront(part<QDockWidget>(window, "lessonDock")));
}

TEST(GettingStarted, TheDefaultRunStartsAgainFromTheBeginningWithTheParametersInFront) {
  WindowRig rig({}, WindowRig::Start::First);
  MainWindow& window = *rig.window;
  showAt(window, {1280, 720});
  ASSERT_TRUE(window.openScenario(QStringLiteral("ten-dd")));
  auto& controller = *window.findChild<LiveController*>();
  ASSERT_EQ(controller.scenario().name, "ten-dd");
  QTest::mouseClick(panel(window).defaultRunButton(), Qt::LeftButton);
  EXPECT_EQ(controller.scenario().name, "default");
  EXPECT_TRUE(controller.isRunning());
  EXPECT_EQ(window.centralView(), CentralView::Dashboard);
  EXPECT_TRUE(isInFront(part<QDockWidget>(window, "parameterDock")));
}

TEST(GettingStarted, PresenterModeIsOneClickOnAndOneOff) {
  WindowRig rig({}, WindowRig::Start::First);
  MainWindow& window = *rig.window;
  showAt(window, {1280, 720});
  QPushButton* button = panel(window).presenterButton();
  QTest::mouseClick(button, Qt::LeftButton);
  EXPECT_TRUE(window.presenterMode());
  EXPECT_TRUE(button->isChecked());
  // Switched off elsewhere (Ctrl+Shift+P): the button follows.
  window.setPresenterMode(false);
  EXPECT_FALSE(button->isChecked());
  QTest::mouseClick(button, Qt::LeftButton);
  EXPECT_TRUE(window.presenterMode());
  QTest::mouseClick(button, Qt::LeftButton);
  EXPECT_FALSE(window.presenterMode());
}

TEST(GettingStarted, OpeningATraceAsksForTheFileToImport) {
  WindowRig rig({}, WindowRig::Start::First);
  MainWindow& window = *rig.window;
  showAt(window, {1280, 720});
  // The file dialog is modal: note what it asks, then cancel it.
  QString asked;
  QTimer::singleShot(0, [&asked] {
    const std::function<void()> close = [&asked, &close] {
      if (QWidget* dialog = QApplication::activeModalWidget()) {
        asked = dialog->windowTitle();
        dialog->close();
        return;
      }
      QTimer::singleShot(10, close);
    };
    close();
  });
  QTest::mouseClick(panel(window).openTraceButton(), Qt::LeftButton);
  EXPECT_EQ(asked, QStringLiteral("Import kernel trace"));
  EXPECT_EQ(window.centralView(), CentralView::Dashboard);  // nothing picked, nothing changed
}

/// Starts of the program on one settings file: each start's window is shown at 1280 × 720,
/// `use`d, and closed (which stores its settings).
class Starts {
 public:
  void start(const std::function<void(MainWindow&)>& use) {
    SettingsStore settings(m_ini);
    MainWindow window({}, m_notifier, settings);
    showAt(window, {1280, 720});
    use(window);
    window.close();
  }
  const QString& ini() const { return m_ini; }
  test::RecordingNotifier& notifier() { return m_notifier; }

 private:
  QTemporaryDir m_dir;
  QString m_ini = m_dir.filePath(QStringLiteral("settings.ini"));
  test::RecordingNotifier m_notifier;
};

TEST(GettingStarted, OnceDismissedItStaysAwayUntilHelpBringsItBack) {
  Starts starts;
  starts.start([](MainWindow& window) {
    ASSERT_TRUE(isInFront(dock(window)));
    QTest::mouseClick(panel(window).dismissButton(), Qt::LeftButton);
    EXPECT_TRUE(dock(window).isHidden());
  });
  starts.start([](MainWindow& window) {
    EXPECT_TRUE(dock(window).isHidden());
    // Help ▸ Getting started.
    part<QAction>(window, "gettingStartedAction").trigger();
    EXPECT_TRUE(isInFront(dock(window)));
  });
  starts.start([](MainWindow& window) {
    EXPECT_TRUE(dock(window).isHidden()) << "brought back once, not for every start";
  });
}

TEST(GettingStarted, ClosingThePanelDismissesItToo) {
  Starts starts;
  starts.start([](MainWindow& window) { dock(window).close(); });
  SettingsStore settings(starts.ini());
  EXPECT_EQ(settings.value(Setting::GettingStarted).toString(), QStringLiteral("dismissed"));
  MainWindow window({}, starts.notifier(), settings);
  EXPECT_TRUE(dock(window).isHidden());
}

TEST(GettingStarted, UntilDismissedItIsShownAtEveryStart) {
  Starts starts;
  // Closing stores the window's geometry: the settings are no longer empty.
  starts.start([](MainWindow&) {});
  ASSERT_FALSE(SettingsStore(starts.ini()).isEmpty());
  starts.start([](MainWindow& window) { EXPECT_TRUE(isInFront(dock(window))); });
}

TEST(GettingStarted, AUserWithSettingsFromBeforeIsNotShownIt) {
  QTemporaryDir dir;
  const QString ini = dir.filePath(QStringLiteral("settings.ini"));
  {
    QSettings older(ini, QSettings::IniFormat);
    older.setValue(SettingsStore::keyName(Setting::HistoryWindow), QStringLiteral("1min"));
  }
  test::RecordingNotifier notifier;
  SettingsStore settings(ini);
  MainWindow window({}, notifier, settings);
  showAt(window, {1280, 720});
  EXPECT_TRUE(dock(window).isHidden());
}

TEST(GettingStarted, AScriptedRunNeitherShowsItNorWritesSettings) {
  for (const auto& options : {GuiLaunchOptions{.runForS = 1.0}, GuiLaunchOptions{.quit = true},
                              GuiLaunchOptions{.exportPng = "never-written.png"}}) {
    QTemporaryDir dir;
    const QString ini = dir.filePath(QStringLiteral("settings.ini"));
    test::RecordingNotifier notifier;
    {
      SettingsStore settings(ini);
      MainWindow window(options, notifier, settings);
      showAt(window, {1280, 720});
      EXPECT_TRUE(dock(window).isHidden());
      EXPECT_FALSE(isInFront(dock(window)));
      window.close();
    }
    EXPECT_FALSE(QFile::exists(ini)) << "a scripted run wrote " << ini.toStdString();
  }
}

}  // namespace
}  // namespace throttlelab::ui
