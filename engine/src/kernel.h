// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The simulated kernel: memory, tasks, devices with their flushers, the CPU scheduler and the
// active policy, driven by one event queue. Simulator (the public API) owns one Kernel.
// Its member functions are spread over files by concern: kernel.cpp (events, tasks,
// reconfiguration), writer.cpp (the dd writer and balance_dirty_pages entry), flusher.cpp
// (writeback), sampling.cpp (samples and statistics).
#include <memory>
#include <string>
#include <vector>

#include "cpu_scheduler.h"
#include "event_queue.h"
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

  // Invariants the tests check (pages conserved, counters non-negative); empty if all hold.
  std::string checkInvariants() const;

 private:
  // kernel.cpp
  void dispatch(const Event& e);
  void setupMemory();
  void addTask(std::size_t group, const TaskSpec& spec);
  void removeTask(Task& t);
  void scheduleCpu();
  GlobalView globalViewFor(LimitBonus bonus) const;

  // writer.cpp
  void taskStart(Task& t);
  void beginRun(Task& t);
  void continueWriting(Task& t);
  void pieceDone(Task& t);
  void callBalance(Task& t, Pages pages);
  void taskWake(Task& t);
  void endRun(Task& t);
  bool allocatePages(Pages n);
  void reclaimClean(Pages target, int excludeFile);
  void proceed(Task& t);
  void wakeMemoryWaiters();
  void recordPause(Task& t, double ms);
  void recordDirtied(Task& t, Pages n);

  // flusher.cpp
  void flusherTimer(int dev);
  void flusherRun(int dev);
  void kickFlusher(int dev);
  bool overBackgroundThresh(int dev);
  bool submitChunk(int dev, int file, Pages pages);
  void deviceDone(int dev);
  void scheduleDevice(int dev);
  void fileDirtiedWhenChanged(CachedFile& f, SimTime oldWhen, bool wasDirty);
  Pages writebackChunk(int dev) const;

  // sampling.cpp
  void takeSample();
  Sample makeSample() const;
  DeviceSample makeDeviceSample(int dev, double intervalS) const;

  Scenario m_scenario;
  Memory m_mem;
  Domain m_domain;
  std::vector<std::unique_ptr<DeviceState>> m_devices;
  std::vector<CachedFile> m_files;
  std::vector<Task> m_tasks;
  std::vector<TaskInfo> m_infos;
  std::vector<int> m_memoryWaiters;
  std::size_t m_reclaimCursor = 0;
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

  // sample-interval statistics
  SimTime m_lastSample{};
  std::vector<double> m_intervalPauses;
  std::array<TopPause, 4> m_intervalTop{};
  // whole-run statistics
  std::int64_t m_samples = 0;
  std::int64_t m_samplesAboveFreerun = 0;
  std::int64_t m_samplesAboveLimit = 0;
  PauseHistogram m_allPauses;
};

}  // namespace throttlelab::engine
