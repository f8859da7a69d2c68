// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The numbers of one IO-less balance_dirty_pages() pass, kept per task on every pass. The
// writeback:balance_dirty_pages record and the explain breakdown (ThrottleExplain) are both
// made from them: the record only while tracing, the breakdown only when someone asks
// (docs/model.md, Outputs). Small on purpose: with 10,000 writers each pass writes this for a
// different task, so it must span few cache lines (the full breakdown is ~900 bytes).
#include <cstdint>

#include "throttlelab/engine/explain.h"
#include "throttlelab/engine/sim_time.h"
#include "throttlelab/engine/units.h"

namespace throttlelab::engine {

/// Three whole cache lines, so Kernel::prefetchTaskOf() loads a pass with three prefetches.
struct alignas(64) IolessPass {
  SimTime time{};             ///< when the pass began
  Pages dirty = 0;            ///< global_dirty_state dirty + writeback (the traced `dirty`)
  Pages thresh = 0;           ///< dirty_thresh as the task sees it
  Pages bgThresh = 0;         ///< background_thresh as the task sees it
  Pages normalThresh = 0;     ///< dirty_thresh of a normal task (differs only with the RT bonus)
  Pages freerun = 0;          ///< (thresh + bg_thresh)/2
  Pages hardLimit = 0;        ///< max(thresh, dirty_limit): position control's limit
  Pages setpoint = 0;         ///< position control's setpoint (of hardLimit, not the traced one)
  Pages limit = 0;            ///< the stored global dirty_limit (traced)
  Pages wbDirty = 0;          ///< the device's dirty + writeback
  Pages wbThresh = 0;         ///< the device's share of thresh
  std::int64_t posRatio = 0;  ///< fixed point, 1.0 = 1024
  std::int64_t dirtyRatelimitKBps = 0;
  std::int64_t taskRatelimitKBps = 0;
  Pages pagesDirtied = 0;
  std::int64_t dirtiedPause = 0;      ///< nr_dirtied_pause before the pass
  std::int64_t nextDirtiedPause = 0;  ///< and after it
  std::int64_t periodMs = 0;          ///< 0 for 3.2 (its tracepoint had none)
  std::int64_t thinkMs = 0;           ///< 0 for 3.2
  std::int64_t pauseMs = 0;
  std::int64_t pausedMs = 0;
  std::int32_t minPauseMs = 0;
  std::int32_t maxPauseMs = 0;
  PauseClamp clamp = PauseClamp::None;
  bool set = false;  ///< a pass was recorded (since the task started, or the policy changed)
  bool realTime = false;
  bool strictLimit = false;
  bool cgroupDomain = false;
  bool bandwidthUpdated = false;
};

/// The breakdown of `p` (IO-less kind) without what only the kernel knows (task, pid, policy);
/// policies/ioless_common.cpp, beside the record made of the same numbers.
ThrottleExplain explainFromPass(const IolessPass& p);

}  // namespace throttlelab::engine
