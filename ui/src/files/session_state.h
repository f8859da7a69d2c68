// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Everything a session file restores: the scenario and the window's state.
#include <QByteArray>
#include <vector>

#include "history_window.h"
#include "plot_id.h"
#include "throttlelab/engine/events.h"
#include "throttlelab/engine/scenario.h"

namespace throttlelab::ui {

struct SessionState {
  engine::Scenario scenario;
  HistoryWindow historyWindow = HistoryWindow::Last10min;
  double speed = 1;  ///< simulated seconds per wall second; 0 = as fast as possible
  bool running = true;
  std::vector<PlotId> visiblePlots{kAllPlots.begin(), kAllPlots.end()};
  bool presenter = false;
  bool unitsPages = false;
  bool followLive = true;
  int selectedTask = -1;       ///< task index, -1 for none
  QByteArray dashboardLayout;  ///< Dashboard::saveLayoutState
  QByteArray windowGeometry;   ///< QMainWindow::saveGeometry
  QByteArray windowState;      ///< QMainWindow::saveState (docks, toolbars)
  /// The run's timeline when it was saved: the engine's events and the user's notes. The
  /// notes come back into the window; the run starts again, so its events come again.
  std::vector<engine::RunEvent> events;
  bool operator==(const SessionState&) const = default;
};

}  // namespace throttlelab::ui
