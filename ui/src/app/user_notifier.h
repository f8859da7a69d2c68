// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// How the window tells the user that something failed. Behind an interface so tests can
/// capture the messages and scripted runs can print them instead of blocking on a dialog.
#include <QString>

namespace throttlelab::ui {

class UserNotifier {
 public:
  virtual ~UserNotifier() = default;
  UserNotifier() = default;
  UserNotifier(const UserNotifier&) = delete;
  UserNotifier& operator=(const UserNotifier&) = delete;

  virtual void error(const QString& title, const QString& text) = 0;
  virtual void warning(const QString& title, const QString& text) = 0;
};

}  // namespace throttlelab::ui
