// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// What the window writes (exports, sessions, reports, recordings) goes through SaveFile: a
/// QFile with QSaveFile's commit()/cancelWriting() that follows the command line's output rules
/// (throttlelab/host/output_target.h). QSaveFile renames its temporary file over whatever the
/// path names, so as root it replaced /dev/null or a FIFO with a regular file; SaveFile writes
/// a device or a FIFO in place, replaces a regular file atomically, replaces a symbolic link's
/// target (not the link) and removes its temporary file on a fatal signal.
#include <QFile>
#include <memory>

namespace throttlelab::host {
class OutputWriter;
}

namespace throttlelab::ui {

class SaveFile final : public QFile {
 public:
  explicit SaveFile(const QString& path);
  SaveFile(const SaveFile&) = delete;
  SaveFile& operator=(const SaveFile&) = delete;
  ~SaveFile() override;  // without commit(): the old file stays as it was

  /// Only QIODevice::WriteOnly. On failure, errorString() says why.
  bool open(OpenMode mode) override;
  /// Puts the file in place; false (with errorString()) if a write or the rename failed.
  bool commit();
  /// Drops what was written; the old file stays as it was.
  void cancelWriting();
  const QString& path() const { return m_path; }

 private:
  QString m_path;
  std::unique_ptr<host::OutputWriter> m_writer;
};

}  // namespace throttlelab::ui
