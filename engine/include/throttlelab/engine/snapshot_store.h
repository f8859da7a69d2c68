// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Snapshots of one run taken as it goes, in bounded memory (a byte budget), so that any past
/// moment of it can be reached again: restore the nearest snapshot at or before that moment
/// and replay to it (the changes the run was given live are replayed at their times too).
/// Used to branch a run: go back, change something, and let the other future run beside the
/// first.
#include <cstddef>
#include <optional>
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
  /// At most this many bytes are held (SimulatorSnapshot::bytes()); past that, snapshots are
  /// dropped as for `capacity`. The newest is always kept, and the oldest too unless the store
  /// has an origin (setOrigin()), so a snapshot bigger than the budget is held anyway. offer()
  /// makes room before it copies, for a snapshot as big as the newest, so that the copy too
  /// stays within the budget (unless the state has grown since).
  std::size_t budgetBytes = kDefaultBudgetBytes;

  /// 64 MiB: see budgetFor().
  static constexpr std::size_t kDefaultBudgetBytes = std::size_t{64} << 20;
  /// The budget for a machine with `memTotalBytes` of memory (MemTotal): kDefaultBudgetBytes,
  /// or 1/32 of the memory where that is less (32 MiB on 1 GiB).
  /// Why 64 MiB: the window's target for an hour of 1,000 writers with every sample kept is
  /// 300 MiB in all, and without snapshots it already holds about 213 MiB then (Qt and the
  /// window 53 MiB, the run's history and plots 160 MiB; bench/gui_bench.cpp), which leaves
  /// about 87 MiB: 64 MiB and the allocator's slack (the window then peaks at about 287 MiB).
  /// 64 MiB holds 10 snapshots of 1,000 writers (about 6 MiB each), 48 of 100, and one of
  /// 10,000 (about 47 MiB), with the start reached from the scenario itself (setOrigin()).
  /// It is 1.6 % of a 4 GiB desktop, less of anything bigger; 1/32 keeps a smaller machine
  /// at 3 %.
  static constexpr std::size_t budgetFor(std::size_t memTotalBytes) {
    return memTotalBytes / 32 < kDefaultBudgetBytes ? memTotalBytes / 32 : kDefaultBudgetBytes;
  }
};

class SnapshotStore {
 public:
  explicit SnapshotStore(SnapshotStoreOptions options = {});

  /// Takes a snapshot of `sim` if none was taken in the last intervalS (always the first
  /// time). Returns whether it took one.
  bool offer(const Simulator& sim);
  /// Keeps `snapshot` (a moment after every other it holds), thinning if over capacity or
  /// budget.
  void add(SimulatorSnapshot snapshot);
  /// The run was reconfigured live at sim.now() (after the snapshots taken so far): a rewind
  /// past this moment applies it again at the same point.
  void recordChange(SimTime at, const CheckedScenario& changed);
  /// The run was made as Simulator(scenario), from time 0: a rewind to a moment before the
  /// oldest snapshot starts again from there (and replays the live changes), so the snapshot
  /// of the start may be dropped like any other and the whole run stays reachable with only
  /// the newest held. Without an origin the oldest snapshot is kept for that. Call it for a
  /// run that starts from a scenario, not for one that goes on from a snapshot.
  void setOrigin(Scenario scenario);
  /// Forgets everything (a new run), the origin too.
  void clear();

  std::size_t size() const { return m_entries.size(); }
  /// The bytes the snapshots held take (the sum of their SimulatorSnapshot::bytes()).
  std::size_t bytes() const { return m_bytes; }
  const SnapshotStoreOptions& options() const { return m_options; }
  bool empty() const { return m_entries.empty(); }
  /// The times of the snapshots held, oldest first.
  std::vector<SimTime> times() const;
  /// The earliest moment a rewind can reach (0 with an origin, else the oldest snapshot; 0
  /// when empty).
  SimTime earliest() const;

  /// A simulator exactly at time `t` of the recorded run (what it was at `t`, bit for bit):
  /// the latest snapshot at or before `t`, with the live changes made since, run on to `t`.
  /// It has no sink. Throws std::out_of_range if `t` is before earliest().
  Simulator rewind(SimTime t) const;

 private:
  struct Entry {
    SimulatorSnapshot snapshot;
    std::size_t changesBefore = 0;  ///< m_changes applied when it was taken
    std::size_t bytes = 0;          ///< snapshot.bytes()
  };
  struct Change {
    SimTime at{};
    CheckedScenario scenario;
  };
  /// A snapshot about to be taken: at `at`, of about `bytes`.
  struct Incoming {
    SimTime at{};
    std::size_t bytes = 0;
  };
  /// Drops the one snapshot whose loss lengthens the replay least relative to its age (never
  /// the newest, nor the oldest without an origin), until at most `capacity` remain within
  /// `budgetBytes`; with `incoming`, counting it in as the newest.
  void thin(std::optional<Incoming> incoming);
  bool overBound(std::size_t count, std::size_t bytes) const;
  /// `sim` with the live changes from `firstChange` on applied at their times, run to `t`.
  Simulator replay(Simulator sim, std::size_t firstChange, SimTime t) const;

  SnapshotStoreOptions m_options;
  std::vector<Entry> m_entries;
  std::vector<Change> m_changes;
  std::size_t m_bytes = 0;           ///< of m_entries
  std::optional<Scenario> m_origin;  ///< setOrigin()
};

}  // namespace throttlelab::engine
