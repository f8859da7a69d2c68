// SPDX-License-Identifier: GPL-3.0-or-later
#include "message_box_notifier.h"

#include <QMessageBox>

namespace throttlelab::ui {

void MessageBoxNotifier::error(const QString& title, const QString& text) {
  QMessageBox::critical(m_parent, title, text);
}

void MessageBoxNotifier::warning(const QString& title, const QString& text) {
  QMessageBox::warning(m_parent, title, text);
}

}  // namespace throttlelab::ui
