// SPDX-License-Identifier: GPL-3.0-or-later
#include "cpu_scheduler.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include "kernel_math.h"

namespace throttlelab::engine {

namespace {
// sched_prio_to_weight[] of CFS: each nice step changes the share by about 10 %.
constexpr std::array<int, 40> kNiceWeights = {
    88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916, 9548, 7620, 6100, 4904,
    3906,  3121,  2501,  1991,  1586,  1277,  1024,  820,   655,   526,   423,  335,  272,  215,
    172,   137,   110,   87,    70,    56,    45,    36,    29,    23,    18,   15};

// CFS defaults (kernel/sched/fair.c), before scaling by the CPU count.
constexpr double kSchedLatencyS = 6e-3;
constexpr double kMinGranularityS = 0.75e-3;
constexpr double kWakeupGranularityS = 1e-3;
// A kernel thread takes a CPU once it has this much work [D]: the model's granularity.
constexpr double kKernelQuantumS = 1e-4;

SimTime addSeconds(SimTime t, double s) {
  if (!(s > 0)) return t;
  const double ns = std::ceil(s * 1e9);
  const double room =
      static_cast<double>(SimTime::max().time_since_epoch().count() - t.time_since_epoch().count());
  if (ns >= room) return SimTime::max();
  return t + SimDuration{static_cast<std::int64_t>(ns)};
}

double secondsBetween(SimTime from, SimTime to) {
  return to > from ? toSeconds(to - from) : 0.0;
}
}  // namespace

int niceToWeight(int nice) {
  return kNiceWeights.at(static_cast<std::size_t>(std::clamp(nice, -20, 19) + 20));
}

CpuScheduler::CpuScheduler(int cpus) : m_cpus(std::max(cpus, 1)) {
  setCpus(m_cpus, SimTime{});
}

double CpuScheduler::Slot::remainingAt(SimTime now) const {
  double rem = workS - doneS;
  if (onCpu) rem -= secondsBetween(since, now);
  return std::max(0.0, rem);
}

CpuScheduler::Slot& CpuScheduler::slot(int id) {
  if (id < 0) {
    const auto k = static_cast<std::size_t>(-1 - static_cast<std::int64_t>(id));
    if (k >= m_kernelSlots.size()) m_kernelSlots.resize(k + 1);
    return m_kernelSlots[k];
  }
  if (static_cast<std::size_t>(id) >= m_slots.size())
    m_slots.resize(static_cast<std::size_t>(id) + 1);
  return m_slots[static_cast<std::size_t>(id)];
}

const CpuScheduler::Slot* CpuScheduler::findSlot(int id) const {
  if (id < 0) {
    const auto k = static_cast<std::size_t>(-1 - static_cast<std::int64_t>(id));
    return k < m_kernelSlots.size() ? &m_kernelSlots[k] : nullptr;
  }
  return static_cast<std::size_t>(id) < m_slots.size() ? &m_slots[static_cast<std::size_t>(id)]
                                                       : nullptr;
}

void CpuScheduler::setCpus(int cpus, SimTime now) {
  settle(now);
  m_cpus = std::max(cpus, 1);
  // SCHED_TUNABLESCALING_LOG: the tunables grow with 1 + ilog2(CPUs), CPUs counted up to 8.
  const double factor = 1 + ilog2(static_cast<std::uint64_t>(std::min(m_cpus, 8)));
  m_latencyS = kSchedLatencyS * factor;
  m_minGranularityS = kMinGranularityS * factor;
  m_wakeupGranularityS = kWakeupGranularityS * factor;
  reassignFixed(now);
  ++m_generation;
}

double CpuScheduler::vruntimeAt(const Slot& s, SimTime now) const {
  if (!s.onCpu || !s.active) return s.vruntime;
  return s.vruntime + std::min(secondsBetween(s.since, now), s.workS - s.doneS) * 1024.0 / s.weight;
}

double CpuScheduler::minVruntime(SimTime now) {
  // update_min_vruntime(): the smallest vruntime among the running and the queued, never
  // moving backwards.
  bool any = false;
  double v = 0;
  for (int id : m_onCpu) {
    const Slot& s = slot(id);
    if (!s.active) continue;
    const double sv = vruntimeAt(s, now);
    v = any ? std::min(v, sv) : sv;
    any = true;
  }
  cleanQueue();
  if (!m_queue.empty()) {
    v = any ? std::min(v, m_queue.front().vruntime) : m_queue.front().vruntime;
    any = true;
  }
  if (any) m_minVruntime = std::max(m_minVruntime, v);
  return m_minVruntime;
}

double CpuScheduler::sliceS(const Slot& s) const {
  // sched_slice(): the period (sched_latency, or min_granularity per task once there are
  // more) shared by weight among the tasks of one CPU's run queue.
  const int cpus = std::max(1, m_cpus - m_fixedOnCpu);
  const int perCpu = std::max(1, (m_normalRunnable + cpus - 1) / cpus);
  const double period = std::max(m_latencyS, perCpu * m_minGranularityS);
  const double load =
      std::max(static_cast<double>(m_normalWeight) / cpus, static_cast<double>(s.weight));
  return std::max(period * s.weight / load, m_minGranularityS);
}

void CpuScheduler::cleanQueue() {
  while (!m_queue.empty()) {
    const RunEntry& e = m_queue.front();
    const Slot& s = slot(e.id);
    if (s.active && s.serial == e.serial && !s.onCpu) return;
    std::pop_heap(m_queue.begin(), m_queue.end(), RunLater{});
    m_queue.pop_back();
  }
}

void CpuScheduler::cleanEvents() {
  while (!m_events.empty()) {
    const EventEntry& e = m_events.front();
    const Slot& s = slot(e.id);
    if (s.active && s.serial == e.serial && s.onCpu) return;
    std::pop_heap(m_events.begin(), m_events.end(), EventLater{});
    m_events.pop_back();
  }
}

void CpuScheduler::queueNormal(int id) {
  Slot& s = slot(id);
  s.serial = ++m_serial;
  m_queue.push_back(RunEntry{s.vruntime, s.serial, id});
  std::push_heap(m_queue.begin(), m_queue.end(), RunLater{});
}

void CpuScheduler::pushEvent(int id) {
  Slot& s = slot(id);
  s.serial = ++m_serial;
  const SimTime finish = addSeconds(s.since, s.workS - s.doneS);
  const SimTime at = std::min(finish, s.sliceEnd);
  m_events.push_back(EventEntry{at.time_since_epoch().count(), s.serial, id});
  std::push_heap(m_events.begin(), m_events.end(), EventLater{});
}

void CpuScheduler::runNormal(int id, SimTime now) {
  Slot& s = slot(id);
  s.onCpu = true;
  s.since = now;
  s.sliceEnd = addSeconds(now, sliceS(s));
  ++m_normalOnCpu;
  m_onCpu.push_back(id);
  pushEvent(id);
}

void CpuScheduler::preemptNormal(int id, SimTime now) {
  Slot& s = slot(id);
  const double ran = std::min(secondsBetween(s.since, now), s.workS - s.doneS);
  s.doneS += ran;
  s.vruntime += ran * 1024.0 / s.weight;
  s.onCpu = false;
  m_onCpu.erase(std::find(m_onCpu.begin(), m_onCpu.end(), id));
  --m_normalOnCpu;
  queueNormal(id);
}

void CpuScheduler::fillCpus(SimTime now) {
  // Real-time tasks and kernel threads came to need the CPUs of normal tasks: the ones with
  // the most virtual runtime give them up.
  while (freeCpus() < 0 && m_normalOnCpu > 0) {
    int victim = -1;
    double most = 0;
    for (int id : m_onCpu) {
      const double v = vruntimeAt(slot(id), now);
      if (victim < 0 || v > most) {
        victim = id;
        most = v;
      }
    }
    preemptNormal(victim, now);
  }
  while (freeCpus() > 0) {
    cleanQueue();
    if (m_queue.empty()) break;
    const int id = m_queue.front().id;
    std::pop_heap(m_queue.begin(), m_queue.end(), RunLater{});
    m_queue.pop_back();
    runNormal(id, now);
  }
}

void CpuScheduler::reassignFixed(SimTime now) {
  // Highest priority first (kernel threads have 0, below every real-time task); equal
  // priorities keep their arrival order (FIFO).
  std::stable_sort(m_fixed.begin(), m_fixed.end(),
                   [this](int a, int b) { return slot(a).rtPriority > slot(b).rtPriority; });
  int onCpu = 0;
  for (int id : m_fixed) {
    Slot& s = slot(id);
    const bool on = onCpu < m_cpus;
    if (s.onCpu && !on) {
      s.doneS = std::min(s.workS, s.doneS + secondsBetween(s.since, now));
      s.onCpu = false;
    } else if (!s.onCpu && on) {
      s.onCpu = true;
      s.since = now;
    }
    if (on) ++onCpu;
  }
  m_fixedOnCpu = onCpu;
  fillCpus(now);
}

void CpuScheduler::release(int id, SimTime now) {
  // A normal task left its CPU (its piece was done or it was cancelled).
  Slot& s = slot(id);
  s.onCpu = false;
  m_onCpu.erase(std::find(m_onCpu.begin(), m_onCpu.end(), id));
  --m_normalOnCpu;
  fillCpus(now);
}

void CpuScheduler::settle(SimTime now) {
  // Tasks that completed a piece keep their CPU for the instant in which they may start the
  // next one (a writer copies on after a throttle check that did not pause it); those that
  // did not go on have gone to sleep, and their CPUs go to the queue.
  if (m_yielded.empty()) return;
  std::vector<int> yielded;
  yielded.swap(m_yielded);
  for (int id : yielded)
    if (!slot(id).active && slot(id).onCpu) release(id, now);
}

void CpuScheduler::start(int id, double workS, int rtPriority, int nice, SimTime now) {
  if (id < 0) throw std::out_of_range("CpuScheduler: negative task id");
  const auto yielded = std::find(m_yielded.begin(), m_yielded.end(), id);
  const bool resume = rtPriority <= 0 && yielded != m_yielded.end() && m_yieldedAt == now;
  if (resume) m_yielded.erase(yielded);
  settle(now);
  Slot& s = slot(id);
  if (s.active) throw std::logic_error("CpuScheduler: task started twice");
  if (!resume && s.onCpu) release(id, now);  // its reserved CPU from an earlier instant
  s.active = true;
  s.workS = std::max(workS, 0.0);
  s.doneS = 0;
  ++m_generation;
  if (rtPriority > 0) {
    s.kind = Kind::RealTime;
    s.rtPriority = rtPriority;
    s.onCpu = false;
    s.serial = ++m_serial;
    m_fixed.push_back(id);
    reassignFixed(now);
    return;
  }
  s.kind = Kind::Normal;
  s.weight = niceToWeight(nice);
  ++m_normalRunnable;
  m_normalWeight += s.weight;
  if (resume) {  // still on its CPU, in the same slice
    s.since = now;
    pushEvent(id);
    return;
  }
  // place_entity(): a new task starts at min_vruntime; a waking one no more than half a
  // latency behind it (GENTLE_FAIR_SLEEPERS), so sleeping earns a little, not a lot.
  const double minV = minVruntime(now);
  if (!s.everRan) {
    s.vruntime = minV;
    s.everRan = true;
  } else {
    s.vruntime = std::max(s.vruntime, minV - m_latencyS / 2);
  }
  if (freeCpus() > 0) {
    runNormal(id, now);
    return;
  }
  queueNormal(id);
  // check_preempt_wakeup(): the woken task takes the CPU of the running task with the most
  // virtual runtime if that is ahead of it by more than the wakeup granularity.
  int victim = -1;
  double most = 0;
  for (int other : m_onCpu) {
    const Slot& o = slot(other);
    if (!o.active) continue;
    const double v = vruntimeAt(o, now);
    if (victim < 0 || v > most) {
      victim = other;
      most = v;
    }
  }
  if (victim >= 0 && most - s.vruntime > m_wakeupGranularityS * 1024.0 / s.weight) {
    preemptNormal(victim, now);
    fillCpus(now);
  }
}

double CpuScheduler::cancel(int id, SimTime now) {
  settle(now);
  Slot& s = slot(id);
  if (!s.active) return 0;
  const double used = std::clamp(s.workS - s.remainingAt(now), 0.0, s.workS);
  s.active = false;
  ++s.serial;
  ++m_generation;
  if (s.kind == Kind::Normal) {
    --m_normalRunnable;
    m_normalWeight -= s.weight;
    if (s.onCpu) {
      s.vruntime += (used - s.doneS) * 1024.0 / s.weight;
      release(id, now);
    }
    return used;
  }
  s.onCpu = false;
  m_fixed.erase(std::find(m_fixed.begin(), m_fixed.end(), id));
  reassignFixed(now);
  return used;
}

bool CpuScheduler::isRunning(int id) const {
  const Slot* s = findSlot(id);
  return s != nullptr && s->active;
}

bool CpuScheduler::wouldRunAt(int id, int rtPriority, SimTime now) {
  if (rtPriority > 0) {
    int ahead = 0;
    for (int other : m_fixed)
      if (slot(other).rtPriority >= rtPriority) ++ahead;
    return ahead < m_cpus;
  }
  if (m_yieldedAt == now && std::find(m_yielded.begin(), m_yielded.end(), id) != m_yielded.end())
    return true;
  settle(now);
  return freeCpus() > 0;
}

double CpuScheduler::usedSoFar(int id, SimTime now) const {
  const Slot* s = findSlot(id);
  if (s == nullptr || !s->active) return 0;
  return std::clamp(s->workS - s->remainingAt(now), 0.0, s->workS);
}

void CpuScheduler::addKernelWork(int thread, double workS, SimTime now) {
  if (!(workS > 0)) return;
  const int id = kernelThreadId(thread);
  settle(now);
  Slot& s = slot(id);
  if (s.active) {
    // More work for a thread that has some: if it is on a CPU its completion only moves
    // later (the caller finds that out when the earlier one is due).
    s.workS += workS;
    return;
  }
  // An idle thread is woken once it has a quantum of work: IO completions of a fast disk
  // cost a microsecond each, and a CPU switch per completion would only cost events.
  s.pendingS += workS;
  if (s.pendingS < kKernelQuantumS) return;
  s.active = true;
  s.kind = Kind::Kernel;
  s.rtPriority = 0;
  s.workS = s.pendingS;
  s.pendingS = 0;
  s.doneS = 0;
  s.onCpu = false;
  m_fixed.push_back(id);
  reassignFixed(now);
  ++m_generation;
}

double CpuScheduler::kernelBacklog(SimTime now) const {
  double backlog = 0;
  for (const auto& s : m_kernelSlots) {
    backlog += s.pendingS;
    if (s.active) backlog += s.remainingAt(now);
  }
  return backlog;
}

std::optional<std::pair<SimTime, int>> CpuScheduler::nextCompletion(SimTime now) {
  settle(now);
  std::optional<std::pair<SimTime, int>> best;
  cleanEvents();
  if (!m_events.empty()) {
    const EventEntry& e = m_events.front();
    const Slot& s = slot(e.id);
    const SimTime at{SimDuration{e.time}};
    const bool sliceEnds = at < addSeconds(s.since, s.workS - s.doneS);
    best = std::pair{at, sliceEnds ? kSliceEnd : e.id};
  }
  for (int id : m_fixed) {
    const Slot& s = slot(id);
    if (!s.onCpu) continue;
    const SimTime at = addSeconds(s.since, s.workS - s.doneS);
    if (!best || at < best->first) best = std::pair{at, id};
  }
  return best;
}

double CpuScheduler::complete(int id, SimTime now) {
  if (id == kSliceEnd) {
    settle(now);
    // task_tick_fair() / check_preempt_tick(): at the end of its slice a task gives its CPU
    // to the queued task with the least virtual runtime if that is behind it; otherwise it
    // runs another slice.
    for (;;) {
      cleanEvents();
      if (m_events.empty()) break;
      const EventEntry e = m_events.front();
      Slot& s = slot(e.id);
      const SimTime at{SimDuration{e.time}};
      if (at > now || !(at < addSeconds(s.since, s.workS - s.doneS))) break;
      std::pop_heap(m_events.begin(), m_events.end(), EventLater{});
      m_events.pop_back();
      cleanQueue();
      if (!m_queue.empty() && m_queue.front().vruntime < vruntimeAt(s, now)) {
        preemptNormal(e.id, now);
        fillCpus(now);
      } else {
        // Keep running: account what it ran, start a new slice.
        const double ran = std::min(secondsBetween(s.since, now), s.workS - s.doneS);
        s.doneS += ran;
        s.vruntime += ran * 1024.0 / s.weight;
        s.since = now;
        s.sliceEnd = addSeconds(now, sliceS(s));
        pushEvent(e.id);
      }
    }
    ++m_generation;
    return 0;
  }
  Slot& s = slot(id);
  if (!s.active) return 0;
  const double work = s.workS;
  ++m_generation;
  if (s.kind != Kind::Normal) {
    settle(now);
    s.active = false;
    s.onCpu = false;
    m_fixed.erase(std::find(m_fixed.begin(), m_fixed.end(), id));
    reassignFixed(now);
    return s.kind == Kind::Kernel ? 0 : work;
  }
  if (!m_yielded.empty() && m_yieldedAt != now) settle(now);
  s.vruntime += std::min(secondsBetween(s.since, now), s.workS - s.doneS) * 1024.0 / s.weight;
  s.doneS = s.workS;
  s.active = false;
  ++s.serial;
  --m_normalRunnable;
  m_normalWeight -= s.weight;
  // It keeps its CPU for this instant (settle() hands it on if it does not go on).
  m_yielded.push_back(id);
  m_yieldedAt = now;
  return work;
}

}  // namespace throttlelab::engine
