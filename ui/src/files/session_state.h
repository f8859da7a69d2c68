// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Everything a session file restores: the scenario and the window's state.
#include <QByteArray>
#include <algorithm>
#include <optional>
#include <vector>

#include "history_window.h"
#include "plot_id.h"
#include "throttlelab/engine/events.h"
#include "throttlelab/engine/scenario.h"

namespace throttlelab::ui {

/// A branch: a moment of a run and the changes made there (KEY=VALUE, as --set and
/// --branch-set take them).
struct BranchSpec {
  double atS = 0;                         ///< the simulated second the branch goes on from
  std::vector<engine::Override> changes;  ///< applied at atS, in order
  bool operator==(const BranchSpec& o) const {
    return atS == o.atS && std::equal(changes.begin(), changes.end(), o.changes.begin(),
                                      o.changes.end(), [](const auto& a, const auto& b) {
                                        return a.path == b.path && a.value == b.value;
                                      });
  }
};

/// The compare view showing a run beside its branch, as a session keeps it.
struct SessionBranch {
  BranchSpec spec;
  double originalS = 0;  ///< how far the original had run
  double branchS = 0;    ///< and the branch
  bool operator==(const SessionBranch&) const = default;
};

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
  /// A run and its branch, if the compare view showed one: re-opening runs the scenario to
  /// originalS, branches at spec.atS and runs the branch to branchS.
  std::optional<SessionBranch> branch;
  bool operator==(const SessionState&) const = default;
};

}  // namespace throttlelab::ui
