// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The page allocator of the machine's one memory node (docs/model.md, The page allocator;
// Reclaim, swap and the OOM killer): watermarks by era, kswapd, direct reclaim that stalls the
// allocating task, the real-time reserve bonus as it changed over time, reclaim of clean
// cache, swap-out of anonymous memory, and the OOM killer (mm/page_alloc.c, mm/vmscan.c,
// mm/oom_kill.c).
#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "block_device.h"
#include "event_queue.h"
#include "page_cache.h"
#include "task.h"
#include "vmstat.h"

namespace throttlelab::engine {

/// kswapd's state.
struct Kswapd {
  bool active = false;
  bool scheduled = false;
  bool waitingForSlot = false;  ///< queued for a request slot for its swap-out
  int noProgress = 0;
};

/// What the page allocator reaches of the rest of the kernel: time and events, the node's
/// counters, the task table, the page cache, the swap device and the flushers. Kernel
/// implements it and passes itself to every call that needs it; the allocator keeps no
/// pointer to it, so copying a Kernel copies the allocator's state and nothing in the copy
/// points back at the original.
class PageAllocatorHost {
 public:
  virtual SimTime now() const = 0;
  /// The node's page counters (free, file, anon, swap, vmstat), which the page cache and the
  /// tasks change too.
  virtual Memory& nodeCounters() = 0;
  virtual std::span<Task> taskTable() = 0;
  virtual CachedFile& file(int id) = 0;
  virtual BlockDevice& blockDevice(int dev) = 0;
  virtual int deviceCount() const = 0;
  virtual void scheduleAt(SimTime when, EventKind kind, int id, std::uint32_t generation) = 0;
  /// The device's next completion may have moved.
  virtual void scheduleDevice(int dev) = 0;
  /// wakeup_flusher_threads(WB_REASON_VMSCAN) for one device (nothing if it has no dirty
  /// pages).
  virtual void startReclaimWriteback(int dev) = 0;
  virtual void wakeTaskNow(Task& t) = 0;
  /// The OOM killer's victim leaves.
  virtual void removeTask(Task& t) = 0;
  /// Reclaim evicted `n` clean pages of `f` (its memory cgroup's counters follow).
  virtual void fileEvicted(const CachedFile& f, Pages n) = 0;
  /// `seconds` of CPU work by kernel thread `thread`.
  virtual void chargeKernel(int thread, double seconds) = 0;

 protected:
  PageAllocatorHost() = default;
  ~PageAllocatorHost() = default;
  PageAllocatorHost(const PageAllocatorHost&) = default;
  PageAllocatorHost& operator=(const PageAllocatorHost&) = default;
};

/// select_bad_process(): the task among `tasks` the OOM killer picks, the highest oom_badness()
/// (resident + swap pages, plus oom_score_adj thousandths of `totalPages`: memory + swap), or
/// nullptr if none may be killed (exited, not started, or oom_score_adj -1000). With `cgroup`,
/// only that memory cgroup's tasks are candidates (mem_cgroup_out_of_memory()).
Task* selectOomVictim(std::span<Task> tasks, double totalPages,
                      std::optional<int> cgroup = std::nullopt);

class PageAllocator {
 public:
  /// kswapd's kernel-thread number (CpuScheduler kernel threads).
  static constexpr int kKswapdThread = 0;

  /// Takes the settings the allocator reads: machine.memoryMiB, swapMiB, allocator and
  /// swapDevice, vm.minFreeKbytes, watermarkScaleFactor and swappiness. Sizes and watermarks
  /// take effect with resize().
  void configure(const Scenario& s);
  /// The node's size or watermark settings changed (or it boots): clean cache is reclaimed
  /// first if the node shrinks below what is in use; free memory is then what the page cache
  /// and anonymous memory leave, and the watermarks follow (calculate_min_free_kbytes(),
  /// __setup_per_zone_wmarks()).
  void resize(PageAllocatorHost& host);

  /// Allocates up to `n` pages for `t`, one order-0 allocation each: returns how many it got
  /// (at least 1), or 0 when even the first must wait. On 0 the task is marked as stalled
  /// and the caller enters directReclaim() for it.
  Pages allocate(PageAllocatorHost& host, Task& t, Pages n);
  /// The folio a buffered write() of `t` gets when it needs a new one of `pages` (a power of
  /// two), `pending` pages of the same write() being already spoken for (docs/model.md, Large
  /// folios in the write path, Eq. 70). __filemap_get_folio() (6.x, FGP_CREAT) tries the orders
  /// from high to low, those above 0 with __GFP_NORETRY | __GFP_NOWARN: such an order is had
  /// only if it fits above the min watermark once kswapd is woken (the model's memory does not
  /// fragment, so compaction cannot help, and the one round of direct reclaim the kernel allows
  /// orders 1-3 is left out). Order 0 is asked without __GFP_NORETRY: 1 is returned, and
  /// allocate() may stall for it.
  Pages folioWithoutReclaim(const Memory& mem, const Task& t, Pages pages, Pages pending) const {
    const Pages mark = allocMark(mem, t, false);
    while (pages > 1 && mem.free - pending - pages < mark) pages /= 2;
    return pages;
  }
  /// Whether the page `t` waits for can be taken now (above its min mark).
  bool canAllocate(const Memory& mem, const Task& t) const {
    return mem.free - t.allocNeed >= allocMark(mem, t, false);
  }
  /// One round of direct reclaim for `t` (__alloc_pages_direct_reclaim() and the retry
  /// decision of __alloc_pages_slowpath()): what the task does next.
  struct DirectReclaim {
    enum class Next : std::uint8_t {
      Retry,  ///< enough is free: run the scan's CPU time (`cpuS`), then retry
      Wait,   ///< sleep up to `wait` for reclaim's IO; `cpuS` is owed to its next piece
      Gone,   ///< the task was the OOM killer's victim
    };
    Next next = Next::Retry;
    double cpuS = 0;
    SimDuration wait{};
  };
  DirectReclaim directReclaim(PageAllocatorHost& host, Task& t);
  /// Hands freed pages to the tasks that waited longest, as many as they cover.
  void wakeMemoryWaiters(PageAllocatorHost& host);

  void wakeKswapd(PageAllocatorHost& host);
  /// The KswapdRun event: one reclaim batch.
  void kswapdRun(PageAllocatorHost& host);
  /// kswapd was waiting for a request slot on the swap device and has one now.
  void kswapdSlotFree(PageAllocatorHost& host);
  bool kswapdActive() const { return m_kswapd.active; }

  /// The OomExit event: the victim's memory is freed.
  void oomExited(PageAllocatorHost& host);
  /// A swap-out write completed: the pages are free, their owner has them in swap.
  static void swapOutDone(PageAllocatorHost& host, const IoRequest& r);
  /// `f` may have clean pages now: it joins the end of the reclaim order if it is not on it.
  void noteClean(CachedFile& f);
  /// The device holding swap (machine.swapDevice; the first device if unnamed).
  int swapDevice() const { return m_swapDevice; }

 private:
  /// machine.allocator parsed once: allocMark() runs for every waiter on every kswapd batch.
  enum class Era : std::uint8_t { V260, V269, V6x, V260NoRt, Other };
  static Era eraOf(const std::string& allocator);
  void setupWatermarks(Memory& mem) const;
  Pages allocMark(const Memory& mem, const Task& t, bool lowPass) const;
  /// Reclaims towards `target` free pages: clean cache at once, anonymous pages by swap-out
  /// (freed when the write completes). Returns pages freed at once or being swapped out;
  /// adds to *scanned.
  Pages reclaim(PageAllocatorHost& host, Pages target, std::int64_t* scanned, bool kswapd);
  Pages reclaimClean(PageAllocatorHost& host, Pages target);
  /// Starts swap-out of up to `target` anonymous pages; kswapd waits for a request slot when
  /// the queue is full (kswapdSlotFree() continues it).
  Pages startSwapOut(PageAllocatorHost& host, Pages target, bool kswapd);
  Pages kswapdTarget(const Memory& mem) const;
  bool oomKill(PageAllocatorHost& host);
  static Pages reclaimableNow(const Memory& mem);

  // settings (configure())
  Era m_era = Era::Other;
  bool m_oldWatermarks = false;  ///< 2.6.0–2.6.9 min_free_kbytes and watermark spacing
  std::int64_t m_memoryMiB = 0, m_swapMiB = 0;
  std::int64_t m_minFreeKbytes = 0;
  int m_watermarkScaleFactor = 0;
  int m_swappiness = 0;
  int m_swapDevice = 0;

  Kswapd m_kswapd;
  std::vector<int> m_memoryWaiters;  ///< stalled tasks, longest waiting first
  std::deque<int> m_cleanFiles;      ///< files with clean pages, in the order they came clean
  int m_oomPending = 0;              ///< an OOM victim whose memory is not yet freed
};

}  // namespace throttlelab::engine
