// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// CPU time as Linux hands it out (kernel/sched/; docs/model.md, CPU scheduling): real-time tasks
// take whole CPUs in priority order; kernel threads with work (flushers, kswapd, IO completion)
// take a whole CPU each from what is left, as a thread that sleeps most of the time is run at once
// on waking; the CPUs left run normal tasks the way CFS does. A normal task runs on one CPU at full
// speed until its piece of work is done, its time slice ends while others wait, or a waking task
// with much less virtual runtime preempts it; waiting tasks get a CPU in order of virtual runtime
// (CPU time used, scaled by 1024 / nice weight). So with more tasks than CPUs, tasks take
// turns: a writer copies its piece in one go, as on a real machine, instead of every writer
// crawling through its piece at a thousandth of a CPU at once.
//
// The CFS tunables are the kernel's defaults (sysctl_sched_latency 6 ms, min_granularity
// 0.75 ms, wakeup_granularity 1 ms), scaled by 1 + ilog2(min(CPUs, 8)) as
// SCHED_TUNABLESCALING_LOG does. There is one run queue for all CPUs (no placement, no
// load balancing).
#include <climits>
#include <cstdint>
#include <optional>
#include <vector>

#include "heap_bytes.h"
#include "throttlelab/engine/sim_time.h"
#include "throttlelab/engine/units.h"

namespace throttlelab::engine {

/// CFS weight of a nice level (sched_prio_to_weight): nice 0 = 1024, ~1.25x per level.
int niceToWeight(int nice);

class CpuScheduler {
 public:
  explicit CpuScheduler(int cpus = 1);

  void setCpus(int cpus, SimTime now);
  int cpus() const { return m_cpus; }

  /// Task `id` (>= 0) becomes runnable and needs `workS` CPU-seconds. rtPriority > 0 means
  /// SCHED_FIFO/RR at that priority; otherwise `nice` sets its weight. A normal task that
  /// completed a piece at `now` and starts the next at the same instant keeps its CPU.
  void start(int id, double workS, int rtPriority, int nice, SimTime now);
  /// Task `id` stops (exits or is cancelled); returns the CPU-seconds it consumed of its work.
  double cancel(int id, SimTime now);
  /// Whether `id` has a piece of work (running or waiting for a CPU).
  bool isRunning(int id) const;
  /// Whether a piece that `id` started now would run at once rather than wait for a CPU:
  /// it still holds the CPU of a piece it completed at this instant, or a CPU is free (for a
  /// real-time task: fewer tasks of its priority or higher than CPUs).
  bool wouldRunAt(int id, int rtPriority, SimTime now);
  /// CPU-seconds task `id` has consumed of its current piece by `now` (0 if none).
  double usedSoFar(int id, SimTime now) const;

  /// Kernel thread `thread` (0, 1, ...) has `workS` more CPU-seconds of work: done as soon as
  /// a CPU is not taken by a real-time task (an idle thread waits for 0.1 ms of work first). Its
  /// completions are reported by nextCompletion() with the id kernelThreadId(thread) and retired
  /// with complete().
  void addKernelWork(int thread, double workS, SimTime now);
  /// CPU-seconds of kernel-thread work not yet done at `now`, over all kernel threads.
  double kernelBacklog(SimTime now) const;
  static constexpr int kernelThreadId(int thread) { return -1 - thread; }
  /// nextCompletion() reports this id when a time slice ends (complete() then switches tasks).
  static constexpr int kSliceEnd = INT_MIN;

  /// The earliest (time, id) at which something happens: a task (id >= 0) or a kernel thread
  /// (kernelThreadId) completes its work, or a time slice ends (kSliceEnd).
  std::optional<std::pair<SimTime, int>> nextCompletion(SimTime now);
  /// Retires what nextCompletion() reported at `now`. For a task, returns the CPU-seconds of
  /// the piece of work it completed; for a kernel thread or a slice end, 0.
  double complete(int id, SimTime now);

  /// Bumped whenever the next completion may have moved (callers reschedule).
  std::uint64_t generation() const { return m_generation; }
  /// What a copy of the scheduler holds on the heap (heap_bytes.h).
  std::size_t heapBytes() const {
    return heap::of(m_slots) + heap::of(m_kernelSlots) + heap::of(m_fixed) + heap::of(m_queue) +
           heap::of(m_events) + heap::of(m_onCpu) + heap::of(m_yielded) + heap::of(m_perCpuDirty);
  }

  /// The CPU task `id` counts on for per-CPU state: id modulo the CPUs (the fluid model has
  /// no placement).
  int cpuOf(int id) const { return id % m_cpus; }
  /// Per-CPU counters of the writeback entry check: the <= 3.1 one (KernelEra::perCpuRatelimit)
  /// and the 3.2+ safety net beside the per-task quota (Kernel::checkInDue()).
  struct PerCpuDirty {
    Pages dirtied = 0;  ///< bdp_ratelimits: pages dirtied on the CPU since its last check
    int copiers = 0;    ///< writers copying into the page cache on it right now
    Pages leaks = 0;    ///< dirty_throttle_leaks (3.2+): exited tasks' unthrottled pages
  };
  PerCpuDirty& perCpuDirty(int cpu) { return m_perCpuDirty[static_cast<std::size_t>(cpu)]; }
  /// Every CPU's counters back to zero, one entry per CPU (after setCpus() or a policy change).
  void resetPerCpuDirty() { m_perCpuDirty.assign(static_cast<std::size_t>(m_cpus), PerCpuDirty{}); }

 private:
  enum class Kind : std::uint8_t { Normal, RealTime, Kernel };
  struct Slot {
    bool active = false;  ///< has a piece of work
    Kind kind = Kind::Normal;
    bool onCpu = false;
    int rtPriority = 0;  ///< real-time priority; kernel threads 0 (below every real-time task)
    int weight = 1024;
    double workS = 0;          ///< the piece's CPU-seconds
    double doneS = 0;          ///< of which done before `since` (the start of the current run)
    SimTime since{};           ///< when it got its CPU (onCpu)
    SimTime sliceEnd{};        ///< normal, on a CPU: when its slice ends
    double vruntime = 0;       ///< normal: virtual runtime at `since` (or when it left its CPU)
    bool everRan = false;      ///< normal: has a virtual runtime of its own
    std::uint64_t serial = 0;  ///< invalidates its entries in the queues
    double pendingS = 0;       ///< kernel thread, idle: work gathered until it is worth a CPU
    double remainingAt(SimTime now) const;
  };
  struct RunEntry {  ///< a normal task waiting for a CPU
    double vruntime = 0;
    std::uint64_t serial = 0;
    int id = 0;
  };
  struct RunLater {
    bool operator()(const RunEntry& a, const RunEntry& b) const {
      return a.vruntime != b.vruntime ? a.vruntime > b.vruntime : a.serial > b.serial;
    }
  };
  struct EventEntry {       ///< a normal task on a CPU: when its piece or its slice ends
    std::int64_t time = 0;  ///< ns
    std::uint64_t serial = 0;
    int id = 0;
  };
  struct EventLater {
    bool operator()(const EventEntry& a, const EventEntry& b) const {
      return a.time != b.time ? a.time > b.time : a.serial > b.serial;
    }
  };

  Slot& slot(int id);
  const Slot* findSlot(int id) const;

  void settle(SimTime now);
  void release(int id, SimTime now);
  void reassignFixed(SimTime now);
  void fillCpus(SimTime now);
  void runNormal(int id, SimTime now);
  void preemptNormal(int id, SimTime now);
  void queueNormal(int id);
  void pushEvent(int id);
  double sliceS(const Slot& s) const;
  double vruntimeAt(const Slot& s, SimTime now) const;
  double minVruntime(SimTime now);
  void cleanQueue();
  void cleanEvents();
  int freeCpus() const { return m_cpus - m_fixedOnCpu - m_normalOnCpu; }

  int m_cpus;
  double m_latencyS = 0, m_minGranularityS = 0, m_wakeupGranularityS = 0;
  std::vector<Slot> m_slots;
  std::vector<Slot> m_kernelSlots;  ///< kernel threads, by thread number
  std::vector<int> m_fixed;         ///< runnable real-time tasks and kernel threads
  int m_fixedOnCpu = 0;
  std::vector<RunEntry> m_queue;     ///< normal tasks waiting for a CPU (a heap by vruntime)
  std::vector<EventEntry> m_events;  ///< normal tasks on a CPU: their next event (a heap by time)
  std::vector<int> m_onCpu;          ///< normal tasks holding a CPU
  int m_normalOnCpu = 0;
  int m_normalRunnable = 0;         ///< on a CPU or queued
  std::int64_t m_normalWeight = 0;  ///< of those
  double m_minVruntime = 0;         ///< cfs_rq->min_vruntime: never decreases
  std::vector<int> m_yielded;       ///< completed at m_yieldedAt, may start again at once
  SimTime m_yieldedAt{};
  std::uint64_t m_serial = 0;
  std::uint64_t m_generation = 0;
  std::vector<PerCpuDirty> m_perCpuDirty;
};

}  // namespace throttlelab::engine
