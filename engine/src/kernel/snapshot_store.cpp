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
  // Room first, for one about as big as the newest, so that the copy does not briefly hold
  // the budget and one more (the peak the window's memory is measured by).
  if (!m_entries.empty()) thin(Incoming{sim.now(), m_entries.back().bytes});
  add(sim.snapshot());
  return true;
}

void SnapshotStore::add(SimulatorSnapshot snapshot) {
  if (!m_entries.empty() && snapshot.time() < m_entries.back().snapshot.time())
    throw std::invalid_argument("SnapshotStore::add: a snapshot older than the newest held");
  const std::size_t bytes = snapshot.bytes();
  m_entries.push_back({std::move(snapshot), m_changes.size(), bytes});
  m_bytes += bytes;
  thin(std::nullopt);
}

void SnapshotStore::recordChange(SimTime at, const CheckedScenario& changed) {
  m_changes.push_back({at, changed});
}

void SnapshotStore::setOrigin(Scenario scenario) {
  m_origin = std::move(scenario);
}

void SnapshotStore::clear() {
  m_entries.clear();
  m_changes.clear();
  m_bytes = 0;
  m_origin.reset();
}

std::vector<SimTime> SnapshotStore::times() const {
  std::vector<SimTime> out;
  out.reserve(m_entries.size());
  for (const auto& e : m_entries) out.push_back(e.snapshot.time());
  return out;
}

SimTime SnapshotStore::earliest() const {
  return m_entries.empty() || m_origin ? SimTime{} : m_entries.front().snapshot.time();
}

void SnapshotStore::thin(std::optional<Incoming> incoming) {
  // Removing snapshot i leaves the gap t[i+1] - t[i-1] to be replayed for moments in it. The
  // one dropped is the one whose gap is smallest against how long ago it is: spacing then
  // grows in proportion to age (about as many snapshots per doubling of age), so the recent
  // past is reached by short replays and the whole run stays reachable. The byte budget drops
  // by the same rule, so a budget that holds fewer snapshots spreads them the same way. With an
  // origin the oldest may go too: the start (time 0) stands before it.
  // An incoming snapshot counts as the newest, so the one now newest may make room for it.
  const auto count = [&] { return m_entries.size() + (incoming ? 1 : 0); };
  const auto timeOf = [&](std::size_t i) {
    return toSeconds(i < m_entries.size() ? m_entries[i].snapshot.time() : incoming->at);
  };
  while (overBound(count(), m_bytes + (incoming ? incoming->bytes : 0))) {
    const double now = timeOf(count() - 1);
    const std::size_t first = m_origin ? 0 : 1;
    std::size_t victim = first;
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t i = first; i + 1 < count(); ++i) {
      const double before = i == 0 ? 0.0 : timeOf(i - 1);
      const double after = timeOf(i + 1);
      const double cost = (after - before) / (now - after + m_options.intervalS);
      if (cost < best) {
        best = cost;
        victim = i;
      }
    }
    m_bytes -= m_entries[victim].bytes;
    m_entries.erase(m_entries.begin() + static_cast<std::ptrdiff_t>(victim));
  }
}

bool SnapshotStore::overBound(std::size_t count, std::size_t bytes) const {
  // The newest stays, and the oldest (the reach) unless the origin reaches further.
  if (count <= (m_origin ? 1U : 2U)) return false;
  return count > m_options.capacity || bytes > m_options.budgetBytes;
}

Simulator SnapshotStore::rewind(SimTime t) const {
  const auto it = std::upper_bound(m_entries.begin(), m_entries.end(), t,
                                   [](SimTime x, const Entry& e) { return x < e.snapshot.time(); });
  if (it == m_entries.begin()) {
    if (!m_origin || t < SimTime{})
      throw std::out_of_range("no snapshot at or before " + std::to_string(toSeconds(t)) + " s");
    return replay(Simulator(*m_origin), 0, t);
  }
  const Entry& from = *(it - 1);
  return replay(Simulator(from.snapshot), from.changesBefore, t);
}

Simulator SnapshotStore::replay(Simulator sim, std::size_t firstChange, SimTime t) const {
  for (std::size_t c = firstChange; c < m_changes.size() && m_changes[c].at <= t; ++c) {
    sim.runUntil(m_changes[c].at);
    sim.reconfigure(m_changes[c].scenario);
  }
  sim.runUntil(t);
  return sim;
}

}  // namespace throttlelab::engine
