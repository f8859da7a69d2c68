// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The writers: what a task that write()s does in the kernel (docs/model.md, The dd writer).
// It copies a piece of pages (whole folios on 6.x) on a CPU, dirties them, checks in with
// balance_dirty_pages() every nr_dirtied_pause pages (balance_dirty_pages_ratelimited()),
// goes round the policy's balance() loop (pausing, or writing back and waiting on IO-ful
// policies), thinks between blocks, and loops or exits; around the copy, its file system's
// calls: an uncached read first, write()'s journal handle, fsync() at the end. Every wait
// of a writer starts here. The writers own the per-CPU ratelimit of 3.2+, the 2.6.24 task
// proportions, and each task's last throttle call for the explain breakdown.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cpu_scheduler.h"
#include "device_state.h"
#include "dirty_throttle_control.h"
#include "ioless_pass.h"
#include "kernel_era.h"
#include "page_cache.h"
#include "policy.h"
#include "task.h"
#include "throttlelab/engine/events.h"
#include "throttlelab/engine/explain.h"
#include "throttlelab/engine/scenario.h"
#include "vmstat.h"

namespace throttlelab::engine {

/// What the writers reach of the rest of the kernel. Kernel implements it and passes itself
/// to each call, so the writers copy as a plain value.
class WritersHost {
 public:
  // time and settings
  virtual SimTime now() const = 0;
  virtual std::int64_t jiffies() const = 0;
  virtual const Scenario& scenario() const = 0;
  virtual const KernelEra& era() const = 0;
  virtual int cpus() const = 0;
  /// The run's timeline: what the run could not start as the scenario asked.
  virtual void addRunEvent(RunEvent::Kind kind, std::string text) = 0;
  // the throttling policy
  /// nr_dirtied_pause: the pages `t` may dirty before it checks in.
  virtual Pages ratelimit(Task& t) = 0;
  /// One step of balance_dirty_pages() for `t`, `pages` dirtied.
  virtual BalanceOutcome balance(Task& t, Pages pages) = 0;
  virtual bool positionControl() const = 0;
  virtual std::string_view policyName() const = 0;
  /// Global limits as `task` sees them (nullptr: no bonus).
  virtual GlobalView globalView(const Task* task, bool emitTrace) = 0;
  // tasks and CPUs
  virtual std::span<Task> taskTable() = 0;
  virtual CpuScheduler& cpu() = 0;
  /// `t` runs `systemS` + `userS` of CPU work, then goes on as `after` says.
  virtual void runCpu(Task& t, double systemS, double userS, AfterCpu after) = 0;
  virtual void sleepTask(Task& t, SimDuration d, TaskState state) = 0;
  /// A throttle pause of `ms` ended (the run's statistics).
  virtual void pauseEnded(int task, double ms) = 0;
  /// `t` is gone, before its state becomes Exited.
  virtual void noteTaskExiting(const Task& t) = 0;
  /// A compiler's object file is written: its anonymous-memory run goes on.
  virtual void anonWriteDone(Task& t) = 0;
  // memory
  virtual Memory& nodeCounters() = 0;
  virtual CachedFile& file(int id) = 0;
  /// A new file of `size` pages on device `dev`; its id.
  virtual int addFile(int dev, Pages size) = 0;
  /// Allocates up to `n` pages for `t`: how many it got, or 0 when it must wait (it is then
  /// in direct reclaim and its continuation is called again).
  virtual Pages allocatePages(Task& t, Pages n) = 0;
  /// The folio of `pages` a write() of `t` gets without reclaim (Eq. 70).
  virtual Pages folioWithoutReclaim(const Task& t, Pages pages, Pages pending) const = 0;
  /// mem_cgroup_charge() (MemCgroups::charge()).
  virtual bool memcgCharge(Task& t, Pages n) = 0;
  /// Pages of `f` entered the cache, or became dirty, in its memory cgroup.
  virtual void memcgCached(const CachedFile& f, Pages n) = 0;
  virtual void memcgDirtied(const CachedFile& f, Pages n) = 0;
  virtual void memcgAddFile(int cg, int file) = 0;
  // devices, writeback and the file system
  virtual DeviceState& device(int dev) = 0;
  /// The device's next completion may have moved.
  virtual void scheduleDevice(int dev) = 0;
  /// do_writepages() of `pages` dirty pages of `file` on `dev`.
  virtual Pages writepages(int dev, int file, Pages pages) = 0;
  /// The IO-ful balance() step: `t` writes back `pages` of its device's dirty pages itself.
  virtual void taskWriteback(Task& t, Pages pages) = 0;
  /// congestion_wait(): `t` sleeps until its device leaves congestion, at most `timeout`.
  virtual void congestionWait(Task& t, SimDuration timeout) = 0;
  /// fsync() of `inode` by task `task` forces a commit of its device's journal.
  virtual void journalForceCommit(int dev, int task, int inode) = 0;

 protected:
  WritersHost() = default;
  ~WritersHost() = default;
  WritersHost(const WritersHost&) = default;
  WritersHost& operator=(const WritersHost&) = default;
};

class Writers {
 public:
  // --- the task table ---
  /// Task `index` is new (`fresh`: the table grew) or reused: its last throttle call is none.
  void taskAdded(int index, bool fresh);
  /// The policy `policy` is being replaced: its last passes become whole breakdowns (they keep
  /// its name), and the new one starts without any.
  void policyChanging(std::span<const Task> tasks, std::string_view policy);

  // --- a writer's run ---
  /// A writer's run (every dd invocation is a new process).
  void beginRun(WritersHost& host, Task& t);
  /// The page cache at the start (machine.initialDirtyPages, initialWritebackPages; Eq. 68).
  void seedInitialPages(WritersHost& host);
  /// The next piece of the write(), or the end of the run.
  void continueWriting(WritersHost& host, Task& t);
  /// The CPU copied the piece: its pages are dirty; check in if due.
  void pieceDone(WritersHost& host, Task& t);
  /// One step of balance_dirty_pages() for `pages` dirtied pages (the IO-ful loop comes back
  /// here after its writeback).
  void callBalance(WritersHost& host, Task& t, Pages pages);
  /// A throttle pause (or congestion wait) ended.
  void pauseEnded(WritersHost& host, Task& t);
  /// The run's data is written: fsync() if asked, then loop or exit.
  void endRun(WritersHost& host, Task& t);
  /// `t` stops copying (it exits): the per-CPU copier count forgets it.
  void stopCopying(WritersHost& host, Task& t);

  // --- its file system's calls (writer_fs.cpp) ---
  /// The run's uncached read completed a readahead window.
  void readIoDone(WritersHost& host, Task& t);
  /// A wait in the journal (shadow buffer, locked handle, fsync's commit) ended.
  void journalWaitDone(WritersHost& host, Task& t);

  // --- the throttle ---
  /// writeback_set_ratelimit() 3.2+: ratelimit_pages, the pages a CPU may dirty between two
  /// check-ins, from the dirty threshold at boot and at each vm.dirty_* or CPU change.
  void setBdpRatelimitPages(WritersHost& host);
  /// The task's share of recently dirtied pages (2.6.24 task proportions, Eq. 15).
  double taskDirtyShare(const Task& t) const;
  /// The numbers of task `index`'s last IO-less pass, for the policy to fill.
  IolessPass& pass(int index) { return m_passes[static_cast<std::size_t>(index)]; }
  const IolessPass& pass(int index) const { return m_passes[static_cast<std::size_t>(index)]; }
  /// The last throttle call of `t` (Kind::None if it has not been throttled), made now from
  /// what the pass or call recorded. `policy` names the policy the pass was made under; `now`
  /// is the dirty state as `t` sees it now (what a breakdown of no call says).
  ThrottleExplain lastExplain(const Task& t, std::string_view policy, const GlobalView& now) const;
  /// When task `index`'s last throttle began (what lastExplain() would describe).
  SimTime lastExplainTime(int index) const;

  /// What a copy holds on the heap.
  std::size_t heapBytes() const;

 private:
  /// The largest folio order of a buffered write() now (machine.maxFolioOrder, else the
  /// policy's kernel; 0 under the <= 3.1 per-CPU entry check, which counts 4 KiB pages).
  int maxFolioOrder(WritersHost& host) const;
  /// How many pages the next piece copies: up to the check-in (per task or per CPU), in
  /// whole folios, within the block.
  Pages pieceSize(WritersHost& host, Task& t);
  /// The 3.2+ entry check (the IO-less policies and `none`): checkInDue() and the leaks.
  static bool hasBdpSafetyNet(const KernelEra& era);
  /// balance_dirty_pages_ratelimited_flags() 3.2+: whether `t`, at a check-in, calls
  /// balance_dirty_pages(): its own quota, or its CPU's bdp_ratelimits past ratelimit_pages,
  /// after taking up what exited tasks left in dirty_throttle_leaks.
  bool checkInDue(WritersHost& host, Task& t);
  /// dirty_throttle_leaks: charge what exited tasks left on t's CPU to t, up to `ratelimit`.
  void takeThrottleLeaks(WritersHost& host, Task& t, Pages ratelimit);
  /// write_end: the copied pages are dirty now.
  void endCopy(WritersHost& host, Task& t);
  void recordDirtied(WritersHost& host, Task& t, Pages n);
  void recordPause(WritersHost& host, Task& t, double ms);
  /// Think before the next block, or go on writing.
  void proceed(WritersHost& host, Task& t);
  /// Enters balance_dirty_pages() for `pages` dirtied pages, the loop state fresh.
  void enterBalance(WritersHost& host, Task& t, Pages pages);
  void balanceDone(WritersHost& host, Task& t);
  /// The IO-ful loop's step `out` into the task's explain breakdown.
  void explainLoopStep(WritersHost& host, Task& t, const BalanceOutcome& out);
  static void setExplainPolicy(ThrottleExplain& e, std::string_view policy);
  static int cpuOf(WritersHost& host, const Task& t) { return host.cpu().cpuOf(t.info.index); }

  // writer_fs.cpp
  /// Starts the run's uncached read; false if there is none to do.
  bool startRead(WritersHost& host, Task& t);
  void submitReadahead(WritersHost& host, Task& t, int dev);
  /// write()'s handle (jbd2__journal_start()): true if `t` must wait for a commit's
  /// lock-down first.
  bool writeHandleWaits(WritersHost& host, Task& t);
  /// Starts the run's fsync(); false if there is none to do.
  bool startFsync(WritersHost& host, Task& t);

  Pages m_bdpRatelimitPages = 16;  ///< ratelimit_pages (3.2+; setBdpRatelimitPages())
  // 2.6.24 task proportions (docs/model.md, Eq. 15): events counted in periods of 2^shift
  // dirtied pages
  std::int64_t m_taskPropEvents = 0;
  std::int64_t m_taskPropGlobal = 0;
  std::int64_t m_taskPropPeriod = 0;
  /// Per task, its last throttle call step by step (indexed like the task table; kept apart
  /// from it so the hot task lines stay as they are).
  std::vector<ThrottleExplain> m_explains;  ///< IO-ful calls (and IO-less ones of a past policy)
  std::vector<IolessPass> m_passes;         ///< IO-less passes of the current policy
};

}  // namespace throttlelab::engine
