// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A main window with captured messages and throw-away settings, for the ui tests.
#include <gtest/gtest.h>

#include <QTemporaryDir>
#include <QTest>
#include <memory>

#include "main_window.h"
#include "session_file.h"
#include "settings_store.h"
#include "ui_test_support.h"

namespace throttlelab::ui::test {

struct WindowRig {
  /// Returning: a user who has put the Getting started panel away before (what every test of
  /// something else sees); First: nothing stored yet, the program's first start.
  enum class Start { Returning, First };

  explicit WindowRig(const GuiLaunchOptions& options = {}, Start start = Start::Returning)
      : settings(dir.filePath(QStringLiteral("settings.ini"))),
        window(makeWindow(options, start)) {}

  QString path(const QString& name) const { return dir.filePath(name); }
  /// Shows the window; true once it is on screen.
  bool shown() {
    window->show();
    return QTest::qWaitForWindowExposed(window.get());
  }

  QTemporaryDir dir;
  RecordingNotifier notifier;
  SettingsStore settings;
  std::unique_ptr<MainWindow> window;

 private:
  std::unique_ptr<MainWindow> makeWindow(const GuiLaunchOptions& options, Start start) {
    if (start == Start::Returning)
      settings.setValue(Setting::GettingStarted, QStringLiteral("dismissed"));
    return std::make_unique<MainWindow>(options, notifier, settings);
  }
};

/// Options that open `state`, written as a session file `name` in `dir`, and run it for
/// `runForS` simulated seconds (the command line's --session and --run-for).
inline GuiLaunchOptions sessionRunFor(const QTemporaryDir& dir, const QString& name,
                                      const SessionState& state, double runForS) {
  const QString session = dir.filePath(name);
  EXPECT_EQ(SessionFile::write(session, state), QString());
  GuiLaunchOptions options;
  options.session = session.toStdString();
  options.runForS = runForS;
  return options;
}

}  // namespace throttlelab::ui::test
