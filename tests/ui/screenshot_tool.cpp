// SPDX-License-Identifier: GPL-3.0-or-later
// Not a test: draws the real-kernel view and live host mode into PNGs for the docs, the way a
// user would see them (run it under xvfb-run). Built on demand: `ninja ui_screenshots`.
//   ui_screenshots TRACE OVERLAY.png HOST.png [--taken-here] [--host-seconds S] [--record]
// --record also records the writeback tracepoints in host mode (root; the recorder restores
// tracefs) and prints what it got.
#include <QApplication>
#include <QElapsedTimer>
#include <QPixmap>
#include <QTemporaryDir>
#include <QThread>
#include <cstdio>
#include <functional>

#include "host_view.h"
#include "main_window.h"
#include "settings_store.h"
#include "stderr_notifier.h"
#include "trace_plot.h"
#include "trace_view.h"
#include "window_parts.h"

using namespace throttlelab::ui;
using throttlelab::ui::test::part;

namespace {
bool waitFor(const std::function<bool()>& done, int limitMs) {
  QElapsedTimer clock;
  clock.start();
  while (!done()) {
    if (clock.elapsed() > limitMs) return false;
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    QThread::msleep(5);
  }
  return true;
}

void settle(int ms) {
  waitFor([] { return false; }, ms);
}
}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  const QStringList args = QCoreApplication::arguments();
  if (args.size() < 4) {
    std::fprintf(stderr, "usage: %s TRACE OVERLAY.png HOST.png [--taken-here] [--host-seconds S]\n",
                 argv[0]);
    return 2;
  }
  const bool takenHere = args.contains(QStringLiteral("--taken-here"));
  const int hostIndex = static_cast<int>(args.indexOf(QStringLiteral("--host-seconds")));
  const double hostSeconds = hostIndex > 0 ? args.value(hostIndex + 1).toDouble() : 20;
  QTemporaryDir dir;
  SettingsStore settings(dir.filePath(QStringLiteral("settings.ini")));
  settings.setValue(Setting::GettingStarted, QStringLiteral("dismissed"));  // not a first start
  StderrNotifier notifier;
  MainWindow window(GuiLaunchOptions{}, notifier, settings);
  window.setGeometry(0, 0, 1600, 1000);
  window.show();
  settle(500);

  window.importTrace(args[1]);
  if (!waitFor([&] { return !part<TraceView>(window, "traceView").isImporting(); }, 120000) ||
      !part<TraceView>(window, "traceView").trace())
    return 1;
  part<TraceView>(window, "traceView").setTakenHere(takenHere);
  part<TraceView>(window, "traceView").simulate();
  if (!waitFor([&] { return !part<TraceView>(window, "traceView").isSimulating(); }, 600000))
    return 1;
  settle(500);
  const auto& plots = part<TraceView>(window, "traceView").plots();
  const auto range = plots.front()->timeRange();
  part<TraceView>(window, "traceView")
      .setCursorTime(range.first + (range.second - range.first) * 0.62);
  settle(300);
  if (!window.grab().save(args[2])) return 1;

  window.setHostMode(true);
  if (args.contains(QStringLiteral("--record")))
    part<HostView>(window, "hostView").setRecording(true);
  settle(static_cast<int>(hostSeconds * 1000));
  if (!window.grab().save(args[3])) return 1;
  window.setHostMode(false);
  if (auto recorded = part<HostView>(window, "hostView").recording())
    std::fprintf(stderr, "recorded: %s\n", throttlelab::traceio::describe(recorded->stats).c_str());
  return 0;
}
