// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Reads and writes session files: versioned JSON ("schemaVersion": 1) with the scenario
/// embedded as an object in the engine's own scenario format. Writes go through QSaveFile,
/// so a crash never leaves half a file behind.
#include <QJsonObject>
#include <QString>
#include <optional>

#include "session_state.h"

namespace throttlelab::ui {

class SessionFile {
 public:
  static constexpr int kSchemaVersion = 1;
  static constexpr const char* kKind = "throttlelab-session";

  struct ReadResult {
    std::optional<SessionState> state;
    QString error;  ///< one readable sentence naming the file and what is wrong
  };

  static QJsonObject toJson(const SessionState& state);
  /// Validates everything, including the embedded scenario; `origin` names the source.
  static ReadResult fromJson(const QByteArray& json, const QString& origin);
  static ReadResult read(const QString& path);
  /// Returns an error message, empty on success.
  static QString write(const QString& path, const SessionState& state);
  /// Whether a JSON document looks like a session (rather than a bare scenario).
  static bool isSession(const QByteArray& json);
};

}  // namespace throttlelab::ui
