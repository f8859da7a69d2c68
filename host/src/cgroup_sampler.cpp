// SPDX-License-Identifier: GPL-3.0-or-later
// Live host mode, one memory cgroup: memory.stat and the limits turned into a CgroupSample.
#include "throttlelab/host/cgroup_sampler.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <filesystem>
#include <string_view>
#include <system_error>
#include <utility>

#include "file_util.h"
#include "throttlelab/engine/memcg_limits.h"

namespace throttlelab::host {

using detail::errnoText;
using detail::exists;
using detail::forEachLine;
using detail::isDirectory;
using detail::parseInt;
using detail::readFile;
using detail::trim;
using engine::Pages;

namespace {

// Ancestors read for a v2 cgroup's headroom; deeper trees are cut off there.
constexpr int kMaxLevels = 16;
constexpr std::int64_t kNoLimitBytes = std::int64_t{1} << 60;

std::string withoutTrailingSlashes(std::string p) {
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p;
}

/// The fields of memory.stat a poll uses, by name; -1 = absent.
template <std::size_t N>
std::string parseStat(std::string_view text, const std::string& path,
                      const std::array<std::string_view, N>& names,
                      std::array<std::int64_t, N>& values) {
  values.fill(-1);
  std::string error;
  forEachLine(text, [&](std::string_view line) {
    if (!error.empty()) return;
    const auto sep = line.find(' ');
    if (sep == std::string_view::npos) return;
    const std::string_view name = line.substr(0, sep);
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) return;
    std::int64_t v = 0;
    if (!parseInt(trim(line.substr(sep + 1)), v) || v < 0) {
      error = "cannot parse " + std::string(name) + " in " + path + ": \"" +
              std::string(line.substr(0, 80)) + "\"";
      return;
    }
    values[static_cast<std::size_t>(it - names.begin())] = v;
  });
  return error;
}

std::string readFailure(const std::string& path, int err) {
  return "cannot read " + path + ": " + errnoText(err);
}

}  // namespace

std::optional<Pages> cgroupLimitPages(std::string_view text) {
  text = trim(text);
  if (text == "max") return Pages{0};
  std::int64_t bytes = 0;
  if (!parseInt(text, bytes) || bytes < 0) return std::nullopt;
  if (bytes >= kNoLimitBytes) return Pages{0};
  return std::max<Pages>(bytes / engine::kPageBytes, 1);
}

CgroupLocation locateCgroup(const std::string& path, const std::string& cgroupRoot) {
  CgroupLocation where;
  const std::string root = withoutTrailingSlashes(cgroupRoot);
  std::vector<std::string> candidates;
  if (!path.empty() && path.front() == '/') {
    candidates.push_back(withoutTrailingSlashes(path));
  } else {
    std::string rel = path;
    while (rel.rfind("./", 0) == 0) rel.erase(0, 2);
    candidates.push_back(withoutTrailingSlashes(root + "/" + rel));
    candidates.push_back(withoutTrailingSlashes(root + "/memory/" + rel));
  }
  if (path.empty() || path.find("/../") != std::string::npos || path.rfind("../", 0) == 0 ||
      (path.size() >= 3 && path.compare(path.size() - 3, 3, "/..") == 0) || path == "..") {
    where.error = "'" + path + "' is not a cgroup path (give a directory such as " + root +
                  "/memory/NAME, or NAME below " + root + ")";
    return where;
  }
  const auto found = std::find_if(candidates.begin(), candidates.end(),
                                  [](const auto& c) { return isDirectory(c); });
  if (found == candidates.end()) {
    where.error = "no cgroup '" + path + "': " + candidates.front() + " is not a directory";
    if (candidates.size() > 1) where.error += " and neither is " + candidates[1];
    return where;
  }
  where.dir = *found;
  where.name = where.dir;
  if (where.dir.size() > root.size() && where.dir.compare(0, root.size(), root) == 0 &&
      where.dir[root.size()] == '/')
    where.name = where.dir.substr(root.size() + 1);
  const std::string stat = where.dir + "/memory.stat";
  std::string buffer;
  if (const int err = readFile(stat, buffer); err != 0) {
    where.error = err == ENOENT ? "'" + path + "' is not a memory cgroup: " + where.dir +
                                      " has no memory.stat (cgroup v1 mounts the memory "
                                      "controller at " +
                                      root + "/memory)"
                                : readFailure(stat, err);
    return where;
  }
  where.version =
      exists(where.dir + "/memory.limit_in_bytes") ? CgroupVersion::V1 : CgroupVersion::V2;
  return where;
}

std::vector<std::string> listMemoryCgroups(const std::string& cgroupRoot, std::size_t limit) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  const std::string root = withoutTrailingSlashes(cgroupRoot);
  std::error_code ec;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
  if (ec) return out;
  if (exists(root + "/memory.stat")) out.emplace_back(".");
  for (const fs::recursive_directory_iterator end; it != end && out.size() < limit;
       it.increment(ec)) {
    if (ec) break;
    if (it.depth() >= 5) it.disable_recursion_pending();
    std::error_code typeError;
    if (!it->is_directory(typeError) || it->is_symlink(typeError)) {
      if (it->is_symlink(typeError)) it.disable_recursion_pending();
      continue;
    }
    const std::string dir = it->path().string();
    if (exists(dir + "/memory.stat")) out.push_back(dir.substr(root.size() + 1));
  }
  std::sort(out.begin(), out.end());
  return out;
}

CgroupSampler::CgroupSampler(CgroupLocation where) : m_where(std::move(where)) {}

CgroupSampler::Poll CgroupSampler::poll(const engine::Sample& machine,
                                        const DirtySysctls& sysctls) {
  Poll result;
  const std::string statPath = m_where.dir + "/memory.stat";
  if (const int err = readFile(statPath, m_buffer); err != 0) {
    if (!isDirectory(m_where.dir)) {
      result.vanished = true;
      result.error = "the cgroup " + m_where.name + " was removed while it was watched (" +
                     m_where.dir + " is gone)";
    } else {
      result.error = readFailure(statPath, err);
    }
    return result;
  }
  engine::CgroupSample s;
  if (m_where.version == CgroupVersion::V1) {
    static constexpr std::array<std::string_view, 7> kNames{
        "total_cache", "total_dirty", "total_writeback",          "cache",
        "dirty",       "writeback",   "hierarchical_memory_limit"};
    std::array<std::int64_t, 7> v{};
    if (auto e = parseStat(m_buffer, statPath, kNames, v); !e.empty()) {
      result.error = std::move(e);
      return result;
    }
    // The hierarchy's totals when the kernel prints them (use_hierarchy, always on since
    // 5.x), as v2's memory.stat counts the whole subtree.
    const bool total = v[0] >= 0 && v[1] >= 0 && v[2] >= 0;
    for (std::size_t i = total ? 0 : 3; i < (total ? 3u : 6u); ++i)
      if (v[i] < 0) {
        result.error = statPath + " has no " + std::string(kNames[i]) + " field";
        return result;
      }
    s.filePages = v[total ? 0 : 3] / engine::kPageBytes;
    s.dirtyPages = v[total ? 1 : 4] / engine::kPageBytes;
    s.writebackPages = v[total ? 2 : 5] / engine::kPageBytes;
    std::optional<Pages> limit;
    if (v[6] >= 0) {
      limit = cgroupLimitPages(std::to_string(v[6]));
    } else {
      const std::string limitPath = m_where.dir + "/memory.limit_in_bytes";
      if (const int err = readFile(limitPath, m_buffer); err != 0) {
        result.error = readFailure(limitPath, err);
        return result;
      }
      limit = cgroupLimitPages(m_buffer);
      if (!limit) {
        result.error =
            "cannot parse " + limitPath + ": \"" + std::string(trim(m_buffer).substr(0, 40)) + "\"";
        return result;
      }
    }
    s.maxPages = *limit;
    result.sample = s;
    return result;
  }

  static constexpr std::array<std::string_view, 3> kNames{"file", "file_dirty", "file_writeback"};
  std::array<std::int64_t, 3> v{};
  if (auto e = parseStat(m_buffer, statPath, kNames, v); !e.empty()) {
    result.error = std::move(e);
    return result;
  }
  for (std::size_t i = 0; i < kNames.size(); ++i)
    if (v[i] < 0) {
      result.error = statPath + " has no " + std::string(kNames[i]) + " field";
      return result;
    }
  // The cgroup and its ancestors up to the root (which has no memory.max): the headroom of
  // mem_cgroup_wb_stats() is the smallest over them.
  std::vector<engine::MemcgLevel> levels;
  std::string dir = m_where.dir;
  for (int depth = 0; depth < kMaxLevels; ++depth) {
    engine::MemcgLevel level;
    bool any = false;
    for (auto [file, target] :
         {std::pair{"/memory.max", &level.maxPages}, std::pair{"/memory.high", &level.highPages},
          std::pair{"/memory.current", &level.usedPages}}) {
      const std::string path = dir + file;
      const int err = readFile(path, m_buffer);
      if (err == ENOENT) continue;
      if (err != 0) {
        result.error = readFailure(path, err);
        return result;
      }
      std::int64_t used = 0;
      const bool usage = target == &level.usedPages;
      const auto pages = usage ? (parseInt(trim(m_buffer), used) && used >= 0
                                      ? std::optional<Pages>(used / engine::kPageBytes)
                                      : std::nullopt)
                               : cgroupLimitPages(m_buffer);
      if (!pages) {
        result.error =
            "cannot parse " + path + ": \"" + std::string(trim(m_buffer).substr(0, 40)) + "\"";
        return result;
      }
      *target = *pages;
      any = true;
    }
    if (!any) break;  // the root cgroup: no limits of its own
    levels.push_back(level);
    const auto slash = dir.rfind('/');
    if (slash == std::string::npos || slash == 0) break;
    dir.resize(slash);
  }
  engine::VmConfig vm;
  vm.dirtyRatio = sysctls.dirtyRatio;
  vm.dirtyBackgroundRatio = sysctls.dirtyBackgroundRatio;
  vm.dirtyBytes = sysctls.dirtyBytes;
  vm.dirtyBackgroundBytes = sysctls.dirtyBackgroundBytes;
  const Pages filePages = v[0] / engine::kPageBytes;
  const Pages dirty = v[1] / engine::kPageBytes;
  const Pages writeback = v[2] / engine::kPageBytes;
  if (levels.empty()) {
    // The root cgroup is the global domain: no domain of its own.
    s.filePages = filePages;
    s.dirtyPages = dirty;
    s.writebackPages = writeback;
  } else {
    s = engine::memcgDomainOf(filePages, dirty, writeback, levels, vm, machine.availPages,
                              machine.dirtyPages + machine.writebackPages);
  }
  result.sample = s;
  return result;
}

}  // namespace throttlelab::host
