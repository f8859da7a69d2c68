// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Writing the files a user names as outputs without damaging anything else. Shared by the
/// command line (app/output_file.h) and the window's exports (ui/src/files/save_file.h); Qt-free.
///
/// - A regular file, or a name that does not exist yet, is written to `NAME.tmp-<pid>` in the
///   same directory and renamed over NAME once complete: readers see the old file or the
///   whole new one, never a part.
/// - A symbolic link is followed: its final target is what gets replaced (atomically, if that
///   is a regular file); the link stays a link.
/// - Anything else that exists (a character or block device such as /dev/null, a FIFO, a
///   socket, or a file reached through a /proc link such as /dev/stdout) is opened and written
///   in place, never renamed over or removed. A directory is refused.
/// - A temporary file is removed when the write fails, when the writer is destroyed without a
///   commit, and on SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGTERM, SIGXCPU and SIGXFSZ (the
///   signal's default action then ends the process as before). One left by a run that was
///   killed with SIGKILL is removed by the next run that writes the same output, if its pid
///   is no longer running.
#include <sys/types.h>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace throttlelab::host {

/// What a path names, for telling whether two paths are one file.
struct FileIdentity {
  bool exists = false;
  std::uint64_t device = 0;  ///< st_dev, when it exists
  std::uint64_t inode = 0;   ///< st_ino, when it exists
  bool characterDevice = false;
  /// Absolute, with "." and ".." and the symbolic links of its directory resolved; compared
  /// when the file does not exist yet.
  std::string normalised;

  /// The same existing file (device and inode), or the same name when neither exists yet.
  bool sameFileAs(const FileIdentity& other) const;
};

/// The identity of a file that is read; "-" is standard input. `exists` is false for a name
/// that names no file (e.g. a built-in scenario's name).
FileIdentity inputIdentity(const std::string& path);

/// Where and how an output is written.
struct OutputTarget {
  std::string requested;  ///< the path as the user gave it
  /// The file that is replaced or written: `requested` with its symbolic links followed, or
  /// `requested` itself when written in place.
  std::string path;
  bool inPlace = false;  ///< opened and written directly (not a regular file); never renamed over
  FileIdentity identity;
  bool exists = false;  ///< `path` exists (its mode and owner are kept on replacement)
  mode_t mode = 0;
  uid_t owner = 0;
  gid_t group = 0;
};

/// Resolves `path` (symbolic links, what kind of file it is). On failure, the reason:
/// "it is a directory", "its directory does not exist", or the system's words for the error.
std::variant<OutputTarget, std::string> resolveOutput(const std::string& path);

/// An output or an input as the user named it, for messages: `option` "--csv", `path` as given.
struct NamedPath {
  std::string option;
  std::string path;
};

/// The first problem among outputs that name an input or each other (two outputs may share
/// only a character device such as /dev/null, which cannot lose what is written to it), as
/// "--csv s.json: names the file read by --scenario s.json"; nullopt if none. Outputs and
/// inputs whose path is "-" (standard output or input) are not compared here.
std::optional<std::string> outputConflict(const std::vector<NamedPath>& outputs,
                                          const std::vector<NamedPath>& inputs);

/// Writes one OutputTarget: open(), write to fd(), then commit() or commitOutputs(). Not
/// copyable; destroying it without a commit discards what was written (in-place outputs
/// keep what already went out).
class OutputWriter {
 public:
  explicit OutputWriter(OutputTarget target);
  OutputWriter(const OutputWriter&) = delete;
  OutputWriter& operator=(const OutputWriter&) = delete;
  ~OutputWriter();

  const OutputTarget& target() const { return m_target; }
  /// `NAME.tmp-<pid>`, or empty for an in-place output.
  const std::string& temporaryPath() const { return m_temporary; }
  /// The open file descriptor, -1 before open() and after commit() or discard().
  int fd() const { return m_fd; }

  /// In place: opens the file for writing (a FIFO waits for its reader, as a shell's `>`
  /// does). Otherwise: removes stale temporaries of this output (removeStaleTemporaries),
  /// then creates the temporary file exclusively, never through a link, with the mode and
  /// owner of the file it will replace. On failure, the reason.
  std::optional<std::string> open();
  /// Everything written is on disk (fsync) and the descriptor is closed; the file is not yet
  /// in place. On failure, the reason (the temporary file is then removed).
  std::optional<std::string> prepare();
  /// After prepare(): renames the temporary file over the target and syncs the directory.
  std::optional<std::string> publish();
  /// prepare() and publish().
  std::optional<std::string> commit();
  /// Closes and removes the temporary file, leaving the target as it was.
  void discard();

 private:
  OutputTarget m_target;
  std::string m_temporary;
  int m_fd = -1;
  int m_slot = -1;  // in the table of temporaries removed on a fatal signal
  bool m_prepared = false;
};

/// Commits several outputs of one run: all are prepared (synced) first; if one fails, all
/// are discarded and every target is left as it was. Then they are renamed into place in
/// the order given, with the signals above blocked in the calling thread, so that such a
/// signal either ends the run before any rename (every file old) or waits until the last
/// one (every file new). Only SIGKILL or a crash between two renames leaves a prefix of the
/// list new and the rest old. On failure, the index of the output and the reason.
std::optional<std::pair<std::size_t, std::string>> commitOutputs(
    const std::vector<OutputWriter*>& writers);

/// Removes files named `NAME.tmp-<pid>` next to `targetPath` (NAME its file name) that are
/// regular files and whose pid is not a running process (this process's own pid counts as
/// not running unless it is writing that file now). Returns how many were removed.
int removeStaleTemporaries(const std::string& targetPath);

}  // namespace throttlelab::host
