// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A device as the kernel's writeback sees it (struct backing_dev_info with its root
// bdi_writeback): the block device, its wb's counters and bandwidth estimate, its flusher, the
// tasks waiting on it, and the file system on it.
#include <cstdint>
#include <vector>

#include "bandwidth_estimator.h"
#include "block_device.h"
#include "file_system.h"
#include "flusher.h"
#include "throttlelab/engine/scenario.h"
#include "throttlelab/engine/sim_time.h"
#include "throttlelab/engine/units.h"

namespace throttlelab::engine {

struct DeviceState {
  BlockDevice device;
  WbBandwidth bw;
  Pages reclaimable = 0;  ///< WB_RECLAIMABLE: dirty pages of this bdi
  Pages writeback = 0;    ///< WB_WRITEBACK
  Pages dirtied = 0;      ///< WB_DIRTIED, cumulative
  Pages written = 0;      ///< WB_WRITTEN, cumulative
  bool dirtyExceeded = false;
  Flusher flusher;  ///< its inode lists and flusher (writeback/flusher.h)
  std::uint32_t completionGeneration = 0;
  SimTime scheduledCompletion{};       ///< completion time a DeviceDone event is pending for
  std::int64_t tracedIssues = 0;       ///< requests whose block_rq_issue has been traced
  std::vector<int> congestionWaiters;  ///< tasks in congestion_wait()
  // sample-interval bookkeeping
  DeviceCounters atSample{};
  SimDuration busyAtSample{};
  double lastPosRatio = 0;
  std::int64_t lastMaxPause = 0;

  FileSystem fs;  ///< the file system on this device (engine/src/fs)

  /// Device number `index` of the machine, configured by `c`.
  DeviceState(const DeviceConfig& c, std::uint64_t seed, int index)
      : device(c, seed), flusher(index), fs(c, index) {}
};

}  // namespace throttlelab::engine
