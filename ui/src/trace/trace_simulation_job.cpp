// SPDX-License-Identifier: GPL-3.0-or-later
#include "trace_simulation_job.h"

#include <algorithm>

#include "throttlelab/engine/simulator.h"

namespace throttlelab::ui {

namespace {
/// Keeps the samples after the warm-up (shifted to start at 0) and feeds the tracepoint
/// records to TraceStats, which leaves out those before the warm-up ends by itself.
class AlignedSink final : public engine::RecordSink {
 public:
  AlignedSink(SimulatedTrace& out, traceio::TraceStats& stats) : m_out(out), m_stats(stats) {}

  void onSample(const engine::Sample& s) override {
    const double t = engine::toSeconds(s.time) - m_out.warmupS;
    if (t < -1e-9) return;
    engine::Sample shifted = s;
    shifted.time = engine::atSeconds(std::max(t, 0.0));
    m_out.samples.push_back(std::move(shifted));
  }
  void onTrace(const engine::TraceRecord& record) override { m_stats.add(record); }

 private:
  SimulatedTrace& m_out;
  traceio::TraceStats& m_stats;
};
}  // namespace

TraceSimulationJob::TraceSimulationJob(QObject* parent)
    : QObject(parent), m_job(this, [this](const QString& message) { Q_EMIT failed(message); }) {}

TraceSimulationJob::~TraceSimulationJob() = default;

bool TraceSimulationJob::start(const engine::Scenario& scenario, double warmupS, double spanS) {
  return m_job.start(
      [this, scenario, warmupS, spanS](std::stop_token stop,
                                       const BackgroundJob::Gui& gui) -> std::function<void()> {
        auto out = std::make_shared<SimulatedTrace>();
        out->scenario = scenario;
        out->warmupS = warmupS;
        const double totalS = warmupS + spanS;
        out->scenario.durationS = std::max(out->scenario.durationS, totalS);
        traceio::TraceStats stats(warmupS);
        AlignedSink sink(*out, stats);
        engine::Simulator sim(out->scenario);
        sim.setSink(&sink, engine::OutputOptions{.traces = true});
        // Slices of a second, so cancel and progress are prompt whatever the scenario's speed.
        for (double t = 0; t < totalS;) {
          if (stop.stop_requested()) return [this] { Q_EMIT cancelled(); };
          t = std::min(totalS, t + 1.0);
          sim.runUntil(engine::atSeconds(t));
          gui.report([this, t, totalS] { Q_EMIT progress(t, totalS); });
        }
        out->simulated = stats.result();
        return [this, result = std::shared_ptr<const SimulatedTrace>(std::move(out))] {
          Q_EMIT finished(result);
        };
      });
}

void TraceSimulationJob::cancel() {
  m_job.requestStop();
}

}  // namespace throttlelab::ui
