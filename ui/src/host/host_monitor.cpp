// SPDX-License-Identifier: GPL-3.0-or-later
#include "host_monitor.h"

#include <QFile>

namespace throttlelab::ui {

HostMonitor::HostMonitor(QObject* parent) : QObject(parent) {
  m_history.setWindow(HistoryWindow::Last10min);
  m_timer.setInterval(kIntervalMs);
  connect(&m_timer, &QTimer::timeout, this, [this] { poll(); });
}

HostMonitor::~HostMonitor() = default;

void HostMonitor::start() {
  m_sampler = std::make_unique<host::VmstatSampler>(m_procRoot.toStdString());
  m_info = host::readHostInfo(m_procRoot.toStdString());
  m_history.clear();
  m_lastError.clear();
  m_clock.start();
  m_uptimeAtStart.reset();
  QFile uptime(m_procRoot + QStringLiteral("/uptime"));
  if (uptime.open(QIODevice::ReadOnly)) {
    bool ok = false;
    const double s = uptime.readLine().split(' ').value(0).toDouble(&ok);
    if (ok) m_uptimeAtStart = s;
  }
  poll();
  m_timer.start();
}

void HostMonitor::setCgroup(std::optional<host::CgroupLocation> where) {
  m_cgroup.reset();
  m_cgroupError.clear();
  if (where) m_cgroup.emplace(std::move(*where));
}

const host::CgroupLocation* HostMonitor::cgroup() const {
  return m_cgroup ? &m_cgroup->location() : nullptr;
}

void HostMonitor::stop() {
  m_timer.stop();
}

double HostMonitor::elapsedS() const {
  return m_clock.isValid() ? static_cast<double>(m_clock.nsecsElapsed()) * 1e-9 : 0;
}

bool HostMonitor::poll() {
  if (!m_sampler) return false;
  host::VmstatSampler::Poll p;
  try {
    p = m_sampler->poll(elapsedS());
  } catch (const std::exception& e) {  // the sampler reports errors by value; be safe anyway
    p.error = e.what();
  }
  if (!p.sample) {
    const QString error = QString::fromStdString(
        p.error.empty() ? std::string("no sample from ") + m_procRoot.toStdString() : p.error);
    if (error != m_lastError) {
      m_lastError = error;
      Q_EMIT pollFailed(error);
    }
    return false;
  }
  m_lastError.clear();
  engine::Sample s = std::move(*p.sample);
  if (m_cgroup) {
    host::CgroupSampler::Poll c = m_cgroup->poll(s, m_sampler->sysctls());
    if (c.sample) {
      s.cgroups.push_back(*c.sample);
      m_cgroupError.clear();
    } else {
      const QString error = QString::fromStdString(c.error);
      if (c.vanished) m_cgroup.reset();
      if (error != m_cgroupError) {
        m_cgroupError = error;
        Q_EMIT cgroupFailed(error, c.vanished);
      }
    }
  }
  // Times must not decrease in the history; the sampler uses the time it was given.
  if (!m_history.empty() && engine::toSeconds(s.time) < m_history.lastTimeS())
    s.time = engine::atSeconds(m_history.lastTimeS());
  const engine::Sample copy = s;
  m_history.append(std::move(s));
  Q_EMIT sampled(copy);
  return true;
}

}  // namespace throttlelab::ui
