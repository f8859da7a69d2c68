// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The simulated kernel: memory, tasks, devices with their flushers, the page allocator with
// kswapd and swap, the CPU scheduler and the active policy, driven by one event queue.
// Simulator (the public API) owns one Kernel. Its member functions are spread over files by
// concern: kernel.cpp (events, tasks, limits, reconfiguration), writer.cpp (the dd writer and
// the balance_dirty_pages() entry), task_writeback.cpp (IO-ful policies: dirtiers writing
// back and waiting for congestion), anon.cpp (Compiler and Allocator tasks), allocator.cpp
// (page allocation, reclaim, kswapd, swap, OOM), flusher.cpp (writeback), sampling.cpp
// (samples and statistics).
#include <algorithm>
#include <array>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "cpu_scheduler.h"
#include "event_queue.h"
#include "huge_page_allocator.h"
#include "policies/policy.h"
#include "rng.h"
#include "throttle_host.h"
#include "throttlelab/engine/simulator.h"
#include "world.h"

namespace throttlelab::engine {

class Kernel final : public ThrottleHost {
 public:
  explicit Kernel(Scenario scenario);

  // --- ThrottleHost ---
  SimTime now() const override { return m_now; }
  std::int64_t jiffies() const override;
  int hz() const override { return m_scenario.machine.hz; }
  const VmConfig& vm() const override { return m_scenario.vm; }
  const Memory& memory() const override { return m_mem; }
  Domain& domain() override { return m_domain; }
  DeviceState& device(int index) override { return *m_devices.at(static_cast<std::size_t>(index)); }
  const DeviceState& device(int index) const override {
    return *m_devices.at(static_cast<std::size_t>(index));
  }
  GlobalView globalView(const Task* task, bool emitTrace) override;
  WbView wbView(int device, const GlobalView& g) const override;
  void startBackgroundWriteback(int device) override;
  bool writebackInProgress(int device) const override;
  const KernelEra& era() const override { return m_era; }
  Pages ratelimitPages() const override;
  bool congested(int device) const override;
  double taskDirtyShare(const Task& t) const override;
  int cpus() const override { return m_scenario.machine.cpus; }
  bool tracing() const override { return m_sink != nullptr && m_options.traces; }
  void trace(const TraceRecord& r) override;
  TraceHeader traceHeader(const Task& t) const override;
  std::string_view deviceName(int device) const override;

  // --- driving the run ---
  void setSink(RecordSink* sink, OutputOptions options);
  void runUntil(SimTime t);
  SimTime nextEventTime() const;
  void reconfigure(const Scenario& changed);
  const Scenario& scenario() const { return m_scenario; }
  const std::vector<TaskInfo>& taskInfos() const { return m_infos; }
  std::vector<TaskStats> taskStats() const;
  Summary summary() const;
  ThrottleCurve throttleCurve(int device, int points) const;
  std::int64_t events() const { return m_events; }
  std::size_t taskCount() const { return m_tasks.size(); }
  bool allTasksExited() const;

  /// Invariants the tests check (pages conserved, counters non-negative); empty if all hold.
  std::string checkInvariants() const;
  /// How long the oldest dirty page has been dirty (0 when nothing is dirty).
  SimDuration oldestDirtyAge() const;

 private:
  // kernel.cpp
  void dispatch(const Event& e);
  void setupMemory();
  void addTask(std::size_t group, const TaskSpec& spec);
  void removeTask(Task& t);
  void scheduleCpu();
  GlobalView globalViewFor(LimitBonus bonus) const;
  GlobalView globalViewForTask(const Task* task) const;
  void runCpu(Task& t, double systemS, double userS, AfterCpu after);
  static int rtPriorityOf(const Task& t) {
    return t.info.sched == SchedClass::Other ? 0 : std::max(1, t.info.rtPriority);
  }
  void sleepTask(Task& t, SimDuration d, TaskState state);
  void wakeTaskNow(Task& t);

  // writer.cpp
  void taskStart(Task& t);
  void beginRun(Task& t);
  void continueWriting(Task& t);
  void pieceDone(Task& t);
  void endCopy(Task& t);
  void callBalance(Task& t, Pages pages);
  void balanceDone(Task& t);
  void taskWake(Task& t);
  void endRun(Task& t);
  void proceed(Task& t);
  void recordPause(Task& t, double ms);
  void recordDirtied(Task& t, Pages n);
  int cpuOf(const Task& t) const { return t.info.index % std::max(1, cpus()); }
  void stopCopying(Task& t);

  // task_writeback.cpp
  void startTaskWriteback(Task& t, Pages pages);
  void continueTaskWriteback(Task& t);
  void startCongestionWait(Task& t, SimDuration timeout);
  void wakeCongestionWaiters(int dev);
  void wakeSlotWaiter(int dev);

  // anon.cpp
  void beginAnonRun(Task& t);
  void continueAnon(Task& t);
  void anonPieceDone(Task& t);
  void endAnonRun(Task& t);
  void releaseAnon(Task& t);
  void swapInDone(Task& t, Pages pages);

  // allocator.cpp
  void setupWatermarks();
  /// Allocates up to `n` pages for `t`, one order-0 allocation each: returns how many it got
  /// (at least 1), or 0 when even the first must wait: the task is then in direct reclaim
  /// (or OOM-killed) and its continuation will be called again.
  Pages allocatePages(Task& t, Pages n);
  Pages allocMark(const Task& t, bool lowPass) const;
  void wakeKswapd();
  void kswapdRun();
  /// Reclaims towards `target` free pages: clean cache at once, anonymous pages by swap-out
  /// (freed when the write completes). Returns pages freed at once; adds to *scanned.
  Pages reclaim(Pages target, std::int64_t* scanned, bool kswapd);
  Pages reclaimClean(Pages target);
  /// `f` may have clean pages now: it joins the end of the reclaim order if it is not on it.
  void noteClean(CachedFile& f);
  /// Starts swap-out of up to `target` anonymous pages; kswapd waits for a request slot when
  /// the queue is full (kswapdSlotFree() continues it).
  Pages startSwapOut(Pages target, bool kswapd);
  Pages kswapdTarget() const;
  void kswapdSlotFree();
  void swapOutDone(const IoRequest& r);
  void directReclaim(Task& t);
  void retryAllocation(Task& t);
  void wakeMemoryWaiters();
  bool oomKill();
  void finishAllocWait(Task& t);
  Pages reclaimableNow() const;
  int swapDeviceIndex() const;

  // flusher.cpp
  void flusherTimer(int dev);
  void flusherRun(int dev);
  void kickFlusher(int dev);
  void startReclaimWriteback(int dev);
  void pdflushBackOff(int dev);
  /// After a policy change of flusher era: a flusher waiting for a request slot continues
  /// the way the new era's flusher waits.
  void adoptFlusherStyle();
  bool overBackgroundThresh(int dev);
  bool submitChunk(int dev, int file, Pages pages);
  Pages submitPages(int dev, int file, Pages pages, Task* batcher = nullptr);
  void deviceDone(int dev);
  void scheduleDevice(int dev);
  void fileDirtiedWhenChanged(CachedFile& f, SimTime oldWhen, bool wasDirty);
  void setSyncOwner(CachedFile& f, int owner);
  void queueIo(int dev, SimTime olderThan);
  Pages writebackChunk(int dev) const;
  /// Kernel threads that take CPU time of their own (CpuScheduler kernel threads).
  static constexpr int kKswapdThread = 0;
  static constexpr int kIoCompletionThread = 1;  ///< IO completion (softirq), all devices
  static int flusherThread(int dev) { return 2 + dev; }
  /// DeviceState::slotWaiters entry of kswapd (-1 is the device's flusher).
  static constexpr int kKswapdSlotWaiter = -2;
  /// `seconds` of CPU work by a kernel thread: counted in %system as it is done on a CPU.
  void chargeKernel(int thread, double seconds) {
    if (!(seconds > 0)) return;
    m_mem.systemS += seconds;
    m_cpu.addKernelWork(thread, seconds, m_now);
  }

  // sampling.cpp
  void takeSample();
  void prefetchTaskOf(const Event& next) const;
  double recentWriteKBps(const Task& t) const;
  /// What wbView()'s thresholds depend on, beside the device's dirty count.
  struct WbThreshInputs {
    Pages thresh = 0, bgThresh = 0;
    std::int64_t num = 0, den = 1;
    int sumMin = 0, minRatio = 0, maxRatio = 100;
    bool operator==(const WbThreshInputs&) const = default;
  };
  struct WbMemo {
    bool valid = false;
    WbThreshInputs in;
    WbView out;
  };
  static WbView wbThresholds(const WbThreshInputs& in);
  /// What globalViewFor()'s thresholds depend on, beside the scenario and era (m_configVersion).
  struct ThreshInputs {
    Pages avail = 0, anon = 0, dirtyLimit = 0;
    std::uint64_t configVersion = 0;
    bool operator==(const ThreshInputs&) const = default;
  };
  struct ThreshMemo {
    bool valid = false;
    ThreshInputs in;
    DirtyThresholds out;
  };
  struct CpuTotals {
    double system = 0, user = 0;  ///< totalCpuSystemS(), totalCpuUserS()
  };
  Sample makeSample(CpuTotals* totals = nullptr) const;
  DeviceSample makeDeviceSample(int dev, double intervalS) const;

  Scenario m_scenario;
  KernelEra m_era;
  Memory m_mem;
  Kswapd m_kswapd;
  Domain m_domain;
  std::vector<std::unique_ptr<DeviceState>> m_devices;
  std::vector<CachedFile> m_files;
  std::vector<Task, HugePageAllocator<Task>> m_tasks;
  std::vector<TaskInfo> m_infos;
  std::vector<int> m_memoryWaiters;
  int m_removedTasks = 0;  ///< tasks with `removed` set, which addTask() may reuse
  /// machine.allocator parsed once: allocMark() runs for every waiter on every kswapd batch.
  enum class AllocEra : std::uint8_t { V260, V269, V6x, V260NoRt, Other };
  static AllocEra allocatorEra(const std::string& era);
  AllocEra m_allocEra = AllocEra::Other;
  std::deque<int> m_cleanFiles;  ///< files with clean pages, in the order they came clean
  int m_oomPending = 0;   ///< an OOM victim whose memory is not yet freed
  CpuScheduler m_cpu;
  std::uint64_t m_cpuGeneration = 0;
  EventQueue m_queue;
  Rng m_rng;
  std::unique_ptr<ThrottlePolicy> m_policy;
  SimTime m_now{};
  std::int64_t m_events = 0;
  int m_nextPid = 1000;
  RecordSink* m_sink = nullptr;
  OutputOptions m_options;
  // 2.6.24 task proportions (docs/model.md, Eq. 15): events counted in periods of 2^shift dirtied
  // pages
  std::int64_t m_taskPropEvents = 0;
  std::int64_t m_taskPropGlobal = 0;
  std::int64_t m_taskPropPeriod = 0;
  // <= 3.1 entry check (perCpuRatelimit): bdp_ratelimits, the pages dirtied on each CPU since
  // its last check, and how many writers are copying on each CPU right now
  std::vector<Pages> m_cpuDirtied;
  std::vector<int> m_cpuCopiers;

  // sample-interval statistics
  SimTime m_lastSample{};
  mutable std::vector<double> m_intervalPauses;  ///< this interval's pauses (makeSample() reorders them)
  /// Every task's dirtiedTotal at one sample (index = sample number), for recentWriteKBps().
  struct DirtiedSnapshot {
    SimTime time{};
    std::int64_t index = 0;
    std::vector<Pages> dirtied;  ///< by task index; valid from each task's firstSnapshot
  };
  std::deque<DirtiedSnapshot> m_recentDirtied;    ///< the last second of samples, oldest first
  std::vector<DirtiedSnapshot> m_spareSnapshots;  ///< dropped ones, reused for their buffers
  std::int64_t m_snapshotCount = 0;
  mutable std::vector<WbMemo> m_wbMemo;  ///< wbView()'s last thresholds, per device
  mutable std::array<ThreshMemo, 2> m_threshMemo;  ///< globalViewFor()'s, without and with the bonus
  std::uint64_t m_configVersion = 0;     ///< bumped by reconfigure()
  std::array<TopPause, 4> m_intervalTop{};
  double m_intervalAllocMsMax = 0;
  std::int64_t m_allocStallsAtSample = 0;
  std::int64_t m_pgscanKswapdAtSample = 0, m_pgscanDirectAtSample = 0, m_pgstealAtSample = 0;
  std::int64_t m_swapOutAtSample = 0, m_swapInAtSample = 0;
  double m_cpuSystemAtSample = 0, m_cpuUserAtSample = 0;
  // whole-run statistics
  std::int64_t m_samples = 0;
  std::int64_t m_samplesAboveFreerun = 0;
  std::int64_t m_samplesAboveLimit = 0;
  PauseHistogram m_allPauses;
  PauseHistogram m_allAllocLatency;
  std::vector<Pages> m_dirtySamples;  ///< dirty + writeback per sample, for the median (bounded)
  std::uint32_t m_dirtySampleStride = 1;

 public:
  // Task ids, for the tests and the allocator
  Task& task(int id) { return m_tasks[static_cast<std::size_t>(id)]; }
  double totalCpuSystemS() const;
  /// CPU time kernel threads have used so far (charged minus what is still to do).
  double kernelThreadCpuS() const;
  /// Adds the part of `t`'s running piece done by now to *systemS and *userS.
  void addRunningShare(const Task& t, double* systemS, double* userS) const;
  double totalCpuUserS() const;
};

}  // namespace throttlelab::engine
