// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Live host mode without root: polls /proc/vmstat, /proc/meminfo, /proc/zoneinfo
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
  int cpus = 0;  ///< online CPUs: the cpuN lines of /proc/stat
  std::int64_t memTotalKiB = 0;
  std::int64_t swapTotalKiB = 0;
  std::string kernelRelease;  ///< /proc/sys/kernel/osrelease
  int hz = 0;                 ///< 0 = unknown (guessed from /proc/timer_list if readable)
  bool operator==(const HostInfo&) const = default;
};
/// Reads HostInfo under `procRoot`; missing files leave fields at 0/empty.
HostInfo readHostInfo(const std::string& procRoot = "/proc");

/// The request queue of one block device, from /sys/dev/block/MAJ:MIN/queue (a bdi named as
/// the tracepoints print it, "254:0") or /sys/block/NAME/queue ("sda"). What a trace cannot
/// tell about the disk but the simulated device needs: request size limit and queue depth.
struct BlockQueueInfo {
  bool found = false;     ///< the queue directory exists
  int maxSectorsKb = 0;   ///< max_sectors_kb: the largest request the block layer builds
  int nrRequests = 0;     ///< nr_requests
  int rotational = -1;    ///< 1, 0, or -1 unknown; virtual disks often claim 1
  std::string scheduler;  ///< the selected one, "mq-deadline" from "[mq-deadline] none"
};
BlockQueueInfo readBlockQueue(const std::string& bdiName, const std::string& sysRoot = "/sys");

class VmstatSampler {
 public:
  explicit VmstatSampler(std::string procRoot = "/proc");

  struct Poll {
    std::optional<engine::Sample> sample;  ///< empty on error
    std::string error;  ///< "cannot read /proc/vmstat: Permission denied", or a missing counter
  };
  /// Reads everything once. `nowS` is the sample time (seconds since the monitor started);
  /// rates (pgscan, allocstall, written KB/s) are over the time since the previous poll and 0
  /// on the first (and when `nowS` did not advance). The sysctls are re-read on every poll
  /// (someone may change them); /proc/zoneinfo, which is large on big machines and whose
  /// watermarks change only with min_free_kbytes or memory hotplug, at most once a second.
  /// Never throws on missing, unreadable or garbled files. A failed poll leaves the previous
  /// counters, so the next good poll's rates span the gap.
  /// Fills the Sample's page levels, thresholds (limit = dirty_limit = thresh: the global
  /// dirty_limit is not exported), freerun, setpoint, availPages (global_dirtyable_memory()),
  /// memory, watermarks, swap, reclaim rates, allocStalls, kswapdActive, oomKills, and one
  /// DeviceSample standing for the whole host (nr_written is not per disk): reclaimable and
  /// writeback pages, deviceWriteKBps, readKBps (swap-in) and bytesWritten since the first
  /// poll. Task, pause and CPU fields stay 0.
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
  std::int64_t m_firstWritten = -1;  ///< nr_written at the first good poll (bytesWritten base)
  /// Watermarks and totalreserve_pages summed over zones, in pages; readS < 0 = not read yet.
  struct Zones {
    double readS = -1;
    std::int64_t min = 0, low = 0, high = 0, reserve = 0;
  };
  Zones m_zones;
  std::string m_buffer;  ///< reused by every read: no per-line or per-file buffers
};

}  // namespace throttlelab::host
