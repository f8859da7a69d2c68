// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Side by side comparison: the current scenario run under policy A and policy B
/// with the same seed, by two LiveControllers (two SimulationWorkers), drawn on time plots that
/// share one time axis (follow live, or panned/zoomed together) and one hover cursor, beside a
/// delta table (metric | A | B | Δ %) refreshed from the summaries the workers publish (~2 Hz).
#include <QWidget>
#include <array>
#include <future>
#include <optional>
#include <vector>

#include "throttlelab/engine/records.h"
#include "throttlelab/engine/scenario.h"
#include "throttlelab/engine/simulator.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QSplitter;
class QTableView;
class QTimer;

namespace throttlelab::ui {

class ComparePlot;
class CompareTableModel;
class LiveController;

class CompareView final : public QWidget {
  Q_OBJECT

 public:
  explicit CompareView(QWidget* parent = nullptr);
  ~CompareView() override;

  /// Starts both runs of `scenario`: A under policyA(), B under policyB(). Runs until stop().
  void start(const engine::Scenario& scenario, bool running);
  void stop();
  bool isActive() const { return m_active; }

  /// Two futures of one run instead of two policies: A, the run itself going on from
  /// `originalFrom`; B, the branch going on from `branchFrom` (the run at atS with a change).
  /// Both draw the run's history before atS, and atS is marked on every plot. Set for
  /// startBranch(); its snapshots are kept to restart from.
  struct BranchRuns {
    QString originalName;
    QString branchName;
    QString markLabel;  ///< the branch mark's text, e.g. "branch at 600 s: vm.dirty_ratio=10"
    double atS = 0;
    engine::Scenario original;
    engine::Scenario branch;
    /// The run at originalS; it may still be on its way (being copied) when startBranch()
    /// is called, which starts the branch first.
    std::shared_future<engine::SimulatorSnapshot> originalFrom;
    double originalS = 0;
    engine::SimulatorSnapshot branchFrom;
    std::vector<engine::Sample> before;  ///< what the run showed up to originalS
  };
  /// Starts both futures, the branch first; paused unless `running`. The branch, behind the
  /// original by (originalS − atS), runs as fast as it can until it has caught up, then paced.
  void startBranch(BranchRuns runs, bool running);
  /// Goes on from another branch point state (a changed control): only run B starts again.
  void rebranch(const engine::SimulatorSnapshot& branchFrom, const engine::Scenario& branch,
                const QString& branchName, const QString& markLabel);
  /// The branch shown, if the view compares a run with its branch.
  const std::optional<BranchRuns>& branch() const { return m_branch; }

  /// Restarts both runs with these policies (names from Simulator::policyNames()).
  void setPolicies(const QString& a, const QString& b);
  QString policyA() const;
  QString policyB() const;
  /// A policy other than `a` to compare it with by default.
  static QString defaultOther(const QString& a);

  // Run controls, applied to both runs.
  void setRunning(bool running);
  bool isRunning() const { return m_running; }
  void setSpeed(double factor);
  /// Whether both runs fold samples when they come faster than a frame uses (a scripted run
  /// keeps every sample for its CSV).
  void setDecimation(bool on);
  void step();
  void reset();

  void setFollowLive(bool follow);
  bool followLive() const { return m_follow; }
  void setCursorTime(std::optional<double> timeS);
  /// Frame: follow, autoscale, replot what changed (public so tests can drive it).
  void refresh();

  LiveController& run(int i) const { return *m_runs[static_cast<std::size_t>(i)]; }
  const std::vector<ComparePlot*>& plots() const { return m_plots; }
  CompareTableModel& table() const { return *m_table; }
  /// Reads the summaries both workers published last into the table; false if one is missing.
  bool updateTable();

 Q_SIGNALS:
  void runningChanged(bool running);

 protected:
  void changeEvent(QEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  void restart();
  /// Branch mode: run B (behind) runs as fast as it can to where run A is, then paced.
  void catchUp();
  double originalTimeS() const;
  void adoptBranch();
  void showBranchControls();
  void sizeBranchColumns();
  void applyTheme();
  void applyNames();
  /// Both runs' timelines as marks on every plot.
  void updateEvents();
  void onUserRange(ComparePlot* source, double lower, double upper);

  std::array<LiveController*, 2> m_runs{};
  std::vector<ComparePlot*> m_plots;
  CompareTableModel* m_table;
  QTableView* m_tableView;
  QComboBox* m_policyA;
  QComboBox* m_policyB;
  QCheckBox* m_followBox;
  QLabel* m_scenarioLabel;
  QSplitter* m_columns;
  std::vector<QWidget*> m_policyControls;  ///< hidden while comparing a run with its branch
  std::optional<BranchRuns> m_branch;
  QTimer* m_frameTimer;
  engine::Scenario m_scenario;
  std::optional<double> m_cursor;
  bool m_active = false;
  bool m_running = true;
  bool m_follow = true;
  bool m_syncing = false;
};

}  // namespace throttlelab::ui
