// SPDX-License-Identifier: GPL-3.0-or-later
// Live host mode: /proc counters turned into engine::Sample values.
#include "throttlelab/host/vmstat_sampler.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string_view>
#include <utility>

#include "file_util.h"

namespace throttlelab::host {

using detail::forEachLine;
using detail::parseInt;
using detail::trim;
using engine::Pages;

namespace {

// The /proc/vmstat counters a poll uses. The first group must be present (every kernel since
// 4.8 has them, and without them there is nothing to plot); oom_kill (4.13+) and the
// allocstall counters (one per zone type since 4.8) are summed or taken as 0 when absent.
enum Counter : std::size_t {
  kNrFreePages,
  kNrDirty,
  kNrWriteback,
  kNrDirtyThreshold,
  kNrDirtyBackgroundThreshold,
  kNrDirtied,
  kNrWritten,
  kNrFilePages,
  kNrAnonPages,
  kNrActiveFile,
  kNrInactiveFile,
  kPgscanKswapd,
  kPgscanDirect,
  kPgstealKswapd,
  kPgstealDirect,
  kPswpin,
  kPswpout,
  kRequiredCount,
  kOomKill = kRequiredCount,
  kCounterCount
};

constexpr std::array<std::string_view, kCounterCount> kCounterNames{"nr_free_pages",
                                                                    "nr_dirty",
                                                                    "nr_writeback",
                                                                    "nr_dirty_threshold",
                                                                    "nr_dirty_background_threshold",
                                                                    "nr_dirtied",
                                                                    "nr_written",
                                                                    "nr_file_pages",
                                                                    "nr_anon_pages",
                                                                    "nr_active_file",
                                                                    "nr_inactive_file",
                                                                    "pgscan_kswapd",
                                                                    "pgscan_direct",
                                                                    "pgsteal_kswapd",
                                                                    "pgsteal_direct",
                                                                    "pswpin",
                                                                    "pswpout",
                                                                    "oom_kill"};

struct VmstatValues {
  std::array<std::int64_t, kCounterCount> value{};
  std::array<bool, kCounterCount> seen{};
  std::int64_t allocstall = 0;  ///< allocstall_* summed (or the pre-4.8 single counter)
};

/// Splits "name value" (vmstat) or "Name:   value kB" (meminfo) into name and number text.
std::pair<std::string_view, std::string_view> splitNameValue(std::string_view line) {
  const auto sep = line.find_first_of(" \t");
  if (sep == std::string_view::npos) return {line, {}};
  std::string_view name = line.substr(0, sep);
  std::string_view rest = trim(line.substr(sep));
  if (const auto sp = rest.find_first_of(" \t"); sp != std::string_view::npos) {
    rest = rest.substr(0, sp);  // drops meminfo's " kB"
  }
  return {name, rest};
}

/// Empty on success; otherwise the error for a counter that is there but not a number.
std::string parseVmstat(std::string_view text, const std::string& path, VmstatValues& out) {
  std::string error;
  forEachLine(text, [&](std::string_view line) {
    if (!error.empty()) return;
    const auto [name, valueText] = splitNameValue(line);
    const bool isAllocstall = name.substr(0, 10) == "allocstall";
    std::size_t index = kCounterCount;
    if (!isAllocstall) {
      const auto it = std::find(kCounterNames.begin(), kCounterNames.end(), name);
      if (it == kCounterNames.end()) return;  // a counter we do not use, garbled or not
      index = static_cast<std::size_t>(it - kCounterNames.begin());
    }
    std::int64_t v = 0;
    if (!parseInt(valueText, v) || v < 0) {
      error = "cannot parse the " + std::string(name) + " counter in " + path + ": \"" +
              std::string(line.substr(0, 80)) + "\"";
      return;
    }
    if (isAllocstall) {
      out.allocstall += v;
    } else {
      out.value[index] = v;
      out.seen[index] = true;
    }
  });
  if (!error.empty()) return error;
  for (std::size_t i = 0; i < kRequiredCount; ++i) {
    if (!out.seen[i]) return path + " has no " + std::string(kCounterNames[i]) + " counter";
  }
  return {};
}

struct MeminfoValues {
  std::int64_t memTotalKiB = -1, swapTotalKiB = -1, swapFreeKiB = -1;
};

std::string parseMeminfo(std::string_view text, const std::string& path, MeminfoValues& out) {
  std::string error;
  forEachLine(text, [&](std::string_view line) {
    if (!error.empty()) return;
    const auto [name, valueText] = splitNameValue(line);
    std::int64_t* target = nullptr;
    if (name == "MemTotal:")
      target = &out.memTotalKiB;
    else if (name == "SwapTotal:")
      target = &out.swapTotalKiB;
    else if (name == "SwapFree:")
      target = &out.swapFreeKiB;
    if (target == nullptr) return;
    if (!parseInt(valueText, *target) || *target < 0) {
      error = "cannot parse " + std::string(name.substr(0, name.size() - 1)) + " in " + path;
    }
  });
  if (!error.empty()) return error;
  if (out.memTotalKiB < 0) return path + " has no MemTotal field";
  if (out.swapTotalKiB < 0) return path + " has no SwapTotal field";
  if (out.swapFreeKiB < 0) return path + " has no SwapFree field";
  return {};
}

struct ZoneSums {
  std::int64_t min = 0, low = 0, high = 0, reserve = 0;
  int zones = 0;
};

/// Sums the watermarks of every zone and computes totalreserve_pages the way
/// calculate_totalreserve_pages() does: per zone the largest lowmem_reserve ("protection")
/// plus the high watermark, capped at the zone's managed pages.
std::string parseZoneinfo(std::string_view text, const std::string& path, ZoneSums& out) {
  std::int64_t zoneHigh = 0, zoneProtection = 0, zoneManaged = -1;
  bool inZone = false;
  const auto finishZone = [&] {
    if (!inZone) return;
    std::int64_t reserve = zoneProtection + zoneHigh;
    if (zoneManaged >= 0) reserve = std::min(reserve, zoneManaged);
    out.reserve += reserve;
    ++out.zones;
  };
  std::string error;
  forEachLine(text, [&](std::string_view line) {
    if (!error.empty()) return;
    if (line.substr(0, 5) == "Node ") {
      finishZone();
      inZone = line.find(", zone") != std::string_view::npos;
      zoneHigh = zoneProtection = 0;
      zoneManaged = -1;
      return;
    }
    if (!inZone) return;
    const std::string_view t = trim(line);
    if (t.substr(0, 12) == "protection: ") {
      // "protection: (0, 2780, 23869, 23869, 23869)"
      std::string_view list = t.substr(12);
      while (!list.empty() && (list.front() == '(' || list.front() == ' ')) list.remove_prefix(1);
      while (!list.empty() && list.back() == ')') list.remove_suffix(1);
      while (!list.empty()) {
        const auto comma = list.find(',');
        std::int64_t v = 0;
        if (parseInt(trim(list.substr(0, comma)), v)) zoneProtection = std::max(zoneProtection, v);
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
      }
      return;
    }
    const auto [name, valueText] = splitNameValue(t);
    std::int64_t* target = nullptr;
    if (name == "min")
      target = &out.min;
    else if (name == "low")
      target = &out.low;
    else if (name == "high")
      target = &out.high;
    else if (name == "managed")
      target = &zoneManaged;
    if (target == nullptr) return;
    std::int64_t v = 0;
    if (!parseInt(valueText, v) || v < 0) {
      error = "cannot parse the " + std::string(name) + " watermark in " + path;
      return;
    }
    if (target == &zoneManaged) {
      zoneManaged = v;
    } else {
      *target += v;
      if (target == &out.high) zoneHigh = v;
    }
  });
  finishZone();
  if (!error.empty()) return error;
  if (out.zones == 0) return path + " lists no zones";
  return {};
}

/// Reads one integer file (a sysctl). Empty on success.
std::string readIntFile(const std::string& path, std::string& buffer, std::int64_t& value) {
  if (const int err = detail::readFile(path, buffer); err != 0) {
    return "cannot read " + path + ": " + detail::errnoText(err);
  }
  if (!parseInt(trim(buffer), value))
    return "cannot parse " + path + ": \"" + std::string(trim(buffer).substr(0, 40)) + "\"";
  return {};
}

std::string readSysctls(const std::string& root, std::string& buffer, DirtySysctls& out) {
  struct Field {
    const char* name;
    std::int64_t value = 0;
  };
  std::array<Field, 6> fields{{{"dirty_ratio"},
                               {"dirty_background_ratio"},
                               {"dirty_bytes"},
                               {"dirty_background_bytes"},
                               {"dirty_expire_centisecs"},
                               {"dirty_writeback_centisecs"}}};
  for (auto& f : fields) {
    if (auto e = readIntFile(root + "/sys/vm/" + f.name, buffer, f.value); !e.empty()) return e;
  }
  out.dirtyRatio = static_cast<int>(fields[0].value);
  out.dirtyBackgroundRatio = static_cast<int>(fields[1].value);
  out.dirtyBytes = fields[2].value;
  out.dirtyBackgroundBytes = fields[3].value;
  out.dirtyExpireCentisecs = static_cast<int>(fields[4].value);
  out.dirtyWritebackCentisecs = static_cast<int>(fields[5].value);
  return {};
}

/// A counter that went backwards (wrapped, or a different machine's fixture) counts as 0.
std::int64_t delta(std::int64_t now, std::int64_t before) {
  return now >= before ? now - before : 0;
}

/// HZ from /proc/timer_list: jiffies started at INITIAL_JIFFIES = (u32)(-300·HZ), so at
/// monotonic time `now` jiffies ≈ 2^32 + (now − 300 s)·HZ. The candidate HZ whose prediction
/// is clearly the closest wins; 0 when the file is unreadable or the answer is ambiguous
/// (uptime within a few seconds of 300 s).
int hzFromTimerList(std::string_view text) {
  std::int64_t nowNs = -1, jiffies = -1;
  forEachLine(text, [&](std::string_view line) {
    if (nowNs < 0 && line.substr(0, 7) == "now at ") {
      std::string_view v = line.substr(7);
      v = v.substr(0, v.find(' '));
      if (!parseInt(v, nowNs)) nowNs = -1;
    } else if (jiffies < 0 && line.substr(0, 9) == "jiffies: ") {
      if (!parseInt(trim(line.substr(9)), jiffies)) jiffies = -1;
    }
  });
  if (nowNs < 0 || jiffies < 0) return 0;
  const double nowS = static_cast<double>(nowNs) * 1e-9;
  constexpr std::array<int, 4> kCandidates{100, 250, 300, 1000};
  double best = std::numeric_limits<double>::infinity(), second = best;
  int bestHz = 0;
  for (const int hz : kCandidates) {
    const double predicted = 4294967296.0 + (nowS - 300.0) * hz;
    const double err = std::fabs(static_cast<double>(jiffies) - predicted);
    if (err < best) {
      second = best;
      best = err;
      bestHz = hz;
    } else if (err < second) {
      second = err;
    }
  }
  // The right HZ is off by a few ticks of NO_HZ catch-up; the next candidate by ≥ 50·|now−300|.
  return best * 4.0 < second ? bestHz : 0;
}

}  // namespace

HostInfo readHostInfo(const std::string& procRoot) {
  HostInfo info;
  std::string buffer;
  if (detail::readFile(procRoot + "/stat", buffer) == 0) {
    forEachLine(buffer, [&](std::string_view line) {
      if (line.size() > 3 && line.substr(0, 3) == "cpu" && line[3] >= '0' && line[3] <= '9') {
        ++info.cpus;
      }
    });
  }
  if (detail::readFile(procRoot + "/meminfo", buffer) == 0) {
    MeminfoValues m;
    (void)parseMeminfo(buffer, procRoot + "/meminfo", m);
    info.memTotalKiB = std::max<std::int64_t>(m.memTotalKiB, 0);
    info.swapTotalKiB = std::max<std::int64_t>(m.swapTotalKiB, 0);
  }
  if (detail::readFile(procRoot + "/sys/kernel/osrelease", buffer) == 0) {
    info.kernelRelease = std::string(trim(buffer));
  }
  if (detail::readFile(procRoot + "/timer_list", buffer) == 0) {  // root only (mode 0400)
    info.hz = hzFromTimerList(buffer);
  }
  return info;
}

BlockQueueInfo readBlockQueue(const std::string& bdiName, const std::string& sysRoot) {
  BlockQueueInfo info;
  // The name goes into a path: accept only what a bdi name can be ("8:0", "sda", "nvme0n1").
  if (bdiName.empty() || bdiName.size() > 64 || bdiName.find("..") != std::string::npos ||
      bdiName.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                "0123456789:-_.") != std::string::npos)
    return info;
  const bool majMin = bdiName.find(':') != std::string::npos;
  const std::string dir = sysRoot + (majMin ? "/dev/block/" : "/block/") + bdiName + "/queue/";
  std::string buffer;
  const auto readNumber = [&](const char* file, int& out) {
    std::int64_t v = 0;
    if (detail::readFile(dir + file, buffer) != 0) return false;
    if (!detail::parseInt(detail::trim(buffer), v) || v < 0 || v > (1 << 30)) return false;
    out = static_cast<int>(v);
    return true;
  };
  info.found = readNumber("max_sectors_kb", info.maxSectorsKb);
  readNumber("nr_requests", info.nrRequests);
  readNumber("rotational", info.rotational);
  if (detail::readFile(dir + "scheduler", buffer) == 0) {
    const auto open = buffer.find('[');
    const auto close = buffer.find(']', open == std::string::npos ? 0 : open);
    if (open != std::string::npos && close != std::string::npos)
      info.scheduler = buffer.substr(open + 1, close - open - 1);
  }
  return info;
}

VmstatSampler::VmstatSampler(std::string procRoot) : m_root(std::move(procRoot)) {}

VmstatSampler::Poll VmstatSampler::poll(double nowS) {
  Poll result;
  const auto fail = [&](std::string message) {
    result.error = std::move(message);
    return result;
  };

  DirtySysctls sysctls;
  if (auto e = readSysctls(m_root, m_buffer, sysctls); !e.empty()) return fail(std::move(e));
  m_sysctls = sysctls;

  const std::string zonePath = m_root + "/zoneinfo";
  if (m_zones.readS < 0 || nowS < m_zones.readS || nowS - m_zones.readS >= 1.0) {
    if (const int err = detail::readFile(zonePath, m_buffer); err != 0) {
      return fail("cannot read " + zonePath + ": " + detail::errnoText(err));
    }
    ZoneSums z;
    if (auto e = parseZoneinfo(m_buffer, zonePath, z); !e.empty()) return fail(std::move(e));
    m_zones =
        Zones{.readS = nowS, .min = z.min, .low = z.low, .high = z.high, .reserve = z.reserve};
  }

  const std::string meminfoPath = m_root + "/meminfo";
  if (const int err = detail::readFile(meminfoPath, m_buffer); err != 0) {
    return fail("cannot read " + meminfoPath + ": " + detail::errnoText(err));
  }
  MeminfoValues mem;
  if (auto e = parseMeminfo(m_buffer, meminfoPath, mem); !e.empty()) return fail(std::move(e));

  // vmstat last, so its counters are the freshest when the sample is stamped.
  const std::string vmstatPath = m_root + "/vmstat";
  if (const int err = detail::readFile(vmstatPath, m_buffer); err != 0) {
    return fail("cannot read " + vmstatPath + ": " + detail::errnoText(err));
  }
  VmstatValues vm;
  if (auto e = parseVmstat(m_buffer, vmstatPath, vm); !e.empty()) return fail(std::move(e));
  const auto& v = vm.value;

  engine::Sample s;
  s.time = engine::atSeconds(nowS);
  s.dirtyPages = v[kNrDirty];
  s.writebackPages = v[kNrWriteback];
  s.threshPages = v[kNrDirtyThreshold];
  s.bgThreshPages = v[kNrDirtyBackgroundThreshold];
  s.freerunPages = (s.threshPages + s.bgThreshPages) / 2;
  // The global dirty_limit, which follows thresh slowly (update_dirty_limit(); docs/model.md,
  // Eq. 8), is not exported anywhere in /proc (only the writeback:global_dirty_state
  // tracepoint shows it), so the limit and setpoint here are those of a settled system, where
  // dirty_limit == thresh.
  s.limitPages = s.threshPages;
  s.dirtyLimitPages = s.threshPages;
  s.setpointPages = (s.freerunPages + s.limitPages) / 2;
  // global_dirtyable_memory(): free pages above totalreserve_pages plus the file LRU, +1.
  s.availPages = v[kNrFreePages] - std::min(v[kNrFreePages], m_zones.reserve) + v[kNrActiveFile] +
                 v[kNrInactiveFile] + 1;
  // /proc counts in PAGE_SIZE pages; engine::Pages are 4 KiB, which is PAGE_SIZE on x86-64.
  s.totalPages = mem.memTotalKiB / 4;
  s.freePages = v[kNrFreePages];
  s.filePages = v[kNrFilePages];
  s.anonPages = v[kNrAnonPages];
  s.wmarkMinPages = m_zones.min;
  s.wmarkLowPages = m_zones.low;
  s.wmarkHighPages = m_zones.high;
  s.dirtiedPages = v[kNrDirtied];
  s.writtenPages = v[kNrWritten];
  s.swapTotalPages = mem.swapTotalKiB / 4;
  s.swapUsedPages = std::max<std::int64_t>(mem.swapTotalKiB - mem.swapFreeKiB, 0) / 4;
  s.oomKills = v[kOomKill];

  const Previous now{.timeS = nowS,
                     .pgscanKswapd = v[kPgscanKswapd],
                     .pgscanDirect = v[kPgscanDirect],
                     .pgsteal = v[kPgstealKswapd] + v[kPgstealDirect],
                     .allocstall = vm.allocstall,
                     .pswpin = v[kPswpin],
                     .pswpout = v[kPswpout],
                     .written = v[kNrWritten],
                     .oomKill = v[kOomKill]};
  if (m_firstWritten < 0) m_firstWritten = now.written;

  engine::DeviceSample dev;  // the whole host as one device: nr_written is not per disk
  dev.reclaimablePages = s.dirtyPages;
  dev.writebackPages = s.writebackPages;
  dev.bytesWritten = delta(now.written, m_firstWritten) * engine::kPageBytes;

  if (m_prev && nowS > m_prev->timeS) {
    const Previous& p = *m_prev;
    const double dt = nowS - p.timeS;
    const auto perS = [dt](std::int64_t d) { return static_cast<double>(d) / dt; };
    s.pgscanKswapdPerS = perS(delta(now.pgscanKswapd, p.pgscanKswapd));
    s.pgscanDirectPerS = perS(delta(now.pgscanDirect, p.pgscanDirect));
    s.pgstealPerS = perS(delta(now.pgsteal, p.pgsteal));
    s.swapOutKBps = engine::pagesToKBps(perS(delta(now.pswpout, p.pswpout)));
    s.swapInKBps = engine::pagesToKBps(perS(delta(now.pswpin, p.pswpin)));
    s.allocStalls = static_cast<int>(std::min<std::int64_t>(delta(now.allocstall, p.allocstall),
                                                            std::numeric_limits<int>::max()));
    s.kswapdActive = now.pgscanKswapd > p.pgscanKswapd;
    dev.deviceWriteKBps = engine::pagesToKBps(perS(delta(now.written, p.written)));
    dev.readKBps = s.swapInKBps;
  }
  s.devices.push_back(dev);
  m_prev = now;
  result.sample = std::move(s);
  return result;
}

}  // namespace throttlelab::host
