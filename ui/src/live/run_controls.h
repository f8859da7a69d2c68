// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The run toolbar: run/pause (Space), step one 200 ms control period, reset, speed, seed,
/// scenario picker, history window, follow live and fit all.
#include <QIcon>
#include <QStyle>
#include <QToolBar>
#include <cstdint>

#include "history_window.h"

class QComboBox;
class QSpinBox;

namespace throttlelab::ui {

class RunControls : public QToolBar {
  Q_OBJECT

 public:
  /// Speed factors offered; 0 stands for "as fast as possible".
  static const QList<double>& speeds();

  explicit RunControls(QWidget* parent = nullptr);

  QAction* runAction() const { return m_run; }
  QAction* stepAction() const { return m_step; }
  QAction* resetAction() const { return m_reset; }
  QAction* followAction() const { return m_follow; }
  QAction* fitAction() const { return m_fit; }
  QComboBox* speedBox() const { return m_speed; }
  QComboBox* scenarioBox() const { return m_scenario; }
  QComboBox* historyBox() const { return m_history; }
  QSpinBox* seedBox() const { return m_seed; }

  // Show state without emitting.
  void setRunning(bool running);
  void setSpeed(double factor);
  double speed() const;
  void setSeed(std::uint64_t seed);
  void setScenarioNames(const QStringList& builtins);
  void setCurrentScenario(const QString& name);
  void setHistoryWindow(HistoryWindow window);
  void setFollowLive(bool follow);

 Q_SIGNALS:
  void runToggled(bool running);
  void stepRequested();
  void resetRequested();
  void speedChanged(double factor);
  void seedChanged(std::uint64_t seed);
  void scenarioPicked(const QString& name);
  void openScenarioRequested();
  void historyWindowChanged(throttlelab::ui::HistoryWindow window);
  void followToggled(bool follow);
  void fitAllRequested();

 protected:
  void changeEvent(QEvent* event) override;

 private:
  QIcon icon(QStyle::StandardPixmap which) const;
  QAction* m_run;
  QAction* m_step;
  QAction* m_reset;
  QAction* m_follow;
  QAction* m_fit;
  QComboBox* m_speed;
  QSpinBox* m_seed;
  QComboBox* m_scenario;
  QComboBox* m_history;
};

}  // namespace throttlelab::ui
