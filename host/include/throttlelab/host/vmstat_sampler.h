// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Live host mode without root (issue #6): polls /proc/vmstat, /proc/meminfo, /proc/zoneinfo
/// and /proc/sys/vm/dirty_* (about ten times a second) and turns each poll into an
/// engine::Sample, so the window's own plots draw the host: dirty + writeback against
/// bg_thresh, thresh, freerun and setpoint (from nr_dirty_threshold and
/// nr_dirty_background_threshold), free pages against the summed zone watermarks, reclaim
/// scanning and allocation stalls as rates. The /proc root is a parameter so tests read a
/// fixture copy.
#include <cstdint>
#include <optional>
#include <string>

#include "throttlelab/engine/records.h"

namespace throttlelab::host {

/// /proc/sys/vm/dirty_* as found (bytes 0 = the ratio applies).
struct DirtySysctls {
  int dirtyRatio = 0;
  int dirtyBackgroundRatio = 0;
  std::int64_t dirtyBytes = 0;
  std::int64_t dirtyBackgroundBytes = 0;
  int dirtyExpireCentisecs = 0;
  int dirtyWritebackCentisecs = 0;
  bool operator==(const DirtySysctls&) const = default;
};

/// Static facts about the host, for "Simulate this trace" and the window title.
struct HostInfo {
  int cpus = 0;
  std::int64_t memTotalKiB = 0;
  std::int64_t swapTotalKiB = 0;
  std::string kernelRelease;  ///< /proc/sys/kernel/osrelease
  int hz = 0;                 ///< 0 = unknown (guessed from /proc/timer_list if readable)
};
/// Reads HostInfo under `procRoot`; missing files leave fields at 0/empty.
HostInfo readHostInfo(const std::string& procRoot = "/proc");

class VmstatSampler {
 public:
  explicit VmstatSampler(std::string procRoot = "/proc");

  struct Poll {
    std::optional<engine::Sample> sample;  ///< empty on error
    std::string error;  ///< "cannot read /proc/vmstat: Permission denied", or a missing counter
  };
  /// Reads everything once. `nowS` is the sample time (seconds since the monitor started);
  /// rates (pgscan, allocstall, written KB/s) are over the time since the previous poll and 0
  /// on the first. The sysctls are re-read on every poll (someone may change them).
  Poll poll(double nowS);
  const DirtySysctls& sysctls() const { return m_sysctls; }
  const std::string& procRoot() const { return m_root; }

 private:
  std::string m_root;
  DirtySysctls m_sysctls;
  struct Previous {
    double timeS = 0;
    std::int64_t pgscanKswapd = 0, pgscanDirect = 0, pgsteal = 0, allocstall = 0;
    std::int64_t pswpin = 0, pswpout = 0, written = 0, oomKill = 0;
  };
  std::optional<Previous> m_prev;
};

}  // namespace throttlelab::host
