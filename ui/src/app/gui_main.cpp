// SPDX-License-Identifier: GPL-3.0-or-later
#include "throttlelab/ui/gui_main.h"

#include <QApplication>
#include <QTimer>
#include <cstdio>
#include <memory>

#include "main_window.h"
#include "message_box_notifier.h"
#include "scripted_figures.h"
#include "settings_store.h"
#include "stderr_notifier.h"

namespace throttlelab::ui {

int runGui(int& argc, char** argv, const GuiLaunchOptions& options) {
  if (const auto problem = ScriptedFigures::outputProblem(options)) {
    std::fprintf(stderr, "throttlelab: %s\n", problem->c_str());
    return 2;
  }
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("ThrottleLab"));
  QApplication::setOrganizationName(QStringLiteral("ThrottleLab"));
  QApplication::setApplicationVersion(QStringLiteral(THROTTLELAB_VERSION));
  QApplication::setDesktopFileName(QStringLiteral("org.throttlelab.ThrottleLab"));

  // A scripted run must never wait on a dialog nobody will click.
  const bool scripted = options.scripted();
  MessageBoxNotifier boxes;
  StderrNotifier printer;
  UserNotifier& notifier = scripted ? static_cast<UserNotifier&>(printer) : boxes;
  // A scripted run writes nothing but its named outputs: no recent file, no window state.
  const auto settings = scripted ? std::make_unique<SettingsStore>(SettingsStore::InMemory{})
                                 : std::make_unique<SettingsStore>();
  MainWindow window(options, notifier, *settings);
  boxes.setParentWidget(&window);
  window.show();
  QTimer::singleShot(0, &window, &MainWindow::startScriptedJob);
  return QApplication::exec();
}

}  // namespace throttlelab::ui
