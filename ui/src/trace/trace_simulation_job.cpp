// SPDX-License-Identifier: GPL-3.0-or-later
#include "trace_simulation_job.h"

#include <QMetaObject>
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

TraceSimulationJob::TraceSimulationJob(QObject* parent) : QObject(parent) {}

TraceSimulationJob::~TraceSimulationJob() {
  m_cancel = true;
  if (m_thread.joinable()) m_thread.join();
}

bool TraceSimulationJob::start(const engine::Scenario& scenario, double warmupS, double spanS) {
  if (m_running) return false;
  if (m_thread.joinable()) m_thread.join();
  m_cancel = false;
  m_running = true;
  auto post = [this](auto&& fn) {
    QMetaObject::invokeMethod(this, std::forward<decltype(fn)>(fn), Qt::QueuedConnection);
  };
  m_thread = std::jthread([this, scenario, warmupS, spanS, post] {
    try {
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
        if (m_cancel) {
          post([this] {
            m_running = false;
            Q_EMIT cancelled();
          });
          return;
        }
        t = std::min(totalS, t + 1.0);
        sim.runUntil(engine::atSeconds(t));
        post([this, t, totalS] {
          if (m_running) Q_EMIT progress(t, totalS);
        });
      }
      out->simulated = stats.result();
      post([this, result = std::shared_ptr<const SimulatedTrace>(std::move(out))] {
        m_running = false;
        Q_EMIT finished(result);
      });
    } catch (const std::exception& e) {
      const QString message = QString::fromUtf8(e.what());
      post([this, message] {
        m_running = false;
        Q_EMIT failed(message);
      });
    }
  });
  return true;
}

void TraceSimulationJob::cancel() {
  m_cancel = true;
}

}  // namespace throttlelab::ui
