// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The "Real kernel" view: a kernel trace laid over its simulation. Imports run off
/// the GUI thread with a progress bar and Cancel; the trace's Samples fill time plots on one
/// shared time axis with one hover cursor (measured: dots), its writers fill a task table, and
/// "Simulate this trace" derives a scenario (traceio::deriveScenario), runs it for the trace's
/// span off the GUI thread, overlays it (simulated: lines, t = 0 aligned) and fills the
/// comparison table (traceio::compare) with deriveScenario's notes beside it.
#include <QWidget>
#include <memory>
#include <optional>
#include <vector>

#include "sample_history.h"
#include "trace_collector.h"
#include "trace_simulation_job.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSplitter;
class QTableView;

namespace throttlelab::ui {

class FlowLayout;
class TraceComparisonModel;
class TraceImportJob;
class TracePlot;
class TraceTaskModel;

class TraceView final : public QWidget {
  Q_OBJECT

 public:
  explicit TraceView(QWidget* parent = nullptr);
  ~TraceView() override;

  /// Starts importing a trace file (a running import is cancelled first). The current trace
  /// stays until the new one has been read completely. With `cgroupIno`, only that memory
  /// cgroup's records are drawn (traceio::ImportOptions::cgroupIno); the "Cgroup" choice
  /// re-reads the file so. A device (/dev/zero, /dev/urandom, a terminal) is no trace and may
  /// never end: it is refused at once with importFailed(), and false is returned (a FIFO or a
  /// pipe may be one).
  bool importFile(const QString& path, std::optional<std::uint64_t> cgroupIno = std::nullopt);
  /// The cgroup_ino whose records the trace shows, or nullopt for all.
  std::optional<std::uint64_t> cgroupFilter() const;
  void cancelImport();
  bool isImporting() const;
  /// Shows a trace read elsewhere (the live recorder's).
  void showTrace(std::shared_ptr<const ImportedTrace> trace);
  const ImportedTrace* trace() const { return m_trace.get(); }

  /// Derives the scenario and starts its simulation; false (nothing happens) without a trace.
  bool simulate();
  void cancelSimulation();
  bool isSimulating() const;
  const SimulatedTrace* simulation() const { return m_simulation.get(); }
  /// The scenario simulate() would run now (with host facts if "taken on this machine").
  std::optional<engine::Scenario> derivedScenario(std::vector<std::string>* notes = nullptr) const;
  /// Where host facts are read from (tests point this at a fixture).
  void setProcRoot(const QString& root) { m_procRoot = root; }
  void setTakenHere(bool here);
  bool takenHere() const;

  void setCursorTime(std::optional<double> timeS);
  const std::vector<TracePlot*>& plots() const { return m_plots; }
  TraceTaskModel& taskModel() const { return *m_tasks; }
  TraceComparisonModel& comparison() const { return *m_comparison; }
  QString summaryText() const;
  QString notesText() const;
  QPushButton* simulateButton() const { return m_simulateButton; }
  QProgressBar* progressBar() const { return m_progress; }

 Q_SIGNALS:
  void importFinished();
  void importCancelled();
  /// The file could not be imported; `message` says why (ImportResult::error).
  void importFailed(const QString& message);
  void simulationFinished();
  void simulationFailed(const QString& message);
  /// "Open in the dashboard": the derived scenario, to run live.
  void openScenarioRequested(const throttlelab::engine::Scenario& scenario);
  void importRequested();
  void statusMessage(const QString& text);

 protected:
  void changeEvent(QEvent* event) override;

 private:
  FlowLayout* buildBar();
  QSplitter* buildPlots();
  QSplitter* buildSide();
  void connectControls();
  void connectImportJob();
  void onImported(std::shared_ptr<const ImportedTrace> trace);
  void onSimulated(std::shared_ptr<const SimulatedTrace> result);
  void setBusy(const QString& what);
  void clearBusy();
  void clearSimulation();
  void fitTime();
  void replotAll();
  void applyTheme();
  void onUserRange(TracePlot* source, double lower, double upper);
  void updateButtons();
  void updateCgroupChoice();

  TraceImportJob* m_importJob;
  TraceSimulationJob* m_simulationJob;
  std::shared_ptr<const ImportedTrace> m_trace;
  std::shared_ptr<const SimulatedTrace> m_simulation;
  SampleHistory m_measuredHistory;
  SampleHistory m_simulatedHistory;
  std::vector<TracePlot*> m_plots;
  TraceTaskModel* m_tasks;
  TraceComparisonModel* m_comparison;
  QLabel* m_sourceLabel;
  QLabel* m_summary;
  QLabel* m_taskTitle;
  QPlainTextEdit* m_notes;
  QProgressBar* m_progress;
  QPushButton* m_cancelButton;
  QPushButton* m_importButton;
  QPushButton* m_simulateButton;
  QPushButton* m_openButton;
  QCheckBox* m_takenHere;
  QComboBox* m_cgroupChoice;
  QString m_procRoot = QStringLiteral("/proc");
  bool m_syncing = false;
};

}  // namespace throttlelab::ui
