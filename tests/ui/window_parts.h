// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The ui tests reach the main window's views, panels, menus and actions by their objectName,
// as a user's scripts or an accessibility tool would; MainWindow exposes no accessors for them.
#include <QAction>
#include <QMenu>
#include <QObject>
#include <QString>
#include <QtGlobal>

namespace throttlelab::ui::test {

/// The window's part of type T named `name`; a missing part is a broken test rig.
template <class T>
T* partPtr(const QObject& window, const char* name) {
  T* p = window.findChild<T*>(QString::fromLatin1(name));
  if (!p) qFatal("the main window has no %s named %s", T::staticMetaObject.className(), name);
  return p;
}

template <class T>
T& part(const QObject& window, const char* name) {
  return *partPtr<T>(window, name);
}

}  // namespace throttlelab::ui::test
