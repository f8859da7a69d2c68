// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Snapshots of one run taken as it goes, in bounded memory, so that any past moment of it can
/// be reached again: restore the nearest snapshot at or before that moment and replay to it
/// (the changes the run was given live are replayed at their times too). Used to branch a run:
/// go back, change something, and let the other future run beside the first.
#include <cstddef>
#include <vector>

#include "throttlelab/engine/sim_time.h"
#include "throttlelab/engine/simulator.h"

namespace throttlelab::engine {

struct SnapshotStoreOptions {
  /// A snapshot is due every intervalS of simulated time (offer()). Ten seconds: with 1,000
  /// writers a snapshot costs about as much as simulating a second, so one a second would
  /// double the run's cost; at ten it adds about a tenth, and reaching a moment between two
  /// snapshots replays at most ten seconds (tens of milliseconds), still well within a frame
  /// or two of "Branch here" (bench/snapshot_bench.cpp).
  double intervalS = 10.0;
  /// At most this many are held. Past that, one is dropped where the run is densest relative
  /// to its age (dense recently, sparse long ago; see thin()). At least 3.
  std::size_t capacity = 48;
};

class SnapshotStore {
 public:
  explicit SnapshotStore(SnapshotStoreOptions options = {});

  /// Takes a snapshot of `sim` if none was taken in the last intervalS (always the first
  /// time). Returns whether it took one.
  bool offer(const Simulator& sim);
  /// Keeps `snapshot` (a moment after every other it holds), thinning if over capacity.
  void add(SimulatorSnapshot snapshot);
  /// The run was reconfigured live at sim.now() (after the snapshots taken so far): a rewind
  /// past this moment applies it again at the same point.
  void recordChange(SimTime at, const CheckedScenario& changed);
  /// Forgets everything (a new run).
  void clear();

  std::size_t size() const { return m_entries.size(); }
  bool empty() const { return m_entries.empty(); }
  /// The times of the snapshots held, oldest first.
  std::vector<SimTime> times() const;
  /// The earliest moment a rewind can reach (the oldest snapshot); 0 when empty.
  SimTime earliest() const;

  /// A simulator exactly at time `t` of the recorded run (what it was at `t`, bit for bit):
  /// the latest snapshot at or before `t`, with the live changes made since, run on to `t`.
  /// It has no sink. Throws std::out_of_range if `t` is before the oldest snapshot.
  Simulator rewind(SimTime t) const;

 private:
  struct Entry {
    SimulatorSnapshot snapshot;
    std::size_t changesBefore = 0;  ///< m_changes applied when it was taken
  };
  struct Change {
    SimTime at{};
    CheckedScenario scenario;
  };
  /// Drops the one snapshot whose loss lengthens the replay least relative to its age (never
  /// the oldest or the newest), until at most `capacity` remain.
  void thin();

  SnapshotStoreOptions m_options;
  std::vector<Entry> m_entries;
  std::vector<Change> m_changes;
};

}  // namespace throttlelab::engine
