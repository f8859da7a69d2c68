// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Atomic output files: written to a temporary name next to the final one and renamed into
/// place only when everything succeeded, so a failed or interrupted run never leaves a
/// half-written file and never destroys the previous one.
#include <fstream>
#include <memory>
#include <optional>
#include <ostream>
#include <string>

namespace throttlelab::cli {

/// An output written to `FILE.tmp-<pid>` in FILE's directory and renamed over FILE by
/// commit(); until then FILE is untouched, and a run that fails removes the temporary file.
/// The path "-" is standard output (the stream given), written directly.
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
  std::ostream& stream() { return isStdout() ? *m_stdout : m_file; }

  /// Creates the temporary file; on failure returns the reason.
  std::optional<std::string> open();
  /// Flushes, syncs and renames into place; on failure returns the reason.
  std::optional<std::string> commit();

 private:
  std::string m_option;
  std::string m_path;
  std::string m_tempPath;
  std::ostream* m_stdout;
  std::unique_ptr<char[]> m_buffer;
  std::ofstream m_file;
  bool m_tempCreated = false;
  bool m_committed = false;
};

/// Writes `text` to `path` ("-" = `standardOutput`) atomically. Returns the reason on failure.
std::optional<std::string> writeFileAtomically(const std::string& option, const std::string& path,
                                               const std::string& text,
                                               std::ostream& standardOutput);

}  // namespace throttlelab::cli
