// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Shared by the memory test and the benchmarks: one field of /proc/self/status.
#include <fstream>
#include <string>

namespace throttlelab::test {

/// A field of /proc/self/status in KiB (VmHWM: the peak so far, VmRSS: now), or `ifMissing`
/// where the file or the field is not there.
inline long procStatusKiB(const char* field, long ifMissing) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::string key = std::string(field) + ":";
  while (std::getline(in, line))
    if (line.rfind(key, 0) == 0) return std::stol(line.substr(key.size()));
  return ifMissing;
}

}  // namespace throttlelab::test
