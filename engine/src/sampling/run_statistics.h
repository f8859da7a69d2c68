// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What a run measures beside the kernel's own state: the pauses and allocation stalls of the
// current sample interval and of the whole run, the counters at the last sample (for the
// interval's rates), the dirty level per sample (for the run's median), and every task's
// dirtied count over the last second (the task table's "rate over the last second").
// Kernel feeds it as things happen and at each sample; it never changes the simulation.
#include <array>
#include <cstdint>
#include <deque>
#include <span>
#include <vector>

#include "pause_histogram.h"
#include "task.h"
#include "throttlelab/engine/records.h"
#include "vmstat.h"

namespace throttlelab::engine {

class RunStatistics {
 public:
  /// A throttle pause of `ms` by task `task` ended (the task's own histogram is its own).
  void pause(int task, double ms);
  /// An allocation stall of `ms` ended.
  void allocStallEnded(double ms);

  /// Seconds since the last sample.
  double intervalS(SimTime now) const { return toSeconds(now - m_lastSample); }
  /// Fills the interval's statistics of a sample being made at `now`: pause median and
  /// range, the largest pauses, %system and %user from the CPU totals so far, the reclaim,
  /// swap and stall rates from `mem`'s counters.
  void fillInterval(Sample& s, const Memory& mem, double systemS, double userS, int cpus,
                    SimTime now) const;
  /// The sample `s` was taken: counts it for the run's shares and median.
  void countSample(const Sample& s);
  /// Remembers every started task's dirtied count at this sample (for recentWriteKBps()) and
  /// starts its next interval (dirtiedAtSample, intervalMaxPauseMs).
  void snapshotTasks(std::span<Task> tasks, SimTime now);
  /// Starts the next interval at `now` from `mem`'s counters and the CPU totals.
  void startInterval(const Memory& mem, double systemS, double userS, SimTime now);

  /// The task's write rate over about the last second of samples, KB/s.
  double recentWriteKBps(const Task& t) const;
  /// Fills the run's shares above freerun and limit, pause quantiles, median dirty level and
  /// allocation-stall quantiles (stalls still going on at `now` count up to now).
  void fillSummary(Summary& s, std::span<const Task> tasks, SimTime now) const;

 private:
  // the current interval
  SimTime m_lastSample{};
  mutable std::vector<double> m_intervalPauses;  ///< its pauses (fillInterval() reorders them)
  std::array<TopPause, 4> m_intervalTop{};
  double m_intervalAllocMsMax = 0;
  std::int64_t m_allocStallsAtSample = 0;
  std::int64_t m_pgscanKswapdAtSample = 0, m_pgscanDirectAtSample = 0, m_pgstealAtSample = 0;
  std::int64_t m_swapOutAtSample = 0, m_swapInAtSample = 0;
  double m_cpuSystemAtSample = 0, m_cpuUserAtSample = 0;

  /// Every task's dirtiedTotal at one sample (index = sample number), for recentWriteKBps().
  struct DirtiedSnapshot {
    SimTime time{};
    std::int64_t index = 0;
    std::vector<Pages> dirtied;  ///< by task index; valid from each task's firstSnapshot
  };
  std::deque<DirtiedSnapshot> m_recentDirtied;    ///< the last second of samples, oldest first
  std::vector<DirtiedSnapshot> m_spareSnapshots;  ///< dropped ones, reused for their buffers
  std::int64_t m_snapshotCount = 0;

  // the whole run
  std::int64_t m_samples = 0;
  std::int64_t m_samplesAboveFreerun = 0;
  std::int64_t m_samplesAboveLimit = 0;
  PauseHistogram m_allPauses;
  PauseHistogram m_allAllocLatency;
  std::vector<Pages> m_dirtySamples;  ///< dirty + writeback per sample, for the median (bounded)
  std::uint32_t m_dirtySampleStride = 1;
};

}  // namespace throttlelab::engine
