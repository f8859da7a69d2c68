// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Folds runs of samples into min/max/last triples when the engine produces samples faster than
/// the GUI can use them (e.g. at 1000×), like an oscilloscope's peak-detect mode: a short pause
/// or spike inside a bucket still shows in the min or max sample.
#include <vector>

#include "throttlelab/engine/records.h"

namespace throttlelab::ui {

class SampleDecimator {
 public:
  /// Samples per bucket; 1 passes samples through. A change first flushes the open bucket.
  void setFactor(int factor, std::vector<engine::Sample>& out,
                 std::vector<engine::TaskSample>& outTasks);
  int factor() const { return m_factor; }

  void add(const engine::Sample& s, std::vector<engine::Sample>& out,
           std::vector<engine::TaskSample>& outTasks);
  /// Task samples are folded per task (longest pause, other fields from the latest) and
  /// emitted when the bucket closes.
  void addTask(const engine::TaskSample& s, std::vector<engine::TaskSample>& out);
  /// Emits the open bucket now (on pause, step end or a factor change).
  void flush(std::vector<engine::Sample>& out, std::vector<engine::TaskSample>& outTasks);
  void clear();

  /// Field-wise minimum (or maximum) of two samples into `acc`; cumulative counters and
  /// flags fold the same way, which keeps them monotonic. Exposed for the history's decimation.
  static void foldExtreme(engine::Sample& acc, const engine::Sample& s, bool maximum);

 private:
  void emitBucket(std::vector<engine::Sample>& out, std::vector<engine::TaskSample>& outTasks);

  int m_factor = 1;
  int m_count = 0;
  engine::Sample m_min;
  engine::Sample m_max;
  engine::Sample m_last;
  std::vector<engine::SimTime> m_times;        ///< of the samples in the bucket
  std::vector<engine::Sample> m_raw;           ///< the first three samples of the bucket
  std::vector<engine::TaskSample> m_taskFold;  ///< one per task seen in the bucket
};

}  // namespace throttlelab::ui
