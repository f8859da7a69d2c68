// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Runs the engine::Simulator on its own std::jthread, paced against the wall clock:
/// target simulated time = start + speed × wall time elapsed. Commands (a std::variant) queue
/// under a mutex and apply between runUntil() slices of a few milliseconds, so a click takes
/// effect within a frame. The GUI never touches the Simulator; it drains values.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <thread>

#include "live_batch.h"
#include "live_sink.h"
#include "sample_exchange.h"
#include "throttlelab/engine/snapshot_store.h"
#include "worker_command.h"

namespace throttlelab::ui {

class SimulationWorker {
 public:
  struct Options {
    std::size_t sampleCapacity = 8192;  ///< pending samples before the oldest are dropped
    std::size_t taskSampleCapacity = 1 << 16;
    /// Samples per wall second the GUI is fed before decimation folds them (≈10 per frame).
    double samplesPerWallSecond = 600;
    bool startPaused = false;
    /// Put Simulator::summary() into every snapshot (~2 Hz; the compare view's delta table).
    bool publishSummary = false;
    /// Keep snapshots of the run as it goes (engine::SnapshotStore) so that a Branch command
    /// can go back to any moment of it.
    bool keepSnapshots = true;
    /// The bytes those snapshots may take (SnapshotStoreOptions::budgetBytes); 0: the
    /// default for this machine (SnapshotStoreOptions::budgetFor() its MemTotal).
    std::size_t snapshotBudgetBytes = 0;
  };

  SimulationWorker();
  explicit SimulationWorker(Options options);
  ~SimulationWorker();
  SimulationWorker(const SimulationWorker&) = delete;
  SimulationWorker& operator=(const SimulationWorker&) = delete;

  /// Queues a command; returns its sequence number (WorkerStatus::appliedSeq reaches it).
  std::uint64_t post(WorkerCommand command);
  /// GUI side: swaps out everything produced since the last drain.
  void drainInto(LiveBatch& batch) { m_exchange.take(batch); }
  WorkerStatus status() const { return m_exchange.status(); }
  std::shared_ptr<const WorkerSnapshot> latestSnapshot() const {
    return m_exchange.latestSnapshot();
  }

 private:
  using Clock = std::chrono::steady_clock;

  void run(std::stop_token stop);
  void applyCommands();
  void apply(std::uint64_t seq, command::SetRunning& c);
  void apply(std::uint64_t seq, command::Step& c);
  void apply(std::uint64_t seq, command::SetSpeed& c);
  void apply(std::uint64_t seq, command::Reset& c);
  void apply(std::uint64_t seq, command::Reconfigure& c);
  void apply(std::uint64_t seq, command::SampleTasks& c);
  void apply(std::uint64_t seq, command::RunUntil& c);
  void apply(std::uint64_t seq, command::SetDecimation& c);
  void apply(std::uint64_t seq, command::Branch& c);
  void apply(std::uint64_t seq, command::Adopt& c);
  /// Makes `sim` the run (a Reset or an Adopt): new generation, fresh sink and pacing.
  void begin(std::unique_ptr<engine::Simulator> sim);
  void fail(std::uint64_t seq, const std::string& message);
  /// Runs `engineCall`; if it throws (a scenario the engine refuses, or anything else), fails
  /// command `seq` with the message and returns false.
  bool engineAccepts(std::uint64_t seq, const std::function<void()>& engineCall);
  bool advancing() const;
  engine::SimTime sliceTarget(Clock::time_point now);
  void advance(engine::SimTime target, Clock::time_point deadline);
  void rebasePacing();
  void measure(Clock::time_point now);
  void publish(bool withSnapshot);

  const Options m_options;
  SampleExchange m_exchange;

  // Command queue: the only state both threads touch (besides the exchange).
  std::mutex m_queueMutex;
  std::condition_variable_any m_queueChanged;
  std::deque<std::pair<std::uint64_t, WorkerCommand>> m_queue;
  std::uint64_t m_lastSeq = 0;

  // Worker-thread state below; nothing else reads or writes it.
  std::unique_ptr<engine::Simulator> m_sim;
  engine::SnapshotStore m_store;
  LiveSink m_sink;
  WorkerStatus m_status;
  bool m_running = false;
  bool m_decimate = true;
  double m_speed = 1;  ///< <= 0: as fast as possible
  std::optional<engine::SimTime> m_stepTarget;
  std::optional<engine::SimTime> m_runUntil;
  std::uint64_t m_runUntilSeq = 0;
  engine::SimTime m_paceSim{};
  Clock::time_point m_paceWall{};
  engine::SimDuration m_chunk = engine::millis(10);  ///< simulated time per runUntil() call
  Clock::time_point m_measureWall{};
  double m_measureSimS = 0;
  std::int64_t m_measureEvents = 0;
  Clock::time_point m_lastSnapshot{};
  bool m_snapshotDirty = false;

  std::jthread m_thread;  ///< last: joins before the state above is destroyed
};

}  // namespace throttlelab::ui
