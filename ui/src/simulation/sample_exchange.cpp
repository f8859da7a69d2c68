// SPDX-License-Identifier: GPL-3.0-or-later
#include "sample_exchange.h"

#include <utility>

namespace throttlelab::ui {

SampleExchange::SampleExchange(std::size_t sampleCapacity, std::size_t taskSampleCapacity)
    : m_sampleCapacity(sampleCapacity),
      m_taskSampleCapacity(taskSampleCapacity),
      m_samples(sampleCapacity),
      m_taskSamples(taskSampleCapacity) {}

void SampleExchange::publish(std::vector<engine::Sample>& samples,
                             std::vector<engine::TaskSample>& taskSamples,
                             std::vector<engine::TaskInfo>& tasks, const WorkerStatus& status) {
  {
    std::lock_guard lock(m_mutex);
    for (auto& s : samples) {
      if (m_samples.full()) ++m_dropped;
      m_samples.push_back(std::move(s));
    }
    for (const auto& t : taskSamples) {
      if (m_taskSamples.full()) ++m_dropped;
      m_taskSamples.push_back(t);
    }
    m_newTasks.insert(m_newTasks.end(), std::make_move_iterator(tasks.begin()),
                      std::make_move_iterator(tasks.end()));
    m_status = status;
    m_status.droppedSamples = m_dropped;
    m_status.generation = m_generation;
  }
  samples.clear();
  taskSamples.clear();
  tasks.clear();
}

void SampleExchange::publishSnapshot(std::shared_ptr<const WorkerSnapshot> snapshot) {
  std::lock_guard lock(m_mutex);
  // The GUI has not taken the last one: its breakdowns are not to be lost with it.
  if (m_snapshotFresh && m_snapshot && !m_snapshot->explains.empty() && snapshot &&
      snapshot->generation == m_snapshot->generation) {
    auto merged = std::make_shared<WorkerSnapshot>(*snapshot);
    merged->explains.insert(merged->explains.begin(), m_snapshot->explains.begin(),
                            m_snapshot->explains.end());
    snapshot = std::move(merged);
  }
  m_snapshot = std::move(snapshot);
  m_snapshotFresh = true;
}

void SampleExchange::restart(int generation) {
  std::lock_guard lock(m_mutex);
  m_samples.clear();
  m_taskSamples.clear();
  m_newTasks.clear();
  m_snapshot.reset();
  m_snapshotFresh = false;
  m_generation = generation;
  m_status.generation = generation;
}

void SampleExchange::take(LiveBatch& batch) {
  batch.clear();
  // Capacities must match so that the buffers keep their size across swaps; this allocates
  // only on the first drain.
  if (batch.samples.capacity() != m_sampleCapacity) batch.samples.set_capacity(m_sampleCapacity);
  if (batch.taskSamples.capacity() != m_taskSampleCapacity)
    batch.taskSamples.set_capacity(m_taskSampleCapacity);
  std::lock_guard lock(m_mutex);
  batch.samples.swap(m_samples);
  batch.taskSamples.swap(m_taskSamples);
  batch.newTasks.swap(m_newTasks);
  if (m_snapshotFresh) {
    batch.snapshot = m_snapshot;
    m_snapshotFresh = false;
  }
  batch.status = m_status;
  batch.generation = m_generation;
}

WorkerStatus SampleExchange::status() const {
  std::lock_guard lock(m_mutex);
  return m_status;
}

std::shared_ptr<const WorkerSnapshot> SampleExchange::latestSnapshot() const {
  std::lock_guard lock(m_mutex);
  return m_snapshot;
}

}  // namespace throttlelab::ui
