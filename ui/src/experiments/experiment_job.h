// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Runs one seed experiment (engine::runExperiment) off the GUI thread and delivers the result
/// as a value on the GUI thread. Progress arrives after each case × seed; cancel() requests a
/// stop, so the engine throws RunCancelled after the current run and the job reports
/// cancelled(). Destroying a running job cancels it and waits for the thread.
#include <QObject>
#include <QString>
#include <memory>

#include "background_job.h"
#include "throttlelab/engine/experiments.h"

namespace throttlelab::ui {

class ExperimentJob final : public QObject {
  Q_OBJECT

 public:
  explicit ExperimentJob(QObject* parent = nullptr);
  ~ExperimentJob() override;

  /// Starts the run; false if one is already running.
  bool start(const engine::Experiment& experiment, int seeds);
  void cancel();
  bool isRunning() const { return m_job.isRunning(); }

 Q_SIGNALS:
  void progress(int done, int total);
  void finished(std::shared_ptr<const throttlelab::engine::ExperimentResult> result);
  void cancelled();
  void failed(const QString& message);

 private:
  BackgroundJob m_job;  ///< last: stops and joins before the rest is destroyed
};

}  // namespace throttlelab::ui
