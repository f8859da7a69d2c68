// SPDX-License-Identifier: GPL-3.0-or-later
// Help → Keyboard shortcuts (F1) lists every action the window binds to a key, with the key.
#include <gtest/gtest.h>

#include <QAction>
#include <QApplication>
#include <QMessageBox>
#include <QRegularExpression>
#include <QTest>
#include <QTimer>
#include <memory>

#include "window_rig.h"

namespace throttlelab::ui {
namespace {

struct HelpPage {
  QString text;
  bool opened = false;
  int triesLeft = 2000;
};

/// Reads and closes the Help page once it is the modal window; it runs its own event loop.
void readHelpPageWhenOpen(std::shared_ptr<HelpPage> page) {
  auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
  if (!box || box->objectName() != QStringLiteral("shortcutsHelp")) {
    if (--page->triesLeft > 0) QTimer::singleShot(10, [page] { readHelpPageWhenOpen(page); });
    return;
  }
  // One line per row of the table: "keys  what they do".
  static const QRegularExpression row(QStringLiteral("<tr>(.*?)</tr>"));
  static const QRegularExpression tag(QStringLiteral("<[^>]*>"));
  for (auto it = row.globalMatch(box->text()); it.hasNext();)
    page->text += it.next().captured(1).replace(tag, QStringLiteral(" ")).simplified() + '\n';
  page->opened = true;
  box->done(0);
}

/// Presses F1 in the window and returns the rows of the Help page it opens.
QString helpPageAfterF1(MainWindow& window) {
  auto page = std::make_shared<HelpPage>();
  QTimer::singleShot(0, [page] { readHelpPageWhenOpen(page); });
  QTest::keyClick(&window, Qt::Key_F1);
  EXPECT_TRUE(page->opened) << "F1 opened no Help page";
  page->triesLeft = 0;
  return page->text;
}

TEST(Help, KeyboardShortcutsListEveryActionWithAShortcut) {
  test::WindowRig rig;
  MainWindow& window = *rig.window;
  window.show();
  window.activateWindow();
  ASSERT_TRUE(QTest::qWaitForWindowActive(&window));
  const QString page = helpPageAfterF1(window);
  ASSERT_FALSE(page.isEmpty());
  const QStringList lines = page.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
  int checked = 0;
  for (QAction* action : window.findChildren<QAction*>()) {
    if (action->shortcut().isEmpty()) continue;
    const QString keys = action->shortcut().toString(QKeySequence::NativeText);
    const QString name = action->text().remove(QLatin1Char('&'));
    SCOPED_TRACE(name.toStdString() + " (" + keys.toStdString() + ")");
    // The action's name and its keys on one row of the table.
    const bool listed = std::any_of(lines.begin(), lines.end(), [&](const QString& line) {
      return line.contains(keys) && line.contains(name);
    });
    EXPECT_TRUE(listed) << page.toStdString();
    ++checked;
  }
  // Run/Pause, Step, Reset, Open, Save, Quit, Export, Compare, presenter mode, full screen, F1,
  // the lesson steps: a window that binds fewer keys lost some.
  EXPECT_GE(checked, 12);
}

}  // namespace
}  // namespace throttlelab::ui
