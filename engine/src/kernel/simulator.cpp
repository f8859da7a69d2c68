// SPDX-License-Identifier: GPL-3.0-or-later
// The public face of the engine: a thin owner of one Kernel.
#include "throttlelab/engine/simulator.h"

#include <utility>

#include "kernel.h"
#include "policy.h"

namespace throttlelab::engine {

CheckedScenario::CheckedScenario(Scenario scenario) : m_scenario(std::move(scenario)) {
  validateScenario(m_scenario);
}

struct Simulator::Impl {
  explicit Impl(Scenario s) : kernel(std::move(s)) {}
  explicit Impl(const Kernel& k) : kernel(k) {}
  Kernel kernel;
};

/// A snapshot holds a copy of the Kernel (its copy is deep: value_ptr.h).
struct SimulatorSnapshot::State {
  explicit State(const Kernel& k) : kernel(k), bytes(ownBytes()) {}
  explicit State(Kernel&& k) : kernel(std::move(k)), bytes(ownBytes()) {}
  /// Itself with make_shared's control block (two words) in one block, and what it points to.
  std::size_t ownBytes() const { return heap::chunk(sizeof(State) + 16) + kernel.stateBytes(); }
  Kernel kernel;
  std::size_t bytes;
};

SimTime SimulatorSnapshot::time() const {
  return m_state->kernel.now();
}
const Scenario& SimulatorSnapshot::scenario() const {
  return m_state->kernel.scenario();
}
std::size_t SimulatorSnapshot::bytes() const {
  return m_state->bytes;
}

Simulator::Simulator(const SimulatorSnapshot& snapshot)
    : m_impl(std::make_unique<Impl>(snapshot.m_state->kernel)) {}

SimulatorSnapshot Simulator::snapshot() const& {
  return SimulatorSnapshot(std::make_shared<const SimulatorSnapshot::State>(m_impl->kernel));
}

SimulatorSnapshot Simulator::snapshot() && {
  SimulatorSnapshot out(
      std::make_shared<const SimulatorSnapshot::State>(std::move(m_impl->kernel)));
  m_impl.reset();
  return out;
}

void Simulator::restore(const SimulatorSnapshot& snapshot) {
  RecordSink* const sink = m_impl->kernel.sink();
  const OutputOptions options = m_impl->kernel.outputOptions();
  m_impl = std::make_unique<Impl>(snapshot.m_state->kernel);
  if (sink) m_impl->kernel.setSink(sink, options);
}

Simulator::Simulator(Scenario scenario) {
  validateScenario(scenario);
  m_impl = std::make_unique<Impl>(std::move(scenario));
}
Simulator::~Simulator() = default;
Simulator::Simulator(Simulator&&) noexcept = default;
Simulator& Simulator::operator=(Simulator&&) noexcept = default;

void Simulator::setSink(RecordSink* sink, OutputOptions options) {
  m_impl->kernel.setSink(sink, options);
}
void Simulator::runUntil(SimTime t) {
  m_impl->kernel.runUntil(t);
}
void Simulator::run() {
  runUntil(atSeconds(m_impl->kernel.scenario().durationS));
}
SimTime Simulator::now() const {
  return m_impl->kernel.now();
}
SimTime Simulator::nextEventTime() const {
  return m_impl->kernel.nextEventTime();
}
const Scenario& Simulator::scenario() const {
  return m_impl->kernel.scenario();
}
void Simulator::reconfigure(const Scenario& changed) {
  reconfigure(CheckedScenario(changed));
}
void Simulator::reconfigure(const CheckedScenario& changed) {
  m_impl->kernel.reconfigure(changed.scenario());
}
const std::vector<TaskInfo>& Simulator::tasks() const {
  return m_impl->kernel.taskInfos();
}
std::vector<TaskStats> Simulator::taskStats() const {
  return m_impl->kernel.taskStats();
}
Summary Simulator::summary() const {
  return m_impl->kernel.summary();
}
ThrottleCurve Simulator::throttleCurve(int device, int points) const {
  return m_impl->kernel.throttleCurve(device, points);
}
const std::vector<RunEvent>& Simulator::events() const {
  return m_impl->kernel.runEvents();
}
ThrottleExplain Simulator::lastExplain(int index) const {
  return m_impl->kernel.lastExplain(index);
}
std::int64_t Simulator::eventsProcessed() const {
  return m_impl->kernel.events();
}
bool Simulator::allTasksExited() const {
  return m_impl->kernel.allTasksExited();
}
bool Simulator::policyHasCgroups(std::string_view policy) {
  const auto p = makePolicy(policy);
  return p != nullptr && p->era().memcg;
}
std::vector<PolicyDescription> Simulator::policyDescriptions() {
  std::vector<PolicyDescription> out;
  for (const auto& i : engine::policyInfos())
    out.push_back({i.name, i.description, i.kernels, i.details});
  return out;
}

std::vector<std::string> Simulator::policyNames() {
  return engine::policyNames();
}

}  // namespace throttlelab::engine
