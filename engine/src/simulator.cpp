// SPDX-License-Identifier: GPL-3.0-or-later
// TEMPORARY placeholder so that other parts compile while the engine is written.
#include "throttlelab/engine/simulator.h"

namespace throttlelab::engine {

struct Simulator::Impl {
  Scenario scenario;
  RecordSink* sink = nullptr;
  OutputOptions options;
  SimTime now{};
  SimTime nextSample{};
  std::vector<TaskInfo> tasks;
  std::int64_t events = 0;
};

Simulator::Simulator(Scenario scenario) : m_impl(std::make_unique<Impl>()) {
  validateScenario(scenario);
  m_impl->scenario = std::move(scenario);
  int idx = 0;
  for (std::size_t g = 0; g < m_impl->scenario.tasks.size(); ++g) {
    const auto& spec = m_impl->scenario.tasks[g];
    for (int i = 0; i < spec.count; ++i) {
      m_impl->tasks.push_back(TaskInfo{.index = idx, .pid = 1000 + idx, .name = spec.name,
                                       .group = static_cast<int>(g), .sched = spec.sched,
                                       .rtPriority = spec.rtPriority, .nice = spec.nice,
                                       .device = 0});
      ++idx;
    }
  }
}
Simulator::~Simulator() = default;
Simulator::Simulator(Simulator&&) noexcept = default;
Simulator& Simulator::operator=(Simulator&&) noexcept = default;
void Simulator::setSink(RecordSink* sink, OutputOptions options) {
  m_impl->sink = sink;
  m_impl->options = options;
  if (sink)
    for (const auto& t : m_impl->tasks) sink->onTaskCreated(t);
}
void Simulator::runUntil(SimTime t) {
  const auto step = seconds(m_impl->scenario.sampleIntervalS);
  while (m_impl->nextSample <= t) {
    m_impl->now = m_impl->nextSample;
    Sample s;
    s.time = m_impl->now;
    s.devices.resize(m_impl->scenario.devices.size());
    if (m_impl->sink) m_impl->sink->onSample(s);
    m_impl->nextSample += step;
    ++m_impl->events;
  }
  m_impl->now = t;
}
void Simulator::run() { runUntil(atSeconds(m_impl->scenario.durationS)); }
SimTime Simulator::now() const { return m_impl->now; }
SimTime Simulator::nextEventTime() const { return m_impl->nextSample; }
const Scenario& Simulator::scenario() const { return m_impl->scenario; }
void Simulator::reconfigure(const Scenario& changed) {
  validateScenario(changed);
  m_impl->scenario = changed;
}
const std::vector<TaskInfo>& Simulator::tasks() const { return m_impl->tasks; }
std::vector<TaskStats> Simulator::taskStats() const {
  std::vector<TaskStats> out;
  for (const auto& t : m_impl->tasks) out.push_back(TaskStats{.info = t});
  return out;
}
Summary Simulator::summary() const {
  Summary s;
  s.simulatedS = toSeconds(m_impl->now);
  s.tasks = taskStats();
  return s;
}
ThrottleCurve Simulator::throttleCurve(int, int) const { return {}; }
std::int64_t Simulator::eventsProcessed() const { return m_impl->events; }
std::vector<std::string> Simulator::policyNames() { return {"ioless"}; }

}  // namespace throttlelab::engine
