// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A main window with captured messages and throw-away settings, for the ui tests.
#include <QTemporaryDir>
#include <memory>

#include "main_window.h"
#include "settings_store.h"
#include "ui_test_support.h"

namespace throttlelab::ui::test {

struct WindowRig {
  explicit WindowRig(const GuiLaunchOptions& options = {})
      : settings(dir.filePath(QStringLiteral("settings.ini"))),
        window(std::make_unique<MainWindow>(options, notifier, settings)) {}

  QString path(const QString& name) const { return dir.filePath(name); }

  QTemporaryDir dir;
  RecordingNotifier notifier;
  SettingsStore settings;
  std::unique_ptr<MainWindow> window;
};

}  // namespace throttlelab::ui::test
