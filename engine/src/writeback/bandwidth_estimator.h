// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Per-device write bandwidth and rate-limit state (struct bdi_writeback's bandwidth fields),
// and the write-bandwidth estimator (docs/model.md, Bandwidth estimation, Eq. 20–21).
#include <cstdint>

#include "throttlelab/engine/scenario.h"
#include "throttlelab/engine/units.h"

namespace throttlelab::engine {

/// INIT_BW: 100 MB/s in pages per second, the starting value of every estimate.
inline constexpr std::int64_t kInitBwPagesPerS = (100LL << 20) / kPageBytes;

struct WbBandwidth {
  std::int64_t writeBw = kInitBwPagesPerS;         ///< write_bandwidth, pages/s
  std::int64_t avgWriteBw = kInitBwPagesPerS;      ///< avg_write_bandwidth, pages/s
  std::int64_t dirtyRatelimit = kInitBwPagesPerS;  ///< dirty_ratelimit, pages/s
  std::int64_t balancedDirtyRatelimit = kInitBwPagesPerS;
  std::int64_t lastDirtyRate = 0;      ///< dirty_rate of the last rate update
  std::int64_t lastTaskRatelimit = 0;  ///< task_ratelimit of the last rate update
  Pages writtenStamp = 0;
  Pages dirtiedStamp = 0;
  std::int64_t bwTimeStampJiffies = 0;  ///< bw_time_stamp
};

/// A device's bandwidth state at the start of a run, stamped `nowJiffies`: INIT_BW for each
/// estimate, as wb_init() sets them at boot, unless the scenario gives the state the bdi had
/// from earlier writes (DeviceConfig::initial*KBps; the kernel keeps it for the bdi's lifetime).
/// balanced_dirty_ratelimit starts equal to dirty_ratelimit, as wb_init() starts it.
WbBandwidth initialWbBandwidth(const DeviceConfig& config, std::int64_t nowJiffies);

/// Eq. 20–21 (wb_update_write_bandwidth()): `written` is the cumulative completed-page count,
/// `elapsedJiffies` the time since the stamp. Updates writeBw and avgWriteBw.
void updateWriteBandwidth(WbBandwidth& wb, std::int64_t elapsedJiffies, Pages written, int hz);

/// Starts a new estimation period at `now` from the device's cumulative counters.
void restampBandwidth(WbBandwidth& wb, Pages written, Pages dirtied, std::int64_t nowJiffies);
/// Eq. 20–21 over the time since the stamp, then a new period (the end of __wb_update_bandwidth()).
void updateBandwidthAndRestamp(WbBandwidth& wb, Pages written, Pages dirtied,
                               std::int64_t nowJiffies, int hz);

}  // namespace throttlelab::engine
