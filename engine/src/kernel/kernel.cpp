// SPDX-License-Identifier: GPL-3.0-or-later
// The Kernel's event loop, task table, limits and live reconfiguration.
#include "kernel.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <tuple>
#include <utility>

#include "kernel_math.h"

namespace throttlelab::engine {

namespace {
constexpr std::uint64_t kDeviceSeedSalt = 0x5851f42d4c957f2dULL;
}  // namespace

Kernel::Kernel(Scenario scenario)
    : m_scenario(std::move(scenario)), m_cpu(m_scenario.machine.cpus), m_rng(m_scenario.seed) {
  m_policy = makePolicy(m_scenario.policy);
  if (!m_policy)
    throw ScenarioError("policy", "policy: unknown policy '" + m_scenario.policy + "'");
  m_era = m_policy->era();
  m_pages.configure(m_scenario);
  m_pages.resize(*this);
  for (std::size_t i = 0; i < m_scenario.devices.size(); ++i) {
    auto d = std::make_unique<DeviceState>(
        m_scenario.devices[i], m_scenario.seed ^ (kDeviceSeedSalt * (i + 1)), static_cast<int>(i));
    d->bw = initialWbBandwidth(m_scenario.devices[i], jiffies());
    m_devices.emplace_back(std::move(d));
  }
  m_domain.completions.resize(m_devices.size());
  m_memcg.setup(*this, m_scenario.cgroups);
  m_cpu.resetPerCpuDirty();
  m_domain.dirtyLimit = globalViewFor(LimitBonus::None).thresh;  // boot: dirty_limit = thresh
  m_domain.dirtyLimitStamp = jiffies();
  m_writers.setBdpRatelimitPages(*this);
  for (std::size_t g = 0; g < m_scenario.tasks.size(); ++g)
    for (int i = 0; i < m_scenario.tasks[g].count; ++i) addTask(g, m_scenario.tasks[g]);
  m_writers.seedInitialPages(*this);
  for (auto& d : m_devices) d->flusher.startTimer(*this);
  m_queue.push(atSeconds(m_scenario.sampleIntervalS), EventKind::Sample);
  for (auto& d : m_devices) d->fs.journal().start(*this);
}

std::int64_t Kernel::jiffies() const {
  // ns * HZ / 10^9; in 64 bits while the product fits (runs shorter than ~100 days at
  // HZ=1000), where the division by a constant is a multiplication, not a __divti3 call.
  const std::int64_t ns = m_now.time_since_epoch().count();
  std::int64_t product = 0;
  if (!__builtin_mul_overflow(ns, static_cast<std::int64_t>(hz()), &product))
    return kJiffiesOffset + product / 1'000'000'000;
  return kJiffiesOffset + static_cast<std::int64_t>(static_cast<Int128>(ns) * hz() / 1'000'000'000);
}

void Kernel::addTask(std::size_t group, const TaskSpec& spec) {
  // Reuse a removed task of the same group first, so dragging a slider up and down does not
  // grow the table without bound.
  // (Only scan when there is a removed task: building 10,000 tasks must not be quadratic.)
  Task* t = nullptr;
  for (std::size_t i = 0; m_removedTasks > 0 && i < m_tasks.size(); ++i) {
    Task& cand = m_tasks[i];
    if (cand.removed && cand.info.group == static_cast<int>(group)) {
      t = &cand;
      --m_removedTasks;
      break;
    }
  }
  if (t == nullptr) {
    m_tasks.emplace_back();
    t = &m_tasks.back();
    t->info.index = static_cast<int>(m_tasks.size()) - 1;
    m_infos.emplace_back();
    m_writers.taskAdded(t->info.index, true);
  } else {
    m_writers.taskAdded(t->info.index, false);
    Task fresh;
    fresh.info.index = t->info.index;
    fresh.generation = t->generation + 1;
    *t = std::move(fresh);
  }
  t->spec = spec;
  t->lessThrottle = spec.lessThrottle;
  t->info.pid = m_nextPid++;
  t->info.name = spec.name;
  t->info.kind = spec.kind;
  t->info.group = static_cast<int>(group);
  t->info.sched = spec.sched;
  t->info.rtPriority = spec.rtPriority;
  t->info.nice = spec.nice;
  t->info.device = static_cast<int>(deviceIndexOf(m_scenario, spec));
  t->info.cgroup = cgroupIndexOf(m_scenario, spec);
  m_infos[static_cast<std::size_t>(t->info.index)] = t->info;
  // A sub-millisecond start jitter keeps identical tasks out of lockstep; it is where the
  // seed enters the run.
  const SimTime start = std::max(m_now, atSeconds(spec.startS)) + millis(m_rng.uniform());
  m_queue.push(start, EventKind::TaskStart, t->info.index, t->generation);
  if (m_sink) m_sink->onTaskCreated(t->info);
}

void Kernel::addRunEvent(RunEvent::Kind kind, std::string text) {
  m_runEvents.push_back(RunEvent{toSeconds(m_now), kind, std::move(text)});
}

namespace {
std::string groupName(const Scenario& s, int g) {
  const std::string name = g >= 0 && static_cast<std::size_t>(g) < s.tasks.size()
                               ? s.tasks[static_cast<std::size_t>(g)].name
                               : std::string("task");
  return "tasks[" + std::to_string(g) + "] " + name;
}
}  // namespace

void Kernel::noteTaskStarted(const Task& t) {
  const auto g = static_cast<std::size_t>(std::max(t.info.group, 0));
  if (g >= m_groupAlive.size()) m_groupAlive.resize(g + 1, 0);
  if (m_groupAlive[g]++ == 0) {
    const int count = g < m_scenario.tasks.size() ? m_scenario.tasks[g].count : 1;
    addRunEvent(RunEvent::Kind::TaskStart,
                groupName(m_scenario, t.info.group) + " ×" + std::to_string(count) + " start");
  }
}

void Kernel::noteTaskExiting(const Task& t) {
  if (t.startedS < 0 || t.state == TaskState::Exited || t.state == TaskState::NotStarted) return;
  const auto g = static_cast<std::size_t>(std::max(t.info.group, 0));
  if (g >= m_groupAlive.size() || m_groupAlive[g] <= 0) return;
  if (t.oomKilled)
    addRunEvent(RunEvent::Kind::OomKill,
                "OOM killer: " + t.info.name + " (pid " + std::to_string(t.info.pid) + ") killed");
  if (--m_groupAlive[g] == 0)
    addRunEvent(RunEvent::Kind::TaskStop, groupName(m_scenario, t.info.group) + " stop");
}

void Kernel::removeTask(Task& t) {
  if (t.removed) return;
  noteTaskExiting(t);
  if (m_cpu.isRunning(t.info.index)) {
    const double used = m_cpu.cancel(t.info.index, m_now);
    t.cpuS += used;
    const double share = used / std::max(t.pieceSystemS + t.pieceUserS, 1e-9);
    t.systemS += t.pieceSystemS * std::min(share, 1.0);
    t.userS += t.pieceUserS * std::min(share, 1.0);
    t.pieceSystemS = t.pieceUserS = 0;
  }
  t.removed = true;
  ++m_removedTasks;
  ++t.generation;
  t.state = TaskState::Exited;
  t.exitedS = toSeconds(m_now);
  t.allocWaiting = false;
  t.memcgWaiting = false;
  if (t.file >= 0) {
    CachedFile& f = m_files[static_cast<std::size_t>(t.file)];
    m_mem.copying -= f.copying();
    f.abandonCopy();
    m_pages.noteClean(f);
  }
  t.piece = 0;
  m_writers.stopCopying(*this, t);
  device(t.info.device).flusher.abandonTaskWriteback(*this, t);
  releaseAnon(t);
}

void Kernel::setSink(RecordSink* sink, OutputOptions options) {
  m_sink = sink;
  m_options = options;
  if (m_sink)
    for (const auto& t : m_tasks)
      if (!t.removed) m_sink->onTaskCreated(t.info);
}

SimTime Kernel::nextEventTime() const {
  return m_queue.empty() ? m_now : m_queue.top().time;
}

void Kernel::prefetchTaskOf(const Event& next) const {
  // With thousands of tasks the table outgrows the caches and an event's first touch of its
  // task is a miss (a quarter of ioless-3.2's time at 10,000 writers). The next event is
  // known one event ahead: start loading its task's hot fields while this one runs.
  if (next.kind != EventKind::TaskWake && next.kind != EventKind::TaskStart) return;
  const Task& task = m_tasks[static_cast<std::size_t>(next.id)];
  const auto* first = reinterpret_cast<const char*>(&task);
  const auto* last = reinterpret_cast<const char*>(&task.pauses) + 32;  // the header's 4 words
  for (const char* p = first; p < last; p += 64) __builtin_prefetch(p);
  // Each pass of a policy with position control writes the task's IolessPass, which lives in
  // a table of its own: with 10,000 writers that is another miss per pass unless loaded now.
  if (!m_policy->hasPositionControl()) return;
  const auto* pass = reinterpret_cast<const char*>(&m_writers.pass(next.id));
  for (const char* p = pass; p < pass + sizeof(IolessPass); p += 64) __builtin_prefetch(p, 1);
}

void Kernel::runUntil(SimTime t) {
  if (m_cpu.generation() != m_cpuGeneration) scheduleCpu();  // reconfigure() moved the CPUs
  while (!m_queue.empty() && m_queue.top().time <= t) {
    const Event e = m_queue.pop();
    m_now = std::max(m_now, e.time);
    if (const Event* ahead = m_queue.peekAhead(0)) prefetchTaskOf(*ahead);
    dispatch(e);
    ++m_events;
    if (m_cpu.generation() != m_cpuGeneration) scheduleCpu();
  }
  m_now = std::max(m_now, t);
}

void Kernel::scheduleCpu() {
  m_cpuGeneration = m_cpu.generation();
  if (const auto next = m_cpu.nextCompletion(m_now))
    m_queue.push(next->first, EventKind::CpuDone, next->second,
                 static_cast<std::uint32_t>(m_cpuGeneration));
}

void Kernel::dispatch(const Event& e) {
  switch (e.kind) {
    case EventKind::TaskStart: {
      Task& t = m_tasks[static_cast<std::size_t>(e.id)];
      if (t.generation == e.generation && !t.removed) taskStart(t);
      break;
    }
    case EventKind::TaskWake: {
      Task& t = m_tasks[static_cast<std::size_t>(e.id)];
      if (t.generation == e.generation && !t.removed) taskWake(t);
      break;
    }
    case EventKind::CpuDone:
      if (e.generation == static_cast<std::uint32_t>(m_cpuGeneration)) cpuDone();
      break;
    case EventKind::DeviceDone:
      if (e.generation == device(e.id).completionGeneration) deviceDone(e.id);
      break;
    case EventKind::FlusherTimer:
      device(e.id).flusher.timer(*this, e.generation);
      break;
    case EventKind::FlusherRun:
      device(e.id).flusher.runEvent(*this, e.generation);
      break;
    case EventKind::KswapdRun:
      m_pages.kswapdRun(*this);
      break;
    case EventKind::OomExit:
      m_pages.oomExited(*this);
      break;
    case EventKind::JournalTimer:
      device(e.id).fs.journal().timer(*this);
      break;
    case EventKind::Sample:
      takeSample();
      m_queue.push(m_now + seconds(m_scenario.sampleIntervalS), EventKind::Sample);
      break;
  }
}

void Kernel::cpuDone() {
  const auto next = m_cpu.nextCompletion(m_now);
  if (!next) return;
  // The earliest completion moved later (a kernel thread got more work): try again then.
  // Completing early would count CPU time that was never used.
  if (next->first > m_now) {
    m_cpuGeneration = ~m_cpu.generation();
    return;
  }
  if (next->second < 0) {  // a kernel thread finished its work
    m_cpu.complete(next->second, m_now);
    return;
  }
  Task& t = m_tasks[static_cast<std::size_t>(next->second)];
  t.cpuS += m_cpu.complete(next->second, m_now);
  t.systemS += t.pieceSystemS;
  t.userS += t.pieceUserS;
  t.pieceSystemS = t.pieceUserS = 0;
  switch (t.afterCpu) {
    case AfterCpu::CopyBegin:
      t.holdsCpu = true;
      t.firstPageCopied = true;
      m_writers.continueWriting(*this, t);
      break;
    case AfterCpu::Write:
      m_writers.pieceDone(*this, t);
      break;
    case AfterCpu::Balance:
      m_writers.callBalance(*this, t, t.balancePages);
      break;
    case AfterCpu::Anon:
      anonPieceDone(t);
      break;
    case AfterCpu::Alloc:
      retryAllocation(t);
      break;
  }
}

void Kernel::taskStart(Task& t) {
  t.startedS = toSeconds(m_now);
  t.state = TaskState::Runnable;
  noteTaskStarted(t);
  if (t.info.kind == TaskKind::Writer)
    m_writers.beginRun(*this, t);
  else
    beginAnonRun(t);
}

void Kernel::taskWake(Task& t) {
  switch (t.state) {
    case TaskState::Paused:
      m_writers.pauseEnded(*this, t);
      break;
    case TaskState::Thinking:
      t.state = TaskState::Runnable;
      if (t.info.kind == TaskKind::Writer || t.anonPhase == AnonPhase::WriteObject)
        m_writers.continueWriting(*this, t);
      else
        continueAnon(t);
      break;
    case TaskState::IoWait:
      // a direct-reclaim wait ended (timeout or freed memory)
      if (t.allocWaiting) retryAllocation(t);
      break;
    default:
      break;
  }
}

GlobalView Kernel::globalViewFor(LimitBonus bonus) const {
  GlobalView g;
  switch (m_era.dirtyable) {
    case DirtyableStyle::TotalPages:
      g.avail = m_mem.total;
      break;
    case DirtyableStyle::FreePlusLru:
      g.avail = m_mem.free + m_mem.file + m_mem.anon + 1;
      break;
    case DirtyableStyle::FreeMinusReserve:
      g.avail = dirtyableMemory(m_mem.free, m_mem.file, m_mem.totalReserve);
      break;
  }
  // Every throttle pass asks; between two passes these inputs rarely change (a task held at
  // the limit re-checks with nothing dirtied), so the last answer per bonus is remembered.
  const ThreshInputs in{g.avail, m_mem.anon, m_domain.dirtyLimit, m_configVersion};
  ThreshMemo& memo = m_threshMemo[bonus == LimitBonus::RealTime ? 1 : 0];
  if (!memo.valid || !(memo.in == in)) {
    memo.out = computeEraThresholds(m_scenario.vm, g.avail, m_era, bonus == LimitBonus::RealTime,
                                    m_mem.anon, m_domain.dirtyLimit);
    memo.in = in;
    memo.valid = true;
  }
  const DirtyThresholds& th = memo.out;
  g.thresh = th.thresh;
  g.bgThresh = th.bgThresh;
  g.nrReclaimable = m_mem.nrDirty;
  g.dirty = m_mem.nrDirty + m_mem.nrWriteback;
  g.freerun = freerunCeiling(g.thresh, g.bgThresh);
  g.limit = m_era.followDirtyLimit ? hardDirtyLimit(g.thresh, m_domain.dirtyLimit) : g.thresh;
  g.setpoint = dirtySetpoint(g.freerun, g.limit);
  return g;
}

GlobalView Kernel::globalViewForTask(const Task* task) const {
  bool bonus = false;
  if (task != nullptr) {
    bonus = (isRealTime(*task) && m_era.rtBonus != RtLimitBonus::None) ||
            (task->lessThrottle && m_era.lessThrottleBonus);
  }
  return globalViewFor(bonus ? LimitBonus::RealTime : LimitBonus::None);
}

Pages Kernel::ratelimitPages() const {
  // writeback_set_ratelimit() <= 3.1 (docs/model.md, Eq. 32): total / (ncpus x 32), at least 16
  // pages and at most 4 MiB.
  const Pages r = m_mem.total / (std::max(1, m_scenario.machine.cpus) * 32);
  return std::clamp<Pages>(r, 16, 1024);
}

GlobalView Kernel::globalView(const Task* task, bool emitTrace) {
  GlobalView g = globalViewForTask(task);
  if (emitTrace && tracing()) {
    GlobalDirtyState r;
    if (task) r.header = traceHeader(*task);
    r.dirty = m_mem.nrDirty;
    r.writeback = m_mem.nrWriteback;
    r.bgThresh = g.bgThresh;
    r.thresh = g.thresh;
    r.limit = m_domain.dirtyLimit;
    r.dirtied = m_mem.dirtied;
    r.written = m_mem.written;
    trace(r);
  }
  return g;
}

void Kernel::runCpu(Task& t, double systemS, double userS, AfterCpu after) {
  systemS += t.owedSystemS;
  t.owedSystemS = 0;
  t.pieceSystemS = systemS;
  t.pieceUserS = userS;
  t.afterCpu = after;
  t.state = TaskState::Running;
  m_cpu.start(t.info.index, std::max(systemS + userS, 1e-9), rtPriorityOf(t), t.info.nice, m_now);
}

void Kernel::sleepTask(Task& t, SimDuration d, TaskState state) {
  ++t.generation;  // any earlier wake-up of this task is stale from now on
  t.state = state;
  m_queue.push(m_now + d, EventKind::TaskWake, t.info.index, t.generation);
}

void Kernel::wakeTaskNow(Task& t) {
  ++t.generation;  // cancels the pending timeout
  m_queue.push(m_now, EventKind::TaskWake, t.info.index, t.generation);
}

WbView Kernel::wbView(int dev, const GlobalView& g) const {
  const DeviceState& d = device(dev);
  const DeviceConfig& c = d.device.config();
  std::int64_t num = 0, den = 1;
  m_domain.completions.fraction(static_cast<std::size_t>(dev), m_now, num, den);
  int sumMin = 0;
  for (const auto& other : m_devices) sumMin += other->device.config().minRatio;
  sumMin = std::min(sumMin, 100);
  // The shares below cost four 64-bit divisions, and a throttled task asks again every pause
  // with the same inputs (nothing completes in between): remember the last answer per device.
  const WbThreshInputs in{g.thresh, g.bgThresh, num, den, sumMin, c.minRatio, c.maxRatio};
  if (m_wbMemo.size() != m_devices.size()) m_wbMemo.assign(m_devices.size(), WbMemo{});
  WbMemo& memo = m_wbMemo[static_cast<std::size_t>(dev)];
  if (!memo.valid || !(memo.in == in)) {
    memo.out = wbThresholds(in);
    memo.in = in;
    memo.valid = true;
  }
  WbView w = memo.out;
  w.wbDirty = d.reclaimable + d.writeback;
  return w;
}

// --- live reconfiguration, by groups of fields ---

namespace {
// The node's size, swap and watermark settings: a change of any of them resizes
// the node (and so recomputes free memory, swap and the watermarks).
auto memoryFields(const Scenario& s) {
  return std::tie(s.machine.memoryMiB, s.machine.swapMiB, s.machine.allocator, s.vm.minFreeKbytes,
                  s.vm.watermarkScaleFactor);
}
// Writing vm.dirty_ratio or vm.dirty_bytes resets the following limit (docs/model.md, Eq. 8).
auto dirtyLimitFields(const Scenario& s) {
  return std::tie(s.vm.dirtyRatio, s.vm.dirtyBytes);
}
}  // namespace

std::unique_ptr<ThrottlePolicy> Kernel::checkReconfigurable(const Scenario& changed) const {
  if (changed.devices.size() != m_scenario.devices.size())
    throw ScenarioError(
        "devices", "devices: devices cannot be added or removed while running; reset to apply");
  for (std::size_t i = 0; i < changed.devices.size(); ++i)
    if (changed.devices[i].name != m_scenario.devices[i].name)
      throw ScenarioError("devices[" + std::to_string(i) + "].name",
                          "devices[" + std::to_string(i) +
                              "].name: a device cannot be renamed while running; reset to apply");
  if (changed.machine.hz != m_scenario.machine.hz)
    throw ScenarioError("machine.hz", "machine.hz: HZ cannot change while running; reset to apply");
  if (changed.cgroups.size() != m_scenario.cgroups.size())
    throw ScenarioError(
        "cgroups", "cgroups: cgroups cannot be added or removed while running; reset to apply");
  for (std::size_t i = 0; i < changed.cgroups.size(); ++i)
    if (changed.cgroups[i].name != m_scenario.cgroups[i].name ||
        changed.cgroups[i].version != m_scenario.cgroups[i].version)
      throw ScenarioError("cgroups[" + std::to_string(i) + "]",
                          "cgroups[" + std::to_string(i) +
                              "]: a cgroup cannot be renamed or change version while running; "
                              "reset to apply");
  for (std::size_t g = 0; g < changed.tasks.size() && g < m_scenario.tasks.size(); ++g)
    if (changed.tasks[g].cgroup != m_scenario.tasks[g].cgroup)
      throw ScenarioError("tasks[" + std::to_string(g) + "].cgroup",
                          "tasks[" + std::to_string(g) +
                              "].cgroup: a task group cannot move to another cgroup while "
                              "running; reset to apply");
  std::unique_ptr<ThrottlePolicy> policy;
  if (changed.policy != m_scenario.policy) {
    policy = makePolicy(changed.policy);
    if (!policy) throw ScenarioError("policy", "policy: unknown policy '" + changed.policy + "'");
  }
  if (changed.machine.swapMiB != m_scenario.machine.swapMiB &&
      mibToPages(static_cast<double>(changed.machine.swapMiB)) < m_mem.swapUsed)
    throw ScenarioError("machine.swapMiB",
                        "machine.swapMiB: cannot shrink swap below the " +
                            std::to_string(pagesToMiB(static_cast<double>(m_mem.swapUsed))) +
                            " MiB in use");
  // Only a shrink can be refused: memory full of dirty or anonymous pages must not stop a
  // change of the policy or a slider that leaves memory as it is.
  const Pages newTotal = mibToPages(static_cast<double>(changed.machine.memoryMiB));
  const Pages pinned = m_mem.anon + m_mem.nrDirty + m_mem.nrWriteback + m_mem.copying;
  if (newTotal < m_mem.total && newTotal < pinned + m_mem.wmarkHigh)
    throw ScenarioError("machine.memoryMiB",
                        "machine.memoryMiB: cannot shrink to " +
                            std::to_string(changed.machine.memoryMiB) + " MiB while " +
                            std::to_string(pagesToMiB(static_cast<double>(pinned))) +
                            " MiB are dirty, under writeback or anonymous");
  return policy;
}

void Kernel::reconfigure(const Scenario& in) {
  Scenario changed = in;
  changed.seed = m_scenario.seed;
  changed.name = m_scenario.name;
  changed.durationS = m_scenario.durationS;
  changed.description = m_scenario.description;
  // Check everything that can refuse before changing anything.
  std::unique_ptr<ThrottlePolicy> policy = checkReconfigurable(changed);

  const Scenario old = std::exchange(m_scenario, std::move(changed));
  const Scenario& cur = m_scenario;
  if (std::string what = describeChange(old, cur); !what.empty())
    addRunEvent(RunEvent::Kind::Reconfigure, std::move(what));
  if (policy) addRunEvent(RunEvent::Kind::Policy, "policy " + old.policy + " → " + cur.policy);
  ++m_configVersion;  // thresholds remembered by globalViewFor() are stale
  m_pages.configure(cur);
  // Policy: its era brings the flusher's style.
  const bool policyChanged = policy != nullptr;
  if (policyChanged) {
    const FlusherStyle oldFlusher = m_era.flusher;
    // The old policy's last passes keep its name: they become whole breakdowns now.
    m_writers.policyChanging(taskTable(), m_policy->name());
    m_policy = std::move(policy);
    m_era = m_policy->era();
    // A task_ratelimit of the old policy means nothing under the new one (and the IO-ful
    // policies compute none): the task table and rows must not show it.
    for (auto& t : m_tasks) t.taskRatelimit = 0;
    if (oldFlusher != m_era.flusher)
      for (auto& d : m_devices) d->flusher.adoptStyle(*this);
  }
  // Memory: the node's size, swap and watermarks.
  if (memoryFields(cur) != memoryFields(old)) m_pages.resize(*this);
  // CPUs. Tasks map to CPUs by index: the per-CPU entry-check state is recounted, also when
  // the policy changes whether there is one.
  if (cur.machine.cpus != old.machine.cpus) m_cpu.setCpus(cur.machine.cpus, m_now);
  if (cur.machine.cpus != old.machine.cpus || policyChanged) {
    m_cpu.resetPerCpuDirty();
    for (auto& t : m_tasks) {
      t.copying = t.copying && m_era.perCpuRatelimit && !t.removed;
      if (t.copying) ++m_cpu.perCpuDirty(m_cpu.cpuOf(t.info.index)).copiers;
    }
  }
  // Devices: speed, seeks, queue, ratios.
  for (std::size_t i = 0; i < m_devices.size(); ++i) {
    if (cur.devices[i] == old.devices[i]) continue;
    m_devices[i]->device.configure(cur.devices[i]);
    scheduleDevice(static_cast<int>(i));
  }
  // Dirty limits: the other vm.dirty_* sysctls take effect through m_configVersion.
  if (dirtyLimitFields(cur) != dirtyLimitFields(old)) {
    m_domain.dirtyLimit = globalViewFor(LimitBonus::None).thresh;
    m_domain.dirtyLimitStamp = jiffies();
  }
  if (dirtyLimitFields(cur) != dirtyLimitFields(old) || cur.machine.cpus != old.machine.cpus)
    m_writers.setBdpRatelimitPages(*this);
  // The flushers' periodic timer.
  if (cur.vm.dirtyWritebackCentisecs != old.vm.dirtyWritebackCentisecs)
    for (auto& d : m_devices) d->flusher.restartTimer(*this);
  // Memory cgroups: their limits (the list itself cannot change while running).
  if (cur.cgroups != old.cgroups) m_memcg.reconfigure(cur.cgroups);
  // Tasks: a group's spec, then its count.
  for (std::size_t g = 0; g < std::max(cur.tasks.size(), old.tasks.size()); ++g)
    reconfigureGroup(g, old);
}

void Kernel::reconfigureGroup(std::size_t g, const Scenario& old) {
  std::vector<Task*> alive;
  for (auto& t : m_tasks)
    if (!t.removed && t.info.group == static_cast<int>(g)) alive.push_back(&t);
  const bool exists = g < m_scenario.tasks.size();
  const int want = exists ? m_scenario.tasks[g].count : 0;
  if (exists && (g >= old.tasks.size() || !(m_scenario.tasks[g] == old.tasks[g]))) {
    const TaskSpec& spec = m_scenario.tasks[g];
    for (Task* t : alive) {
      t->spec = spec;
      t->lessThrottle = spec.lessThrottle;
      t->info.name = spec.name;
      t->info.sched = spec.sched;
      t->info.rtPriority = spec.rtPriority;
      t->info.nice = spec.nice;
      m_infos[static_cast<std::size_t>(t->info.index)] = t->info;
    }
  }
  for (int i = static_cast<int>(alive.size()) - 1; i >= want; --i)
    removeTask(*alive[static_cast<std::size_t>(i)]);
  for (int i = static_cast<int>(alive.size()); i < want; ++i) addTask(g, m_scenario.tasks[g]);
}

// --- the tasks' side of page allocation ---

Pages Kernel::allocatePages(Task& t, Pages n) {
  const Pages got = m_pages.allocate(*this, t, n);
  if (got == 0 && n > 0) directReclaim(t);  // the slow path: the task stalls
  return got;
}

void Kernel::directReclaim(Task& t) {
  const PageAllocator::DirectReclaim r = m_pages.directReclaim(*this, t);
  switch (r.next) {
    case PageAllocator::DirectReclaim::Next::Retry:
      runCpu(t, r.cpuS, 0, AfterCpu::Alloc);
      break;
    case PageAllocator::DirectReclaim::Next::Wait:
      // The scan's CPU time is taken with the task's next piece of work.
      t.owedSystemS += r.cpuS;
      sleepTask(t, r.wait, TaskState::IoWait);
      break;
    case PageAllocator::DirectReclaim::Next::Gone:
      break;
  }
}

void Kernel::retryAllocation(Task& t) {
  if (t.removed) return;
  if (!t.allocWaiting) {
    t.state = TaskState::Runnable;
    return;
  }
  if (t.memcgWaiting) {
    // The wait for the cgroup's writeback ended: charge again (it may wait again).
    t.memcgWaiting = false;
    finishAllocWait(t);
    t.holdsCpu = true;
    m_writers.continueWriting(*this, t);
    return;
  }
  if (m_pages.canAllocate(m_mem, t)) {
    finishAllocWait(t);
    if (t.info.kind == TaskKind::Writer || t.anonPhase == AnonPhase::WriteObject) {
      t.holdsCpu = true;  // it takes its pages now that it has them, and then queues to copy
      m_writers.continueWriting(*this, t);
    } else {
      continueAnon(t);
    }
    return;
  }
  directReclaim(t);
}

void Kernel::finishAllocWait(Task& t) {
  const double ms = toMs(m_now - t.allocStart);
  t.allocLatency.add(ms);
  m_stats.allocStallEnded(ms);
  t.allocWaiting = false;
  t.state = TaskState::Runnable;
}

ThrottleExplain Kernel::lastExplain(int index) const {
  const Task& t = m_tasks.at(static_cast<std::size_t>(index));
  return m_writers.lastExplain(t, m_policy->name(), globalViewForTask(&t));
}

bool Kernel::allTasksExited() const {
  return std::all_of(m_tasks.begin(), m_tasks.end(),
                     [](const Task& t) { return t.removed || t.state == TaskState::Exited; });
}

SimDuration Kernel::oldestDirtyAge() const {
  SimDuration oldest{};
  for (const auto& f : m_files)
    if (f.dirty() > 0) oldest = std::max(oldest, m_now - f.dirtiedWhen());
  return oldest;
}

std::string Kernel::checkInvariants() const {
  std::ostringstream err;
  Pages copying = 0;
  for (const auto& f : m_files) copying += f.copying();
  if (copying != m_mem.copying)
    err << "pages being copied " << m_mem.copying << " != files " << copying << "; ";
  if (m_mem.free + m_mem.file + m_mem.anon != m_mem.total)
    err << "pages not conserved: free " << m_mem.free << " + file " << m_mem.file << " + anon "
        << m_mem.anon << " != total " << m_mem.total << "; ";
  if (m_mem.free < 0) err << "free < 0; ";
  Pages resident = 0, dirty = 0, wb = 0;
  for (const auto& f : m_files) {
    if (f.clean() < 0 || f.dirty() < 0 || f.writeback() < 0)
      err << "file " << f.id() << " negative; ";
    resident += f.resident();
    dirty += f.dirty();
    wb += f.writeback();
  }
  if (resident != m_mem.file)
    err << "file pages " << m_mem.file << " != resident " << resident << "; ";
  if (dirty != m_mem.nrDirty) err << "nr_dirty " << m_mem.nrDirty << " != files " << dirty << "; ";
  if (wb != m_mem.nrWriteback)
    err << "nr_writeback " << m_mem.nrWriteback << " != files " << wb << "; ";
  Pages devDirty = 0, devWb = 0;
  for (const auto& d : m_devices) {
    if (d->reclaimable < 0 || d->writeback < 0) err << "device counter negative; ";
    devDirty += d->reclaimable;
    devWb += d->writeback;
  }
  if (devDirty != m_mem.nrDirty || devWb != m_mem.nrWriteback) err << "device counters disagree; ";
  if (m_mem.written > m_mem.dirtied) err << "written > dirtied; ";
  if (m_mem.swapUsed < 0 || m_mem.swapUsed > m_mem.swapTotal)
    err << "swap used " << m_mem.swapUsed << " out of [0, " << m_mem.swapTotal << "]; ";
  Pages rss = 0, swapWb = 0;
  for (const auto& t : m_tasks) {
    if (t.rss < 0 || t.swapped < 0 || t.swapWb < 0)
      err << "task " << t.info.index << " anon negative; ";
    rss += t.rss;
    swapWb += t.swapWb;
  }
  if (rss + swapWb > m_mem.anon)
    err << "task anon " << rss + swapWb << " > anon " << m_mem.anon << "; ";
  if (m_mem.anon < 0 || m_mem.swapWb < 0) err << "anon negative; ";
  // Memory cgroups: their counters are the sums over their files, and their wbs' over theirs.
  for (std::size_t c = 0; c < m_memcg.states().size(); ++c) {
    const CgroupState& cg = m_memcg.states()[c];
    Pages file = 0, cgDirty = 0, cgWb = 0;
    std::vector<Pages> wbDirty(m_devices.size()), wbWb(m_devices.size());
    for (const auto& f : m_files) {
      if (f.cgroup != static_cast<int>(c)) continue;
      file += f.resident();
      cgDirty += f.dirty();
      cgWb += f.writeback();
      wbDirty[static_cast<std::size_t>(f.device())] += f.dirty();
      wbWb[static_cast<std::size_t>(f.device())] += f.writeback();
    }
    if (file != cg.file || cgDirty != cg.dirty || cgWb != cg.writeback)
      err << "cgroup " << c << " counters (file " << cg.file << ", dirty " << cg.dirty
          << ", writeback " << cg.writeback << ") != its files (" << file << ", " << cgDirty << ", "
          << cgWb << "); ";
    for (std::size_t d = 0; d < m_devices.size(); ++d)
      if (cg.wbs[d].reclaimable != wbDirty[d] || cg.wbs[d].writeback != wbWb[d])
        err << "cgroup " << c << " wb " << d << " counters disagree; ";
  }
  return err.str();
}

}  // namespace throttlelab::engine
