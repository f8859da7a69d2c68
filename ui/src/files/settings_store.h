// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The one place that reads and writes QSettings. Every key, its name on disk and its default
/// live in a single table, so a typo cannot create a second, silently unused key. A scripted
/// run's settings live in memory only (InMemory): it writes nothing but its named outputs.
#include <QString>
#include <QStringList>
#include <QVariant>
#include <QVariantMap>
#include <memory>

class QSettings;

namespace throttlelab::ui {

enum class Setting {
  RecentFiles,      ///< QStringList, newest first
  LastDirectory,    ///< QString, for file dialogs
  WindowGeometry,   ///< QByteArray from QMainWindow::saveGeometry
  WindowState,      ///< QByteArray from QMainWindow::saveState
  DashboardLayout,  ///< QByteArray from Dashboard::saveLayoutState
  HistoryWindow,    ///< QString key (history_window.h)
  UnitsPages,       ///< bool
};

class SettingsStore {
 public:
  static constexpr int kMaxRecentFiles = 8;

  /// The user's settings (organisation and application name of the QApplication).
  SettingsStore();
  /// Settings in an INI file, for tests.
  explicit SettingsStore(const QString& iniPath);
  /// Settings that start at the defaults, whatever the user's are, and are never written
  /// anywhere: a scripted run's (no recent file, no window state in ~/.config).
  struct InMemory {};
  explicit SettingsStore(InMemory);
  ~SettingsStore();
  SettingsStore(const SettingsStore&) = delete;
  SettingsStore& operator=(const SettingsStore&) = delete;

  QVariant value(Setting key) const;
  void setValue(Setting key, const QVariant& value);
  /// The name a key is stored under.
  static QString keyName(Setting key);

  QStringList recentFiles() const;
  void addRecentFile(const QString& path);
  void removeRecentFile(const QString& path);
  void sync();

 private:
  std::unique_ptr<QSettings> m_settings;  ///< null: InMemory
  QVariantMap m_memory;                   ///< InMemory's values, by key name
};

}  // namespace throttlelab::ui
