// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The dirty limits as one throttle pass sees them (struct dirty_throttle_control: the global
// domain's gdtc, a memory cgroup's mdtc, and a wb's share of either) and the global writeback
// domain they are computed in (struct wb_domain).
#include <cstdint>

#include "dirty_limits.h"
#include "flex_proportions.h"
#include "position_control.h"
#include "throttlelab/engine/units.h"

namespace throttlelab::engine {

/// The global writeback domain (struct wb_domain).
struct Domain {
  Pages dirtyLimit = 0;              ///< the slowly following limit (docs/model.md, Eq. 8)
  std::int64_t dirtyLimitStamp = 0;  ///< jiffies
  FlexProportions completions;
};

/// Global dirty state as one throttle pass sees it (struct dirty_throttle_control, global).
struct GlobalView {
  Pages avail = 0;
  Pages nrReclaimable = 0;
  Pages dirty = 0;  ///< nr_dirty + nr_writeback
  Pages thresh = 0;
  Pages bgThresh = 0;
  Pages freerun = 0;
  Pages limit = 0;  ///< max(thresh, dirty_limit), docs/model.md Eq. 9
  Pages setpoint = 0;
};

/// Per-device share of the thresholds (docs/model.md, Eq. 13) as one throttle pass sees it.
struct WbView {
  Pages wbThresh = 0;
  Pages wbBgThresh = 0;
  Pages wbDirty = 0;  ///< reclaimable + writeback of this bdi
};

/// What a wb's share of a domain's thresholds depends on, beside the wb's dirty count: the
/// domain's thresholds, the wb's fraction num/den of the domain's recent completions, and the
/// min_ratio/max_ratio settings (the sum of every device's min_ratio, and this device's).
struct WbThreshInputs {
  Pages thresh = 0, bgThresh = 0;
  std::int64_t num = 0, den = 1;
  int sumMin = 0, minRatio = 0, maxRatio = 100;
  bool operator==(const WbThreshInputs&) const = default;
};

/// __wb_calc_thresh() with min/max_ratio (docs/model.md, Eq. 13): the wb's share of the
/// thresholds (wbDirty left 0).
WbView wbThresholds(const WbThreshInputs& in);

/// The memory cgroup's own dirty_throttle_control (mdtc) as one throttle pass sees it.
struct MemcgView {
  Pages filePages = 0;
  Pages headroom = 0;
  Pages avail = 0;  ///< mdtc_calc_avail()
  Pages dirty = 0;  ///< its dirty + writeback
  Pages thresh = 0;
  Pages bgThresh = 0;
  Pages freerun = 0;
  Pages limit = 0;  ///< max(thresh, its dirty_limit)
  Pages setpoint = 0;
};

/// wb_position_ratio()'s inputs from one pass's view of a domain `d` (a GlobalView, or a
/// MemcgView for a memory cgroup's domain: the kernel's gdtc and mdtc are one struct) and the
/// view `w` of a wb on the device; `avgWriteBw` is that wb's avg_write_bandwidth (pages/s).
template <class DomainView>
PositionInputs positionInputs(const DomainView& d, const WbView& w, std::int64_t avgWriteBw,
                              bool strictLimit) {
  return {.thresh = d.thresh,
          .bgThresh = d.bgThresh,
          .limit = d.limit,
          .dirty = d.dirty,
          .wbThresh = w.wbThresh,
          .wbBgThresh = w.wbBgThresh,
          .wbDirty = w.wbDirty,
          .avgWriteBw = avgWriteBw,
          .strictLimit = strictLimit};
}

/// The thresholds of one domain's view `d` as a sample row `row` reports them (Sample for the
/// global domain, CgroupSample for a memory cgroup's): the same names in both.
template <class DomainView, class Row>
void reportThresholds(const DomainView& d, Pages dirtyLimit, Row& row) {
  row.availPages = d.avail;
  row.bgThreshPages = d.bgThresh;
  row.threshPages = d.thresh;
  row.freerunPages = d.freerun;
  row.setpointPages = d.setpoint;
  row.limitPages = d.limit;
  row.dirtyLimitPages = dirtyLimit;
}

}  // namespace throttlelab::engine
