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
#include "page_cache.h"
#include "pause_histogram.h"
#include "throttlelab/engine/records.h"
#include "throttlelab/engine/scenario.h"

namespace throttlelab::engine {

/// Jiffies are counted from an offset so that 0 can mean "never" (dirty_paused_when).
inline constexpr std::int64_t kJiffiesOffset = 1'000'000;

struct Task {
  TaskInfo info;
  TaskSpec spec;                 ///< copy of its group's spec (live-updated)
  TaskState state = TaskState::NotStarted;
  std::uint32_t generation = 0;  ///< invalidates pending events when the task is removed
  bool removed = false;
  int file = -1;                 ///< the file of the current run
  Pages runLeft = 0;             ///< pages still to write in this dd run
  Pages blockLeft = 0;           ///< pages left in the current block (think time between blocks)
  Pages piece = 0;               ///< pages of the CPU piece being copied
  Pages pieceAllocated = 0;      ///< page-cache pages already allocated for that piece
  SimTime runStart{};

  // balance_dirty_pages state of struct task_struct
  Pages nrDirtied = 0;
  Pages nrDirtiedPause = 32;
  std::int64_t dirtyPausedWhen = 0;  ///< jiffies, 0 = never paused
  std::int64_t balanceStart = 0;     ///< jiffies at the start of the ongoing balance() call
  Pages balancePages = 0;            ///< pages_dirtied of the ongoing call

  // statistics
  Pages dirtiedTotal = 0;
  double cpuS = 0;
  double pausedS = 0;
  std::int64_t runs = 0;
  double lastRunS = 0;
  double startedS = -1;
  double exitedS = -1;
  double taskRatelimit = 0;          ///< pages/s, last computed
  PauseHistogram pauses;
  Pages dirtiedAtSample = 0;
  double intervalMaxPauseMs = 0;
  std::deque<std::pair<SimTime, Pages>> recent;  ///< (time, dirtiedTotal) for the 1 s rate
};

struct Flusher {
  std::deque<int> io;                 ///< b_io: files queued for this pass
  bool active = false;
  bool backgroundRequested = false;
  bool kupdateDue = false;           ///< the periodic timer fired: write expired inodes
  bool scheduled = false;             ///< a FlusherRun event is pending
  int blockedFile = -1;               ///< waiting for a request slot to submit the rest
  Pages blockedPages = 0;
  std::int64_t blockedOffset = 0;
  SimTime lastOldFlush{};
  std::uint32_t timerGeneration = 0;
};

struct DeviceState {
  BlockDevice device;
  WbBandwidth bw;
  Pages reclaimable = 0;   ///< WB_RECLAIMABLE: dirty pages of this bdi
  Pages writeback = 0;     ///< WB_WRITEBACK
  Pages dirtied = 0;       ///< WB_DIRTIED, cumulative
  Pages written = 0;       ///< WB_WRITTEN, cumulative
  bool dirtyExceeded = false;
  Flusher flusher;
  std::set<std::pair<SimTime, int>> dirtyFiles;  ///< b_dirty ordered by dirtied_when
  std::uint32_t completionGeneration = 0;
  SimTime scheduledCompletion{};    ///< completion time a DeviceDone event is pending for
  // sample-interval bookkeeping
  DeviceCounters atSample{};
  SimDuration busyAtSample{};
  double lastPosRatio = 0;
  std::int64_t lastMaxPause = 0;

  DeviceState(const DeviceConfig& c, std::uint64_t seed) : device(c, seed) {}
};

struct Memory {
  Pages total = 0;
  Pages free = 0;
  Pages file = 0;        ///< page cache: clean + dirty + writeback
  Pages anon = 0;
  Pages nrDirty = 0;     ///< NR_FILE_DIRTY
  Pages nrWriteback = 0; ///< NR_WRITEBACK
  Pages dirtied = 0;     ///< NR_DIRTIED
  Pages written = 0;     ///< NR_WRITTEN
  Pages wmarkMin = 0, wmarkLow = 0, wmarkHigh = 0;
  Pages totalReserve = 0;
};

/// The global writeback domain (struct wb_domain).
struct Domain {
  Pages dirtyLimit = 0;               ///< E20, the slowly following limit
  std::int64_t dirtyLimitStamp = 0;   ///< jiffies
  FlexProportions completions;
};

/// Global dirty state as one throttle pass sees it (struct dirty_throttle_control, global).
struct GlobalView {
  Pages avail = 0;
  Pages nrReclaimable = 0;
  Pages dirty = 0;        ///< nr_dirty + nr_writeback
  Pages thresh = 0;
  Pages bgThresh = 0;
  Pages freerun = 0;
  Pages limit = 0;        ///< E21
  Pages setpoint = 0;
};

/// Per-device share of the thresholds (E15) as one throttle pass sees it.
struct WbView {
  Pages wbThresh = 0;
  Pages wbBgThresh = 0;
  Pages wbDirty = 0;      ///< reclaimable + writeback of this bdi
};

class World;
using TraceFn = std::function<void(const TraceRecord&)>;

}  // namespace throttlelab::engine
