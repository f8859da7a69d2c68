// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// UserNotifier that shows a QMessageBox (or, with no parent window yet, an application-modal one).
#include <QPointer>
#include <QWidget>

#include "user_notifier.h"

namespace throttlelab::ui {

class MessageBoxNotifier final : public UserNotifier {
 public:
  void setParentWidget(QWidget* parent) { m_parent = parent; }
  void error(const QString& title, const QString& text) override;
  void warning(const QString& title, const QString& text) override;

 private:
  QPointer<QWidget> m_parent;
};

}  // namespace throttlelab::ui
