// SPDX-License-Identifier: GPL-3.0-or-later
// Periodic snapshots of a run, thinned by age, and rewinding to any moment by replay.
#include "throttlelab/engine/snapshot_store.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace throttlelab::engine {

SnapshotStore::SnapshotStore(SnapshotStoreOptions options) : m_options(options) {
  m_options.capacity = std::max<std::size_t>(m_options.capacity, 3);
  if (!(m_options.intervalS > 0)) m_options.intervalS = SnapshotStoreOptions{}.intervalS;
}

bool SnapshotStore::offer(const Simulator& sim) {
  if (!m_entries.empty() &&
      sim.now() < m_entries.back().snapshot.time() + seconds(m_options.intervalS))
    return false;
  add(sim.snapshot());
  return true;
}

void SnapshotStore::add(SimulatorSnapshot snapshot) {
  if (!m_entries.empty() && snapshot.time() < m_entries.back().snapshot.time())
    throw std::invalid_argument("SnapshotStore::add: a snapshot older than the newest held");
  m_entries.push_back({std::move(snapshot), m_changes.size()});
  thin();
}

void SnapshotStore::recordChange(SimTime at, const CheckedScenario& changed) {
  m_changes.push_back({at, changed});
}

void SnapshotStore::clear() {
  m_entries.clear();
  m_changes.clear();
}

std::vector<SimTime> SnapshotStore::times() const {
  std::vector<SimTime> out;
  out.reserve(m_entries.size());
  for (const auto& e : m_entries) out.push_back(e.snapshot.time());
  return out;
}

SimTime SnapshotStore::earliest() const {
  return m_entries.empty() ? SimTime{} : m_entries.front().snapshot.time();
}

void SnapshotStore::thin() {
  // Removing snapshot i leaves the gap t[i+1] - t[i-1] to be replayed for moments in it. The
  // one dropped is the one whose gap is smallest against how long ago it is: spacing then
  // grows in proportion to age (about as many snapshots per doubling of age), so the recent
  // past is reached by short replays and the whole run stays reachable.
  while (m_entries.size() > m_options.capacity) {
    const double now = toSeconds(m_entries.back().snapshot.time());
    std::size_t victim = 1;
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t i = 1; i + 1 < m_entries.size(); ++i) {
      const double before = toSeconds(m_entries[i - 1].snapshot.time());
      const double after = toSeconds(m_entries[i + 1].snapshot.time());
      const double cost = (after - before) / (now - after + m_options.intervalS);
      if (cost < best) {
        best = cost;
        victim = i;
      }
    }
    m_entries.erase(m_entries.begin() + static_cast<std::ptrdiff_t>(victim));
  }
}

Simulator SnapshotStore::rewind(SimTime t) const {
  const auto it = std::upper_bound(m_entries.begin(), m_entries.end(), t,
                                   [](SimTime x, const Entry& e) { return x < e.snapshot.time(); });
  if (it == m_entries.begin())
    throw std::out_of_range("no snapshot at or before " + std::to_string(toSeconds(t)) + " s");
  const Entry& from = *(it - 1);
  Simulator sim(from.snapshot);
  for (std::size_t c = from.changesBefore; c < m_changes.size() && m_changes[c].at <= t; ++c) {
    sim.runUntil(m_changes[c].at);
    sim.reconfigure(m_changes[c].scenario);
  }
  sim.runUntil(t);
  return sim;
}

}  // namespace throttlelab::engine
