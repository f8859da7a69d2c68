// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The what-if controls. Each edits a copy of the Scenario and emits it; the controller sends
/// it to the running engine as a reconfiguration, so changes apply while the run goes on.
#include <QWidget>
#include <functional>

#include "throttlelab/engine/scenario.h"

class QComboBox;
class QGroupBox;
class QLabel;
class QSpinBox;
class QDoubleSpinBox;
class QStackedWidget;

namespace throttlelab::ui {

class LogSlider;

class ParameterPanel : public QWidget {
  Q_OBJECT

 public:
  explicit ParameterPanel(QWidget* parent = nullptr);

  /// Shows a scenario's values without emitting scenarioEdited.
  void setScenario(const engine::Scenario& scenario);
  const engine::Scenario& scenario() const { return m_scenario; }

  // The controls, for tests and keyboard focus.
  LogSlider* writers() const { return m_writers; }
  LogSlider* blockSize() const { return m_blockKiB; }
  LogSlider* thinkTime() const { return m_thinkMs; }
  QSpinBox* rtWriters() const { return m_rtCount; }
  QComboBox* rtClass() const { return m_rtClass; }
  QSpinBox* rtPriority() const { return m_rtPriority; }
  QComboBox* dirtyMode() const { return m_dirtyMode; }
  QSpinBox* dirtyRatio() const { return m_dirtyRatio; }
  QSpinBox* dirtyBytesMiB() const { return m_dirtyBytes; }
  QComboBox* backgroundMode() const { return m_bgMode; }
  QSpinBox* backgroundRatio() const { return m_bgRatio; }
  QSpinBox* backgroundBytesMiB() const { return m_bgBytes; }
  QSpinBox* expireCentisecs() const { return m_expire; }
  QSpinBox* writebackCentisecs() const { return m_writeback; }
  LogSlider* memoryMiB() const { return m_memory; }
  QSpinBox* cpus() const { return m_cpus; }
  LogSlider* deviceMBps() const { return m_bandwidth; }
  QDoubleSpinBox* seekMs() const { return m_seek; }
  QComboBox* policy() const { return m_policy; }

  /// The first normal (SCHED_OTHER) writer group, created (with count 0) if absent.
  static engine::TaskSpec& normalGroup(engine::Scenario& s);
  /// The first real-time writer group, or nullptr.
  static engine::TaskSpec* rtGroup(engine::Scenario& s);

 Q_SIGNALS:
  void scenarioEdited(const engine::Scenario& scenario);

 private:
  void edit(const std::function<void(engine::Scenario&)>& change);
  QGroupBox* buildWriters();
  QGroupBox* buildRealTime();
  QGroupBox* buildLimits();
  QGroupBox* buildMachine();
  void connectControls();
  void setRtWriters(int count);
  /// A limit's mode box switched: to bytes (starting from what the ratio gives on this
  /// machine) or back to the ratio (bytes 0).
  void setLimitMode(bool bytes, int engine::VmConfig::*ratioKey,
                    std::int64_t engine::VmConfig::*bytesKey, QSpinBox* bytesBox);
  void showModes();

  engine::Scenario m_scenario;
  bool m_updating = false;
  LogSlider* m_writers;
  LogSlider* m_blockKiB;
  LogSlider* m_thinkMs;
  QSpinBox* m_rtCount;
  QComboBox* m_rtClass;
  QSpinBox* m_rtPriority;
  QComboBox* m_dirtyMode;
  QStackedWidget* m_dirtyStack;
  QSpinBox* m_dirtyRatio;
  QSpinBox* m_dirtyBytes;
  QComboBox* m_bgMode;
  QStackedWidget* m_bgStack;
  QSpinBox* m_bgRatio;
  QSpinBox* m_bgBytes;
  QSpinBox* m_expire;
  QSpinBox* m_writeback;
  LogSlider* m_memory;
  QSpinBox* m_cpus;
  LogSlider* m_bandwidth;
  QDoubleSpinBox* m_seek;
  QComboBox* m_policy;
  QLabel* m_description;
};

}  // namespace throttlelab::ui
