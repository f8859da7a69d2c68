// SPDX-License-Identifier: GPL-3.0-or-later
// The Kernel's event loop, task table, limits and live reconfiguration.
#include "kernel.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "kernel_math.h"

namespace throttlelab::engine {

namespace {
constexpr std::uint64_t kDeviceSeedSalt = 0x5851f42d4c957f2dULL;

std::int64_t isqrt(std::int64_t v) {
  auto r = static_cast<std::int64_t>(std::sqrt(static_cast<double>(v)));
  while (r * r > v) --r;
  while ((r + 1) * (r + 1) <= v) ++r;
  return r;
}
}  // namespace

Kernel::Kernel(Scenario scenario)
    : m_scenario(std::move(scenario)), m_cpu(m_scenario.machine.cpus), m_rng(m_scenario.seed) {
  m_policy = makePolicy(m_scenario.policy);
  if (!m_policy) throw ScenarioError("policy", "policy: unknown policy '" + m_scenario.policy + "'");
  setupMemory();
  for (std::size_t i = 0; i < m_scenario.devices.size(); ++i) {
    auto d = std::make_unique<DeviceState>(m_scenario.devices[i],
                                           m_scenario.seed ^ (kDeviceSeedSalt * (i + 1)));
    d->bw.bwTimeStampJiffies = jiffies();
    m_devices.push_back(std::move(d));
  }
  m_domain.completions.resize(m_devices.size());
  m_domain.dirtyLimit = globalViewFor(LimitBonus::None).thresh;  // boot: dirty_limit = thresh
  m_domain.dirtyLimitStamp = jiffies();
  for (std::size_t g = 0; g < m_scenario.tasks.size(); ++g)
    for (int i = 0; i < m_scenario.tasks[g].count; ++i) addTask(g, m_scenario.tasks[g]);
  const auto interval = millis(m_scenario.vm.dirtyWritebackCentisecs * 10.0);
  for (int d = 0; d < static_cast<int>(m_devices.size()); ++d) {
    if (interval.count() > 0) m_queue.push(m_now + interval, EventKind::FlusherTimer, d, 0);
  }
  m_queue.push(atSeconds(m_scenario.sampleIntervalS), EventKind::Sample);
}

std::int64_t Kernel::jiffies() const {
  const auto ns = static_cast<__int128>(m_now.time_since_epoch().count());
  return kJiffiesOffset + static_cast<std::int64_t>(ns * hz() / 1'000'000'000);
}

void Kernel::setupMemory() {
  const Pages total = mibToPages(static_cast<double>(m_scenario.machine.memoryMiB));
  const Pages used = m_mem.file + m_mem.anon;
  m_mem.total = total;
  m_mem.free = total - used;
  // Watermarks of one lowmem zone, 4.6+ (E8–E10): min_free_kbytes = sqrt(16 x lowmem KiB).
  const std::int64_t minFreeKb = std::clamp<std::int64_t>(isqrt(total * 4 * 16), 128, 262144);
  m_mem.wmarkMin = minFreeKb / 4;
  const Pages gap = std::max(m_mem.wmarkMin / 4, total * 10 / 10000);
  m_mem.wmarkLow = m_mem.wmarkMin + gap;
  m_mem.wmarkHigh = m_mem.wmarkMin + 2 * gap;
  m_mem.totalReserve = m_mem.wmarkHigh;  // lowmem_reserve is 0 with a single zone
}

void Kernel::addTask(std::size_t group, const TaskSpec& spec) {
  // Reuse a removed task of the same group first, so dragging a slider up and down does not
  // grow the table without bound.
  Task* t = nullptr;
  for (auto& cand : m_tasks) {
    if (cand.removed && cand.info.group == static_cast<int>(group)) {
      t = &cand;
      break;
    }
  }
  if (t == nullptr) {
    m_tasks.emplace_back();
    t = &m_tasks.back();
    t->info.index = static_cast<int>(m_tasks.size()) - 1;
    m_infos.emplace_back();
  } else {
    const int index = t->info.index;
    const std::uint32_t gen = t->generation + 1;
    *t = Task{};
    t->info.index = index;
    t->generation = gen;
  }
  t->spec = spec;
  t->info.pid = m_nextPid++;
  t->info.name = spec.name;
  t->info.group = static_cast<int>(group);
  t->info.sched = spec.sched;
  t->info.rtPriority = spec.rtPriority;
  t->info.nice = spec.nice;
  t->info.device = static_cast<int>(deviceIndexOf(m_scenario, spec));
  m_infos[static_cast<std::size_t>(t->info.index)] = t->info;
  // A sub-millisecond start jitter keeps identical tasks out of lockstep; it is where the
  // seed enters the run.
  const SimTime start = std::max(m_now, atSeconds(spec.startS)) + millis(m_rng.uniform());
  m_queue.push(start, EventKind::TaskStart, t->info.index, t->generation);
  if (m_sink) m_sink->onTaskCreated(t->info);
}

void Kernel::removeTask(Task& t) {
  if (t.removed) return;
  if (m_cpu.isRunning(t.info.index)) t.cpuS += m_cpu.cancel(t.info.index, m_now);
  t.removed = true;
  ++t.generation;
  t.state = TaskState::Exited;
  t.exitedS = toSeconds(m_now);
}

void Kernel::setSink(RecordSink* sink, OutputOptions options) {
  m_sink = sink;
  m_options = options;
  if (m_sink)
    for (const auto& t : m_tasks)
      if (!t.removed) m_sink->onTaskCreated(t.info);
}

SimTime Kernel::nextEventTime() const { return m_queue.empty() ? m_now : m_queue.top().time; }

void Kernel::runUntil(SimTime t) {
  while (!m_queue.empty() && m_queue.top().time <= t) {
    const Event e = m_queue.pop();
    m_now = std::max(m_now, e.time);
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
    case EventKind::CpuDone: {
      if (e.generation != static_cast<std::uint32_t>(m_cpuGeneration)) break;
      const auto next = m_cpu.nextCompletion(m_now);
      if (!next) break;
      if (next->first > m_now + SimDuration{1000}) {  // rounding moved it: try again later
        m_cpuGeneration = ~m_cpu.generation();
        break;
      }
      Task& t = m_tasks[static_cast<std::size_t>(next->second)];
      t.cpuS += m_cpu.complete(next->second, m_now);
      pieceDone(t);
      break;
    }
    case EventKind::DeviceDone:
      if (e.generation == device(e.id).completionGeneration) deviceDone(e.id);
      break;
    case EventKind::FlusherTimer:
      if (e.generation == device(e.id).flusher.timerGeneration) flusherTimer(e.id);
      break;
    case EventKind::FlusherRun:
      device(e.id).flusher.scheduled = false;
      flusherRun(e.id);
      break;
    case EventKind::Sample:
      takeSample();
      m_queue.push(m_now + seconds(m_scenario.sampleIntervalS), EventKind::Sample);
      break;
  }
}

GlobalView Kernel::globalViewFor(LimitBonus bonus) const {
  GlobalView g;
  g.avail = dirtyableMemory(m_mem.free, m_mem.file, m_mem.totalReserve);
  const DirtyThresholds th = computeDirtyThresholds(m_scenario.vm, g.avail, bonus, m_domain.dirtyLimit);
  g.thresh = th.thresh;
  g.bgThresh = th.bgThresh;
  g.nrReclaimable = m_mem.nrDirty;
  g.dirty = m_mem.nrDirty + m_mem.nrWriteback;
  g.freerun = freerunCeiling(g.thresh, g.bgThresh);
  g.limit = hardDirtyLimit(g.thresh, m_domain.dirtyLimit);
  g.setpoint = dirtySetpoint(g.freerun, g.limit);
  return g;
}

GlobalView Kernel::globalView(const Task* task, bool emitTrace) {
  const LimitBonus bonus =
      task != nullptr && isRealTime(*task) ? LimitBonus::RealTime : LimitBonus::None;
  GlobalView g = globalViewFor(bonus);
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

WbView Kernel::wbView(int dev, const GlobalView& g) const {
  const DeviceState& d = device(dev);
  const DeviceConfig& c = d.device.config();
  std::int64_t num = 0, den = 1;
  m_domain.completions.fraction(static_cast<std::size_t>(dev), m_now, num, den);
  int sumMin = 0;
  for (const auto& other : m_devices) sumMin += other->device.config().minRatio;
  sumMin = std::min(sumMin, 100);
  // E15 with min/max_ratio: the share of recent completions, on top of the reserved minimum.
  __int128 wbThresh = static_cast<__int128>(g.thresh) * (100 - sumMin) / 100;
  wbThresh = wbThresh * num / den;
  wbThresh += static_cast<__int128>(g.thresh) * c.minRatio / 100;
  wbThresh = std::min<__int128>(wbThresh, static_cast<__int128>(g.thresh) * c.maxRatio / 100);
  WbView w;
  w.wbThresh = static_cast<Pages>(wbThresh);
  w.wbBgThresh = g.thresh ? static_cast<Pages>(static_cast<__int128>(w.wbThresh) * g.bgThresh / g.thresh) : 0;
  w.wbDirty = d.reclaimable + d.writeback;
  return w;
}

void Kernel::trace(const TraceRecord& r) {
  if (m_sink) m_sink->onTrace(r);
}

TraceHeader Kernel::traceHeader(const Task& t) const {
  TraceHeader h;
  h.time = m_now;
  h.comm = makeComm(t.info.name);
  h.pid = t.info.pid;
  h.cpu = t.info.index % std::max(1, m_scenario.machine.cpus);
  return h;
}

std::string_view Kernel::deviceName(int dev) const { return device(dev).device.config().name; }

void Kernel::reconfigure(const Scenario& in) {
  Scenario changed = in;
  changed.seed = m_scenario.seed;
  changed.name = m_scenario.name;
  changed.durationS = m_scenario.durationS;
  changed.description = m_scenario.description;
  // Check everything that can refuse before changing anything.
  if (changed.devices.size() != m_scenario.devices.size())
    throw ScenarioError("devices", "devices: devices cannot be added or removed while running; reset to apply");
  for (std::size_t i = 0; i < changed.devices.size(); ++i)
    if (changed.devices[i].name != m_scenario.devices[i].name)
      throw ScenarioError("devices[" + std::to_string(i) + "].name",
                          "devices[" + std::to_string(i) + "].name: a device cannot be renamed while running; reset to apply");
  if (changed.machine.hz != m_scenario.machine.hz)
    throw ScenarioError("machine.hz", "machine.hz: HZ cannot change while running; reset to apply");
  std::unique_ptr<ThrottlePolicy> policy;
  if (changed.policy != m_scenario.policy) {
    policy = makePolicy(changed.policy);
    if (!policy) throw ScenarioError("policy", "policy: unknown policy '" + changed.policy + "'");
  }
  const Pages newTotal = mibToPages(static_cast<double>(changed.machine.memoryMiB));
  const Pages pinned = m_mem.anon + m_mem.nrDirty + m_mem.nrWriteback;
  if (newTotal < pinned + m_mem.wmarkHigh)
    throw ScenarioError("machine.memoryMiB",
                        "machine.memoryMiB: cannot shrink to " + std::to_string(changed.machine.memoryMiB) +
                            " MiB while " + std::to_string(pagesToMiB(static_cast<double>(pinned))) +
                            " MiB are dirty, under writeback or anonymous");

  const Scenario old = m_scenario;
  m_scenario = changed;
  if (policy) m_policy = std::move(policy);

  // Memory: reclaim clean cache first if the machine shrinks.
  if (newTotal != m_mem.total) {
    const Pages delta = newTotal - m_mem.total;
    if (delta < 0 && m_mem.free + delta < 0) reclaimClean(-delta - m_mem.free, -1);
    m_mem.total = newTotal;
    m_mem.free += delta;
    if (m_mem.free < 0) {  // not enough clean cache: take what is left from the file count
      m_mem.free = 0;
    }
    setupMemory();
  }
  if (changed.machine.cpus != old.machine.cpus) m_cpu.setCpus(changed.machine.cpus, m_now);
  for (std::size_t i = 0; i < m_devices.size(); ++i) {
    m_devices[i]->device.configure(changed.devices[i]);
    scheduleDevice(static_cast<int>(i));
  }
  // Writing dirty_ratio or dirty_bytes resets the slowly following limit (E20).
  if (changed.vm.dirtyRatio != old.vm.dirtyRatio || changed.vm.dirtyBytes != old.vm.dirtyBytes) {
    m_domain.dirtyLimit = globalViewFor(LimitBonus::None).thresh;
    m_domain.dirtyLimitStamp = jiffies();
  }
  if (changed.vm.dirtyWritebackCentisecs != old.vm.dirtyWritebackCentisecs) {
    const auto interval = millis(changed.vm.dirtyWritebackCentisecs * 10.0);
    for (int d = 0; d < static_cast<int>(m_devices.size()); ++d) {
      auto& f = device(d).flusher;
      ++f.timerGeneration;
      if (interval.count() > 0) m_queue.push(m_now + interval, EventKind::FlusherTimer, d, f.timerGeneration);
    }
  }
  // Tasks: update specs, add or remove tasks per group.
  for (std::size_t g = 0; g < std::max(changed.tasks.size(), old.tasks.size()); ++g) {
    std::vector<Task*> alive;
    for (auto& t : m_tasks)
      if (!t.removed && t.info.group == static_cast<int>(g)) alive.push_back(&t);
    const int want = g < changed.tasks.size() ? changed.tasks[g].count : 0;
    if (g < changed.tasks.size()) {
      const TaskSpec& spec = changed.tasks[g];
      for (Task* t : alive) {
        t->spec = spec;
        t->info.name = spec.name;
        t->info.sched = spec.sched;
        t->info.rtPriority = spec.rtPriority;
        t->info.nice = spec.nice;
        m_infos[static_cast<std::size_t>(t->info.index)] = t->info;
      }
    }
    for (int i = static_cast<int>(alive.size()) - 1; i >= want; --i) removeTask(*alive[static_cast<std::size_t>(i)]);
    for (int i = static_cast<int>(alive.size()); i < want; ++i) addTask(g, changed.tasks[g]);
  }
}

std::string Kernel::checkInvariants() const {
  std::ostringstream err;
  if (m_mem.free + m_mem.file + m_mem.anon != m_mem.total)
    err << "pages not conserved: free " << m_mem.free << " + file " << m_mem.file << " + anon "
        << m_mem.anon << " != total " << m_mem.total << "; ";
  if (m_mem.free < 0) err << "free < 0; ";
  Pages resident = 0, dirty = 0, wb = 0;
  for (const auto& f : m_files) {
    if (f.clean() < 0 || f.dirty() < 0 || f.writeback() < 0) err << "file " << f.id() << " negative; ";
    resident += f.resident();
    dirty += f.dirty();
    wb += f.writeback();
  }
  if (resident != m_mem.file) err << "file pages " << m_mem.file << " != resident " << resident << "; ";
  if (dirty != m_mem.nrDirty) err << "nr_dirty " << m_mem.nrDirty << " != files " << dirty << "; ";
  if (wb != m_mem.nrWriteback) err << "nr_writeback " << m_mem.nrWriteback << " != files " << wb << "; ";
  Pages devDirty = 0, devWb = 0;
  for (const auto& d : m_devices) {
    if (d->reclaimable < 0 || d->writeback < 0) err << "device counter negative; ";
    devDirty += d->reclaimable;
    devWb += d->writeback;
  }
  if (devDirty != m_mem.nrDirty || devWb != m_mem.nrWriteback) err << "device counters disagree; ";
  if (m_mem.written > m_mem.dirtied) err << "written > dirtied; ";
  return err.str();
}

}  // namespace throttlelab::engine
