// SPDX-License-Identifier: GPL-3.0-or-later
#include "window_session.h"

#include <QMainWindow>
#include <algorithm>

#include "dashboard.h"
#include "live_controller.h"
#include "run_controls.h"
#include "task_table.h"

namespace throttlelab::ui {

SessionState WindowSession::capture() const {
  const Parts& p = m_parts;
  SessionState s;
  s.scenario = p.controller.scenario();
  s.historyWindow = p.controller.historyWindow();
  s.speed = p.controller.speed();
  s.running = p.controller.isRunning();
  s.visiblePlots = p.dashboard.visiblePlots();
  s.presenter = p.dashboard.presenterMode();
  s.unitsPages = p.dashboard.unitsPages();
  s.followLive = p.dashboard.followLive();
  s.selectedTask = p.taskTable.selectedTask();
  s.dashboardLayout = p.dashboard.saveLayoutState();
  s.windowGeometry = p.window.saveGeometry();
  s.windowState = p.window.saveState();
  s.events = p.controller.timeline();
  return s;
}

void WindowSession::apply(const SessionState& s) const {
  const Parts& p = m_parts;
  p.controller.load(s.scenario);
  // The run starts again and makes its own events; the user's notes come back.
  p.controller.setNotes(s.events);
  p.controller.setHistoryWindow(s.historyWindow);
  p.runControls.setHistoryWindow(s.historyWindow);
  p.controller.setSpeed(s.speed);
  p.runControls.setSpeed(s.speed);
  // A scripted run stays paused until its job runs it to --run-for: a session saved running
  // at speed "max" would otherwise be minutes of simulated time past it by then.
  p.controller.setRunning(s.running && !p.scripted);
  if (!s.windowGeometry.isEmpty()) p.window.restoreGeometry(s.windowGeometry);
  if (!s.windowState.isEmpty()) p.window.restoreState(s.windowState);
  if (!s.dashboardLayout.isEmpty()) p.dashboard.restoreLayoutState(s.dashboardLayout);
  for (PlotId id : kAllPlots)
    p.dashboard.setPlotVisible(
        id, std::find(s.visiblePlots.begin(), s.visiblePlots.end(), id) != s.visiblePlots.end());
  p.setPresenterMode(s.presenter);
  p.unitsPagesAction.setChecked(s.unitsPages);
  p.dashboard.setFollowLive(s.followLive);
  // The task appears with the first snapshot of the new run; the table selects it then.
  p.taskTable.selectTask(s.selectedTask);
}

}  // namespace throttlelab::ui
