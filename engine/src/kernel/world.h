// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The simulated kernel's state that policies, the flusher and the simulator share.
// Internal to the engine: the public API only exposes values (records.h).
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <set>
#include <vector>

#include "bandwidth_estimator.h"
#include "block_device.h"
#include "dirty_limits.h"
#include "flex_proportions.h"
#include "fs/file_system.h"
#include "page_cache.h"
#include "pause_histogram.h"
#include "position_control.h"
#include "throttlelab/engine/records.h"
#include "throttlelab/engine/scenario.h"

namespace throttlelab::engine {

/// Jiffies are counted from an offset so that 0 can mean "never" (dirty_paused_when).
inline constexpr std::int64_t kJiffiesOffset = 1'000'000;

/// What a task does when its current piece of CPU work completes.
enum class AfterCpu : std::uint8_t {
  CopyBegin,  ///< it waited for a CPU and copied the first page of a piece: copy the rest
  Write,      ///< it copied a piece of a write(): account it, maybe call balance()
  Balance,    ///< it submitted writeback itself (IO-ful policies): go round the balance() loop
  Anon,       ///< it touched anonymous memory or computed (Compiler/Allocator)
  Alloc,      ///< it scanned in direct reclaim: retry the allocation
};

/// Phases of a Compiler/Allocator run.
enum class AnonPhase : std::uint8_t { Allocate, Compute, WriteObject, Hold };

struct alignas(64) Task {
  // Hot fields first, together, from a cache-line boundary: with 10,000 writers the table is
  // ~18 MB, and a wake, a balance() pass and a sample then touch four adjacent lines of their
  // task (info, the fields below, the pause histogram's header) instead of a line in each of
  // a dozen places.
  TaskInfo info;
  TaskState state = TaskState::NotStarted;
  std::uint32_t generation = 0;  ///< invalidates pending events when the task is removed
  bool removed = false;
  bool balanceBlocked = false;  ///< this call wrote back or waited: its duration is the delay
  AfterCpu afterCpu = AfterCpu::Write;
  bool lessThrottle = false;  ///< spec.lessThrottle, kept here for globalView()
  // balance_dirty_pages state of struct task_struct
  Pages nrDirtied = 0;
  Pages nrDirtiedPause = 32;
  std::int64_t dirtyPausedWhen = 0;  ///< jiffies, 0 = never paused
  std::int64_t balanceStart = 0;     ///< jiffies at the start of the ongoing balance() call
  Pages balancePages = 0;            ///< pages_dirtied of the ongoing call
  double taskRatelimit = 0;          ///< pages/s, last computed
  double systemS = 0;
  double userS = 0;
  /// Kernel work done off the CPU model (a throttle pass, a reclaim scan before a wait): added
  /// to the next piece. Every balance() pass adds to it, so it sits with the hot fields.
  double owedSystemS = 0;
  double pausedS = 0;
  double intervalMaxPauseMs = 0;
  Pages dirtiedTotal = 0;
  Pages dirtiedAtSample = 0;
  std::int64_t firstSnapshot =
      -1;  ///< the first sample that saw it started (Kernel::m_recentDirtied)
  PauseHistogram pauses;

  // --- the rest: touched by the IO-ful loop, anonymous memory, or once per run ---
  int file = -1;             ///< the file of the current run
  Pages runLeft = 0;         ///< pages still to write in this dd run
  Pages seededPages = 0;     ///< of its first run, pages in the cache at the start (Eq. 68)
  Pages blockLeft = 0;       ///< pages left in the current block (think time between blocks)
  Pages piece = 0;           ///< pages of the CPU piece being copied
  Pages pieceAllocated = 0;  ///< page-cache pages already allocated for that piece
  SimTime runStart{};

  // loop state of policies whose balance() writes back and waits (IO-ful)
  int balancePhase = 0;             ///< policy-defined step of the loop
  Pages balanceWritten = 0;         ///< pages written back in this call
  std::int64_t balanceBackoff = 0;  ///< jiffies, the doubling sleep of 2.6.3x
  SimTime balanceCallStart{};
  Pages writebackLeft = 0;  ///< a Writeback action in progress
  Pages writebackSubmitted = 0;
  int writebackFile = -1;   ///< the inode this task is writing back
  bool submitting = false;  ///< counted in DeviceState::submitters
  int batchRequests = 0;    ///< ioc_batching: requests it may still allocate past the limit
  SimTime batchUntil{};
  Pages lastWriteback = 0;       ///< pages the last Writeback action submitted
  bool balanceExceeded = false;  ///< the loop's local dirty_exceeded (2.6.3x IO-ful)
  bool copying = false;          ///< counted in the per-CPU copier count (perCpuRatelimit)
  bool holdsCpu = false;         ///< on a CPU for its next piece (it waited for one, or for memory)
  bool firstPageCopied = false;  ///< the next piece's first page is already copied

  // anonymous memory (Compiler, Allocator)
  AnonPhase anonPhase = AnonPhase::Allocate;
  Pages anonLeft = 0;       ///< pages still to allocate in this run
  Pages rss = 0;            ///< resident anonymous pages
  Pages swapWb = 0;         ///< anonymous pages being written to swap (still resident)
  Pages swapped = 0;        ///< anonymous pages in swap
  double computeLeftS = 0;  ///< CPU seconds of computation left in this run
  double faultCarry = 0;    ///< fractional major faults carried between slices
  Pages swapInPending = 0;  ///< pages of a swap-in read in flight
  SimTime allocPhaseStart{};

  // page allocation that had to wait (direct reclaim)
  Pages allocNeed = 0;  ///< pages the task is waiting for
  bool allocWaiting = false;
  bool memcgWaiting = false;     ///< the wait is for room under its memory cgroup's limit
  bool inMemoryWaiters = false;  ///< has an entry in Kernel::m_memoryWaiters
  SimTime allocStart{};
  int reclaimNoProgress = 0;       ///< no_progress_loops of __alloc_pages_slowpath()
  std::int64_t reclaimRounds = 0;  ///< direct-reclaim rounds it has gone through
  std::int64_t reclaimedSeen = 0;  ///< Memory::pgsteal at its last reclaim round
  PauseHistogram allocLatency;
  std::int64_t allocStalls = 0;
  bool oomKilled = false;
  double pieceSystemS = 0;  ///< of the current CPU piece, the kernel part
  double pieceUserS = 0;

  // statistics
  std::int64_t propCount =
      0;  ///< task proportion (docs/model.md, Eq. 15): recent dirtied pages (aged)
  std::int64_t propPeriod = 0;
  double cpuS = 0;
  std::int64_t runs = 0;
  double lastRunS = 0;
  double startedS = -1;
  double exitedS = -1;

  // the file system (engine/src/fs/journal.cpp): uncached reads, journal waits
  /// Read: an uncached read; Shadow: the atime update's get_write_access() on a BJ_Shadow
  /// buffer; Commit: fsync()'s commit; Locked / LockedAtime: write()'s or the atime update's
  /// handle in start_this_handle() while a commit locks the transaction down.
  enum class FsWait : std::uint8_t { None, Read, Shadow, Commit, Locked, LockedAtime };
  FsWait fsWait = FsWait::None;
  bool readDoneThisRun = false;  ///< this run's read (and its atime update) is behind it
  bool fsyncDone = false;        ///< this run's fsync() returned
  Pages readLeft = 0;            ///< pages of the current read still to request
  std::int64_t readLba = 0;      ///< disk address of its next readahead window
  int readInode = -1;            ///< the file it reads (an inode number of its own)
  InodeTimes readTimes;
  SimTime readStart{};
  SimTime journalWaitStart{};
  PauseHistogram readLatency;     ///< ms per read (TaskSpec::readKiB), queueing included
  double readWaitS = 0;           ///< total time in uncached reads
  double journalWaitS = 0;        ///< total time in journal_start/get_write_access and fsync
  std::int64_t journalWaits = 0;  ///< how many of those waits there were
  double writeHandleWaitS = 0;    ///< of journalWaitS: write()'s handles waiting for a lock-down
  std::int64_t mtimeTick = -1;    ///< jiffy of its file's last mtime update (file_update_time())
  bool handleStarted = false;     ///< this piece's handle was granted after a wait
  TaskSpec spec;                  ///< copy of its group's spec (live-updated)
};

struct Flusher {
  std::deque<int> io;           ///< b_io: files queued for this pass
  bool congestionWait = false;  ///< pdflush: waiting for the queue to decongest
  bool active = false;
  bool backgroundRequested = false;
  Pages reclaimPages = 0;        ///< pages reclaim asked to have written, whatever the
                                 ///< thresholds (wakeup_flusher_threads(WB_REASON_VMSCAN))
  bool kupdateDue = false;       ///< the periodic timer fired: write expired inodes
  bool scheduled = false;        ///< a FlusherRun event is pending
  bool waitingForInode = false;  ///< every queued inode is under I_SYNC: wait for one
  int blockedFile = -1;          ///< waiting for a request slot to submit the rest
  Pages blockedPages = 0;
  std::int64_t blockedOffset = 0;
  SimTime lastOldFlush{};
  std::uint32_t timerGeneration = 0;
};

struct DeviceState {
  BlockDevice device;
  WbBandwidth bw;
  Pages reclaimable = 0;  ///< WB_RECLAIMABLE: dirty pages of this bdi
  Pages writeback = 0;    ///< WB_WRITEBACK
  Pages dirtied = 0;      ///< WB_DIRTIED, cumulative
  Pages written = 0;      ///< WB_WRITTEN, cumulative
  bool dirtyExceeded = false;
  Flusher flusher;
  std::set<std::pair<SimTime, int>> dirtyFiles;  ///< b_dirty ordered by dirtied_when
  std::set<std::pair<SimTime, int>>
      dirtyUnowned;  ///< those no dirtier is writing back (I_SYNC clear)
  std::uint32_t completionGeneration = 0;
  SimTime scheduledCompletion{};  ///< completion time a DeviceDone event is pending for
  std::int64_t tracedIssues = 0;  ///< requests whose block_rq_issue has been traced
  std::int64_t allocCursor = 0;   ///< next free block (in pages) for delayed allocation
  std::deque<int>
      slotWaiters;  ///< waiting for a request slot: task ids, -1 = the flusher, -2 = kswapd
  std::int64_t slotWakeups = 0;        ///< entries taken off slotWaiters so far
  std::vector<int> congestionWaiters;  ///< tasks in congestion_wait()
  int submitters = 0;                  ///< tasks writing back to this device right now
  // 2.6.24 per-task dirtying proportions (docs/model.md, Eq. 15), lazily aged per task
  std::int64_t taskEventsTotal = 0;
  // sample-interval bookkeeping
  DeviceCounters atSample{};
  SimDuration busyAtSample{};
  double lastPosRatio = 0;
  std::int64_t lastMaxPause = 0;

  FileSystem fs;  ///< the file system on this device (engine/src/fs)

  DeviceState(const DeviceConfig& c, std::uint64_t seed) : device(c, seed), fs(c) {}
};

struct Memory {
  Pages total = 0;
  Pages free = 0;
  Pages file = 0;  ///< page cache: clean + dirty + writeback
  Pages anon = 0;
  Pages nrDirty = 0;      ///< NR_FILE_DIRTY
  Pages nrWriteback = 0;  ///< NR_WRITEBACK
  Pages copying = 0;      ///< page-cache pages locked while a write() copies into them
  Pages dirtied = 0;      ///< NR_DIRTIED
  Pages written = 0;      ///< NR_WRITTEN
  Pages wmarkMin = 0, wmarkLow = 0, wmarkHigh = 0;
  Pages totalReserve = 0;
  Pages swapTotal = 0;
  Pages swapUsed = 0;  ///< slots holding pages (swapped, plus being written)
  Pages swapWb = 0;    ///< anonymous pages under swap-out IO
  std::int64_t nextSwapSlot = 0;
  // cumulative counters (/proc/vmstat)
  std::int64_t pgscanKswapd = 0, pgscanDirect = 0, pgsteal = 0;
  std::int64_t swapOutPages = 0, swapInPages = 0;
  std::int64_t allocStalls = 0;
  std::int64_t oomKills = 0;
  double systemS = 0;  ///< CPU work charged to kernel threads (flusher, kswapd, IO completion);
                       ///< the part not yet done is CpuScheduler::kernelBacklog()
};

struct Kswapd {
  bool active = false;
  bool scheduled = false;
  bool waitingForSlot = false;  ///< queued for a request slot for its swap-out
  int noProgress = 0;
};

/// The global writeback domain (struct wb_domain).
struct Domain {
  Pages dirtyLimit = 0;              ///< the slowly following limit (docs/model.md, Eq. 8)
  std::int64_t dirtyLimitStamp = 0;  ///< jiffies
  FlexProportions completions;
};

/// Global dirty state as one throttle pass sees it (struct dirty_throttle_control, global).
struct GlobalView {
  Pages avail = 0;
  Pages nrReclaimable = 0;
  Pages dirty = 0;  ///< nr_dirty + nr_writeback
  Pages thresh = 0;
  Pages bgThresh = 0;
  Pages freerun = 0;
  Pages limit = 0;  ///< max(thresh, dirty_limit), docs/model.md Eq. 9
  Pages setpoint = 0;
};

/// Per-device share of the thresholds (docs/model.md, Eq. 13) as one throttle pass sees it.
struct WbView {
  Pages wbThresh = 0;
  Pages wbBgThresh = 0;
  Pages wbDirty = 0;  ///< reclaimable + writeback of this bdi
};

/// One memory cgroup's writeback on one device: the (memcg, bdi) wb of cgroup writeback, with
/// its own counters and bandwidth estimate (struct bdi_writeback of a non-root memcg).
struct CgroupWb {
  Pages reclaimable = 0;  ///< WB_RECLAIMABLE
  Pages writeback = 0;    ///< WB_WRITEBACK
  Pages dirtied = 0;      ///< WB_DIRTIED, cumulative
  Pages written = 0;      ///< WB_WRITTEN, cumulative
  bool dirtyExceeded = false;
  WbBandwidth bw;
  double lastPosRatio = 0;
};

/// A memory cgroup (struct mem_cgroup with its wb_domain; docs/model.md, Memory cgroups).
struct CgroupState {
  std::uint64_t ino = 1;        ///< cgroup_ino in traces
  Pages maxPages = 0;           ///< memory.max, 0 = no limit
  Pages highPages = 0;          ///< memory.high, 0 = no limit
  bool writebackDomain = true;  ///< v2: a wb_domain and wbs of its own; v1: neither
  Pages file = 0;               ///< NR_FILE_PAGES charged to it
  Pages dirty = 0;              ///< NR_FILE_DIRTY
  Pages writeback = 0;          ///< NR_WRITEBACK
  Pages dirtied = 0;            ///< cumulative
  Pages written = 0;            ///< cumulative
  std::int64_t reclaimed = 0;   ///< pages evicted by reclaim at its limit (cumulative)
  std::int64_t limitHits = 0;   ///< charges that met memory.max (memory.events max)
  std::int64_t oomKills = 0;    ///< memory.events oom_kill
  Pages dirtyLimit = 0;         ///< its wb_domain's slowly following dirty_limit (Eq. 8)
  std::int64_t dirtyLimitStamp = 0;
  FlexProportions completions;  ///< its wb_domain's per-device completions
  std::vector<CgroupWb> wbs;    ///< per device
  std::vector<int> files;       ///< files charged to it, for reclaim inside it
  double lastPosRatio = 0;      ///< of its domain, last throttled pass
  bool lastSetPause = false;    ///< its domain set the last pause of a task in it
  std::vector<int> waiters;     ///< tasks waiting for its writeback to free room under its limit
};

/// The memory cgroup's own dirty_throttle_control (mdtc) as one throttle pass sees it.
struct MemcgView {
  Pages filePages = 0;
  Pages headroom = 0;
  Pages avail = 0;  ///< mdtc_calc_avail()
  Pages dirty = 0;  ///< its dirty + writeback
  Pages thresh = 0;
  Pages bgThresh = 0;
  Pages freerun = 0;
  Pages limit = 0;  ///< max(thresh, its dirty_limit)
  Pages setpoint = 0;
};

/// wb_position_ratio()'s inputs from one pass's view of a domain `d` (a GlobalView, or a
/// MemcgView for a memory cgroup's domain: the kernel's gdtc and mdtc are one struct) and the
/// view `w` of a wb on the device; `avgWriteBw` is that wb's avg_write_bandwidth (pages/s).
template <class DomainView>
PositionInputs positionInputs(const DomainView& d, const WbView& w, std::int64_t avgWriteBw,
                              bool strictLimit) {
  return {.thresh = d.thresh,
          .bgThresh = d.bgThresh,
          .limit = d.limit,
          .dirty = d.dirty,
          .wbThresh = w.wbThresh,
          .wbBgThresh = w.wbBgThresh,
          .wbDirty = w.wbDirty,
          .avgWriteBw = avgWriteBw,
          .strictLimit = strictLimit};
}

class World;
using TraceFn = std::function<void(const TraceRecord&)>;

}  // namespace throttlelab::engine
