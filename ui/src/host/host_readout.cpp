// SPDX-License-Identifier: GPL-3.0-or-later
#include "host_readout.h"

#include <QObject>
#include <algorithm>

#include "series_spec.h"

namespace throttlelab::ui {

HostThrottleState hostThrottleState(const engine::Sample& s) {
  HostThrottleState st;
  st.dirtyPages = static_cast<double>(s.dirtyPages + s.writebackPages);
  st.threshPages = static_cast<double>(s.threshPages);
  st.bgThreshPages = static_cast<double>(s.bgThreshPages);
  st.freerunPages = s.freerunPages > 0 ? static_cast<double>(s.freerunPages)
                                       : (st.threshPages + st.bgThreshPages) / 2;
  if (st.threshPages <= 0) return st;
  if (st.dirtyPages < st.bgThreshPages) {
    st.zone = ThrottleZone::BelowBackground;
  } else if (st.dirtyPages < st.freerunPages) {
    st.zone = ThrottleZone::BelowFreerun;
  } else if (st.dirtyPages < st.threshPages) {
    st.zone = ThrottleZone::Throttled;
    const double room = st.threshPages - st.freerunPages;
    st.wayPct = room > 0 ? (st.dirtyPages - st.freerunPages) / room * 100 : 100;
  } else {
    st.zone = ThrottleZone::AboveThresh;
    st.wayPct = 100;
  }
  return st;
}

QString hostReadout(const engine::Sample& s, const DisplayUnits& u) {
  const HostThrottleState st = hostThrottleState(s);
  auto amount = [&u](double pages) {
    return QStringLiteral("%1 %2").arg(formatValue(u.memory(pages)), u.memoryUnit());
  };
  const QString dirty = QObject::tr("dirty %1").arg(amount(st.dirtyPages));
  switch (st.zone) {
    case ThrottleZone::Unknown:
      return QObject::tr("%1 — no dirty thresholds read").arg(dirty);
    case ThrottleZone::BelowBackground:
      return QObject::tr("%1 — below bg_thresh (%2) and freerun: no throttling")
          .arg(dirty, amount(st.bgThreshPages));
    case ThrottleZone::BelowFreerun:
      return QObject::tr("%1 — background writeback; below freerun (%2): no throttling")
          .arg(dirty, amount(st.freerunPages));
    case ThrottleZone::Throttled:
      return QObject::tr("%1 — %2 % of the way from freerun (%3) to the throttle threshold (%4)")
          .arg(dirty)
          .arg(st.wayPct, 0, 'f', 0)
          .arg(amount(st.freerunPages), amount(st.threshPages));
    case ThrottleZone::AboveThresh:
      return QObject::tr(
                 "%1 — at or above the throttle threshold (%2): writers get the longest "
                 "pauses")
          .arg(dirty, amount(st.threshPages));
  }
  return dirty;
}

QString cgroupReadout(const engine::CgroupSample& c, const QString& name, bool v1,
                      const DisplayUnits& u) {
  const auto amount = [&u](engine::Pages pages) {
    return QStringLiteral("%1 %2").arg(formatValue(u.memory(static_cast<double>(pages))),
                                       u.memoryUnit());
  };
  const QString cache =
      c.maxPages > 0 ? QObject::tr("page cache %1 of its memory limit %2")
                           .arg(amount(c.filePages), amount(c.maxPages))
                     : QObject::tr("page cache %1, no memory limit (max)").arg(amount(c.filePages));
  if (v1)
    return QObject::tr(
               "cgroup %1 (v1): dirty %2, writeback %3; %4. cgroup v1 has no per-cgroup dirty "
               "throttling (cgroup writeback needs v2): its writers are throttled only against "
               "the machine's thresholds.")
        .arg(name, amount(c.dirtyPages), amount(c.writebackPages), cache);
  if (c.threshPages <= 0)
    return QObject::tr(
               "cgroup %1 (v2, the root): dirty %2, writeback %3; %4; the root cgroup's "
               "domain is the machine's.")
        .arg(name, amount(c.dirtyPages), amount(c.writebackPages), cache);
  // Its own domain, read as hostReadout reads the machine's.
  engine::Sample domain;
  domain.dirtyPages = c.dirtyPages;
  domain.writebackPages = c.writebackPages;
  domain.threshPages = c.threshPages;
  domain.bgThreshPages = c.bgThreshPages;
  domain.freerunPages = c.freerunPages;
  return QObject::tr("cgroup %1 (v2, its own dirty domain): %2; %3")
      .arg(name, hostReadout(domain, u), cache);
}

}  // namespace throttlelab::ui
