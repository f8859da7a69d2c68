// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// A scripted run of the window (--run-for, --quit, --export-png/svg/pdf/csv; how the README
/// screenshots and CI figures are made): waits for what was asked to be there (an
/// --open-trace import, a --lesson step, a --branch-at branch, two seconds of a host view's
/// lines), runs --run-for simulated seconds as fast as possible, writes the exports once the
/// plots show the final state, and ends with an exit status. A file given at launch that did
/// not load fails the job before anything runs or is written (status 2).
///
/// Nothing else is written: the window gives a scripted run settings that live in memory only
/// (SettingsStore::InMemory), so no recent file and no window state reaches the user's
/// ~/.config/ThrottleLab.
#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QStringList>
#include <functional>
#include <optional>
#include <string>

#include "export_dialog.h"
#include "throttlelab/ui/gui_main.h"

namespace throttlelab::ui {

class BranchController;
class CompareView;
class HostView;
class LessonPanel;
class LiveController;

class ScriptedFigures : public QObject {
  Q_OBJECT

 public:
  /// Exit statuses, as the command line's: 1 an export could not be written or the
  /// simulation stopped, 2 bad input (a file that does not load, a path that cannot be an
  /// output, a branch that cannot be made).
  static constexpr int kExitWriteFailed = 1;
  static constexpr int kExitBadInput = 2;
  /// Samples a scripted figure of the host view waits for: two seconds of its lines (at most
  /// kHostWaitMs, then it shows what there is).
  static constexpr std::size_t kHostSamples = 20;
  static constexpr qint64 kHostWaitMs = 5000;

  /// Performs one export; returns an error message or an empty string.
  using ExportFunction = std::function<QString(const QString& path, const ExportChoice& choice)>;

  /// What the job needs of the window.
  struct Window {
    LiveController& live;
    BranchController& branch;
    CompareView& compare;  ///< a branch's run is compare.run(1)
    LessonPanel& lessons;
    HostView& host;
    std::function<bool()> showsHost;  ///< the host view is the one shown
    ExportFunction exportTo;
  };

  ScriptedFigures(const GuiLaunchOptions& options, Window window, QObject* parent = nullptr);

  /// A file given at launch did not load: `line` ("--session: ..."), as printed. The job then
  /// ends with kExitBadInput when it would start.
  void addFailure(const QString& line) { m_failures << line; }
  const QStringList& failures() const { return m_failures; }
  /// An import (--open-trace) began or ended (loaded, failed or cancelled): the job waits for
  /// it.
  void importStarted() { m_importing = true; }
  void importEnded();

  /// Starts the job, or goes on with it once what it waited for is there. Does nothing once
  /// the job runs or has finished.
  void start();
  /// The job's exit status once it finished (0, kExitWriteFailed, kExitBadInput).
  std::optional<int> exitCode() const { return m_exitCode; }

  /// What makes the exports of `options` impossible before anything runs: an export path
  /// that cannot be an output (a directory, a block device, a missing directory), one that
  /// names the scenario, session or trace being read, or two exports naming one file. As
  /// "--export-csv s.json: names the file read by --session s.json"; nullopt if none.
  static std::optional<std::string> outputProblem(const GuiLaunchOptions& options);

 Q_SIGNALS:
  /// The job ended with `exitCode`; `status` says how, for the status bar. With --quit the
  /// application then exits with that status.
  void finished(int exitCode, const QString& status);

 private:
  /// Runs --run-for (or the lesson step's end) on `run`, then exports.
  void runAndExport(LiveController& run);
  void exportAll(LiveController& run);
  void finish(int code, const QString& status);

  GuiLaunchOptions m_options;
  Window m_window;
  QStringList m_failures;
  bool m_importing = false;         // --open-trace or an import is being read
  bool m_waitingForImport = false;  // and the job waits for it
  bool m_branched = false;          // --branch-at: the branch is made, its run is the job's
  bool m_running = false;           // runAndExport has begun
  bool m_done = false;              // the exports began, or the run stopped on an error
  QElapsedTimer m_hostWait;         // since the job began to wait for host samples
  std::optional<int> m_exitCode;
};

}  // namespace throttlelab::ui
