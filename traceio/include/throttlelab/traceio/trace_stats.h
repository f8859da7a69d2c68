// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// What a trace says about the machine that wrote it, and a measured-versus-simulated
/// comparison. Measured and simulated runs go through the same TraceStats accumulator (the
/// simulation emits the same three records), so the comparison is like for like.
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "throttlelab/engine/records.h"
#include "throttlelab/engine/scenario.h"
#include "throttlelab/engine/units.h"

namespace throttlelab::traceio {

struct Distribution {
  std::int64_t count = 0;
  double p10 = 0, p50 = 0, p90 = 0, p99 = 0, max = 0, mean = 0;
};

struct TaskRate {
  int pid = 0;
  std::string comm;
  std::string bdi;                ///< the bdi of its first balance_dirty_pages record
  std::int64_t dirtiedPages = 0;  ///< sum of balance_dirty_pages `dirtied`
  double activeS = 0;             ///< first to last record of this pid
  double rateKBps = 0;            ///< dirtiedPages·4 / activeS
  std::int64_t pauses = 0;        ///< records with pause > 0
  std::uint64_t cgroupIno = 1;    ///< cgroup_ino of its first balance_dirty_pages record
};

/// The balance_dirty_pages records of one traced cgroup_ino (1 = the root cgroup).
struct CgroupTrace {
  std::int64_t records = 0;
  double dirtyPages = 0;  ///< median `dirty` (of the domain that set each pause)
  /// Median of 2·setpoint − limit: the freerun ceiling of the domain that set the pause (the
  /// kernel traces the global dirty_limit as `limit` and (limit + that domain's freerun)/2 as
  /// `setpoint`).
  double freerunPages = 0;
};

/// Accumulates over records (skip those before `fromS`, to leave out a warm-up).
/// Memory: bounded reservoirs for the distributions (sampled deterministically), a few
/// numbers per pid and per device.
class TraceStats {
 public:
  explicit TraceStats(double fromS = 0);
  void add(const engine::TraceRecord& record);

  struct Result {
    double spanS = 0;
    Distribution dirtyPages;         ///< global_dirty_state dirty + writeback
    Distribution dirtyOverSetpoint;  ///< balance_dirty_pages dirty / setpoint
    Distribution pauseMs;            ///< balance_dirty_pages pause, over pause > 0
    Distribution taskRatelimitKBps;
    Distribution dirtied;       ///< balance_dirty_pages `dirtied` (pages since the last check-in)
    Distribution dirtiedPause;  ///< balance_dirty_pages `dirtied_pause`
    /// Seconds a writer took per page it dirtied between two check-ins without a sleep
    /// between them (docs/model.md, The writers' copy speed from a trace): from the
    /// global_dirty_state that opened one balance_dirty_pages() call of a pid to the one that
    /// opened its next, over the `dirtied` of that next call's balance_dirty_pages record.
    Distribution dirtyingPageS;
    /// balance_dirty_pages records whose `dirtied` passed `dirtied_pause`: the check-in came
    /// late, at a folio boundary (docs/model.md, Large folios in the write path).
    std::int64_t overshootRecords = 0;
    Distribution overshootDirtied;  ///< `dirtied` of those records
    /// balance_dirty_pages records whose `dirtied` is divisible by 2^k (k = 0 … 9): a writer
    /// that checks in per folio dirties whole folios between two check-ins.
    std::array<std::int64_t, 10> dirtiedDivisibleBy{};
    std::int64_t balanceRecords = 0;
    engine::Pages threshPages = 0;                     ///< median `thresh` of global_dirty_state
    engine::Pages bgThreshPages = 0;                   ///< median `bg_thresh`
    engine::Pages limitPages = 0;                      ///< median `limit`
    std::map<std::string, double> writeBwKBps;         ///< per bdi: median awrite_bw
    std::map<std::string, double> dirtyRatelimitKBps;  ///< per bdi: median dirty_ratelimit
    /// A bdi's bandwidth state when the trace begins, from its first records: write_bw and
    /// awrite_bw of its first bdi_dirty_ratelimit (printed before that update changes them),
    /// and dirty_ratelimit of its first balance_dirty_pages or bdi_dirty_ratelimit record.
    struct WbStart {
      double writeBwKBps = 0;  ///< 0: no bdi_dirty_ratelimit record
      double avgWriteBwKBps = 0;
      double dirtyRatelimitKBps = 0;  ///< 0: no record of the bdi
    };
    std::map<std::string, WbStart> wbStart;
    /// The page cache when the trace begins: `dirty` and `writeback` of its first
    /// global_dirty_state (0 without one).
    engine::Pages startDirtyPages = 0;
    engine::Pages startWritebackPages = 0;
    /// Pages written back per second over the trace: the `written` counter of the first and
    /// the last global_dirty_state, over the time between them (0 with fewer than two).
    double writtenPagesPerS = 0;
    /// The disk's completion timeline (docs/model.md, A device that stalls, Eq. 66): one entry
    /// per run of global_dirty_state records with the same `written`, in seconds from the
    /// trace's first record (at most kMaxNoCompletionSpells runs).
    struct WrittenSpell {
      /// The run's first record: from here on nothing completed until `nextS`.
      double firstS = 0;
      /// The run's first record with `writeback` > 0 (a completion can empty the device; until
      /// the next one `writeback` only grows); negative: nothing was in flight.
      double inFlightFromS = -1;
      double lastS = 0;        ///< the run's last record
      double nextS = -1;       ///< the first record of the next value; negative: the trace ended
      std::int64_t pages = 0;  ///< how much `written` grew there: the burst that ended the run
    };
    std::vector<WrittenSpell> writtenSpells;
    /// Seconds with pages under writeback: the time from each global_dirty_state with
    /// `writeback` > 0 to the next one.
    double writebackBusyS = 0;
    /// Pages written back during the trace: the last `written` less the first.
    std::int64_t writtenPages = 0;
    std::vector<TaskRate> tasks;                   ///< pids that called balance_dirty_pages, by pid
    std::map<std::uint64_t, CgroupTrace> cgroups;  ///< by traced cgroup_ino
    int writers = 0;                               ///< tasks.size()
    int hz = 0;  ///< guessed from the pause granularity (100/250/300/1000), 0 unknown
    std::int64_t records = 0;
    /// The first global_dirty_state had dirty + writeback above bg_thresh: the writers were
    /// already running when tracing began.
    bool startsBusy = false;
  };
  Result result() const;

 private:
  struct State;
  std::shared_ptr<State> m_state;
};

/// deriveScenario() takes the writers' copy speed from a trace with at least this many
/// intervals between check-ins without a sleep (Result::dirtyingPageS).
inline constexpr std::int64_t kMinDirtyingIntervals = 20;

/// The shortest stall deriveScenario() gives a device, and how many runs of `written`
/// TraceStats keeps at most (a 30 s trace of this machine has about 10,000).
inline constexpr double kMinNoCompletionS = 1e-4;
inline constexpr std::size_t kMaxNoCompletionSpells = 1'000'000;

/// The host facts "Simulate this trace" can use when the trace was taken on this machine.
struct HostFacts {
  int cpus = 0;                ///< 0 = unknown
  std::int64_t memoryMiB = 0;  ///< 0 = unknown
  int hz = 0;                  ///< 0 = unknown
  /// A traced bdi's request queue on this host (host::readBlockQueue), by the trace's name.
  struct Queue {
    int maxRequestKiB = 0;  ///< max_sectors_kb; 0 = unknown
    int nrRequests = 0;     ///< 0 = unknown
  };
  std::map<std::string, Queue> queues;
};

/// The longest simulation deriveScenario asks for: an hour, and no more writer-seconds than
/// 10,000 writers for a minute (about 3 s of CPU, the engine's speed target), but at least
/// 10 s. A longer trace is compared over that much simulated time.
inline constexpr double kMaxSimulatedS = 3600;
inline constexpr double kMaxSimulatedWriterSeconds = 600'000;
inline constexpr double kMinSimulatedS = 10;

/// A scenario for the machine the trace describes: vm.dirty_bytes / dirty_background_bytes
/// from the traced thresh/bg_thresh, one device per bdi at its measured write bandwidth, as
/// many looping dd writers as pids that were throttled (each on the bdi it wrote to), CPUs,
/// memory and HZ from `host` when known (otherwise the traced hz and defaults), policy
/// "ioless"; a memory cgroup per traced cgroup_ino other than 1, its writers in it, with a
/// memory.max derived from its domain's traced freerun when that was below the global one (see
/// the notes); the duration is the trace's span, at most kMaxSimulatedS (see there). `notes`
/// lists every value that was derived, and how, for the comparison panel. Throws
/// engine::ScenarioError when the trace describes a machine the simulator cannot run (more
/// than 100,000 writers, a threshold above 16 TiB, ...); `notes` then says how its values came
/// about.
engine::Scenario deriveScenario(const TraceStats::Result& measured, const HostFacts& host,
                                std::vector<std::string>* notes = nullptr);

/// How long to simulate before the compared span, which the comparison then leaves out. A
/// trace that begins with dirty pages above bg_thresh was taken with the writers running and
/// the kernel's estimates long settled; the simulation starts from an empty page cache, and
/// its smoothed write bandwidth (wb_update_write_bandwidth(); docs/model.md, Eq. 20–21, a moving
/// average over about 4 s) needs about 20 s to reach the device's speed, so that start-up is
/// simulated first. A trace that begins quiet is compared from the simulation's start, and so
/// is one that shows every bdi's bandwidth state (startsFromTracedState()): the simulated
/// devices then start from that state, and only the page cache has to fill (milliseconds).
inline constexpr double kBusyTraceWarmupS = 20;
double simulationWarmupS(const TraceStats::Result& measured);
/// Every traced bdi has a bdi_dirty_ratelimit record, so deriveScenario() starts each device
/// from the bandwidth state the trace shows (DeviceConfig::initial*KBps).
bool startsFromTracedState(const TraceStats::Result& measured);

/// One row of the measured-versus-simulated comparison.
struct ComparisonRow {
  std::string metric;  ///< "dirty pages p50", "pause p90 (ms)", "rate per task p50 (KB/s)"…
  double measured = 0;
  double simulated = 0;
  /// engine::percentChange(simulated, measured): (simulated − measured) / |measured| · 100;
  /// 0 when both are 0, none when only measured is 0.
  std::optional<double> offPct;
};
std::vector<ComparisonRow> compare(const TraceStats::Result& measured,
                                   const TraceStats::Result& simulated);

}  // namespace throttlelab::traceio
