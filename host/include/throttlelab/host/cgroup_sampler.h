// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Live host mode, one memory cgroup: its page cache, dirty and writeback pages read from its
/// memory.stat with its limit, polled beside /proc (VmstatSampler), read-only and without
/// root. cgroup v2: memory.stat `file`, `file_dirty`, `file_writeback`, with memory.max,
/// memory.high and memory.current of it and its ancestors, from which its own writeback
/// domain (cgroup writeback, 4.2+) is derived with the engine's formulas. cgroup v1: memory.stat
/// `total_cache`, `total_dirty`, `total_writeback` (the hierarchy's; `cache`, `dirty`,
/// `writeback` without use_hierarchy) and `hierarchical_memory_limit` (else
/// memory.limit_in_bytes); v1 has no per-cgroup dirty domain, so no thresholds. The cgroup
/// root is a parameter so tests read fixture directories.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "throttlelab/engine/records.h"
#include "throttlelab/host/vmstat_sampler.h"

namespace throttlelab::host {

enum class CgroupVersion : std::uint8_t { V1 = 1, V2 = 2 };

/// Where a cgroup named by the user lives.
struct CgroupLocation {
  std::string dir;   ///< the directory holding its memory.stat
  std::string name;  ///< as shown: `dir` relative to the cgroup root when below it
  CgroupVersion version = CgroupVersion::V2;
  std::string error;  ///< non-empty: not found, not a memory cgroup, or unreadable (says which)
  bool ok() const { return error.empty(); }
};

/// The cgroup at `path`: an absolute directory, or one relative to `cgroupRoot` (also looked
/// for under `cgroupRoot`/memory, where cgroup v1 mounts the memory controller). The error
/// names the path and what is wrong.
CgroupLocation locateCgroup(const std::string& path,
                            const std::string& cgroupRoot = "/sys/fs/cgroup");

/// The memory cgroups below `cgroupRoot` (directories with a memory.stat, at most 5 levels
/// down, both hierarchies), as paths relative to it, sorted; at most `limit` of them.
std::vector<std::string> listMemoryCgroups(const std::string& cgroupRoot = "/sys/fs/cgroup",
                                           std::size_t limit = 500);

/// Bytes as a cgroup file prints them, in 4 KiB pages: "max", and v1's PAGE_COUNTER_MAX
/// (9223372036854771712) or anything from 2^60 up, are no limit (0); a limit below one page
/// is one page (0 would read as none). nullopt for text that is not a number.
std::optional<engine::Pages> cgroupLimitPages(std::string_view text);

class CgroupSampler {
 public:
  explicit CgroupSampler(CgroupLocation where);

  struct Poll {
    std::optional<engine::CgroupSample> sample;  ///< empty on error
    std::string error;
    bool vanished = false;  ///< the cgroup's directory is gone (it was removed)
  };
  /// Reads the cgroup once. `machine` is this moment's VmstatSampler sample (its dirtyable
  /// memory and dirty + writeback pages) and `sysctls` the vm.dirty_* read with it: a v2
  /// cgroup's domain is derived from them (engine::memcgDomainOf). Never throws.
  Poll poll(const engine::Sample& machine, const DirtySysctls& sysctls);
  const CgroupLocation& location() const { return m_where; }

 private:
  CgroupLocation m_where;
  std::string m_buffer;
};

}  // namespace throttlelab::host
