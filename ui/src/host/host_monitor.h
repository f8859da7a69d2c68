// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Live host mode without root: a 100 ms QTimer polls host::VmstatSampler (cheap reads of a
/// few /proc files, so on the GUI thread) and appends each poll to a SampleHistory that the
/// host view draws. The /proc root is a parameter, so tests poll a fixture copy. One memory
/// cgroup may be watched beside the machine (host::CgroupSampler): its reading goes into the
/// sample's `cgroups` (one entry).
#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QTimer>
#include <memory>
#include <optional>

#include "sample_history.h"
#include "throttlelab/host/cgroup_sampler.h"
#include "throttlelab/host/vmstat_sampler.h"

namespace throttlelab::ui {

class HostMonitor final : public QObject {
  Q_OBJECT

 public:
  static constexpr int kIntervalMs = 100;

  explicit HostMonitor(QObject* parent = nullptr);
  ~HostMonitor() override;

  /// Takes effect at the next start().
  void setProcRoot(const QString& root) { m_procRoot = root; }
  const QString& procRoot() const { return m_procRoot; }

  /// Watches this cgroup from the next poll on (nullopt: none). A cgroup that vanishes while
  /// watched is dropped (cgroupFailed says so); the machine is still polled.
  void setCgroup(std::optional<host::CgroupLocation> where);
  /// The watched cgroup, or nullptr.
  const host::CgroupLocation* cgroup() const;

  /// Starts polling from t = 0 with an empty history.
  void start();
  void stop();
  bool isActive() const { return m_timer.isActive(); }
  /// One poll now (the timer calls this); true if it produced a sample.
  bool poll();
  /// Seconds since start().
  double elapsedS() const;
  /// /proc/uptime at start(), if readable: lines a recorded trace's timestamps (seconds since
  /// boot) up with this monitor's clock.
  std::optional<double> uptimeAtStartS() const { return m_uptimeAtStart; }

  const SampleHistory& history() const { return m_history; }
  const QString& lastError() const { return m_lastError; }
  const host::HostInfo& info() const { return m_info; }

 Q_SIGNALS:
  void sampled(const throttlelab::engine::Sample& sample);
  /// A poll failed; emitted when the reason changes, not on every poll.
  void pollFailed(const QString& message);
  /// The watched cgroup could not be read (emitted when the reason changes); `vanished`: it
  /// was removed, and is no longer watched.
  void cgroupFailed(const QString& message, bool vanished);

 private:
  QString m_procRoot = QStringLiteral("/proc");
  std::unique_ptr<host::VmstatSampler> m_sampler;
  std::optional<host::CgroupSampler> m_cgroup;
  QString m_cgroupError;
  host::HostInfo m_info;
  SampleHistory m_history;
  QTimer m_timer;
  QElapsedTimer m_clock;
  QString m_lastError;
  std::optional<double> m_uptimeAtStart;
};

}  // namespace throttlelab::ui
