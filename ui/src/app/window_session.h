// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Captures a session (SessionState) from the parts of the window that keep one, and applies a
/// session to them: the live run (scenario, history window, speed, running), the dashboard
/// (visible plots, units, follow-live, layout), the task table's selection, presenter mode and
/// the window's geometry. MainWindow reads and writes the files; this class knows what is in
/// one.
#include <QAction>
#include <functional>

#include "session_state.h"

class QMainWindow;
class QWidget;

namespace throttlelab::ui {

class BranchController;
class Dashboard;
class LiveController;
class RunControls;
class TaskTable;

class WindowSession final {
 public:
  struct Parts {
    QMainWindow& window;
    LiveController& controller;
    Dashboard& dashboard;
    RunControls& runControls;
    TaskTable& taskTable;
    QAction& unitsPagesAction;                   ///< View ▸ Memory in pages
    std::function<void(bool)> setPresenterMode;  ///< the window's, with its font
    BranchController& branch;                    ///< a run beside its branch
    bool scripted = false;  ///< a scripted run stays paused until its job runs it
  };
  explicit WindowSession(Parts parts) : m_parts(std::move(parts)) {}

  SessionState capture() const;
  void apply(const SessionState& state) const;

 private:
  Parts m_parts;
};

/// Restores a geometry saved by saveGeometry() (a session's, the settings'), then keeps the
/// window on its screen: no larger than the screen's available area, moved inside it. Qt keeps
/// only the title bar on screen: a session saved on a larger screen, or one placed 20 px down
/// for a title bar that a screen without a window manager does not draw, put the status bar
/// below a 720 px projector's edge.
void restoreGeometryOnScreen(QWidget& window, const QByteArray& geometry);

}  // namespace throttlelab::ui
