// SPDX-License-Identifier: GPL-3.0-or-later
#include "scripted_figures.h"

#include <QCoreApplication>
#include <QTimer>
#include <cstdio>
#include <variant>
#include <vector>

#include "live_controller.h"
#include "throttlelab/host/output_target.h"

namespace throttlelab::ui {

ScriptedFigures::ScriptedFigures(LiveController& controller, Job job, ExportFunction exportFunction,
                                 QObject* parent)
    : QObject(parent),
      m_controller(controller),
      m_job(std::move(job)),
      m_export(std::move(exportFunction)) {
  connect(&m_controller, &LiveController::runForFinished, this, [this] {
    // Let pending layout and paint events run so the exported plots are laid out.
    QTimer::singleShot(0, this, &ScriptedFigures::exportAll);
  });
  // A run that stopped on an error would never reach its --run-for time: say so and end.
  connect(&m_controller, &LiveController::engineError, this, [this](const QString& message) {
    fail(QStringLiteral("the simulation stopped before the exports: %1").arg(message));
  });
}

void ScriptedFigures::start() {
  m_controller.runFor(m_job.runForS);
}

void ScriptedFigures::fail(const QString& message) {
  if (m_done) return;
  m_done = true;
  std::fprintf(stderr, "throttlelab: %s\n", qPrintable(message));
  Q_EMIT finished(kExitWriteFailed);
}

void ScriptedFigures::exportAll() {
  if (m_done) return;
  m_done = true;
  QCoreApplication::processEvents();
  m_controller.frame(true, true);
  int failures = 0;
  auto run = [&](const char* option, const QString& path, ExportFormat format) {
    if (path.isEmpty()) return;
    const QString error = m_export(path, ExportChoice{.plot = std::nullopt, .format = format});
    if (!error.isEmpty()) {
      std::fprintf(stderr, "throttlelab: %s: %s\n", option, qPrintable(error));
      ++failures;
    }
  };
  run("--export-png", m_job.png, ExportFormat::Png1x);
  run("--export-svg", m_job.svg, ExportFormat::Svg);
  run("--export-pdf", m_job.pdf, ExportFormat::Pdf);
  run("--export-csv", m_job.csv, ExportFormat::CsvAll);
  Q_EMIT finished(failures == 0 ? 0 : kExitWriteFailed);
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
