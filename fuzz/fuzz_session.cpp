// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: the session reader (ui::SessionFile::fromJson, Qt Core only: no window).
// Each input is either refused with a message or read into a state that is written and read
// back unchanged, as File → Save Session and Open Session do.
#include <QByteArray>
#include <QString>
#include <cstddef>
#include <cstdint>

#include "fuzz_support.h"
#include "session_file.h"
#include "session_fuzz_support.h"

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
  throttlelab::fuzz::requireSessionRoundTrip(*read.state);
  return 0;
}
