// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// How much simulated time the window keeps.
#include <QString>
#include <limits>
#include <optional>

namespace throttlelab::ui {

enum class HistoryWindow { Last60s, Last10min, Everything };

inline double historySeconds(HistoryWindow w) {
  switch (w) {
    case HistoryWindow::Last60s:
      return 60;
    case HistoryWindow::Last10min:
      return 600;
    case HistoryWindow::Everything:
      break;
  }
  return std::numeric_limits<double>::infinity();
}

inline QString historyKey(HistoryWindow w) {
  switch (w) {
    case HistoryWindow::Last60s:
      return QStringLiteral("60s");
    case HistoryWindow::Last10min:
      return QStringLiteral("10min");
    case HistoryWindow::Everything:
      break;
  }
  return QStringLiteral("everything");
}

inline std::optional<HistoryWindow> historyFromKey(const QString& key) {
  for (auto w : {HistoryWindow::Last60s, HistoryWindow::Last10min, HistoryWindow::Everything})
    if (historyKey(w) == key) return w;
  return std::nullopt;
}

}  // namespace throttlelab::ui
