// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Values that cross from the simulation worker to the GUI thread.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sample_history.h"
#include "throttlelab/engine/records.h"
#include "throttlelab/engine/simulator.h"

namespace throttlelab::ui {

/// What the worker reports about itself, copied under the exchange lock.
struct WorkerStatus {
  double simTimeS = 0;
  double achievedSpeed = 0;  ///< simulated seconds per wall second, over the last ~second
  double eventsPerS = 0;     ///< engine events per wall second
  double targetSpeed = 1;    ///< the requested speed factor (ignored when asFastAsPossible)
  bool asFastAsPossible = false;
  bool running = false;
  int decimation = 1;                 ///< samples folded into one min/max/last bucket
  int generation = 0;                 ///< counts resets; data of older generations is gone
  std::uint64_t appliedSeq = 0;       ///< sequence number of the last command applied
  std::uint64_t runUntilDoneSeq = 0;  ///< sequence number of the last RunUntil that finished
  std::uint64_t errorSeq = 0;         ///< sequence number of the command that failed last
  std::string error;                  ///< what went wrong with it
  std::int64_t droppedSamples = 0;    ///< lost because the GUI did not drain for too long
  bool operator==(const WorkerStatus&) const = default;
};

/// Engine state too costly to send per sample; published at ~2 Hz and after every command
/// that changes the configuration.
struct WorkerSnapshot {
  int generation = 0;
  double simTimeS = 0;
  std::uint64_t appliedSeq = 0;
  std::vector<engine::TaskStats> tasks;
  engine::ThrottleCurve curve;
  engine::Scenario scenario;  ///< as the engine has it, after any reconfigure
  /// The whole run so far, if the worker was asked to publish it (Options::publishSummary).
  std::optional<engine::Summary> summary;
  /// The run's timeline so far (Simulator::events()).
  std::vector<engine::RunEvent> events;
  /// The drawn and selected tasks' last throttle calls, at most one per task per sample
  /// interval, since the previous snapshot (LiveSink::kExplainCap at most).
  std::vector<engine::ThrottleExplain> explains;
};

/// What one GUI frame drains. Kept by the GUI and swapped with the worker's buffers, so a
/// drain moves no samples and allocates nothing.
struct LiveBatch {
  SampleBuffer samples;
  TaskSampleBuffer taskSamples;
  std::vector<engine::TaskInfo> newTasks;
  std::shared_ptr<const WorkerSnapshot> snapshot;  ///< null unless a new one arrived
  WorkerStatus status;
  int generation = 0;

  void clear() {
    samples.clear();
    taskSamples.clear();
    newTasks.clear();
    snapshot.reset();
  }
};

}  // namespace throttlelab::ui
