// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Memory cgroups (docs/model.md, Memory cgroups): the page cache charged to each cgroup, its
// own writeback domain (mem_cgroup_wb_stats(), mdtc_calc_avail(), domain_dirty_limits() on the
// mdtc; cgroup writeback, 4.2+), and reclaim and the OOM killer inside a cgroup at its limit
// (try_charge_memcg(), try_to_free_mem_cgroup_pages(), mem_cgroup_out_of_memory();
// mm/memcontrol.c).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "bandwidth_estimator.h"
#include "device_state.h"
#include "dirty_throttle_control.h"
#include "flex_proportions.h"
#include "kernel_era.h"
#include "page_cache.h"
#include "task.h"
#include "throttlelab/engine/events.h"
#include "throttlelab/engine/records.h"
#include "throttlelab/engine/scenario.h"
#include "throttlelab/engine/units.h"
#include "vmstat.h"

namespace throttlelab::engine {

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

/// What the memory cgroups reach of the rest of the kernel: time, the settings and the global
/// domain their limits derive from, the devices' min/max ratios, the page cache and the node's
/// counters for reclaim, and the tasks they make wait or kill. Kernel implements it and passes
/// itself to each call.
class MemcgHost {
 public:
  virtual SimTime now() const = 0;
  virtual std::int64_t jiffies() const = 0;
  virtual const KernelEra& era() const = 0;
  virtual const VmConfig& vm() const = 0;
  virtual const Domain& domain() const = 0;
  virtual const DeviceState& device(int dev) const = 0;
  virtual int deviceCount() const = 0;
  virtual CachedFile& file(int id) = 0;
  virtual Memory& nodeCounters() = 0;
  virtual std::span<Task> taskTable() = 0;
  /// Reclaim freed pages: tasks waiting in the page allocator may have them.
  virtual void memoryFreed() = 0;
  /// wakeup_flusher_threads(WB_REASON_VMSCAN) for one device.
  virtual void startReclaimWriteback(int dev) = 0;
  virtual void sleepTask(Task& t, SimDuration d, TaskState state) = 0;
  virtual void wakeTaskNow(Task& t) = 0;
  /// The OOM killer's victim leaves.
  virtual void removeTask(Task& t) = 0;
  virtual void addRunEvent(RunEvent::Kind kind, std::string text) = 0;

 protected:
  MemcgHost() = default;
  ~MemcgHost() = default;
  MemcgHost(const MemcgHost&) = default;
  MemcgHost& operator=(const MemcgHost&) = default;
};

class MemCgroups {
 public:
  /// The cgroups of the scenario, at boot.
  void setup(MemcgHost& host, const std::vector<CgroupSpec>& specs);
  /// New limits (the list itself cannot change while running).
  void reconfigure(const std::vector<CgroupSpec>& specs);
  bool empty() const { return m_cgroups.empty(); }
  CgroupState& state(int cg) { return m_cgroups[static_cast<std::size_t>(cg)]; }
  const CgroupState& state(int cg) const { return m_cgroups[static_cast<std::size_t>(cg)]; }
  const std::vector<CgroupState>& states() const { return m_cgroups; }

  /// The memory cgroup whose own wb_domain `task` is throttled in (a v2 cgroup under a 4.2+
  /// era), or -1: the global domain alone.
  int domainOf(const MemcgHost& host, const Task& task) const;
  /// cgroup_ino of `task`'s wb in traces: its cgroup's under cgroup writeback, else 1 (root).
  std::uint64_t traceIno(const MemcgHost& host, const Task& task) const;
  /// The cgroup's own limits (Eq. 60–61) beside the global `g`, as `task` sees them (RT
  /// bonus); `task` may be null (the flusher).
  MemcgView view(const MemcgHost& host, int cg, const GlobalView& g, const Task* task) const;
  /// The cgroup's wb on `dev`: its share of the cgroup's thresholds and its dirty pages.
  WbView wbView(const MemcgHost& host, int cg, int dev, const MemcgView& m) const;
  /// Dirty + writeback pages on `dev` that belong to the wbs of v2 cgroups (not the root wb).
  Pages wbDirty(const MemcgHost& host, int dev) const;
  /// A cgroup's wb over its share of the cgroup's background threshold (wb_over_bg_thresh()'s
  /// memcg half).
  bool overBackgroundThresh(const MemcgHost& host, int dev, const GlobalView& g) const;

  /// mem_cgroup_charge(): charges `n` new page-cache pages of `t` to its cgroup, reclaiming
  /// inside the cgroup at memory.high/memory.max; false when the task must wait for the
  /// cgroup's writeback first (it then sleeps and retries) or was OOM-killed.
  bool charge(MemcgHost& host, Task& t, Pages n);
  /// `n` pages of `f` came into the cache (charged before).
  void cached(const CachedFile& f, Pages n) { state(f.cgroup).file += n; }
  /// File `file`, charged to `cg`, is reclaimed from inside it.
  void addFile(int cg, int file) { state(cg).files.push_back(file); }
  /// The per-cgroup counters of a file's pages (the memcg's and its wb's on the file's device).
  void dirtied(const CachedFile& f, Pages n);
  void writebackStarted(const CachedFile& f, Pages n);
  void writebackDone(MemcgHost& host, const CachedFile& f, Pages n, int dev);
  void evicted(const CachedFile& f, Pages n) { state(f.cgroup).file -= n; }

  std::vector<CgroupSample> samples(const MemcgHost& host, const GlobalView& g) const;
  /// What a copy holds on the heap.
  std::size_t heapBytes() const;

 private:
  /// MemcgView with a bonus choice and whether writeback pages count as dirty (the throttle
  /// counts them, wb_over_bg_thresh() does not).
  MemcgView viewFor(const MemcgHost& host, int cg, const GlobalView& g, LimitBonus bonus,
                    bool includeWriteback) const;
  /// try_to_free_mem_cgroup_pages(): evicts up to `target` clean pages of the cgroup's files.
  Pages reclaim(MemcgHost& host, int cg, Pages target);
  /// mem_cgroup_out_of_memory(): kills the cgroup's largest task; false if none can be killed.
  bool oomKill(MemcgHost& host, int cg);

  std::vector<CgroupState> m_cgroups;  ///< Scenario::cgroups, by index
  std::vector<std::string> m_names;    ///< their names (the OOM killer's message)
};

}  // namespace throttlelab::engine
