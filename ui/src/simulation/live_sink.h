// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The RecordSink the worker attaches to its Simulator. Runs on the worker thread only: it
/// stages records without locking, filters task samples to the tasks the GUI draws, folds
/// samples when decimating, and hands everything to the SampleExchange once per slice.
#include <boost/circular_buffer.hpp>
#include <vector>

#include "sample_decimator.h"
#include "throttlelab/engine/simulator.h"

namespace throttlelab::ui {

class SampleExchange;
struct WorkerStatus;

class LiveSink final : public engine::RecordSink {
 public:
  /// Tasks with an index below this get a curve of their own in the delay plot.
  static constexpr int kDrawnTasks = 16;

  void onSample(const engine::Sample& s) override;
  void onTaskSample(const engine::TaskSample& s) override;
  void onTaskCreated(const engine::TaskInfo& info) override;
  void onTaskExplain(const engine::ThrottleExplain& e) override;

  /// Breakdowns staged between two snapshots at most (the oldest go first).
  static constexpr std::size_t kExplainCap = 4096;
  /// The staged breakdowns, oldest first; the stage is empty afterwards.
  std::vector<engine::ThrottleExplain> takeExplains();

  /// Extra task indices (the selection) whose samples pass besides the first kDrawnTasks.
  void setExtraTasks(std::vector<int> extra);
  const std::vector<int>& extraTasks() const { return m_extra; }
  /// The OutputOptions the simulator must be given for this filter.
  engine::OutputOptions outputOptions() const;

  void setDecimation(int factor);
  int decimation() const { return m_decimator.factor(); }
  /// Closes the open decimation bucket (when the run pauses, so nothing stays behind).
  void closeBucket();
  /// Moves everything staged into the exchange.
  void flushTo(SampleExchange& exchange, const WorkerStatus& status);
  /// Forgets everything staged (on reset).
  void clear();

 private:
  bool wanted(int task) const;

  SampleDecimator m_decimator;
  std::vector<int> m_extra;  ///< sorted
  std::vector<engine::Sample> m_samples;
  std::vector<engine::TaskSample> m_taskSamples;
  std::vector<engine::TaskInfo> m_tasks;
  boost::circular_buffer<engine::ThrottleExplain> m_explains{kExplainCap};
};

}  // namespace throttlelab::ui
