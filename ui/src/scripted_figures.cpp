// SPDX-License-Identifier: GPL-3.0-or-later
#include "scripted_figures.h"

#include <QCoreApplication>
#include <QTimer>
#include <cstdio>

#include "live_controller.h"

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
}

void ScriptedFigures::start() {
  m_controller.runFor(m_job.runForS);
}

void ScriptedFigures::exportAll() {
  if (m_done) return;
  m_done = true;
  QCoreApplication::processEvents();
  m_controller.frame(true, true);
  int failures = 0;
  auto run = [&](const QString& path, ExportFormat format) {
    if (path.isEmpty()) return;
    const QString error = m_export(path, ExportChoice{.plot = std::nullopt, .format = format});
    if (!error.isEmpty()) {
      std::fprintf(stderr, "throttlelab: export failed: %s\n", qPrintable(error));
      ++failures;
    }
  };
  run(m_job.png, ExportFormat::Png1x);
  run(m_job.svg, ExportFormat::Svg);
  run(m_job.pdf, ExportFormat::Pdf);
  run(m_job.csv, ExportFormat::CsvAll);
  Q_EMIT finished(failures == 0 ? 0 : 1);
}

}  // namespace throttlelab::ui
