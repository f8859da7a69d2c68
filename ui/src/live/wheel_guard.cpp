// SPDX-License-Identifier: GPL-3.0-or-later
#include "wheel_guard.h"

#include <QAbstractSpinBox>
#include <QComboBox>
#include <QEvent>
#include <QFocusEvent>
#include <QObject>
#include <QSet>
#include <QSlider>
#include <QWidget>

namespace throttlelab::ui {

namespace {
class WheelGuard : public QObject {
 public:
  using QObject::QObject;

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override {
    switch (event->type()) {
      case QEvent::FocusIn: {
        // Only a focus the user gave: the first control of a window shown takes the focus on
        // its own (the Writers slider), and the wheel would change it on the way past.
        const Qt::FocusReason reason = static_cast<QFocusEvent*>(event)->reason();
        if (reason == Qt::MouseFocusReason || reason == Qt::TabFocusReason ||
            reason == Qt::BacktabFocusReason || reason == Qt::ShortcutFocusReason)
          m_chosen.insert(watched);
        return false;
      }
      case QEvent::FocusOut:
        m_chosen.remove(watched);
        return false;
      case QEvent::Wheel: {
        auto* w = qobject_cast<QWidget*>(watched);
        if (!w || (w->hasFocus() && m_chosen.contains(watched))) return false;
        // Not for this control: ignored, the event goes on to its parents (QApplication::notify).
        event->ignore();
        return true;
      }
      default:
        return false;
    }
  }

 private:
  QSet<QObject*> m_chosen;  ///< the controls given the focus by a click, Tab or a shortcut
};
}  // namespace

void wheelOnlyWhenFocused(QWidget* root) {
  auto* guard = new WheelGuard(root);
  const auto guardAll = [guard](const auto& controls) {
    for (QWidget* w : controls) {
      // Qt::WheelFocus (spin and combo boxes) would give them the focus on the first notch.
      if (w->focusPolicy() == Qt::WheelFocus) w->setFocusPolicy(Qt::StrongFocus);
      w->installEventFilter(guard);
    }
  };
  guardAll(root->findChildren<QAbstractSpinBox*>());
  guardAll(root->findChildren<QSlider*>());
  guardAll(root->findChildren<QComboBox*>());
}

}  // namespace throttlelab::ui
