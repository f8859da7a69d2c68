// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The simulated kernel: memory, tasks, devices with their flushers, the page allocator with
// kswapd and swap, the CPU scheduler and the active policy, driven by one event queue.
// Simulator (the public API) owns one Kernel. The Kernel keeps the event loop, the task table
// and the settings, and wires the parts, each a class with the state it owns, that meets the
// rest through a host interface the Kernel implements (docs/architecture.md):
//   Writers         kernel/writers.h    the dd writers' write path and the waits it meets
//   Flusher         writeback/flusher.h one per device, with its inode lists (bdi_writeback)
//   MemCgroups      writeback/memcg.h   memory cgroups: charges, reclaim, writeback domains
//   Journal         fs/journal.h        one per device's file system
//   PageAllocator   mm/page_allocator.h watermarks, kswapd, reclaim, swap, OOM
//   ThrottlePolicy  policies/policy.h   the active dirty-throttling policy
//   CpuScheduler    sched/cpu_scheduler.h  CPU time and per-CPU counters
//   RunStatistics   sampling/run_statistics.h  what a run measures
// The Kernel's own files: kernel.cpp (events, tasks, limits, reconfiguration), devices.cpp (a
// request's completion, what the parts ask of the devices, the block and jbd2 tracepoints),
// anon.cpp (Compiler and Allocator tasks), sampling.cpp (samples, task rows, the summary).
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
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cpu_scheduler.h"
#include "device_state.h"
#include "event_queue.h"
#include "flusher.h"
#include "huge_page_allocator.h"
#include "journal.h"
#include "memcg.h"
#include "page_allocator.h"
#include "policy.h"
#include "rng.h"
#include "run_statistics.h"
#include "throttle_host.h"
#include "throttlelab/engine/events.h"
#include "throttlelab/engine/simulator.h"
#include "value_ptr.h"
#include "writers.h"

namespace throttlelab::engine {

class Kernel final : public ThrottleHost,
                     private PageAllocatorHost,
                     private FlusherHost,
                     private JournalHost,
                     private MemcgHost,
                     private WritersHost {
 public:
  explicit Kernel(Scenario scenario);
  Kernel(const Kernel&) = default;
  /// A run handed on whole (Simulator::snapshot() &&): the state moves, nothing is copied.
  Kernel(Kernel&&) = default;
  Kernel& operator=(const Kernel&) = delete;

  // --- ThrottleHost (and the same for the other parts' hosts) ---
  SimTime now() const override { return m_now; }
  std::int64_t jiffies() const override;
  int hz() const override { return m_scenario.machine.hz; }
  const VmConfig& vm() const override { return m_scenario.vm; }
  const Memory& memory() const override { return m_mem; }
  Domain& domain() override { return m_domain; }
  const Domain& domain() const override { return m_domain; }
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
  double taskDirtyShare(const Task& t) const override { return m_writers.taskDirtyShare(t); }
  int cpus() const override { return m_scenario.machine.cpus; }
  bool tracing() const override { return m_sink != nullptr && m_options.traces; }
  void trace(const TraceRecord& r) override;
  TraceHeader traceHeader(const Task& t) const override;
  std::string_view deviceName(int device) const override;
  int memcgDomainOf(const Task& task) const override { return m_memcg.domainOf(*this, task); }
  CgroupState& cgroupState(int cg) override { return m_memcg.state(cg); }
  const CgroupState& cgroupState(int cg) const override { return m_memcg.state(cg); }
  MemcgView memcgView(int cg, const GlobalView& g, const Task* task) const override {
    return m_memcg.view(*this, cg, g, task);
  }
  WbView memcgWbView(int cg, int device, const MemcgView& m) const override {
    return m_memcg.wbView(*this, cg, device, m);
  }
  Pages cgroupWbDirty(int device) const override { return m_memcg.wbDirty(*this, device); }
  std::uint64_t traceCgroupIno(const Task& task) const override {
    return m_memcg.traceIno(*this, task);
  }
  IolessPass& iolessPassOf(const Task& t) override { return m_writers.pass(t.info.index); }

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
  const Scenario& scenario() const override { return m_scenario; }
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

  // kernel.cpp: events, tasks, limits, reconfiguration
  void dispatch(const Event& e);
  void cpuDone();
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
  void runCpu(Task& t, double systemS, double userS, AfterCpu after) override;
  void sleepTask(Task& t, SimDuration d, TaskState state) override;
  void wakeTaskNow(Task& t) override;
  void taskStart(Task& t);
  void taskWake(Task& t);
  /// A request completed on `dev`: its owner goes on, then those waiting for a slot or for
  /// the queue to decongest.
  void deviceDone(int dev);
  /// The page-cache writeback request `r` of `dev` completed (end_page_writeback()).
  void writebackDone(int dev, const IoRequest& r);
  /// Hands free request slots of `dev` to those waiting for one, longest first.
  void wakeSlotWaiters(int dev);
  void wakeCongestionWaiters(int dev);
  /// The IO-ful writeback of `t` goes on (it waited for a slot); CPU time for it when done.
  void continueTaskWriteback(Task& t);
  /// block_rq_issue for a request that started service since the last call (tracing only).
  void traceBlockIssue(int dev);
  void traceBlockRq(int dev, const IoRequest& r, bool complete);
  void addRunEvent(RunEvent::Kind kind, std::string text) override;
  /// Counts `t` as started (a task group whose first task starts is an event).
  void noteTaskStarted(const Task& t);
  /// Counts `t` as gone, before its state becomes Exited (its group's last one: an event).
  void noteTaskExiting(const Task& t) override;

  // anon.cpp: Compiler and Allocator tasks
  void beginAnonRun(Task& t);
  void continueAnon(Task& t);
  void anonPieceDone(Task& t);
  void endAnonRun(Task& t);
  void releaseAnon(Task& t);
  void swapInDone(Task& t, Pages pages);

  // kernel.cpp: the tasks' side of page allocation (PageAllocator does the rest)
  /// Allocates up to `n` pages for `t`: how many it got (at least 1), or 0 when even the
  /// first must wait: the task is then in direct reclaim (or OOM-killed) and its continuation
  /// will be called again.
  Pages allocatePages(Task& t, Pages n) override;
  void directReclaim(Task& t);
  void retryAllocation(Task& t);
  void finishAllocWait(Task& t);

  // devices.cpp and inline: what the parts ask of the Kernel beyond the above
  // PageAllocatorHost, FlusherHost, MemcgHost
  Memory& nodeCounters() override { return m_mem; }
  std::span<Task> taskTable() override { return {m_tasks.data(), m_tasks.size()}; }
  CachedFile& file(int id) override { return m_files[static_cast<std::size_t>(id)]; }
  int deviceCount() const override { return static_cast<int>(m_devices.size()); }
  BlockDevice& blockDevice(int dev) override { return device(dev).device; }
  void scheduleAt(SimTime when, EventKind kind, int id, std::uint32_t generation) override {
    m_queue.push(when, kind, id, generation);
  }
  void scheduleDevice(int dev) override;
  void startReclaimWriteback(int dev) override;
  void fileEvicted(const CachedFile& f, Pages n) override { m_memcg.evicted(f, n); }
  void memoryFreed() override { m_pages.wakeMemoryWaiters(*this); }
  const MachineConfig& machine() const override { return m_scenario.machine; }
  bool memcgOverBackgroundThresh(int dev, const GlobalView& g) const override {
    return m_memcg.overBackgroundThresh(*this, dev, g);
  }
  void memcgWritebackStarted(const CachedFile& f, Pages n) override {
    m_memcg.writebackStarted(f, n);
  }
  void blocksAllocated(int dev, int file) override {
    device(dev).fs.journal().blocksAllocated(*this, file);
  }
  /// IO completion (softirq), all devices: a kernel thread (CpuScheduler kernel threads;
  /// kswapd is PageAllocator::kKswapdThread, 0, a device's flusher Flusher::thread()).
  static constexpr int kIoCompletionThread = 1;
  /// `seconds` of CPU work by a kernel thread: counted in %system as it is done on a CPU.
  void chargeKernel(int thread, double seconds) override {
    if (!(seconds > 0)) return;
    m_mem.systemS += seconds;
    m_cpu.addKernelWork(thread, seconds, m_now);
  }
  // JournalHost
  const std::set<std::pair<SimTime, int>>& dirtyInodes(int dev) const override {
    return device(dev).flusher.dirtyInodes();
  }
  WbPages wbPages(int dev) const override;
  void writeOrderedData(int dev, Pages pages) override;
  Pages fsyncDirtyPages(int task) const override;
  void journalWaitDone(int task) override;
  void traceJbd2Commit(int dev, bool end, std::int64_t tid, int sync) override;
  // WritersHost
  Pages ratelimit(Task& t) override { return m_policy->ratelimit(*this, t); }
  BalanceOutcome balance(Task& t, Pages pages) override {
    return m_policy->balance(*this, t, pages);
  }
  bool positionControl() const override { return m_policy->hasPositionControl(); }
  std::string_view policyName() const override { return m_policy->name(); }
  CpuScheduler& cpu() override { return m_cpu; }
  void pauseEnded(int task, double ms) override { m_stats.pause(task, ms); }
  void anonWriteDone(Task& t) override { endAnonRun(t); }
  int addFile(int dev, Pages size) override;
  Pages folioWithoutReclaim(const Task& t, Pages pages, Pages pending) const override {
    return m_pages.folioWithoutReclaim(m_mem, t, pages, pending);
  }
  bool memcgCharge(Task& t, Pages n) override { return m_memcg.charge(*this, t, n); }
  void memcgCached(const CachedFile& f, Pages n) override { m_memcg.cached(f, n); }
  void memcgDirtied(const CachedFile& f, Pages n) override { m_memcg.dirtied(f, n); }
  void memcgAddFile(int cg, int file) override { m_memcg.addFile(cg, file); }
  Pages writepages(int dev, int file, Pages pages) override {
    return device(dev).flusher.writepages(*this, file, pages);
  }
  void taskWriteback(Task& t, Pages pages) override;
  void congestionWait(Task& t, SimDuration timeout) override;
  void journalForceCommit(int dev, int task, int inode) override {
    device(dev).fs.journal().forceCommit(*this, task, inode);
  }

  // sampling.cpp
  void takeSample();
  void prefetchTaskOf(const Event& next) const;
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
  /// wbView()'s last thresholds of a device.
  struct WbMemo {
    bool valid = false;
    WbThreshInputs in;
    WbView out;
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
  std::vector<DeepPtr<DeviceState>> m_devices;
  std::vector<CachedFile> m_files;
  MemCgroups m_memcg;  ///< Scenario::cgroups, by index
  std::vector<Task, HugePageAllocator<Task>> m_tasks;
  std::vector<TaskInfo> m_infos;
  Writers m_writers;
  SimTime m_explainsSentUntil{};  ///< breakdowns up to here went to the sink
  std::vector<RunEvent> m_runEvents;
  std::vector<int> m_groupAlive;  ///< per task group: started tasks not yet exited
  int m_removedTasks = 0;         ///< tasks with `removed` set, which addTask() may reuse
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
