// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// CPU sharing without touching every task (docs/model.md, CPU scheduling): real-time tasks take
// whole CPUs in priority order; the CPUs left are shared by runnable normal tasks in proportion to
// their nice weights, never more than one CPU each. A global virtual time V advances at rho =
// min(free / total weight, 1 / max weight) per second; a task of weight w needing c CPU-seconds
// finishes when V has grown by c / w. Starting or stopping a task only changes rho, so each change
// costs O(log N).
#include <cstdint>
#include <optional>
#include <queue>
#include <vector>

#include "throttlelab/engine/sim_time.h"

namespace throttlelab::engine {

/// CFS weight of a nice level (sched_prio_to_weight): nice 0 = 1024, ~1.25x per level.
int niceToWeight(int nice);

class CpuScheduler {
 public:
  explicit CpuScheduler(int cpus = 1);

  void setCpus(int cpus, SimTime now);
  int cpus() const { return m_cpus; }

  /// Task `id` becomes runnable and needs `workS` CPU-seconds. rtPriority > 0 means
  /// SCHED_FIFO/RR at that priority; otherwise `nice` sets its share.
  void start(int id, double workS, int rtPriority, int nice, SimTime now);
  /// Task `id` stops (exits or is cancelled); returns the CPU-seconds it consumed of its work.
  double cancel(int id, SimTime now);
  bool isRunning(int id) const;

  /// The earliest (time, task) at which a running task completes its work, if any.
  std::optional<std::pair<SimTime, int>> nextCompletion(SimTime now);
  /// Removes the task that completed at `now` (as reported by nextCompletion).
  /// Returns the CPU-seconds used for that piece of work.
  double complete(int id, SimTime now);

  int runnable() const { return m_normalRunnable + static_cast<int>(m_rt.size()); }
  /// Fraction of one CPU a normal task of weight 1024 gets right now.
  double normalShare() const;
  /// Bumped whenever the next completion may have moved (callers reschedule).
  std::uint64_t generation() const { return m_generation; }

 private:
  struct NormalEntry {
    double finishV;
    int id;
    std::uint64_t serial;
    bool operator>(const NormalEntry& o) const {
      return finishV != o.finishV ? finishV > o.finishV : serial > o.serial;
    }
  };
  struct TaskSlot {
    bool active = false;
    bool rt = false;
    int rtPriority = 0;
    int weight = 1024;
    double workS = 0;       ///< total work of the current piece
    double startV = 0;      ///< normal: V at start
    double finishV = 0;     ///< normal: V at which it finishes
    std::uint64_t serial = 0;
    double rtRemaining = 0; ///< rt: remaining CPU-seconds
    bool rtOnCpu = false;
  };

  void advance(SimTime now);
  void recomputeRate();
  void reassignRt(SimTime now);
  TaskSlot& slot(int id);

  int m_cpus;
  SimTime m_last{};
  double m_v = 0;           ///< virtual time
  double m_rho = 0;         ///< dV/dt
  int m_normalRunnable = 0;
  std::int64_t m_totalWeight = 0;
  std::vector<int> m_weightCount;   ///< runnable normal tasks per nice level (index nice+20)
  std::priority_queue<NormalEntry, std::vector<NormalEntry>, std::greater<>> m_heap;
  std::vector<TaskSlot> m_slots;
  std::vector<int> m_rt;            ///< runnable rt task ids
  std::uint64_t m_serial = 0;
  std::uint64_t m_generation = 0;
  int m_freeCpus = 0;               ///< CPUs not taken by rt tasks
};

}  // namespace throttlelab::engine
