// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Small POSIX file helpers shared by the sampler and the recorder: whole-file reads without
// iostreams (the sampler runs ten times a second in the GUI thread) and line-by-line number
// parsing over a string_view.
#include <cstdint>
#include <string>
#include <string_view>

namespace throttlelab::host::detail {

/// Reads the whole file into `out` (reusing its capacity). 0 on success, else errno.
int readFile(const std::string& path, std::string& out);

/// Writes `data` to an existing file (O_WRONLY|O_TRUNC, one write, as `echo x > f` does).
/// 0 on success, else errno.
int writeFile(const std::string& path, std::string_view data);

/// Whether `path` is a directory (following symbolic links), or exists at all.
bool isDirectory(const std::string& path);
bool exists(const std::string& path);

/// "No such file or directory" for an errno value.
std::string errnoText(int err);

/// Leading and trailing whitespace removed.
std::string_view trim(std::string_view s);

/// A whole decimal integer (optional leading '-'); false on anything else.
bool parseInt(std::string_view s, std::int64_t& value);

/// Calls `fn(line)` for every line of `text`, without the '\n'.
template <typename Fn>
void forEachLine(std::string_view text, Fn&& fn) {
  while (!text.empty()) {
    const auto nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    fn(line);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
}

}  // namespace throttlelab::host::detail
