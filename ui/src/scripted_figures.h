// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// --run-for S with --export-png/svg/pdf/csv: run S simulated seconds as fast as possible,
/// write the files once the plots show the final state, and report an exit status (how the
/// README screenshots and CI figures are made).
#include <QObject>
#include <QString>
#include <functional>

#include "export_dialog.h"

namespace throttlelab::ui {

class LiveController;

class ScriptedFigures : public QObject {
  Q_OBJECT

 public:
  struct Job {
    double runForS = 0;
    QString png, svg, pdf, csv;
  };
  /// Performs one export; returns an error message or an empty string.
  using ExportFunction = std::function<QString(const QString& path, const ExportChoice& choice)>;

  ScriptedFigures(LiveController& controller, Job job, ExportFunction exportFunction,
                  QObject* parent = nullptr);
  void start();

 Q_SIGNALS:
  /// 0 if every export succeeded.
  void finished(int exitCode);

 private:
  void exportAll();

  LiveController& m_controller;
  Job m_job;
  ExportFunction m_export;
  bool m_done = false;
};

}  // namespace throttlelab::ui
