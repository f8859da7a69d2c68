// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The report panel of the Experiments menu: the experiment's title and the mail it reproduces
/// (docs/model.md, The seed mails), a progress bar with Cancel while the ExperimentJob runs,
/// then the table (case | metric | mail | simulated (min–max) | note), the verdicts with
/// holds/does-not-hold icons and their detail, and a button that saves the report as Markdown
/// or JSON (QSaveFile).
#include <QWidget>
#include <memory>
#include <optional>

#include "throttlelab/engine/experiments.h"

class QLabel;
class QListWidget;
class QProgressBar;
class QPushButton;
class QTableView;

namespace throttlelab::ui {

class ExperimentJob;
class ExperimentReportModel;

class ExperimentPanel final : public QWidget {
  Q_OBJECT

 public:
  explicit ExperimentPanel(QWidget* parent = nullptr);
  ~ExperimentPanel() override;

  /// Clears the report and starts the run (cancelling one that is running).
  void run(const engine::Experiment& experiment, int seeds);
  void cancel();
  bool isRunning() const;

  /// Writes the report: JSON if the path ends in .json, else Markdown. Error text, or empty.
  QString saveReport(const QString& path) const;

  ExperimentJob& job() const { return *m_job; }
  ExperimentReportModel& model() const { return *m_model; }
  QListWidget& verdictList() const { return *m_verdicts; }
  QString statusText() const;
  QPushButton* cancelButton() const { return m_cancelButton; }
  QPushButton* saveButton() const { return m_saveButton; }

 Q_SIGNALS:
  /// Something went wrong (the run failed, a save failed): for the window's notifier.
  void problem(const QString& title, const QString& text);
  /// A one-line status for the status bar.
  void statusMessage(const QString& text);
  /// The user asked to save; the window picks the path.
  void saveRequested();

 private:
  void showResult(std::shared_ptr<const engine::ExperimentResult> result);
  void setBusy(bool busy);

  ExperimentJob* m_job;
  ExperimentReportModel* m_model;
  std::optional<engine::Experiment> m_experiment;
  QLabel* m_title;
  QLabel* m_status;
  QProgressBar* m_progress;
  QPushButton* m_cancelButton;
  QPushButton* m_saveButton;
  QTableView* m_table;
  QListWidget* m_verdicts;
};

}  // namespace throttlelab::ui
