// SPDX-License-Identifier: GPL-3.0-or-later
#include "output_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <variant>

namespace throttlelab::cli {

FdStreamBuf::FdStreamBuf(int fd, std::size_t bufferBytes) : m_fd(fd), m_buffer(bufferBytes) {
  setp(m_buffer.data(), m_buffer.data() + m_buffer.size());
}

FdStreamBuf::~FdStreamBuf() {
  drain();
}

bool FdStreamBuf::writeAll(const char* data, std::size_t size) {
  if (m_error != 0) return false;
  if (m_fd < 0) {
    m_error = EBADF;
    return false;
  }
  while (size > 0) {
    const ssize_t n = ::write(m_fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      m_error = n < 0 ? errno : EIO;
      return false;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

bool FdStreamBuf::drain() {
  const auto pending = static_cast<std::size_t>(pptr() - pbase());
  const bool ok = pending == 0 || writeAll(pbase(), pending);
  setp(m_buffer.data(), m_buffer.data() + m_buffer.size());
  return ok && m_error == 0;
}

FdStreamBuf::int_type FdStreamBuf::overflow(int_type c) {
  if (!drain()) return traits_type::eof();
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  *pptr() = traits_type::to_char_type(c);
  pbump(1);
  return c;
}

std::streamsize FdStreamBuf::xsputn(const char* s, std::streamsize n) {
  const auto size = static_cast<std::size_t>(n);
  if (size <= static_cast<std::size_t>(epptr() - pptr())) {
    std::memcpy(pptr(), s, size);
    pbump(static_cast<int>(n));
    return n;
  }
  // Larger than what is left: send the buffer, then the block itself without copying.
  if (!drain()) return 0;
  if (size < m_buffer.size()) {
    std::memcpy(pptr(), s, size);
    pbump(static_cast<int>(n));
    return n;
  }
  return writeAll(s, size) ? n : 0;
}

int FdStreamBuf::sync() {
  return drain() ? 0 : -1;
}

// ---------------------------------------------------------------------------------------------

OutputFile::OutputFile(std::string option, std::string path, std::ostream& standardOutput)
    : m_option(std::move(option)), m_path(std::move(path)), m_stdout(&standardOutput) {}

OutputFile::~OutputFile() = default;  // the writer removes an uncommitted temporary file

int OutputFile::writeError() const {
  if (!isStdout()) return m_buffer.error();
  const auto* buffer = dynamic_cast<const FdStreamBuf*>(m_stdout->rdbuf());
  return buffer ? buffer->error() : 0;
}

std::optional<std::string> OutputFile::resolve() {
  if (isStdout() || m_writer) return std::nullopt;
  auto resolved = host::resolveOutput(m_path);
  if (auto* reason = std::get_if<std::string>(&resolved)) return *reason;
  m_writer = std::make_unique<host::OutputWriter>(std::get<host::OutputTarget>(resolved));
  return std::nullopt;
}

std::optional<std::string> OutputFile::open() {
  if (isStdout()) return std::nullopt;
  if (auto reason = resolve()) return reason;
  if (auto reason = m_writer->open()) return reason;
  m_buffer.setFd(m_writer->fd());
  return std::nullopt;
}

std::optional<std::string> OutputFile::finishWriting() {
  if (isStdout()) return standardOutputFailure(*m_stdout);
  m_stream.flush();
  m_buffer.setFd(-1);  // the writer closes the descriptor; its number may be reused
  if (m_stream && m_buffer.error() == 0) return std::nullopt;
  return m_buffer.error() ? std::string(std::strerror(m_buffer.error()))
                          : std::string("writing failed");
}

std::optional<std::string> OutputFile::commit() {
  if (auto reason = finishWriting()) return reason;
  if (isStdout()) return std::nullopt;
  return m_writer->commit();
}

std::vector<host::NamedPath> namedPaths(const std::vector<std::unique_ptr<OutputFile>>& files) {
  std::vector<host::NamedPath> named;
  for (const auto& f : files)
    if (!f->isStdout()) named.push_back({f->option(), f->path()});
  return named;
}

bool commitAll(const std::vector<std::unique_ptr<OutputFile>>& files, std::ostream& err) {
  std::vector<host::OutputWriter*> writers;
  std::vector<OutputFile*> owners;
  for (const auto& f : files) {
    if (const auto reason = f->finishWriting()) {
      err << "throttlelab: " << f->label() << ": cannot write"
          << (f->isStdout() ? " to standard output: " : ": ") << *reason << '\n';
      return false;  // the writers' destructors remove every temporary file
    }
    if (f->isStdout()) continue;
    writers.push_back(f->writer());
    owners.push_back(f.get());
  }
  if (const auto failure = host::commitOutputs(writers)) {
    err << "throttlelab: " << owners[failure->first]->label()
        << ": cannot write: " << failure->second << '\n';
    return false;
  }
  return true;
}

std::optional<std::string> standardOutputFailure(std::ostream& out) {
  out.flush();
  const auto* buffer = dynamic_cast<const FdStreamBuf*>(out.rdbuf());
  if (out && (!buffer || buffer->error() == 0)) return std::nullopt;
  return buffer && buffer->error() ? std::string(std::strerror(buffer->error()))
                                   : std::string("writing failed");
}

}  // namespace throttlelab::cli
