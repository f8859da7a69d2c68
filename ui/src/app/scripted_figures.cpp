// SPDX-License-Identifier: GPL-3.0-or-later
#include "scripted_figures.h"

#include <QCoreApplication>
#include <QTimer>
#include <cstdio>
#include <utility>
#include <variant>
#include <vector>

#include "branch_controller.h"
#include "compare_view.h"
#include "host_monitor.h"
#include "host_view.h"
#include "lesson_panel.h"
#include "live_controller.h"
#include "throttlelab/engine/lesson.h"
#include "throttlelab/host/output_target.h"

namespace throttlelab::ui {

ScriptedFigures::ScriptedFigures(const GuiLaunchOptions& options, Window window, QObject* parent)
    : QObject(parent), m_options(options), m_window(std::move(window)) {}

void ScriptedFigures::importEnded() {
  m_importing = false;
  if (m_waitingForImport) {
    m_waitingForImport = false;
    QTimer::singleShot(0, this, &ScriptedFigures::start);
  }
}

void ScriptedFigures::start() {
  if (m_running || m_exitCode) return;
  // --open-trace: the trace is part of what was asked; wait for it to load (or fail).
  if (m_importing) {
    m_waitingForImport = true;
    return;
  }
  if (!m_failures.isEmpty()) {
    finish(kExitBadInput, tr("Scripted run not done: %1").arg(m_failures.front()));
    return;
  }
  // --lesson: the exports show the step once it has run to its end.
  if (m_window.lessons.hasLesson() && !m_window.lessons.stepSettled()) {
    connect(&m_window.lessons, &LessonPanel::stepReady, this, &ScriptedFigures::start,
            Qt::SingleShotConnection);
    return;
  }
  // --branch-at: the live run goes to --run-for, branches, and the branch's run is the job.
  if (m_options.branchAtS && !m_branched) {
    connect(
        &m_window.live, &LiveController::runForFinished, this,
        [this] {
          const QString error =
              m_window.branch.branchHere(*m_options.branchAtS, m_options.branchOverrides, false);
          if (!error.isEmpty()) {
            std::fprintf(stderr, "throttlelab: --branch-at: %s\n", qPrintable(error));
            finish(kExitBadInput, tr("Branch not made: %1").arg(error));
            return;
          }
          m_branched = true;
          start();
        },
        Qt::SingleShotConnection);
    m_window.live.runFor(m_options.runForS.value_or(0));
    return;
  }
  // The host view draws what it polls ten times a second from when it is shown: a figure of
  // it waits for two seconds of lines (at most kHostWaitMs, then shows what there is).
  if (m_window.showsHost() && m_window.host.polledSamples() < kHostSamples) {
    if (!m_hostWait.isValid()) m_hostWait.start();
    if (m_hostWait.elapsed() < kHostWaitMs) {
      QTimer::singleShot(HostMonitor::kIntervalMs, this, &ScriptedFigures::start);
      return;
    }
  }
  runAndExport(m_branched ? m_window.compare.run(1) : m_window.live);
}

void ScriptedFigures::runAndExport(LiveController& run) {
  m_running = true;
  double runForS = m_options.runForS.value_or(0);
  if (m_window.lessons.hasLesson())
    runForS =
        engine::planLessonStep(m_window.lessons.lesson(), m_window.lessons.currentStep()).stepToS();
  connect(&run, &LiveController::runForFinished, this, [this, &run] {
    // Let pending layout and paint events run so the exported plots are laid out.
    QTimer::singleShot(0, this, [this, &run] { exportAll(run); });
  });
  // A run that stopped on an error would never reach its --run-for time: say so and end.
  connect(&run, &LiveController::engineError, this, [this](const QString& message) {
    if (std::exchange(m_done, true)) return;
    std::fprintf(stderr, "throttlelab: the simulation stopped before the exports: %s\n",
                 qPrintable(message));
    finish(kExitWriteFailed, tr("Scripted run finished; an export failed"));
  });
  run.runFor(runForS);
}

void ScriptedFigures::exportAll(LiveController& run) {
  if (std::exchange(m_done, true)) return;
  QCoreApplication::processEvents();
  run.frame(true, true);
  int failures = 0;
  auto write = [&](const char* option, const std::string& path, ExportFormat format) {
    if (path.empty()) return;
    const QString error = m_window.exportTo(QString::fromStdString(path),
                                            ExportChoice{.plot = std::nullopt, .format = format});
    if (!error.isEmpty()) {
      std::fprintf(stderr, "throttlelab: %s: %s\n", option, qPrintable(error));
      ++failures;
    }
  };
  write("--export-png", m_options.exportPng, ExportFormat::Png1x);
  write("--export-svg", m_options.exportSvg, ExportFormat::Svg);
  write("--export-pdf", m_options.exportPdf, ExportFormat::Pdf);
  write("--export-csv", m_options.exportCsv, ExportFormat::CsvAll);
  finish(failures == 0 ? 0 : kExitWriteFailed, failures == 0
                                                   ? tr("Scripted run finished; exports written")
                                                   : tr("Scripted run finished; an export failed"));
}

void ScriptedFigures::finish(int code, const QString& status) {
  m_exitCode = code;
  Q_EMIT finished(code, status);
  if (m_options.quit) QCoreApplication::exit(code);
}

std::optional<std::string> ScriptedFigures::outputProblem(const GuiLaunchOptions& options) {
  std::vector<host::NamedPath> outputs;
  for (const auto& [option, path] : {std::pair{"--export-png", &options.exportPng},
                                     std::pair{"--export-svg", &options.exportSvg},
                                     std::pair{"--export-pdf", &options.exportPdf},
                                     std::pair{"--export-csv", &options.exportCsv}}) {
    if (path->empty()) continue;
    const auto resolved = host::resolveOutput(*path);
    if (const auto* reason = std::get_if<std::string>(&resolved))
      return std::string(option) + " " + *path + ": cannot write: " + *reason;
    outputs.push_back({option, *path});
  }
  return host::outputConflict(outputs, {{"--scenario", options.scenario},
                                        {"--session", options.session},
                                        {"--open-trace", options.importTrace}});
}

}  // namespace throttlelab::ui
