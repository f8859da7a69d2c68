// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// What both session targets (fuzz_session, fuzz_session_branch) promise of a session that
/// was read: as File → Save Session writes it, Open Session reads it back unchanged.
#include <QByteArray>
#include <QJsonDocument>
#include <QString>

#include "fuzz_support.h"
#include "session_file.h"

namespace throttlelab::fuzz {

inline void requireSessionRoundTrip(const ui::SessionState& state) {
  using ui::SessionFile;
  const QByteArray saved = QJsonDocument(SessionFile::toJson(state)).toJson();
  const SessionFile::ReadResult again = SessionFile::fromJson(saved, QStringLiteral("saved.json"));
  if (!again.state) fail("a saved session cannot be read back", again.error.toStdString());
  if (!(*again.state == state)) fail("a saved session reads back different", saved.toStdString());
}

}  // namespace throttlelab::fuzz
