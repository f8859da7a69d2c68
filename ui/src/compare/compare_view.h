// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Side by side comparison: the current scenario run under policy A and policy B
/// with the same seed, by two LiveControllers (two SimulationWorkers), drawn on time plots that
/// share one time axis (follow live, or panned/zoomed together) and one hover cursor, beside a
/// delta table (metric | A | B | Δ %) refreshed from the summaries the workers publish (~2 Hz).
#include <QWidget>
#include <array>
#include <optional>
#include <vector>

#include "throttlelab/engine/scenario.h"

class QCheckBox;
class QComboBox;
class QLabel;
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

 private:
  void restart();
  void applyTheme();
  void applyNames();
  void onUserRange(ComparePlot* source, double lower, double upper);

  std::array<LiveController*, 2> m_runs{};
  std::vector<ComparePlot*> m_plots;
  CompareTableModel* m_table;
  QTableView* m_tableView;
  QComboBox* m_policyA;
  QComboBox* m_policyB;
  QCheckBox* m_followBox;
  QLabel* m_scenarioLabel;
  QTimer* m_frameTimer;
  engine::Scenario m_scenario;
  std::optional<double> m_cursor;
  bool m_active = false;
  bool m_running = true;
  bool m_follow = true;
  bool m_syncing = false;
};

}  // namespace throttlelab::ui
