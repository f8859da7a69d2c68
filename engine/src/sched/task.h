// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A task as every part of the kernel sees it: one entry of the task table (the kernel's
// struct task_struct), with each part's per-task state in it (the CPU's, balance_dirty_pages()'s,
// the page allocator's, the file system's), so that a wake-up touches one place.
#include <algorithm>
#include <cstdint>

#include "file_system.h"
#include "pause_histogram.h"
#include "throttlelab/engine/records.h"
#include "throttlelab/engine/scenario.h"
#include "throttlelab/engine/sim_time.h"
#include "throttlelab/engine/units.h"

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

/// True for tasks whose effective priority is real-time (rt_or_dl_task()).
inline bool isRealTime(const Task& t) {
  return t.info.sched != SchedClass::Other;
}

/// The priority CpuScheduler runs `t` at: 0 for a normal task, else its real-time priority.
inline int rtPriorityOf(const Task& t) {
  return t.info.sched == SchedClass::Other ? 0 : std::max(1, t.info.rtPriority);
}

}  // namespace throttlelab::engine
