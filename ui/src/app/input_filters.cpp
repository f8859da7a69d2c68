// SPDX-License-Identifier: GPL-3.0-or-later
#include "input_filters.h"

#include <QAbstractItemView>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QEvent>
#include <QKeyEvent>
#include <QLineEdit>
#include <QWidget>

#include "tool_tip_text.h"

namespace throttlelab::ui {

namespace {
/// The spin box whose text `w` is (the box itself, or the line edit inside it).
QAbstractSpinBox* spinBoxOf(QWidget* w) {
  if (auto* box = qobject_cast<QAbstractSpinBox*>(w)) return box;
  if (qobject_cast<QLineEdit*>(w)) return qobject_cast<QAbstractSpinBox*>(w->parentWidget());
  return nullptr;
}

/// Whether `w` edits a cell of a table or list (the Timeline's notes): Escape there cancels
/// the edit, as the view's delegate does; moving the focus away would commit it.
bool editsACell(const QWidget* w) {
  for (const QWidget* p = w->parentWidget(); p && !p->isWindow(); p = p->parentWidget())
    if (qobject_cast<const QAbstractItemView*>(p)) return true;
  return false;
}

/// Whether the box takes `text` typed where its cursor is (over its selection).
bool takes(QAbstractSpinBox* box, const QString& text) {
  auto* edit = box->findChild<QLineEdit*>();
  if (!edit) return false;
  QString candidate = edit->text();
  int at = edit->cursorPosition();
  if (edit->hasSelectedText()) {
    at = edit->selectionStart();
    candidate.remove(at, edit->selectedText().size());
  }
  candidate.insert(at, text);
  at += static_cast<int>(text.size());
  return box->validate(candidate, at) != QValidator::Invalid;
}
}  // namespace

SpinBoxKeys::SpinBoxKeys(QWidget* window, std::function<QWidget*()> home)
    : QObject(window), m_window(window), m_home(std::move(home)) {}

void SpinBoxKeys::leave(QWidget* w) {
  QWidget* home = m_home ? m_home() : nullptr;
  if (home && home->isVisible() && home->isEnabled()) home->setFocus(Qt::OtherFocusReason);
  // Losing the focus enters the value typed (QAbstractSpinBox::focusOutEvent).
  if (w->hasFocus()) w->clearFocus();
}

bool SpinBoxKeys::eventFilter(QObject* watched, QEvent* event) {
  const QEvent::Type type = event->type();
  if (type != QEvent::ShortcutOverride && type != QEvent::KeyPress) return false;
  auto* w = qobject_cast<QWidget*>(watched);
  if (!w || !m_window || w->window() != m_window) return false;
  const auto* key = static_cast<QKeyEvent*>(event);
  if (key->modifiers() != Qt::NoModifier) return false;
  QAbstractSpinBox* box = spinBoxOf(w);
  const bool textField = !box && qobject_cast<QLineEdit*>(w) &&
                         !qobject_cast<QComboBox*>(w->parentWidget()) &&  // a combo's own text
                         !editsACell(w);
  if (!box && !textField) return false;

  if (key->key() == Qt::Key_Escape) {
    if (type == QEvent::KeyPress) leave(box ? static_cast<QWidget*>(box) : w);
    event->accept();
    return true;
  }
  if (!box || box->isReadOnly()) return false;
  const bool space = key->key() == Qt::Key_Space;
  const bool point = key->key() == Qt::Key_Period && !takes(box, QStringLiteral("."));
  if (!space && !point) return false;
  if (type == QEvent::ShortcutOverride) {
    // Enter what was typed, then let the window's shortcut have the key: an override not
    // accepted sends it to the shortcut map instead of the box.
    box->interpretText();
    event->ignore();
    return true;
  }
  // A key press that no shortcut took (Run is disabled beside a trace): not text for the box.
  return true;
}

ToolTipWrap::ToolTipWrap(QObject* parent) : QObject(parent) {}

bool ToolTipWrap::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() != QEvent::ToolTipChange) return false;
  auto* w = qobject_cast<QWidget*>(watched);
  if (!w) return false;
  const QString tip = w->toolTip();
  const QString wrapping = wrappingToolTip(tip);
  if (wrapping != tip) w->setToolTip(wrapping);  // its own ToolTipChange finds rich text
  return false;
}

}  // namespace throttlelab::ui
