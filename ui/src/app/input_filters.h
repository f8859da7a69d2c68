// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Application-wide event filters of the main window: keys that must reach the run while a
/// spin box has the keyboard, and tool tips that wrap.
#include <QObject>
#include <QPointer>
#include <functional>

class QAbstractSpinBox;
class QWidget;

namespace throttlelab::ui {

/// The keys of a spin box or text field of `window`:
/// - Escape leaves it (as Help ▸ Keyboard shortcuts says): the value typed is entered, as a
///   click elsewhere would enter it, and the keyboard goes to `home()` (the view shown), so
///   Space and "." drive the run again.
/// - Space, and "." where the box cannot take one (an integer, a value that has its point
///   already), enter the value typed and act as the window's shortcuts (Run/Pause, Step):
///   a numeric box has no use for them as text. "." in "3" of a box with decimals is "3.".
class SpinBoxKeys : public QObject {
  Q_OBJECT

 public:
  SpinBoxKeys(QWidget* window, std::function<QWidget*()> home);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  /// Moves the keyboard from `w` to home() (or nowhere if home cannot take it).
  void leave(QWidget* w);

  QPointer<QWidget> m_window;
  std::function<QWidget*()> m_home;
};

/// Wraps the tool tips of every widget (and so of every tool bar button's action) that would
/// otherwise be one long line: a plain tip longer than a line is set again as the same text
/// in rich text, which Qt wraps (wrappingToolTip()).
class ToolTipWrap : public QObject {
  Q_OBJECT

 public:
  explicit ToolTipWrap(QObject* parent = nullptr);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;
};

}  // namespace throttlelab::ui
