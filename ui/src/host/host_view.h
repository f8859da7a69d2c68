// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Live host mode, "View ▸ Watch this machine": this machine's dirty pages against
/// both thresholds, freerun and setpoint, polled from /proc ten times a second without root,
/// free memory against the watermarks, reclaim and allocation stalls, and one line saying how
/// close the host is to throttling. As root, "Record tracepoints" adds the measured pauses and
/// the bdi's estimates live from the writeback tracepoints; the recording can be saved or laid
/// over a simulation in the real-kernel view. One memory cgroup can be watched beside the
/// machine ("Memory cgroup", or --watch-cgroup PATH): its dirty and writeback pages against its
/// own limits in a plot of its own. Recording stops when toggled off, when the view
/// is left, on window close, on errors and on Ctrl-C, and tracefs is left as it was found.
#include <QWidget>
#include <memory>
#include <optional>
#include <vector>

#include "display_units.h"
#include "sample_history.h"
#include "throttlelab/host/trace_recorder.h"
#include "trace_collector.h"

class QComboBox;
class QLabel;
class QPushButton;
class QSplitter;
class QTimer;
class QVBoxLayout;

namespace throttlelab::ui {

class HostMonitor;
class HostPlot;
class InterruptGuard;
class MemoryPlot;
class TimePlot;
class TracePlot;
class TraceRecordJob;

class HostView final : public QWidget {
  Q_OBJECT

 public:
  explicit HostView(QWidget* parent = nullptr);
  ~HostView() override;

  void setProcRoot(const QString& root);
  /// Whether "Record tracepoints" may be used, and if not why (the tooltip). Defaults to
  /// "the process is root".
  void setRecordingAllowed(bool allowed, const QString& whyNot = {});
  bool recordingAllowed() const { return m_recordAllowed; }
  /// Where and how to record (tests point this at a fake tracefs).
  void setRecorderOptions(host::TraceRecorder::Options options);

  /// Watches the memory cgroup at `path` (host::locateCgroup: a directory, or a path below the
  /// cgroup root) beside the machine; an empty path stops watching one. Returns why it cannot
  /// be watched, or an empty string.
  QString watchCgroup(const QString& path);
  /// Where cgroups are looked for and listed (tests point this at a fixture directory).
  void setCgroupRoot(const QString& root);
  /// Fills the cgroup list from the cgroup root.
  void refreshCgroupList();
  QString cgroupInfoText() const;

  void start();
  void stop();
  bool isActive() const;
  /// One poll and one frame now (the timers do this; tests call it).
  bool pollNow();
  /// The samples polled since start() (a line needs two).
  std::size_t polledSamples() const;

  void setRecording(bool on);
  bool isRecording() const;
  /// Saves what was recorded (ftrace text) through QSaveFile; an error message or empty.
  QString saveRecording(const QString& path) const;
  bool hasRecording() const;
  std::shared_ptr<const ImportedTrace> recording() const;

  HostMonitor& monitor() const { return *m_monitor; }
  QString readoutText() const;
  QPushButton* recordButton() const { return m_recordButton; }
  const std::vector<TimePlot*>& plots() const { return m_plots; }
  /// The plots of the recording (pauses, the bdi's estimates), shown while there is one.
  const std::vector<TracePlot*>& recordedPlots() const { return m_tracePlots; }

 Q_SIGNALS:
  void statusMessage(const QString& text);
  void errorMessage(const QString& title, const QString& text);
  /// Ctrl-C / SIGTERM arrived while recording: the window should close (which stops it).
  void interruptRequested();
  void saveRecordingRequested();
  void simulateRecordingRequested(std::shared_ptr<const throttlelab::ui::ImportedTrace> trace);

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void buildControls();
  void addBars(QVBoxLayout* layout);
  /// Left: the dirty pages (and, while recording, what the tracepoints say); right: memory and
  /// reclaim.
  QSplitter* buildPlots();
  void connectPlots();
  void connectControls();
  void frame();
  void onSample(const engine::Sample& sample);
  void applyTheme();
  void onUserRange(TimePlot* source, double lower, double upper);
  void updateInfo();
  void updateRecordControls();
  void updateCgroupInfo(const engine::Sample& sample);
  bool isTracePlot(const TimePlot* plot) const;
  double recordOffset(const engine::Sample& newest) const;

  HostMonitor* m_monitor;
  TraceRecordJob* m_recorder;
  host::TraceRecorder::Options m_recorderOptions;
  std::unique_ptr<InterruptGuard> m_interruptGuard;
  SampleHistory m_recorded;               ///< the recording's samples, on the monitor's time axis
  std::optional<double> m_recordOffsetS;  ///< monitor time of the recording's t = 0
  std::vector<TimePlot*> m_plots;
  std::vector<TracePlot*> m_tracePlots;
  HostPlot* m_dirtyPlot = nullptr;
  HostPlot* m_cgroupPlot = nullptr;
  QComboBox* m_cgroupChoice;
  QPushButton* m_cgroupButton;
  QLabel* m_cgroupInfo;
  QString m_cgroupRoot = QStringLiteral("/sys/fs/cgroup");
  QLabel* m_readout;
  QLabel* m_info;
  QLabel* m_recordInfo;
  QPushButton* m_recordButton;
  QPushButton* m_saveButton;
  QPushButton* m_simulateButton;
  QTimer* m_frameTimer;
  DisplayUnits m_units;
  bool m_recordAllowed = false;
  bool m_follow = true;
  bool m_syncing = false;
  bool m_dirty = false;
};

}  // namespace throttlelab::ui
