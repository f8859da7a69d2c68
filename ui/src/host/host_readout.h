// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// How close the host is to throttling, in one line: where dirty + writeback stands between
/// bg_thresh, freerun = (thresh + bg_thresh)/2 and thresh. Production dashboards show dirty
/// bytes without any threshold; this is the sentence they leave out.
#include <QString>

#include "display_units.h"
#include "throttlelab/engine/records.h"

namespace throttlelab::ui {

enum class ThrottleZone {
  Unknown,          ///< no thresholds read
  BelowBackground,  ///< dirty < bg_thresh: the flusher is not pushed, no throttling
  BelowFreerun,     ///< bg_thresh <= dirty < freerun: background writeback, no throttling
  Throttled,        ///< freerun <= dirty < thresh: writers are paused in proportion
  AboveThresh,      ///< dirty >= thresh: writers wait the longest pauses
};

struct HostThrottleState {
  ThrottleZone zone = ThrottleZone::Unknown;
  double dirtyPages = 0;  ///< dirty + writeback
  double freerunPages = 0;
  double threshPages = 0;
  double bgThreshPages = 0;
  /// (dirty − freerun) / (thresh − freerun) · 100 when Throttled; 0 below, 100 above.
  double wayPct = 0;
};

HostThrottleState hostThrottleState(const engine::Sample& s);
/// "dirty 123 MiB — 41 % of the way from freerun to the throttle threshold", …
QString hostReadout(const engine::Sample& s, const DisplayUnits& units = {});
/// The watched memory cgroup in one line: for cgroup v2, where its dirty + writeback stands in
/// its own domain (the same zones as hostReadout), for v1 that it has no dirty domain; then
/// its page cache against its memory limit ("no limit" for max).
QString cgroupReadout(const engine::CgroupSample& c, const QString& name, bool v1,
                      const DisplayUnits& units = {});

}  // namespace throttlelab::ui
