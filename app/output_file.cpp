// SPDX-License-Identifier: GPL-3.0-or-later
#include "output_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace throttlelab::cli {

namespace {
namespace fs = std::filesystem;
constexpr std::size_t kFileBufferBytes = 1 << 16;
}  // namespace

OutputFile::OutputFile(std::string option, std::string path, std::ostream& standardOutput)
    : m_option(std::move(option)), m_path(std::move(path)), m_stdout(&standardOutput) {}

OutputFile::~OutputFile() {
  if (m_tempCreated && !m_committed) {
    m_file.close();
    std::remove(m_tempPath.c_str());
  }
}

std::optional<std::string> OutputFile::open() {
  if (isStdout()) return std::nullopt;
  std::error_code ec;
  if (fs::is_directory(m_path, ec)) return std::string("it is a directory");
  m_tempPath = m_path + ".tmp-" + std::to_string(::getpid());
  m_buffer = std::make_unique<char[]>(kFileBufferBytes);
  m_file.rdbuf()->pubsetbuf(m_buffer.get(), kFileBufferBytes);
  errno = 0;
  m_file.open(m_tempPath, std::ios::binary | std::ios::trunc);
  if (!m_file) return std::string(errno ? std::strerror(errno) : "cannot create the file");
  m_tempCreated = true;
  return std::nullopt;
}

std::optional<std::string> OutputFile::commit() {
  if (isStdout()) {
    m_stdout->flush();
    if (!*m_stdout) return std::string("writing to standard output failed");
    return std::nullopt;
  }
  errno = 0;
  m_file.flush();
  m_file.close();
  if (m_file.fail()) return std::string(errno ? std::strerror(errno) : "writing failed");
  // Data first, name second: a crash after the rename must not leave an empty FILE.
  if (const int fd = ::open(m_tempPath.c_str(), O_RDONLY | O_CLOEXEC); fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
  if (std::rename(m_tempPath.c_str(), m_path.c_str()) != 0)
    return std::string(std::strerror(errno));
  m_committed = true;
  return std::nullopt;
}

std::optional<std::string> writeFileAtomically(const std::string& option, const std::string& path,
                                               const std::string& text,
                                               std::ostream& standardOutput) {
  OutputFile file(option, path, standardOutput);
  if (auto reason = file.open()) return reason;
  file.stream().write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!file.stream()) return std::string(errno ? std::strerror(errno) : "writing failed");
  return file.commit();
}

}  // namespace throttlelab::cli
