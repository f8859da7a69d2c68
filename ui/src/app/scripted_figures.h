// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// --run-for S with --export-png/svg/pdf/csv: run S simulated seconds as fast as possible,
/// write the files once the plots show the final state, and report an exit status (how the
/// README screenshots and CI figures are made).
#include <QObject>
#include <QString>
#include <functional>
#include <optional>
#include <string>

#include "export_dialog.h"
#include "throttlelab/ui/gui_main.h"

namespace throttlelab::ui {

class LiveController;

class ScriptedFigures : public QObject {
  Q_OBJECT

 public:
  /// Exit statuses, as the command line's: 1 an export could not be written or the
  /// simulation stopped, 2 bad input (a file that does not load, a path that cannot be an
  /// output).
  static constexpr int kExitWriteFailed = 1;
  static constexpr int kExitBadInput = 2;

  struct Job {
    double runForS = 0;
    QString png, svg, pdf, csv;
  };
  /// Performs one export; returns an error message or an empty string.
  using ExportFunction = std::function<QString(const QString& path, const ExportChoice& choice)>;

  ScriptedFigures(LiveController& controller, Job job, ExportFunction exportFunction,
                  QObject* parent = nullptr);
  void start();

  /// What makes the exports of `options` impossible before anything runs: an export path
  /// that cannot be an output (a directory, a block device, a missing directory), one that
  /// names the scenario, session or trace being read, or two exports naming one file. As
  /// "--export-csv s.json: names the file read by --session s.json"; nullopt if none.
  static std::optional<std::string> outputProblem(const GuiLaunchOptions& options);

 Q_SIGNALS:
  /// 0 if every export succeeded, else kExitWriteFailed.
  void finished(int exitCode);

 private:
  void exportAll();
  void fail(const QString& message);

  LiveController& m_controller;
  Job m_job;
  ExportFunction m_export;
  bool m_done = false;
};

}  // namespace throttlelab::ui
