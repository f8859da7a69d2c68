// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// "Simulate this trace": runs a scenario derived from a trace for the trace's span, off the
/// GUI thread, and delivers its Samples (time-aligned with the trace: t = 0 where the trace
/// starts) and the TraceStats of its tracepoint records as one value. The simulated side goes
/// through the same TraceStats as the measured one, so the comparison is like for like.
#include <QObject>
#include <QString>
#include <memory>
#include <vector>

#include "background_job.h"
#include "throttlelab/engine/scenario.h"
#include "throttlelab/traceio/trace_stats.h"

namespace throttlelab::ui {

struct SimulatedTrace {
  engine::Scenario scenario;
  double warmupS = 0;                   ///< simulated before t = 0, left out of everything
  std::vector<engine::Sample> samples;  ///< t = 0 at the end of the warm-up
  traceio::TraceStats::Result simulated;
};

class TraceSimulationJob final : public QObject {
  Q_OBJECT

 public:
  explicit TraceSimulationJob(QObject* parent = nullptr);
  ~TraceSimulationJob() override;

  /// Runs `scenario` for warmupS + spanS simulated seconds; false if a run is in progress.
  bool start(const engine::Scenario& scenario, double warmupS, double spanS);
  void cancel();
  bool isRunning() const { return m_job.isRunning(); }

 Q_SIGNALS:
  /// Simulated seconds done and to do.
  void progress(double doneS, double totalS);
  void finished(std::shared_ptr<const throttlelab::ui::SimulatedTrace> result);
  void cancelled();
  void failed(const QString& message);

 private:
  BackgroundJob m_job;  ///< last: stops and joins before the rest is destroyed
};

}  // namespace throttlelab::ui
