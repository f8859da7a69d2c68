// SPDX-License-Identifier: GPL-3.0-or-later
#include "window_session.h"

#include <QMainWindow>
#include <QScreen>
#include <algorithm>

#include "branch_controller.h"
#include "dashboard.h"
#include "live_controller.h"
#include "run_controls.h"
#include "task_table.h"
#include "work_progress.h"

namespace throttlelab::ui {

SessionState WindowSession::capture() const {
  const Parts& p = m_parts;
  SessionState s;
  p.controller.captureSession(s);
  p.dashboard.captureSession(s);
  p.taskTable.captureSession(s);
  s.branch = p.branch.capture();
  s.windowGeometry = p.window.saveGeometry();
  s.windowState = p.window.saveState();
  return s;
}

void WindowSession::apply(const SessionState& s) const {
  const Parts& p = m_parts;
  // A branch still being restored belongs to the session this one replaces.
  p.branch.cancelRestore();
  // A scripted run stays paused until its job runs it to --run-for: a session saved running
  // at speed "max" would otherwise be minutes of simulated time past it by then.
  p.controller.applySession(s, p.scripted);
  p.runControls.setHistoryWindow(s.historyWindow);
  p.runControls.setSpeed(s.speed);
  if (!s.windowGeometry.isEmpty()) restoreGeometryOnScreen(p.window, s.windowGeometry);
  if (!s.windowState.isEmpty()) p.window.restoreState(s.windowState);
  p.dashboard.applySessionLayout(s);
  p.setPresenterMode(s.presenter);
  p.unitsPagesAction.setChecked(s.unitsPages);
  p.dashboard.setFollowLive(s.followLive);
  p.taskTable.applySession(s);
  // The branch comes back once the run has been run to it again: with a progress dialog
  // that can cancel it, when that takes more than a moment (not in a scripted run, which
  // waits for it).
  if (!s.branch) return;
  p.branch.restore(*s.branch, s.running && !p.scripted);
  if (p.scripted) return;
  BranchController& branch = p.branch;
  auto* progress = new WorkProgress(&p.window, [&branch] {
    return branch.restoreProgress().value_or(std::pair{0.0, 0.0});
  });
  progress->showDialog(&p.window,
                       QObject::tr("Opening the session: running it again to its branch"));
  QObject::connect(progress, &WorkProgress::cancelled, &branch, &BranchController::cancelRestore);
  QObject::connect(
      &branch, &BranchController::restored, progress,
      [progress] {
        progress->finish();
        progress->deleteLater();
      },
      Qt::SingleShotConnection);
}

void restoreGeometryOnScreen(QWidget& window, const QByteArray& geometry) {
  if (!window.restoreGeometry(geometry)) return;
  if (window.isMaximized() || window.isFullScreen() || !window.screen()) return;
  const QRect available = window.screen()->availableGeometry();
  // The frame around the window's own geometry (none until a window manager has framed it).
  const QRect inner = window.geometry();
  const QRect frame = window.frameGeometry();
  const QMargins margins(inner.left() - frame.left(), inner.top() - frame.top(),
                         frame.right() - inner.right(), frame.bottom() - inner.bottom());
  const QRect room = available.marginsRemoved(margins);
  QRect fitted(inner.topLeft(), inner.size().boundedTo(room.size()));
  fitted.moveLeft(std::clamp(fitted.left(), room.left(), room.right() + 1 - fitted.width()));
  fitted.moveTop(std::clamp(fitted.top(), room.top(), room.bottom() + 1 - fitted.height()));
  if (fitted != inner) window.setGeometry(fitted);
}

}  // namespace throttlelab::ui
