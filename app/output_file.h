// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The command line's output files, written by the rules of throttlelab/host/output_target.h:
/// a regular file is replaced atomically (written to `FILE.tmp-<pid>` next to it and renamed
/// over it when everything succeeded), a symbolic link's target is what gets replaced, and a
/// device or FIFO is written in place, never renamed over. A failed or interrupted run leaves
/// every regular output as it was.
#include <memory>
#include <optional>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

#include "throttlelab/host/output_target.h"

namespace throttlelab::cli {

/// A buffered std::streambuf over a file descriptor that remembers the first write error
/// (errno), so that a message can say why ("No space left on device"). The descriptor is
/// not closed.
class FdStreamBuf final : public std::streambuf {
 public:
  explicit FdStreamBuf(int fd = -1, std::size_t bufferBytes = 1 << 16);
  FdStreamBuf(const FdStreamBuf&) = delete;
  FdStreamBuf& operator=(const FdStreamBuf&) = delete;
  ~FdStreamBuf() override;

  void setFd(int fd) { m_fd = fd; }
  /// The errno of the first failed write, 0 if none failed.
  int error() const { return m_error; }

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  bool drain();
  bool writeAll(const char* data, std::size_t size);

  int m_fd;
  std::vector<char> m_buffer;
  int m_error = 0;
};

/// One output named on the command line. The path "-" is standard output (the stream given),
/// written directly.
class OutputFile {
 public:
  OutputFile(std::string option, std::string path, std::ostream& standardOutput);
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();

  bool isStdout() const { return m_path == "-"; }
  const std::string& path() const { return m_path; }
  /// The command-line option that named it, for messages ("--csv").
  const std::string& option() const { return m_option; }
  /// "--csv out.csv", the start of every message about it.
  std::string label() const { return m_option + " " + m_path; }
  std::ostream& stream() { return isStdout() ? *m_stdout : m_stream; }
  /// The errno of a failed write so far (0 if none, or if it is not known).
  int writeError() const;

  /// Decides where and how the file is written (resolveOutput); on failure returns the reason.
  std::optional<std::string> resolve();
  /// resolve(), then creates the temporary file (or opens the device or FIFO); on failure
  /// returns the reason.
  std::optional<std::string> open();
  /// Flushes; for files, syncs and renames into place. On failure returns the reason.
  std::optional<std::string> commit();
  /// Flushes what is buffered and ends writing (for files; the stream takes nothing more);
  /// on a failed write, now or earlier, returns the reason.
  std::optional<std::string> finishWriting();
  host::OutputWriter* writer() { return m_writer.get(); }

 private:
  std::string m_option;
  std::string m_path;
  std::ostream* m_stdout;
  std::unique_ptr<host::OutputWriter> m_writer;
  FdStreamBuf m_buffer;
  std::ostream m_stream{&m_buffer};
};

/// The outputs of one run that are not standard output, as `OPTION PATH` for outputConflict.
std::vector<host::NamedPath> namedPaths(const std::vector<std::unique_ptr<OutputFile>>& files);

/// Commits the outputs of one run together (host::commitOutputs): nothing is renamed until
/// all are complete and synced, and the renames happen in the order given with the fatal
/// signals held back. On failure, prints "throttlelab: OPTION PATH: cannot write: REASON" to
/// `err` and returns false; then no file was renamed, unless a rename itself failed.
bool commitAll(const std::vector<std::unique_ptr<OutputFile>>& files, std::ostream& err);

/// Flushes `out` (standard output) and returns why writing it failed ("No space left on
/// device"; the errno is known when its buffer is an FdStreamBuf, as main() sets up), or
/// nullopt if everything written so far went out.
std::optional<std::string> standardOutputFailure(std::ostream& out);

}  // namespace throttlelab::cli
