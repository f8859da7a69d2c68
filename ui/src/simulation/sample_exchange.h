// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The hand-over point between the simulation worker and the GUI: mutex-guarded ring buffers
/// that the worker appends to once per slice and the GUI swaps out in O(1) once per frame.
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "live_batch.h"

namespace throttlelab::ui {

class SampleExchange {
 public:
  SampleExchange(std::size_t sampleCapacity, std::size_t taskSampleCapacity);

  /// Worker side: appends what one slice produced and clears the inputs (keeping their
  /// capacity). If the GUI has not drained for so long that a buffer is full, the oldest
  /// entries are overwritten and counted in WorkerStatus::droppedSamples.
  void publish(std::vector<engine::Sample>& samples, std::vector<engine::TaskSample>& taskSamples,
               std::vector<engine::TaskInfo>& tasks, const WorkerStatus& status);
  void publishSnapshot(std::shared_ptr<const WorkerSnapshot> snapshot);
  /// Worker side: drops everything pending; later data belongs to `generation`.
  void restart(int generation);

  /// GUI side: swaps the pending data into `batch` (whose old contents are cleared first).
  void take(LiveBatch& batch);
  WorkerStatus status() const;
  std::shared_ptr<const WorkerSnapshot> latestSnapshot() const;

 private:
  const std::size_t m_sampleCapacity;
  const std::size_t m_taskSampleCapacity;
  mutable std::mutex m_mutex;
  SampleBuffer m_samples;
  TaskSampleBuffer m_taskSamples;
  std::vector<engine::TaskInfo> m_newTasks;
  std::shared_ptr<const WorkerSnapshot> m_snapshot;
  bool m_snapshotFresh = false;
  WorkerStatus m_status;
  std::int64_t m_dropped = 0;
  int m_generation = 0;
};

}  // namespace throttlelab::ui
