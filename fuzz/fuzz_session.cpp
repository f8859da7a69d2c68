// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: the session reader (ui::SessionFile::fromJson, Qt Core only: no window).
// Each input is either refused with a message or read into a state that is written and read
// back unchanged, as File → Save Session and Open Session do.
#include <QByteArray>
#include <QJsonDocument>
#include <QString>
#include <cstddef>
#include <cstdint>

#include "fuzz_support.h"
#include "session_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using throttlelab::ui::SessionFile;
  const QByteArray bytes(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size));
  (void)SessionFile::isSession(bytes);
  const SessionFile::ReadResult read = SessionFile::fromJson(bytes, QStringLiteral("fuzz.json"));
  if (!read.state) {
    throttlelab::fuzz::requireMessage(read.error.toStdString());
    return 0;
  }
  if (!read.error.isEmpty()) throttlelab::fuzz::fail("a session was read and refused at once");
  throttlelab::fuzz::requireRoundTrip(read.state->scenario);
  const QByteArray saved = QJsonDocument(SessionFile::toJson(*read.state)).toJson();
  const SessionFile::ReadResult again = SessionFile::fromJson(saved, QStringLiteral("saved.json"));
  if (!again.state)
    throttlelab::fuzz::fail("a saved session cannot be read back", again.error.toStdString());
  if (!(*again.state == *read.state))
    throttlelab::fuzz::fail("a saved session reads back different", saved.toStdString());
  return 0;
}
