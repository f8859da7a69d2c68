// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The simulated kernel: memory, tasks, devices with their flushers, the page allocator with
// kswapd and swap, the CPU scheduler and the active policy, driven by one event queue.
// Simulator (the public API) owns one Kernel. Its member functions are spread over files by
// concern: kernel.cpp (events, tasks, limits, reconfiguration), writer.cpp (the dd writer and
// the balance_dirty_pages() entry), task_writeback.cpp (IO-ful policies: dirtiers writing
// back and waiting for congestion), anon.cpp (Compiler and Allocator tasks), flusher.cpp
// (writeback), sampling.cpp (samples, task rows, the summary). Parts with state of their own
// are classes beside it: PageAllocator (watermarks, kswapd, reclaim, swap, OOM), RunStatistics
// (what a run measures), CpuScheduler (CPU time and per-CPU counters), BlockDevice.
//
// The parts hold no pointers to each other or to the Kernel: each call that needs the rest
// of the kernel is handed the Kernel as its host, so the parts copy as plain values, and the
// Kernel's copy is the compiler's: the policy and the devices are DeepPtr (copied with it,
// the policy through clone()), the sink a DetachedPtr (a copy starts without one). A copy is
// a snapshot of the run (SimulatorSnapshot): run on, it does exactly what the original does.
// New state belongs in plain members (values, vectors, indices), never in a pointer,
// reference or std::function into the kernel's own state, which a copy would share.
#include <algorithm>
#include <array>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cpu_scheduler.h"
#include "event_queue.h"
#include "huge_page_allocator.h"
#include "page_allocator.h"
#include "policies/policy.h"
#include "rng.h"
#include "run_statistics.h"
#include "throttle_host.h"
#include "throttlelab/engine/events.h"
#include "throttlelab/engine/simulator.h"
#include "value_ptr.h"
#include "world.h"

namespace throttlelab::engine {

class Kernel final : public ThrottleHost, private PageAllocatorHost {
 public:
  explicit Kernel(Scenario scenario);
  Kernel(const Kernel&) = default;
  /// A run handed on whole (Simulator::snapshot() &&): the state moves, nothing is copied.
  Kernel(Kernel&&) = default;
  Kernel& operator=(const Kernel&) = delete;

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
  /// block_rq_issue for a request that started service since the last call (tracing only).
  void traceBlockIssue(int dev);
  void traceBlockRq(int dev, const IoRequest& r, bool complete);
  void traceJbd2Commit(int dev, bool end, std::int64_t tid, int sync);
  TraceHeader traceHeader(const Task& t) const override;
  std::string_view deviceName(int device) const override;
  // memcg.cpp
  int memcgDomainOf(const Task& task) const override;
  CgroupState& cgroupState(int cg) override { return m_cgroups[static_cast<std::size_t>(cg)]; }
  const CgroupState& cgroupState(int cg) const override {
    return m_cgroups[static_cast<std::size_t>(cg)];
  }
  MemcgView memcgView(int cg, const GlobalView& g, const Task* task) const override;
  WbView memcgWbView(int cg, int device, const MemcgView& m) const override;
  Pages cgroupWbDirty(int device) const override;
  std::uint64_t traceCgroupIno(const Task& task) const override;
  IolessPass& iolessPassOf(const Task& t) override {
    return m_passes[static_cast<std::size_t>(t.info.index)];
  }
  /// What happened in the run so far (task groups, OOM kills, reconfigurations, policy).
  const std::vector<RunEvent>& runEvents() const { return m_runEvents; }
  /// The last throttle call of task `index` (Kind::None if it has not been throttled), made
  /// now from what the pass or call recorded.
  ThrottleExplain lastExplain(int index) const;

  // --- driving the run ---
  void setSink(RecordSink* sink, OutputOptions options);
  RecordSink* sink() const { return m_sink.get(); }
  const OutputOptions& outputOptions() const { return m_options; }
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
  /// The bytes a copy of this state holds beyond the Kernel object itself (most of a
  /// snapshot's size), estimated from its containers' sizes (engine/src/kernel/state_bytes.cpp
  /// says what is counted and how).
  std::size_t stateBytes() const;
  bool allTasksExited() const;

 private:
  /// The tests' view of the internals (tests/engine/kernel_test_access.h).
  friend class KernelTestAccess;
  /// Invariants the tests check (pages conserved, counters non-negative); empty if all hold.
  std::string checkInvariants() const;
  /// How long the oldest dirty page has been dirty (0 when nothing is dirty).
  SimDuration oldestDirtyAge() const;

  // kernel.cpp
  void dispatch(const Event& e);
  void addTask(std::size_t group, const TaskSpec& spec);
  void removeTask(Task& t) override;
  /// Throws ScenarioError if `changed` cannot be applied to the running kernel; the new
  /// policy if it names another one.
  std::unique_ptr<ThrottlePolicy> checkReconfigurable(const Scenario& changed) const;
  /// Task group `g` after reconfigure(): its spec, then as many tasks as it counts.
  void reconfigureGroup(std::size_t g, const Scenario& old);
  void scheduleCpu();
  GlobalView globalViewFor(LimitBonus bonus) const;
  GlobalView globalViewForTask(const Task* task) const;
  void runCpu(Task& t, double systemS, double userS, AfterCpu after);
  static int rtPriorityOf(const Task& t) {
    return t.info.sched == SchedClass::Other ? 0 : std::max(1, t.info.rtPriority);
  }
  void sleepTask(Task& t, SimDuration d, TaskState state);
  void wakeTaskNow(Task& t) override;

  // writer.cpp
  void taskStart(Task& t);
  void beginRun(Task& t);
  /// The page cache at the start (machine.initialDirtyPages, initialWritebackPages; Eq. 68).
  void seedInitialPages();
  void continueWriting(Task& t);
  /// The largest folio order of a buffered write() now (machine.maxFolioOrder, else the
  /// policy's kernel; 0 under the <= 3.1 per-CPU entry check, which counts 4 KiB pages).
  int maxFolioOrder() const;
  /// writeback_set_ratelimit() 3.2+: ratelimit_pages, the pages a CPU may dirty between two
  /// check-ins, from the dirty threshold at boot and at each vm.dirty_* or CPU change.
  void setBdpRatelimitPages();
  /// The 3.2+ entry check (the IO-less policies and `none`): checkInDue() and the leaks.
  bool hasBdpSafetyNet() const;
  /// balance_dirty_pages_ratelimited_flags() 3.2+: whether `t`, at a check-in, calls
  /// balance_dirty_pages(): its own quota, or its CPU's bdp_ratelimits past ratelimit_pages,
  /// after taking up what exited tasks left in dirty_throttle_leaks.
  bool checkInDue(Task& t);
  /// dirty_throttle_leaks: charge what exited tasks left on t's CPU to t, up to `ratelimit`.
  void takeThrottleLeaks(Task& t, Pages ratelimit);
  void pieceDone(Task& t);
  void endCopy(Task& t);
  /// Enters balance_dirty_pages() for `pages` dirtied pages, the loop state fresh.
  void enterBalance(Task& t, Pages pages);
  void callBalance(Task& t, Pages pages);
  void balanceDone(Task& t);
  /// The IO-ful loop's step `out` into the task's explain breakdown.
  void explainLoopStep(Task& t, const BalanceOutcome& out);
  void setExplainPolicy(ThrottleExplain& e) const;
  void taskWake(Task& t);
  void endRun(Task& t);
  void proceed(Task& t);
  void recordPause(Task& t, double ms);
  void recordDirtied(Task& t, Pages n);
  int cpuOf(const Task& t) const { return m_cpu.cpuOf(t.info.index); }
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

  // memcg.cpp: memory cgroups (docs/model.md, Memory cgroups)
  /// The cgroups of the scenario, at boot; reconfigure() takes new limits.
  void setupCgroups();
  void reconfigureCgroups();
  /// MemcgView with a bonus choice and whether writeback pages count as dirty (the throttle
  /// counts them, wb_over_bg_thresh() does not).
  MemcgView memcgViewFor(int cg, const GlobalView& g, LimitBonus bonus,
                         bool includeWriteback) const;
  /// Charges `n` new page-cache pages of `t` to its cgroup (mem_cgroup_charge()): reclaims
  /// inside the cgroup at memory.high/memory.max; false when the task must wait for the
  /// cgroup's writeback first (it then sleeps and retries) or was OOM-killed.
  bool memcgCharge(Task& t, Pages n);
  /// try_to_free_mem_cgroup_pages(): evicts up to `target` clean pages of the cgroup's files.
  Pages memcgReclaim(int cg, Pages target);
  /// mem_cgroup_out_of_memory(): kills the cgroup's largest task; false if none can be killed.
  bool memcgOomKill(int cg);
  /// The per-cgroup counters of a file's pages (the memcg's and its wb's on the file's device).
  void memcgDirtied(const CachedFile& f, Pages n);
  void memcgWritebackStarted(const CachedFile& f, Pages n);
  void memcgWritebackDone(const CachedFile& f, Pages n, int dev);
  void fileEvicted(const CachedFile& f, Pages n) override;
  /// The cgroup's wb over its share of the cgroup's background threshold (wb_over_bg_thresh()'s
  /// memcg half).
  bool memcgOverBackgroundThresh(int dev, const GlobalView& g) const;
  std::vector<CgroupSample> cgroupSamples() const;

  // kernel.cpp: the tasks' side of page allocation (PageAllocator does the rest)
  /// Allocates up to `n` pages for `t`: how many it got (at least 1), or 0 when even the
  /// first must wait: the task is then in direct reclaim (or OOM-killed) and its continuation
  /// will be called again.
  Pages allocatePages(Task& t, Pages n);
  void directReclaim(Task& t);
  void retryAllocation(Task& t);
  void finishAllocWait(Task& t);

  // --- PageAllocatorHost ---
  Memory& nodeCounters() override { return m_mem; }
  std::span<Task> taskTable() override { return {m_tasks.data(), m_tasks.size()}; }
  CachedFile& file(int id) override { return m_files[static_cast<std::size_t>(id)]; }
  int deviceCount() const override { return static_cast<int>(m_devices.size()); }
  void scheduleAt(SimTime when, EventKind kind) override { m_queue.push(when, kind); }

  // flusher.cpp
  void flusherTimer(int dev);
  void flusherRun(int dev);
  void kickFlusher(int dev);
  void startReclaimWriteback(int dev) override;
  void pdflushBackOff(int dev);
  /// After a policy change of flusher era: a flusher waiting for a request slot continues
  /// the way the new era's flusher waits.
  void adoptFlusherStyle();
  bool overBackgroundThresh(int dev);
  bool submitChunk(int dev, int file, Pages pages);
  Pages submitPages(int dev, int file, Pages pages, Task* batcher = nullptr);
  void deviceDone(int dev);
  void scheduleDevice(int dev) override;
  void fileDirtiedWhenChanged(CachedFile& f, SimTime oldWhen, bool wasDirty);
  void setSyncOwner(CachedFile& f, int owner);
  void queueIo(int dev, SimTime olderThan);
  Pages writebackChunk(int dev) const;
  /// Kernel threads that take CPU time of their own (CpuScheduler kernel threads); kswapd is
  /// PageAllocator::kKswapdThread (0).
  static constexpr int kIoCompletionThread = 1;  ///< IO completion (softirq), all devices
  static int flusherThread(int dev) { return 2 + dev; }
  /// `seconds` of CPU work by a kernel thread: counted in %system as it is done on a CPU.
  void chargeKernel(int thread, double seconds) override {
    if (!(seconds > 0)) return;
    m_mem.systemS += seconds;
    m_cpu.addKernelWork(thread, seconds, m_now);
  }

  // fs/journal.cpp
  void fsInit();
  void journalTimer(int dev);
  void startCommit(int dev);
  /// Data written: a commit waiting for its ordered data may go on to the log.
  void journalDataProgress(int dev);
  /// The commit's T_LOCKED phase ends once the handles open at its start have stopped.
  void journalLockProgress(int dev);
  /// From T_FLUSH on: data=ordered data, then the log blocks and the commit block.
  void flushCommit(int dev);
  /// write()'s handle (jbd2__journal_start()): true if `t` must wait for a commit's lock-down
  /// first (engine/src/fs/journal.cpp).
  bool writeHandleWaits(Task& t);
  /// A request of the journal (or the XFS log) completed.
  void journalIoDone(int dev);
  void xfsLogWrite(int dev);
  /// Writeback allocated blocks for `file` (delayed allocation): a metadata update.
  void noteAllocation(int dev, int file);
  /// Starts the run's uncached read; false if there is none to do.
  bool startRead(Task& t);
  void submitReadahead(Task& t, int dev);
  void readIoDone(Task& t);
  /// Starts the run's fsync(); false if there is none to do.
  bool startFsync(Task& t);
  /// A journal wait (shadow buffer, fsync's commit) ended: the task goes on.
  void fsWaitDone(Task& t);

  // sampling.cpp
  void takeSample();
  void prefetchTaskOf(const Event& next) const;
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
  PageAllocator m_pages;
  Domain m_domain;
  Pages m_bdpRatelimitPages = 16;  ///< ratelimit_pages (3.2+; setBdpRatelimitPages())
  std::vector<DeepPtr<DeviceState>> m_devices;
  std::vector<CachedFile> m_files;
  std::vector<CgroupState> m_cgroups;  ///< Scenario::cgroups, by index
  std::vector<Task, HugePageAllocator<Task>> m_tasks;
  std::vector<TaskInfo> m_infos;
  /// Per task, its last throttle call step by step (indexed like m_tasks; kept apart from the
  /// task table so the hot task lines stay as they are).
  std::vector<ThrottleExplain> m_explains;  ///< IO-ful calls (and IO-less ones of a past policy)
  std::vector<IolessPass> m_passes;         ///< IO-less passes of the current policy
  /// When task `index`'s last throttle began (what lastExplain() would describe).
  SimTime lastExplainTime(int index) const;
  SimTime m_explainsSentUntil{};  ///< breakdowns up to here went to the sink
  std::vector<RunEvent> m_runEvents;
  std::vector<int> m_groupAlive;  ///< per task group: started tasks not yet exited
  void addRunEvent(RunEvent::Kind kind, std::string text);
  /// Counts `t` as started (a task group whose first task starts is an event).
  void noteTaskStarted(const Task& t);
  /// Counts `t` as gone, before its state becomes Exited (its group's last one: an event).
  void noteTaskExiting(const Task& t);
  int m_removedTasks = 0;  ///< tasks with `removed` set, which addTask() may reuse
  CpuScheduler m_cpu;
  std::uint64_t m_cpuGeneration = 0;
  EventQueue m_queue;
  Rng m_rng;
  DeepPtr<ThrottlePolicy> m_policy;
  SimTime m_now{};
  std::int64_t m_events = 0;
  int m_nextPid = 1000;
  DetachedPtr<RecordSink> m_sink;
  OutputOptions m_options;
  // 2.6.24 task proportions (docs/model.md, Eq. 15): events counted in periods of 2^shift dirtied
  // pages
  std::int64_t m_taskPropEvents = 0;
  std::int64_t m_taskPropGlobal = 0;
  std::int64_t m_taskPropPeriod = 0;

  mutable std::vector<WbMemo> m_wbMemo;  ///< wbView()'s last thresholds, per device
  mutable std::array<ThreshMemo, 2>
      m_threshMemo;                   ///< globalViewFor()'s, without and with the bonus
  std::uint64_t m_configVersion = 0;  ///< bumped by reconfigure()
  RunStatistics m_stats;

  Task& task(int id) { return m_tasks[static_cast<std::size_t>(id)]; }
  double totalCpuSystemS() const;
  double totalCpuUserS() const;
  /// CPU time kernel threads have used so far (charged minus what is still to do).
  double kernelThreadCpuS() const;
  /// Adds the part of `t`'s running piece done by now to *systemS and *userS.
  void addRunningShare(const Task& t, double* systemS, double* userS) const;
};

}  // namespace throttlelab::engine
