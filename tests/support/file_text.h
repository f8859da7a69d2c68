// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Shared by every suite: a whole file as text, a file written from text, and a substring test.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace throttlelab::test {

/// The file's bytes; empty when it cannot be read.
inline std::string readFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Replaces the file's contents with `text`.
inline void writeFile(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace throttlelab::test
