// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// What a run produces, named and measured like the kernel's tracepoints (docs/model.md, Outputs).
/// These value types are the one schema that the CSV, the plots and the ftrace writer speak.
#include <array>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "throttlelab/engine/scenario.h"
#include "throttlelab/engine/sim_time.h"
#include "throttlelab/engine/units.h"

namespace throttlelab::engine {

/// TASK_COMM_LEN-sized name, so trace records stay allocation-free values.
using Comm = std::array<char, 16>;
Comm makeComm(std::string_view name);

/// Common header of a trace line: `comm-pid [cpu] ..... time: event: ...`.
struct TraceHeader {
  SimTime time{};
  Comm comm{};
  int pid = 0;
  int cpu = 0;
};

/// writeback:global_dirty_state (docs/model.md, Tracepoints). Pages.
struct GlobalDirtyState {
  TraceHeader header;
  Pages dirty = 0;      ///< NR_FILE_DIRTY
  Pages writeback = 0;  ///< NR_WRITEBACK
  Pages bgThresh = 0;   ///< for the calling task (RT bonus included)
  Pages thresh = 0;     ///< for the calling task
  Pages limit = 0;      ///< global dirty_limit as stored (Eq. 8)
  Pages dirtied = 0;    ///< cumulative NR_DIRTIED
  Pages written = 0;    ///< cumulative NR_WRITTEN
};

/// writeback:bdi_dirty_ratelimit (docs/model.md, Tracepoints). KB/s = pages/s × 4.
struct BdiDirtyRatelimit {
  TraceHeader header;
  std::string_view bdi;       ///< points at the device name owned by the simulator
  std::int64_t writeBw = 0;   ///< from the previous update
  std::int64_t awriteBw = 0;  ///< from the previous update
  std::int64_t dirtyRate = 0;
  std::int64_t dirtyRatelimit = 0;  ///< after this update
  std::int64_t taskRatelimit = 0;   ///< includes the +1 page/s
  std::int64_t balancedDirtyRatelimit = 0;
  std::uint64_t cgroupIno = 1;
};

/// The writeback domain whose limits governed a throttle decision.
enum class ThrottleDomain : std::uint8_t { Global, Cgroup };

/// writeback:balance_dirty_pages (docs/model.md, Tracepoints).
struct BalanceDirtyPages {
  TraceHeader header;
  std::string_view bdi;
  Pages limit = 0;     ///< global dirty_limit as stored
  Pages setpoint = 0;  ///< (traced limit + freerun)/2
  Pages dirty = 0;
  Pages wbSetpoint = 0;  ///< setpoint · wb_thresh / (thresh + 1)
  Pages wbDirty = 0;
  std::int64_t dirtyRatelimit = 0;  ///< KB/s
  std::int64_t taskRatelimit = 0;   ///< KB/s, no +1
  std::uint32_t dirtied = 0;        ///< pages dirtied for this call
  std::uint32_t dirtiedPause = 0;   ///< nr_dirtied_pause before the update
  std::int64_t paused = 0;          ///< ms already spent in this call
  std::int64_t pause = 0;           ///< ms; <= 0 means no sleep
  std::int64_t period = 0;          ///< ms
  std::int64_t think = 0;           ///< ms
  std::uint64_t cgroupIno = 1;      ///< the writer's memory cgroup (1 = the root)
  /// Not in the kernel's text: which dirty_throttle_control had the smaller pos_ratio and so
  /// set this pause (the kernel's `sdtc`): the global domain, or the task's memory cgroup's.
  /// The other fields then describe that domain, as the kernel's record does.
  ThrottleDomain domain = ThrottleDomain::Global;
};

using TraceRecord = std::variant<GlobalDirtyState, BdiDirtyRatelimit, BalanceDirtyPages>;

/// block:block_rq_issue and block:block_rq_complete (include/trace/events/block.h, 3.x–5.x
/// TP_printk; docs/model.md, Outputs): a request the simulated block device starts serving, or
/// finishes. The device is `major,minor` = 8,16·index (sda = 8,0, sdb = 8,16).
struct BlockRq {
  TraceHeader header;
  bool complete = false;  ///< block_rq_complete, else block_rq_issue
  std::uint32_t major = 8;
  std::uint32_t minor = 0;
  std::array<char, 8> rwbs{};  ///< blk_fill_rwbs(): "W", "R", "WS" (a journal write)
  std::uint64_t sector = 0;    ///< first 512-byte sector on the disk
  std::uint32_t nrSector = 0;  ///< length in 512-byte sectors
};

/// jbd2:jbd2_start_commit and jbd2:jbd2_end_commit (include/trace/events/jbd2.h; docs/model.md,
/// Outputs): kjournald2's journal_commit_transaction() begins or ends a commit.
struct Jbd2Commit {
  TraceHeader header;
  bool end = false;  ///< jbd2_end_commit, else jbd2_start_commit
  std::uint32_t major = 8;
  std::uint32_t minor = 0;
  std::int64_t transaction = 0;  ///< the committing transaction's tid
  int sync = 0;                  ///< t_synchronous_commit: an fsync() waits for it
  /// jbd2_end_commit's `head` (j_tail_sequence). Checkpointing is not modelled: the committed
  /// transaction's tid, as if the checkpoint kept up.
  std::int64_t head = 0;
};

/// The file system's and block layer's tracepoints, sent only when tracing is on.
using FsTraceRecord = std::variant<BlockRq, Jbd2Commit>;

/// One memory cgroup in one sample (docs/model.md, Memory cgroups): its counters and its own
/// writeback domain's limits as a normal task in it sees them. All 0 for limits when the
/// policy's era has no cgroup writeback or the cgroup is v1.
struct CgroupSample {
  Pages filePages = 0;       ///< page cache charged to it
  Pages dirtyPages = 0;      ///< memory.stat file_dirty
  Pages writebackPages = 0;  ///< memory.stat file_writeback
  Pages maxPages = 0;        ///< memory.max (0 = max)
  Pages availPages = 0;      ///< mdtc_calc_avail(): its file pages + headroom, capped
  Pages bgThreshPages = 0;
  Pages threshPages = 0;
  Pages freerunPages = 0;
  Pages setpointPages = 0;
  Pages limitPages = 0;             ///< max(thresh, its dirty_limit)
  Pages dirtyLimitPages = 0;        ///< its wb_domain's stored dirty_limit
  double posRatio = 0;              ///< its domain's pos_ratio in the last throttled pass
  std::int64_t reclaimedPages = 0;  ///< cumulative, reclaim at its own limit
  std::int64_t oomKills = 0;        ///< cumulative, inside it
};

/// Per-device state in one sample.
struct DeviceSample {
  Pages reclaimablePages = 0;  ///< this bdi's dirty pages not under IO
  Pages writebackPages = 0;    ///< this bdi's pages under IO
  Pages wbThreshPages = 0;     ///< bdi_thresh (Eq. 13)
  Pages wbBgThreshPages = 0;
  Pages wbSetpointPages = 0;
  double writeBwKBps = 0;                 ///< write_bw (Eq. 20)
  double avgWriteBwKBps = 0;              ///< avg_write_bw (Eq. 21)
  double dirtyRateKBps = 0;               ///< dirty_rate (Eq. 22), last update
  double dirtyRatelimitKBps = 0;          ///< dirty_ratelimit (Eq. 25)
  double balancedDirtyRatelimitKBps = 0;  ///< balanced_dirty_ratelimit (Eq. 24)
  double taskRatelimitKBps = 0;           ///< dirty_ratelimit × pos_ratio at the sample time
  double posRatio = 0;                    ///< pos_ratio at the sample time (Eq. 16–18)
  double deviceWriteKBps = 0;             ///< completed writes over the interval (iostat wkB/s)
  double avgRequestKiB = 0;               ///< mean completed request size over the interval
  double seeksPerS = 0;                   ///< positioning operations per second over the interval
  double utilPct = 0;                     ///< share of the interval the device was busy
  int queueDepth = 0;                     ///< requests allocated at the sample time
  bool congested = false;
  bool dirtyExceeded = false;
  std::int64_t bytesWritten = 0;    ///< cumulative
  std::int64_t requests = 0;        ///< cumulative completed requests
  std::int64_t seeks = 0;           ///< cumulative
  std::int64_t sectorsWritten = 0;  ///< cumulative, 512-byte sectors
  double readKBps = 0;              ///< completed reads (swap-in) over the interval
  double swapOutKBps = 0;           ///< of deviceWriteKBps, the part that was swap-out
};

/// The largest pauses of one interval, for the "top few" curves of the delay plot.
struct TopPause {
  int task = -1;  ///< task index, -1 = empty slot
  double pauseMs = 0;
};

/// Global state once per sample interval (one CSV row).
struct Sample {
  SimTime time{};
  Pages dirtyPages = 0;      ///< NR_FILE_DIRTY
  Pages writebackPages = 0;  ///< NR_WRITEBACK
  Pages bgThreshPages = 0;   ///< for a normal (non-RT) task
  Pages threshPages = 0;
  Pages freerunPages = 0;     ///< (thresh + bg_thresh)/2
  Pages setpointPages = 0;    ///< (freerun + limit)/2
  Pages limitPages = 0;       ///< max(thresh, dirty_limit) (Eq. 9)
  Pages dirtyLimitPages = 0;  ///< the stored global dirty_limit (Eq. 8)
  Pages availPages = 0;       ///< dirtyable memory (Eq. 1–3, by era)
  Pages totalPages = 0;
  Pages freePages = 0;
  Pages filePages = 0;  ///< page cache: clean + dirty + writeback
  Pages anonPages = 0;
  Pages wmarkMinPages = 0;
  Pages wmarkLowPages = 0;
  Pages wmarkHighPages = 0;
  Pages dirtiedPages = 0;  ///< cumulative NR_DIRTIED
  Pages writtenPages = 0;  ///< cumulative NR_WRITTEN
  int tasks = 0;           ///< tasks that exist
  int runnableTasks = 0;   ///< copying or waiting for a CPU
  int throttledTasks = 0;  ///< sleeping in balance_dirty_pages at the sample time
  int ioWaitTasks = 0;     ///< blocked on a request slot or page allocation
  double pauseMsMin = 0;   ///< over pauses that started in the interval (0 if none)
  double pauseMsP50 = 0;
  double pauseMsMax = 0;
  double maxPauseMs = 0;  ///< the max_pause bound (Eq. 27) last computed
  int pauses = 0;         ///< pauses that started in the interval
  std::array<TopPause, 4> topPauses{};
  // CPU over the interval, as iostat/top report it: % of all CPUs
  double systemPct = 0;
  double userPct = 0;
  // Page allocator, reclaim, swap
  Pages swapTotalPages = 0;
  Pages swapUsedPages = 0;
  double pgscanKswapdPerS = 0;  ///< pages scanned by kswapd per second
  double pgscanDirectPerS = 0;  ///< pages scanned in direct reclaim per second
  double pgstealPerS = 0;       ///< pages reclaimed per second
  double swapOutKBps = 0;
  double swapInKBps = 0;
  int allocStalls = 0;         ///< direct-reclaim entries in the interval (allocstall)
  double allocStallMsMax = 0;  ///< longest allocation stall of the interval, ms: those that
                               ///< ended in it, and one still going counted up to the sample
  bool kswapdActive = false;
  std::int64_t oomKills = 0;  ///< cumulative
  /// The policy at the sample time has position and rate control (pos_ratio, setpoint,
  /// task_ratelimit mean something); false under the IO-ful policies and `none`.
  bool positionControl = true;
  std::vector<DeviceSample> devices;
  std::vector<CgroupSample> cgroups;  ///< one per Scenario::cgroups entry
};

enum class TaskState { NotStarted, Running, Runnable, Paused, IoWait, Thinking, Exited };
std::string_view toString(TaskState s);

/// Static facts about one task.
struct TaskInfo {
  int index = 0;  ///< dense index into the simulator's task table
  TaskKind kind = TaskKind::Writer;
  int pid = 0;
  std::string name;
  int group = 0;  ///< index of the TaskSpec it came from
  SchedClass sched = SchedClass::Other;
  int rtPriority = 0;
  int nice = 0;
  int device = 0;
  int cgroup = -1;  ///< index into Scenario::cgroups, -1 = the root cgroup
};

/// One task in one sample interval (one --task-csv row).
struct TaskSample {
  SimTime time{};
  int task = 0;                  ///< index into the task table
  Pages dirtiedPages = 0;        ///< cumulative
  double writeKBps = 0;          ///< pages dirtied over the interval, KiB/s
  double taskRatelimitKBps = 0;  ///< last computed task_ratelimit
  double pauseMs = 0;            ///< longest pause that started in the interval
  TaskState state = TaskState::NotStarted;
  double journalWaitS = 0;  ///< cumulative time waiting for the journal (docs/model.md)
  double readWaitS = 0;     ///< cumulative time in uncached reads (TaskSpec::readKiB)
};

/// Cumulative per-task statistics (the task table and the summary).
struct TaskStats {
  TaskInfo info;
  TaskState state = TaskState::NotStarted;
  Pages dirtiedPages = 0;
  double writeKBps = 0;     ///< over the last second of simulated time
  double avgWriteKBps = 0;  ///< since the task started
  double taskRatelimitKBps = 0;
  double pauseMsP50 = 0;
  double pauseMsP99 = 0;
  double pauseMsMax = 0;
  std::int64_t pauses = 0;
  double pausedS = 0;              ///< total time asleep in balance_dirty_pages
  double cpuS = 0;                 ///< CPU time used
  std::int64_t runsCompleted = 0;  ///< dd invocations finished
  double lastRunS = 0;             ///< duration of the last finished run
  double startedS = 0;
  double exitedS = -1;    ///< -1 while alive
  double systemS = 0;     ///< CPU time in the kernel (throttle calls, IO submission, faults)
  double userS = 0;       ///< CPU time in user space (the copy, the compile)
  double allocMsP50 = 0;  ///< latency of page allocations that had to wait (a stall still
                          ///< going counts, up to now)
  double allocMsP99 = 0;
  double allocMsMax = 0;
  std::int64_t allocStalls = 0;
  Pages rssPages = 0;   ///< resident anonymous pages
  Pages swapPages = 0;  ///< anonymous pages in swap
  bool oomKilled = false;
  /// Time waiting for the journal: a metadata buffer being written by a commit
  /// (do_get_write_access() on BJ_Shadow, after an atime update), a handle waiting for a
  /// commit's lock-down (start_this_handle()), or fsync()'s commit.
  double journalWaitS = 0;
  std::int64_t journalWaits = 0;
  double writeHandleWaitS = 0;  ///< of journalWaitS: write()'s own handles (docs/model.md Eq. 63)
  double readMsP50 = 0;         ///< latency of the task's uncached reads (TaskSpec::readKiB)
  double readMsMax = 0;
  std::int64_t reads = 0;
};

/// What `--summary` prints and the benchmarks/tests read.
struct Summary {
  double simulatedS = 0;
  double deviceWriteKBps = 0;  ///< mean over the run
  double avgRequestKiB = 0;
  double seeksPerS = 0;
  double shareAboveFreerun = 0;  ///< fraction of samples with dirty+writeback > freerun
  double shareAboveLimit = 0;    ///< fraction of samples with dirty+writeback > limit
  double pauseMsP50 = 0;         ///< over all pauses of all tasks
  double pauseMsP99 = 0;
  double pauseMsMax = 0;
  std::int64_t events = 0;  ///< discrete events processed
  double systemPct = 0;     ///< % of all CPUs over the run (iostat %system)
  double userPct = 0;
  double avgrqSzSectors = 0;  ///< iostat avgrq-sz: mean request size in 512-byte sectors
  double dirtyPagesP50 = 0;   ///< median over samples of dirty + writeback pages
  double allocMsP50 = 0;      ///< over allocations that had to wait, all tasks (stalls still
                              ///< going count, up to now)
  double allocMsP99 = 0;
  double allocMsMax = 0;
  std::int64_t allocStalls = 0;
  std::int64_t oomKills = 0;
  double swapOutKiB = 0;  ///< total written to swap
  double swapInKiB = 0;
  // the file systems (docs/model.md, The file system), all devices
  std::int64_t journalCommits = 0;  ///< jbd/jbd2 commits completed; XFS log buffer writes
  double journalLogKiB = 0;         ///< written to journals and logs
  double commitSMean = 0;           ///< jbd/jbd2: mean time from a commit's start to its end
  std::int64_t fsExtents = 0;       ///< extents made by delayed allocation
  std::vector<TaskStats> tasks;
};

}  // namespace throttlelab::engine
