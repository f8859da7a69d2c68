// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The flusher of one device (docs/model.md, The flusher) and the writeback state it works
// from, as struct bdi_writeback holds it: the dirty inodes in the order they were dirtied
// (b_dirty), the inodes queued for the pass in hand (b_io), the inodes someone is writing
// (I_SYNC), and the work the flusher has been given (background, kupdate, reclaim). Its work
// function follows fs/fs-writeback.c: wb_workfn() -> wb_writeback() -> writeback_sb_inodes()
// -> do_writepages(); a throttled dirtier of 2.6.32-3.1 writes back through the same b_io
// (writeback_inodes_wb(), task_writeback.cpp).
//
// Its style follows the policy's era: pdflush (2.6.0-2.6.31) writes 1024-page chunks and backs
// off while the queue is congested; later flushers block on a full queue; 3.2+ sizes chunks
// to half a second of bandwidth (Eq. 36).
#include <cstdint>
#include <deque>
#include <set>
#include <utility>

#include "dirty_throttle_control.h"
#include "event_queue.h"
#include "kernel_era.h"
#include "page_cache.h"
#include "task.h"
#include "throttlelab/engine/scenario.h"
#include "throttlelab/engine/sim_time.h"
#include "throttlelab/engine/units.h"
#include "vmstat.h"

namespace throttlelab::engine {

struct DeviceState;

/// What a flusher reaches of the rest of the kernel: time and events, the settings it reads,
/// its device, the page cache and the node's counters, the dirty limits it checks, and the
/// memory cgroups' and the journal's share of a submission. Kernel implements it and passes
/// itself to each call, so a flusher copies as a plain value.
class FlusherHost {
 public:
  virtual SimTime now() const = 0;
  virtual std::int64_t jiffies() const = 0;
  virtual int hz() const = 0;
  virtual int cpus() const = 0;
  virtual const VmConfig& vm() const = 0;
  virtual const MachineConfig& machine() const = 0;
  virtual const KernelEra& era() const = 0;
  virtual void scheduleAt(SimTime when, EventKind kind, int id, std::uint32_t generation) = 0;
  virtual DeviceState& device(int dev) = 0;
  /// The device's next completion may have moved.
  virtual void scheduleDevice(int dev) = 0;
  virtual CachedFile& file(int id) = 0;
  virtual Memory& nodeCounters() = 0;
  virtual Domain& domain() = 0;
  /// Global limits as `task` sees them (nullptr: a kernel thread, no bonus).
  virtual GlobalView globalView(const Task* task, bool emitTrace) = 0;
  virtual WbView wbView(int dev, const GlobalView& g) const = 0;
  /// A memory cgroup's wb on `dev` is over its share of its domain's background threshold.
  virtual bool memcgOverBackgroundThresh(int dev, const GlobalView& g) const = 0;
  /// `n` dirty pages of `f`, charged to a memory cgroup, went under writeback.
  virtual void memcgWritebackStarted(const CachedFile& f, Pages n) = 0;
  /// Writeback allocated blocks for `file` (delayed allocation): the journal logs it.
  virtual void blocksAllocated(int dev, int file) = 0;
  /// `seconds` of CPU work by kernel thread `thread`.
  virtual void chargeKernel(int thread, double seconds) = 0;

 protected:
  FlusherHost() = default;
  ~FlusherHost() = default;
  FlusherHost(const FlusherHost&) = default;
  FlusherHost& operator=(const FlusherHost&) = default;
};

class Flusher {
 public:
  explicit Flusher(int device = 0) : m_device(device) {}

  /// The dirty inodes (b_dirty) by (dirtied_when, inode).
  using DirtyInodes = std::set<std::pair<SimTime, int>>;
  const DirtyInodes& dirtyInodes() const { return m_dirty; }

  // --- the inode lists (__mark_inode_dirty(), inode_sync_complete()) ---
  /// `f`'s oldest dirty page may have changed (pages dirtied, or sent to writeback): the inode
  /// moves on b_dirty (or leaves it when clean). `oldWhen`/`wasDirty`: as it was before.
  void inodeDirtiedWhenChanged(const CachedFile& f, SimTime oldWhen, bool wasDirty);
  /// The inode's I_SYNC holder: task `owner`, CachedFile::kFlusherOwner, or -1 (released: a
  /// flusher waiting for an inode goes on).
  void setSyncOwner(FlusherHost& host, CachedFile& f, int owner);

  // --- work for the flusher ---
  /// The periodic (kupdate) timer at boot, and again when dirty_writeback_centisecs changes.
  void startTimer(FlusherHost& host);
  void restartTimer(FlusherHost& host);
  /// The FlusherTimer event of timer generation `generation`: expired inodes are due.
  void timer(FlusherHost& host, std::uint32_t generation);
  /// The FlusherRun event: 1 ends a congestion wait, 0 is a kick.
  void runEvent(FlusherHost& host, std::uint32_t generation);
  /// wb_start_background_writeback(): write while over the background threshold.
  void startBackground(FlusherHost& host);
  /// Write at least `pages` whatever the thresholds (wakeup_flusher_threads(WB_REASON_VMSCAN)
  /// for reclaim with every dirty page; data=ordered data a commit waits for).
  void writeAtLeast(FlusherHost& host, Pages pages);
  /// Whether the flusher is writing (a pass is in hand).
  bool active() const { return m_active; }

  // --- the request queue ---
  /// A request completed and the flusher, stopped at a full queue with its inode, is not
  /// queued for a slot itself: it goes on if a slot is free.
  void requestCompleted(FlusherHost& host);
  /// The flusher's turn among the device's slot waiters came.
  void slotGranted(FlusherHost& host);
  /// The device left congestion: a pdflush congestion wait ends.
  void congestionEnded(FlusherHost& host);
  /// After a policy change of flusher era: a flusher waiting for a request slot continues
  /// the way the new era's flusher waits.
  void adoptStyle(FlusherHost& host);

  /// do_writepages() for `pages` dirty pages of `file` from its writeback position: maps them
  /// on disk, queues them (as much as the request queue takes; a `batcher` may go past it)
  /// and moves them from dirty to writeback. Returns the pages queued.
  Pages writepages(FlusherHost& host, int file, Pages pages, Task* batcher = nullptr);

  // --- a dirtier writing back itself (IO-ful policies; task_writeback.cpp) ---
  /// Task `t` starts writing back `pages` pages in balance_dirty_pages().
  void startTaskWriteback(FlusherHost& host, Task& t, Pages pages);
  /// Goes on with it: true when done, false when `t` sleeps for a request slot.
  bool continueTaskWriteback(FlusherHost& host, Task& t);
  /// The done writeback's CPU seconds (building and submitting, spinning on the locks the
  /// other submitters hold); `t` stops being a submitter.
  double endTaskWriteback(FlusherHost& host, Task& t);
  /// `t` exits in the middle of it.
  void abandonTaskWriteback(FlusherHost& host, Task& t);
  /// Tasks writing back to this device right now.
  int submitters() const { return m_submitters; }

  /// What a copy holds on the heap beside itself.
  std::size_t heapBytes() const;

 private:
  /// wb_workfn(): the flusher thread runs its work.
  void workfn(FlusherHost& host);
  /// wb_writeback(): one step of the work in hand; false when the flusher stops (it has
  /// nothing to do, waits for a slot or an inode, or backs off).
  bool writebackStep(FlusherHost& host);
  /// The inode stopped at a full queue, resumed; false if it stops again.
  bool resumeBlocked(FlusherHost& host);
  /// writeback_sb_inodes(): the next inode of b_io nobody else is writing gets a chunk;
  /// false when the flusher stops.
  bool writebackSbInodes(FlusherHost& host);
  void kick(FlusherHost& host);
  /// queue_io(): the dirty inodes dirtied at or before `olderThan`, oldest first, onto b_io.
  void queueIo(SimTime olderThan);
  /// wb_over_bg_thresh() (docs/model.md, Eq. 35).
  bool overBackgroundThresh(FlusherHost& host) const;
  /// writeback_chunk_size(): how many pages an inode gets per turn.
  Pages chunkSize(FlusherHost& host) const;
  /// Writes a chunk of `file`; false if the queue filled first (the rest waits for a slot).
  bool writeChunk(FlusherHost& host, int file, Pages pages);
  /// pdflush gives up at a full or congested queue and sleeps in blk_congestion_wait().
  void pdflushBackOff(FlusherHost& host);
  /// Its kernel thread (CpuScheduler kernel threads: 0 kswapd, 1 IO completion).
  int thread() const { return 2 + m_device; }

  int m_device = 0;
  DirtyInodes m_dirty;            ///< b_dirty ordered by dirtied_when
  DirtyInodes m_dirtyUnowned;     ///< those no dirtier is writing back (I_SYNC clear)
  std::deque<int> m_io;           ///< b_io: files queued for this pass
  int m_submitters = 0;           ///< tasks writing back to this device right now
  bool m_congestionWait = false;  ///< pdflush: waiting for the queue to decongest
  bool m_active = false;
  bool m_backgroundRequested = false;
  Pages m_reclaimPages = 0;        ///< pages reclaim (or a commit) asked to have written,
                                   ///< whatever the thresholds
  bool m_kupdateDue = false;       ///< the periodic timer fired: write expired inodes
  bool m_scheduled = false;        ///< a FlusherRun event is pending
  bool m_waitingForInode = false;  ///< every queued inode is under I_SYNC: wait for one
  int m_blockedFile = -1;          ///< waiting for a request slot to submit the rest
  Pages m_blockedPages = 0;
  SimTime m_lastOldFlush{};
  std::uint32_t m_timerGeneration = 0;
};

}  // namespace throttlelab::engine
