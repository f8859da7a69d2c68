// SPDX-License-Identifier: GPL-3.0-or-later
#include "save_file.h"

#include <variant>

#include "throttlelab/host/output_target.h"

namespace throttlelab::ui {

SaveFile::SaveFile(const QString& path) : m_path(path) {}

SaveFile::~SaveFile() {
  if (isOpen()) QFile::close();
  // m_writer's destructor removes an uncommitted temporary file.
}

bool SaveFile::open(OpenMode mode) {
  if (mode != QIODevice::WriteOnly) {
    setErrorString(QStringLiteral("SaveFile writes only"));
    return false;
  }
  auto resolved = host::resolveOutput(m_path.toStdString());
  if (const auto* reason = std::get_if<std::string>(&resolved)) {
    setErrorString(QString::fromStdString(*reason));
    return false;
  }
  m_writer = std::make_unique<host::OutputWriter>(std::get<host::OutputTarget>(resolved));
  if (const auto reason = m_writer->open()) {
    setErrorString(QString::fromStdString(*reason));
    m_writer.reset();
    return false;
  }
  // The descriptor stays the writer's: it syncs, closes and renames it.
  if (!QFile::open(m_writer->fd(), QIODevice::WriteOnly, QFileDevice::DontCloseHandle)) {
    m_writer.reset();
    return false;
  }
  return true;
}

bool SaveFile::commit() {
  if (!m_writer || !isOpen()) {
    if (errorString().isEmpty()) setErrorString(QStringLiteral("the file was not opened"));
    return false;
  }
  const bool written = QFile::flush() && error() == QFileDevice::NoError;
  const QString writeError = errorString();
  QFile::close();
  if (!written) {
    m_writer->discard();
    setErrorString(writeError);
    return false;
  }
  if (const auto reason = m_writer->commit()) {
    setErrorString(QString::fromStdString(*reason));
    return false;
  }
  return true;
}

void SaveFile::cancelWriting() {
  if (isOpen()) QFile::close();
  if (m_writer) m_writer->discard();
}

}  // namespace throttlelab::ui
