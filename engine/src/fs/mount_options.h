// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A device's file system as a scenario names it (DeviceConfig::fileSystem, mountOptions,
// elevator): the kinds the model knows and the mount options it reads.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace throttlelab::engine {

enum class FsKind : std::uint8_t { None, Ext3, Ext4, Xfs };
enum class AtimeMode : std::uint8_t { Strict, Relatime, Noatime };
enum class DataMode : std::uint8_t { Ordered, Writeback };

struct MountOptions {
  AtimeMode atime = AtimeMode::Relatime;  ///< the VFS default since 2.6.30
  DataMode data = DataMode::Ordered;      ///< ext3/ext4 default (data=ordered)
  double commitS = 5;                     ///< commit=, JBD_DEFAULT_MAX_COMMIT_AGE
};

/// FsKind of a `fileSystem` key; nullopt if unknown ("" is none).
std::optional<FsKind> fsKindFromString(std::string_view s);
std::string_view toString(FsKind k);
/// Parses `mountOptions`; on a bad option returns nullopt and sets *error to why.
std::optional<MountOptions> parseMountOptions(std::string_view s, std::string* error);
/// True for "", "fifo" and "deadline".
bool knownElevator(std::string_view s);

}  // namespace throttlelab::engine
