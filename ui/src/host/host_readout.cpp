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

}  // namespace throttlelab::ui
