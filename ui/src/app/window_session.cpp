// SPDX-License-Identifier: GPL-3.0-or-later
#include "window_session.h"

#include <QMainWindow>

#include "branch_controller.h"
#include "dashboard.h"
#include "live_controller.h"
#include "run_controls.h"
#include "task_table.h"

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
  // A scripted run stays paused until its job runs it to --run-for: a session saved running
  // at speed "max" would otherwise be minutes of simulated time past it by then.
  p.controller.applySession(s, p.scripted);
  p.runControls.setHistoryWindow(s.historyWindow);
  p.runControls.setSpeed(s.speed);
  if (!s.windowGeometry.isEmpty()) p.window.restoreGeometry(s.windowGeometry);
  if (!s.windowState.isEmpty()) p.window.restoreState(s.windowState);
  p.dashboard.applySessionLayout(s);
  p.setPresenterMode(s.presenter);
  p.unitsPagesAction.setChecked(s.unitsPages);
  p.dashboard.setFollowLive(s.followLive);
  p.taskTable.applySession(s);
  // The branch comes back once the run has been run to it again.
  if (s.branch) p.branch.restore(*s.branch, s.running && !p.scripted);
}

}  // namespace throttlelab::ui
