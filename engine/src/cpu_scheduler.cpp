// SPDX-License-Identifier: GPL-3.0-or-later
#include "cpu_scheduler.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

namespace throttlelab::engine {

namespace {
// sched_prio_to_weight[] of CFS: each nice step changes the share by about 10 %.
constexpr std::array<int, 40> kNiceWeights = {
    88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916,
    9548,  7620,  6100,  4904,  3906,  3121,  2501,  1991,  1586,  1277,
    1024,  820,   655,   526,   423,   335,   272,   215,   172,   137,
    110,   87,    70,    56,    45,    36,    29,    23,    18,    15};

SimTime addSeconds(SimTime t, double s) {
  if (!(s > 0)) return t;
  const double ns = std::ceil(s * 1e9);
  if (ns > 9e18) return SimTime::max();
  return t + SimDuration{static_cast<std::int64_t>(ns)};
}
}  // namespace

int niceToWeight(int nice) { return kNiceWeights.at(static_cast<std::size_t>(std::clamp(nice, -20, 19) + 20)); }

CpuScheduler::CpuScheduler(int cpus) : m_cpus(std::max(cpus, 1)), m_weightCount(40, 0) {
  m_freeCpus = m_cpus;
}

CpuScheduler::TaskSlot& CpuScheduler::slot(int id) {
  if (id < 0) throw std::out_of_range("CpuScheduler: negative task id");
  if (static_cast<std::size_t>(id) >= m_slots.size()) m_slots.resize(static_cast<std::size_t>(id) + 1);
  return m_slots[static_cast<std::size_t>(id)];
}

void CpuScheduler::advance(SimTime now) {
  if (now <= m_last) return;
  const double dt = toSeconds(now - m_last);
  m_v += m_rho * dt;
  for (int id : m_rt) {
    auto& s = m_slots[static_cast<std::size_t>(id)];
    if (s.rtOnCpu) s.rtRemaining = std::max(0.0, s.rtRemaining - dt);
  }
  m_last = now;
}

void CpuScheduler::reassignRt(SimTime now) {
  (void)now;
  // Highest priority first; equal priorities keep their arrival order (FIFO).
  std::stable_sort(m_rt.begin(), m_rt.end(), [this](int a, int b) {
    return m_slots[static_cast<std::size_t>(a)].rtPriority > m_slots[static_cast<std::size_t>(b)].rtPriority;
  });
  int onCpu = 0;
  for (int id : m_rt) {
    auto& s = m_slots[static_cast<std::size_t>(id)];
    s.rtOnCpu = onCpu < m_cpus;
    if (s.rtOnCpu) ++onCpu;
  }
  m_freeCpus = m_cpus - onCpu;
}

void CpuScheduler::recomputeRate() {
  if (m_normalRunnable == 0 || m_freeCpus <= 0) {
    m_rho = 0;
  } else {
    int maxWeight = 0;
    for (std::size_t i = 0; i < m_weightCount.size(); ++i) {
      if (m_weightCount[i] > 0) {
        maxWeight = kNiceWeights[i];
        break;  // lower nice = higher weight comes first
      }
    }
    const double fair = static_cast<double>(m_freeCpus) / static_cast<double>(m_totalWeight);
    m_rho = std::min(fair, 1.0 / static_cast<double>(maxWeight));
  }
  ++m_generation;
}

void CpuScheduler::setCpus(int cpus, SimTime now) {
  advance(now);
  m_cpus = std::max(cpus, 1);
  reassignRt(now);
  recomputeRate();
}

void CpuScheduler::start(int id, double workS, int rtPriority, int nice, SimTime now) {
  advance(now);
  auto& s = slot(id);
  if (s.active) throw std::logic_error("CpuScheduler: task started twice");
  s.active = true;
  s.workS = std::max(workS, 0.0);
  s.rt = rtPriority > 0;
  if (s.rt) {
    s.rtPriority = rtPriority;
    s.rtRemaining = s.workS;
    m_rt.push_back(id);
    reassignRt(now);
  } else {
    s.weight = niceToWeight(nice);
    s.startV = m_v;
    s.finishV = m_v + s.workS / s.weight;
    s.serial = ++m_serial;
    m_heap.push({s.finishV, id, s.serial});
    ++m_normalRunnable;
    m_totalWeight += s.weight;
    ++m_weightCount[static_cast<std::size_t>(std::clamp(nice, -20, 19) + 20)];
  }
  recomputeRate();
}

double CpuScheduler::cancel(int id, SimTime now) {
  advance(now);
  auto& s = slot(id);
  if (!s.active) return 0;
  double used = 0;
  s.active = false;
  if (s.rt) {
    used = s.workS - s.rtRemaining;
    m_rt.erase(std::find(m_rt.begin(), m_rt.end(), id));
    s.rtOnCpu = false;
    reassignRt(now);
  } else {
    used = std::clamp((m_v - s.startV) * s.weight, 0.0, s.workS);
    --m_normalRunnable;
    m_totalWeight -= s.weight;
    for (std::size_t i = 0; i < kNiceWeights.size(); ++i) {
      if (kNiceWeights[i] == s.weight) {
        --m_weightCount[i];
        break;
      }
    }
    s.serial = 0;  // its heap entry is now stale
  }
  recomputeRate();
  return used;
}

bool CpuScheduler::isRunning(int id) const {
  return id >= 0 && static_cast<std::size_t>(id) < m_slots.size() &&
         m_slots[static_cast<std::size_t>(id)].active;
}

double CpuScheduler::normalShare() const { return m_rho * 1024.0; }

std::optional<std::pair<SimTime, int>> CpuScheduler::nextCompletion(SimTime now) {
  advance(now);
  std::optional<std::pair<SimTime, int>> best;
  while (!m_heap.empty()) {
    const auto& top = m_heap.top();
    const auto& s = m_slots[static_cast<std::size_t>(top.id)];
    if (s.active && !s.rt && s.serial == top.serial) break;
    m_heap.pop();  // stale entry of a cancelled or completed piece
  }
  if (!m_heap.empty() && m_rho > 0) {
    const auto& top = m_heap.top();
    best = std::pair{addSeconds(now, (top.finishV - m_v) / m_rho), top.id};
  }
  for (int id : m_rt) {
    const auto& s = m_slots[static_cast<std::size_t>(id)];
    if (!s.rtOnCpu) continue;
    const SimTime t = addSeconds(now, s.rtRemaining);
    if (!best || t < best->first) best = std::pair{t, id};
  }
  return best;
}

double CpuScheduler::complete(int id, SimTime now) {
  advance(now);
  auto& s = slot(id);
  if (!s.active) return 0;
  const double work = s.workS;
  cancel(id, now);
  return work;
}

}  // namespace throttlelab::engine
