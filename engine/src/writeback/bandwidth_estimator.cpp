// SPDX-License-Identifier: GPL-3.0-or-later
#include "bandwidth_estimator.h"

#include <algorithm>
#include <cmath>

#include "kernel_math.h"

namespace throttlelab::engine {

WbBandwidth initialWbBandwidth(const DeviceConfig& config, std::int64_t nowJiffies) {
  // KB/s as the tracepoints print them to pages per second, at least the kernel's 1.
  const auto pages = [](double kbps) {
    return kbps > 0 ? std::max<std::int64_t>(1, std::llround(kbps * 1024 / kPageBytes))
                    : kInitBwPagesPerS;
  };
  WbBandwidth bw;
  bw.writeBw = pages(config.initialWriteBwKBps);
  bw.avgWriteBw = pages(config.initialAvgWriteBwKBps);
  bw.dirtyRatelimit = pages(config.initialDirtyRatelimitKBps);
  bw.balancedDirtyRatelimit = bw.dirtyRatelimit;
  bw.bwTimeStampJiffies = nowJiffies;
  return bw;
}

void updateWriteBandwidth(WbBandwidth& wb, std::int64_t elapsedJiffies, Pages written, int hz) {
  // The estimate is a moving average over about three seconds (a power of two in jiffies).
  const auto period = static_cast<std::int64_t>(rup2(static_cast<std::uint64_t>(3 * hz)));
  std::int64_t avg = wb.avgWriteBw;
  const std::int64_t old = wb.writeBw;
  std::int64_t bw = (written - std::min(written, wb.writtenStamp)) * hz;
  if (elapsedJiffies > period) {
    bw /= std::max<std::int64_t>(elapsedJiffies, 1);
    avg = bw;
  } else {
    bw += old * (period - elapsedJiffies);
    bw >>= ilog2(static_cast<std::uint64_t>(period));
    // One more level of smoothing: only move avg while old lies between avg and the new bw.
    if (avg > old && old >= bw) avg -= (avg - old) >> 3;
    if (avg < old && old <= bw) avg += (old - avg) >> 3;
  }
  wb.writeBw = bw;
  wb.avgWriteBw = std::max<std::int64_t>(avg, 1);
}

void restampBandwidth(WbBandwidth& wb, Pages written, Pages dirtied, std::int64_t nowJiffies) {
  wb.writtenStamp = written;
  wb.dirtiedStamp = dirtied;
  wb.bwTimeStampJiffies = nowJiffies;
}

void updateBandwidthAndRestamp(WbBandwidth& wb, Pages written, Pages dirtied,
                               std::int64_t nowJiffies, int hz) {
  updateWriteBandwidth(wb, std::max<std::int64_t>(nowJiffies - wb.bwTimeStampJiffies, 1), written,
                       hz);
  restampBandwidth(wb, written, dirtied, nowJiffies);
}

}  // namespace throttlelab::engine
