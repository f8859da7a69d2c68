// SPDX-License-Identifier: GPL-3.0-or-later
#include "mount_options.h"

#include <charconv>

#include "throttlelab/engine/enum_names.h"

namespace throttlelab::engine {

constexpr EnumName<FsKind> kFsKindNames[] = {
    {FsKind::None, "none"}, {FsKind::Ext3, "ext3"}, {FsKind::Ext4, "ext4"}, {FsKind::Xfs, "xfs"}};

std::optional<FsKind> fsKindFromString(std::string_view s) {
  if (s.empty()) return FsKind::None;
  return valueNamed(s, kFsKindNames);
}

std::string_view toString(FsKind k) {
  return nameOf(k, kFsKindNames, "none");
}

bool knownElevator(std::string_view s) {
  return s.empty() || s == "fifo" || s == "deadline";
}

std::optional<MountOptions> parseMountOptions(std::string_view s, std::string* error) {
  MountOptions o;
  bool atimeSet = false, dataSet = false, commitSet = false;
  std::size_t pos = 0;
  while (pos <= s.size() && !s.empty()) {
    const std::size_t comma = s.find(',', pos);
    const std::string_view opt =
        s.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    pos = comma == std::string_view::npos ? s.size() + 1 : comma + 1;
    auto once = [&](bool& seen) {
      if (seen) {
        *error = "option '" + std::string(opt) + "' contradicts or repeats an earlier one";
        return false;
      }
      seen = true;
      return true;
    };
    if (opt == "atime" || opt == "strictatime" || opt == "relatime" || opt == "noatime") {
      if (!once(atimeSet)) return std::nullopt;
      o.atime = opt == "noatime"    ? AtimeMode::Noatime
                : opt == "relatime" ? AtimeMode::Relatime
                                    : AtimeMode::Strict;
    } else if (opt == "data=ordered" || opt == "data=writeback") {
      if (!once(dataSet)) return std::nullopt;
      o.data = opt == "data=ordered" ? DataMode::Ordered : DataMode::Writeback;
    } else if (opt.starts_with("commit=")) {
      if (!once(commitSet)) return std::nullopt;
      const std::string_view v = opt.substr(7);
      int secs = 0;
      const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), secs);
      if (ec != std::errc{} || p != v.data() + v.size() || secs < 1 || secs > 3600) {
        *error = "commit= takes whole seconds from 1 to 3600, got '" + std::string(v) + "'";
        return std::nullopt;
      }
      o.commitS = secs;
    } else {
      *error = "unknown mount option '" + std::string(opt) +
               "' (known: atime, strictatime, relatime, noatime, data=ordered, data=writeback, "
               "commit=SECONDS)";
      return std::nullopt;
    }
  }
  return o;
}

}  // namespace throttlelab::engine
