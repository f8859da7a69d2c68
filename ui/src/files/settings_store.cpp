// SPDX-License-Identifier: GPL-3.0-or-later
#include "settings_store.h"

#include <QFileInfo>
#include <QSettings>
#include <array>

namespace throttlelab::ui {

namespace {
struct KeyInfo {
  Setting key;
  const char* name;
  QVariant (*fallback)();
};

const std::array<KeyInfo, 7> kKeys = {{
    {Setting::RecentFiles, "files/recent", [] { return QVariant(QStringList()); }},
    {Setting::LastDirectory, "files/lastDirectory", [] { return QVariant(QString()); }},
    {Setting::WindowGeometry, "window/geometry", [] { return QVariant(QByteArray()); }},
    {Setting::WindowState, "window/state", [] { return QVariant(QByteArray()); }},
    {Setting::DashboardLayout, "window/dashboardLayout", [] { return QVariant(QByteArray()); }},
    {Setting::HistoryWindow, "view/historyWindow",
     [] { return QVariant(QStringLiteral("10min")); }},
    {Setting::UnitsPages, "view/unitsPages", [] { return QVariant(false); }},
}};

const KeyInfo& info(Setting key) {
  for (const auto& k : kKeys)
    if (k.key == key) return k;
  return kKeys.front();  // unreachable: every enumerator is in the table
}
}  // namespace

SettingsStore::SettingsStore() : m_settings(std::make_unique<QSettings>()) {}

SettingsStore::SettingsStore(const QString& iniPath)
    : m_settings(std::make_unique<QSettings>(iniPath, QSettings::IniFormat)) {}

SettingsStore::SettingsStore(InMemory) {}

SettingsStore::~SettingsStore() = default;

QString SettingsStore::keyName(Setting key) {
  return QString::fromLatin1(info(key).name);
}

QVariant SettingsStore::value(Setting key) const {
  const auto& k = info(key);
  const QString name = QString::fromLatin1(k.name);
  if (!m_settings) return m_memory.value(name, k.fallback());
  return m_settings->value(name, k.fallback());
}

void SettingsStore::setValue(Setting key, const QVariant& value) {
  if (!m_settings) {
    m_memory.insert(keyName(key), value);
    return;
  }
  m_settings->setValue(keyName(key), value);
}

QStringList SettingsStore::recentFiles() const {
  return value(Setting::RecentFiles).toStringList();
}

void SettingsStore::addRecentFile(const QString& path) {
  const QString absolute = QFileInfo(path).absoluteFilePath();
  QStringList files = recentFiles();
  files.removeAll(absolute);
  files.prepend(absolute);
  while (files.size() > kMaxRecentFiles) files.removeLast();
  setValue(Setting::RecentFiles, files);
}

void SettingsStore::removeRecentFile(const QString& path) {
  QStringList files = recentFiles();
  files.removeAll(path);
  setValue(Setting::RecentFiles, files);
}

void SettingsStore::sync() {
  if (m_settings) m_settings->sync();
}

}  // namespace throttlelab::ui
