// SPDX-License-Identifier: GPL-3.0-or-later
#include "simulation_worker.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <fstream>
#include <string>
#include <string_view>

namespace throttlelab::ui {

namespace {
using namespace std::chrono_literals;
constexpr auto kSliceWall = 4ms;           // longest stretch between two command checks
constexpr auto kMaxLagWall = 250ms;        // behind by more than this: give up catching up
constexpr auto kSnapshotInterval = 500ms;  // ~2 Hz task table and throttle curve
constexpr auto kMeasureInterval = 500ms;
constexpr engine::SimDuration kMinChunk = engine::millis(1);
constexpr engine::SimDuration kMaxChunk = engine::seconds(10);

/// MemTotal from /proc/meminfo, in bytes; 0 if it cannot be read.
std::size_t memTotalBytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::size_t kib = 0;
  while (in >> key >> kib)
    if (key == "MemTotal:") return kib * 1024;
  return 0;
}

engine::SnapshotStoreOptions storeOptions(const SimulationWorker::Options& o) {
  engine::SnapshotStoreOptions s;
  if (o.snapshotBudgetBytes > 0)
    s.budgetBytes = o.snapshotBudgetBytes;
  else if (const std::size_t total = memTotalBytes(); total > 0)
    s.budgetBytes = engine::SnapshotStoreOptions::budgetFor(total);
  return s;
}
}  // namespace

SimulationWorker::SimulationWorker() : SimulationWorker(Options{}) {}

SimulationWorker::SimulationWorker(Options options)
    : m_options(options),
      m_exchange(options.sampleCapacity, options.taskSampleCapacity),
      m_store(storeOptions(options)),
      m_running(!options.startPaused),
      m_thread([this](std::stop_token stop) { run(std::move(stop)); }) {}

SimulationWorker::~SimulationWorker() {
  m_thread.request_stop();
  // jthread joins in its destructor; the stop token wakes the condition variable.
}

std::uint64_t SimulationWorker::post(WorkerCommand command) {
  std::uint64_t seq = 0;
  {
    std::lock_guard lock(m_queueMutex);
    seq = ++m_lastSeq;
    m_queue.emplace_back(seq, std::move(command));
  }
  m_queueChanged.notify_one();
  return seq;
}

void SimulationWorker::run(std::stop_token stop) {
  m_measureWall = Clock::now();
  while (!stop.stop_requested()) {
    applyCommands();
    if (!advancing()) {
      if (m_sim) {
        m_sink.closeBucket();
        measure(Clock::now());
        publish(m_snapshotDirty);
      }
      std::unique_lock lock(m_queueMutex);
      m_queueChanged.wait_for(lock, stop, 250ms, [this] { return !m_queue.empty(); });
      continue;
    }
    const auto sliceStart = Clock::now();
    const engine::SimTime target = sliceTarget(sliceStart);
    try {
      advance(target, sliceStart + kSliceWall);
    } catch (const std::exception& e) {
      m_running = false;
      m_stepTarget.reset();
      m_runUntil.reset();
      fail(m_status.appliedSeq, std::string("The simulation stopped: ") + e.what());
      continue;
    }
    const engine::SimTime now = m_sim->now();
    if (m_stepTarget && now >= *m_stepTarget) {
      m_stepTarget.reset();
      m_sink.closeBucket();
      m_snapshotDirty = true;
    }
    if (m_runUntil && now >= *m_runUntil) {
      m_runUntil.reset();
      m_running = false;
      m_sink.closeBucket();
      m_status.runUntilDoneSeq = m_runUntilSeq;
      m_snapshotDirty = true;
    }
    const auto wallNow = Clock::now();
    measure(wallNow);
    publish(m_snapshotDirty || wallNow - m_lastSnapshot >= kSnapshotInterval);

    // Paced and caught up: sleep until the next event is due on the wall clock (at most a
    // frame), waking early for commands.
    const bool paced = m_running && m_speed > 0 && !m_runUntil && !m_stepTarget;
    if (paced && m_sim->now() >= target) {
      const double simGapS = engine::toSeconds(m_sim->nextEventTime() - target);
      const auto wait =
          std::clamp(std::chrono::duration<double>(simGapS / m_speed),
                     std::chrono::duration<double>(0.5e-3), std::chrono::duration<double>(16e-3));
      std::unique_lock lock(m_queueMutex);
      m_queueChanged.wait_for(lock, stop, wait, [this] { return !m_queue.empty(); });
    }
  }
}

bool SimulationWorker::advancing() const {
  return m_sim && (m_running || m_stepTarget || m_runUntil);
}

engine::SimTime SimulationWorker::sliceTarget(Clock::time_point now) {
  const engine::SimTime simNow = m_sim->now();
  if (m_stepTarget) return *m_stepTarget;
  if (m_runUntil) return *m_runUntil;
  if (m_speed <= 0) return simNow + kMaxChunk * 100;  // bounded by the slice's wall deadline
  const auto wallElapsed = std::chrono::duration<double>(now - m_paceWall).count();
  auto target = m_paceSim + engine::seconds(m_speed * wallElapsed);
  if (target - simNow >
      engine::seconds(m_speed * std::chrono::duration<double>(kMaxLagWall).count())) {
    // The engine cannot keep up with this speed: stop owing time, run at what it achieves.
    m_paceSim = simNow;
    m_paceWall = now;
    target = simNow + engine::seconds(m_speed * 0.016);
  }
  return target;
}

void SimulationWorker::advance(engine::SimTime target, Clock::time_point deadline) {
  while (m_sim->now() < target && Clock::now() < deadline) {
    const engine::SimTime next = std::min(target, m_sim->now() + m_chunk);
    const auto t0 = Clock::now();
    m_sim->runUntil(next);
    if (m_options.keepSnapshots) m_store.offer(*m_sim);
    const auto took = Clock::now() - t0;
    // Keep one runUntil() call near a millisecond so commands are never long delayed.
    if (took < 300us && next != target)
      m_chunk = std::min(kMaxChunk, m_chunk * 2);
    else if (took > 2ms)
      m_chunk = std::max(kMinChunk, m_chunk / 2);
  }
}

void SimulationWorker::rebasePacing() {
  m_paceSim = m_sim ? m_sim->now() : engine::SimTime{};
  m_paceWall = Clock::now();
}

void SimulationWorker::measure(Clock::time_point now) {
  if (!m_sim) return;
  const auto elapsed = std::chrono::duration<double>(now - m_measureWall).count();
  const double simS = engine::toSeconds(m_sim->now());
  m_status.simTimeS = simS;
  m_status.running = m_running || m_stepTarget.has_value() || m_runUntil.has_value();
  m_status.targetSpeed = m_speed;
  m_status.asFastAsPossible = m_speed <= 0;
  if (elapsed < std::chrono::duration<double>(kMeasureInterval).count()) return;
  const std::int64_t events = m_sim->eventsProcessed();
  m_status.achievedSpeed = m_status.running ? (simS - m_measureSimS) / elapsed : 0;
  m_status.eventsPerS =
      m_status.running ? static_cast<double>(events - m_measureEvents) / elapsed : 0;
  m_measureWall = now;
  m_measureSimS = simS;
  m_measureEvents = events;

  // Fold samples when they arrive faster than the GUI can use them; three samples come out
  // of each bucket, so folding pays only from four up.
  int factor = 1;
  const double interval = m_sim->scenario().sampleIntervalS;
  if (m_decimate && interval > 0 && m_status.achievedSpeed > 0) {
    const double perWallS = m_status.achievedSpeed / interval;
    const int k = static_cast<int>(std::ceil(3.0 * perWallS / m_options.samplesPerWallSecond));
    factor = k >= 4 ? k : 1;
  }
  m_sink.setDecimation(factor);
  m_status.decimation = factor;
}

void SimulationWorker::publish(bool withSnapshot) {
  if (!m_sim) return;
  // The snapshot goes first: once the GUI sees a status (e.g. "run finished"), the snapshot
  // of that moment is already there.
  if (withSnapshot) {
    auto snapshot = std::make_shared<WorkerSnapshot>();
    snapshot->generation = m_status.generation;
    snapshot->simTimeS = engine::toSeconds(m_sim->now());
    snapshot->appliedSeq = m_status.appliedSeq;
    snapshot->tasks = m_sim->taskStats();
    snapshot->curve = m_sim->throttleCurve(0, 200);
    snapshot->scenario = m_sim->scenario();
    snapshot->events = m_sim->events();
    snapshot->explains = m_sink.takeExplains();
    if (m_options.publishSummary) snapshot->summary = m_sim->summary();
    m_exchange.publishSnapshot(std::move(snapshot));
    m_lastSnapshot = Clock::now();
    m_snapshotDirty = false;
  }
  m_sink.flushTo(m_exchange, m_status);
}

void SimulationWorker::applyCommands() {
  std::deque<std::pair<std::uint64_t, WorkerCommand>> pending;
  {
    std::lock_guard lock(m_queueMutex);
    pending.swap(m_queue);
  }
  if (pending.empty()) return;
  // Of several queued reconfigurations (a dragged slider) only the newest matters.
  std::uint64_t lastReconfigure = 0;
  for (const auto& [seq, c] : pending)
    if (std::holds_alternative<command::Reconfigure>(c)) lastReconfigure = seq;
  for (auto& [seq, c] : pending) {
    const bool superseded =
        std::holds_alternative<command::Reconfigure>(c) && seq != lastReconfigure;
    if (!superseded) std::visit([this, s = seq](auto& cmd) { apply(s, cmd); }, c);
    m_status.appliedSeq = seq;
  }
  if (m_sim) {
    measure(Clock::now());
    publish(true);
  }
}

void SimulationWorker::fail(std::uint64_t seq, const std::string& message) {
  m_status.errorSeq = seq;
  m_status.error = message;
  m_snapshotDirty = true;
}

bool SimulationWorker::engineAccepts(std::uint64_t seq, const std::function<void()>& engineCall) {
  try {
    engineCall();
    return true;
  } catch (const engine::ScenarioError& e) {
    fail(seq, e.key().empty() ? std::string(e.what()) : e.key() + ": " + e.what());
  } catch (const std::exception& e) {
    fail(seq, e.what());
  }
  return false;
}

void SimulationWorker::apply(std::uint64_t, command::SetRunning& c) {
  m_running = c.running;
  m_stepTarget.reset();
  if (!c.running) m_runUntil.reset();
  rebasePacing();
}

void SimulationWorker::apply(std::uint64_t, command::Step& c) {
  if (!m_sim) return;
  m_running = false;
  m_runUntil.reset();
  m_stepTarget = (m_stepTarget ? *m_stepTarget : m_sim->now()) + c.by;
}

void SimulationWorker::apply(std::uint64_t, command::SetSpeed& c) {
  m_speed = c.factor;
  rebasePacing();
}

void SimulationWorker::apply(std::uint64_t seq, command::Reset& c) {
  std::unique_ptr<engine::Simulator> sim;
  if (!engineAccepts(seq, [&] { sim = std::make_unique<engine::Simulator>(c.scenario); })) return;
  begin(std::move(sim));
  // The run starts from the scenario: a rewind before the oldest snapshot makes it again, so
  // the store may drop the snapshot of the start (a branch's run, adopted, has no origin).
  if (m_options.keepSnapshots) m_store.setOrigin(std::move(c.scenario));
}

void SimulationWorker::apply(std::uint64_t, command::Adopt& c) {
  begin(std::make_unique<engine::Simulator>(c.from));
}

void SimulationWorker::begin(std::unique_ptr<engine::Simulator> sim) {
  if (m_sim) m_sim->setSink(nullptr);
  m_sink.clear();
  m_sink.setExtraTasks({});
  m_sim = std::move(sim);
  m_store.clear();
  if (m_options.keepSnapshots) m_store.offer(*m_sim);
  ++m_status.generation;
  m_exchange.restart(m_status.generation);
  m_sim->setSink(&m_sink, m_sink.outputOptions());
  m_stepTarget.reset();
  m_runUntil.reset();
  m_chunk = engine::millis(10);
  m_measureSimS = engine::toSeconds(m_sim->now());
  m_measureEvents = m_sim->eventsProcessed();
  m_measureWall = Clock::now();
  m_status.error.clear();
  rebasePacing();
  m_snapshotDirty = true;
}

void SimulationWorker::apply(std::uint64_t, command::Branch& c) {
  command::BranchResult r;
  try {
    const engine::SimTime at = engine::atSeconds(c.atS);
    if (!m_sim || m_store.empty())
      r.error = "there is no run to branch from";
    else if (at > m_sim->now())
      r.error = "the run has not reached that moment yet";
    else if (at < m_store.earliest())
      r.error = "that moment is no longer kept";
    if (r.error.empty()) {
      // Everything the run has put out so far goes to the exchange now (a partly filled
      // bucket too), so the GUI has the history up to this moment with one drain, no wait.
      m_sink.closeBucket();
      publish(false);
      r.originalS = engine::toSeconds(m_sim->now());
      r.originalScenario = m_sim->scenario();
      engine::Simulator branch = m_store.rewind(at);
      r.base = branch.scenario();
      r.changed = engine::parseScenario(engine::scenarioToJson(r.base), "branch", c.changes);
      if (r.changed.seed != branch.scenario().seed)
        throw engine::ScenarioError("seed",
                                    "seed: a branch goes on with the random state of "
                                    "the run it branches from; the seed cannot change");
      if (!c.changes.empty()) branch.reconfigure(r.changed);
      // Made only to be handed on: its state moves into the snapshot, uncopied.
      r.branch = std::move(branch).snapshot();
    }
  } catch (const engine::ScenarioError& e) {
    r.error = e.key().empty() || std::string_view(e.what()).starts_with(e.key())
                  ? std::string(e.what())
                  : e.key() + ": " + e.what();
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  const bool made = r.error.empty();
  if (c.result) c.result->set_value(std::move(r));
  // The original second: the GUI starts the branch while this copy is made. (Without a
  // branch, nobody waits for it.)
  if (!made || !c.original) return;
  try {
    c.original->set_value(m_sim->snapshot());
  } catch (...) {
    c.original->set_exception(std::current_exception());
  }
}

void SimulationWorker::apply(std::uint64_t seq, command::Reconfigure& c) {
  if (!m_sim) return;
  if (!engineAccepts(seq, [&] {
        m_sim->reconfigure(c.scenario);
        if (m_options.keepSnapshots) m_store.recordChange(m_sim->now(), c.scenario);
      }))
    return;
  m_snapshotDirty = true;
}

void SimulationWorker::apply(std::uint64_t, command::SampleTasks& c) {
  m_sink.setExtraTasks(std::move(c.extra));
  if (m_sim) m_sim->setSink(&m_sink, m_sink.outputOptions());
}

void SimulationWorker::apply(std::uint64_t seq, command::RunUntil& c) {
  if (!m_sim) return;
  m_runUntil = engine::atSeconds(c.simS);
  m_runUntilSeq = seq;
  m_stepTarget.reset();
  if (m_sim->now() >= *m_runUntil) {
    m_runUntil.reset();
    m_running = false;
    m_status.runUntilDoneSeq = seq;
  }
}

void SimulationWorker::apply(std::uint64_t, command::SetDecimation& c) {
  m_decimate = c.enabled;
  if (!m_decimate) m_sink.setDecimation(1);
}

}  // namespace throttlelab::ui
