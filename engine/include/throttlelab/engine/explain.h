// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Why a task waited: one throttle call of balance_dirty_pages(), step by step, with the numbers
/// the policy computed (docs/model.md, sections Position control to The IO-ful policies). The
/// IO-less policies fill it from the same values their writeback:balance_dirty_pages record is
/// made of, so the pause, task_ratelimit, dirty_ratelimit, setpoint, limit and dirty here equal
/// the traced ones. A plain value: others add fields (e.g. which dirty domain set the pause).
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "throttlelab/engine/sim_time.h"
#include "throttlelab/engine/units.h"

namespace throttlelab::engine {

/// Which bound shaped the IO-less pause (docs/model.md, Pause control, Eq. 27–28).
enum class PauseClamp : std::uint8_t {
  None,       ///< period − think, between min_pause and max_pause
  MinPause,   ///< below min_pause: no sleep now, the debt is carried to the next call
  MaxPause,   ///< cut to max_pause (the rest moves the task's virtual clock)
  OverLimit,  ///< task_ratelimit = 0 (dirty at or over the hard limit): sleep max_pause, re-check
};

/// What one step of an IO-ful balance_dirty_pages() loop did (docs/model.md, The IO-ful
/// policies).
struct LoopStep {
  enum class Kind : std::uint8_t {
    Check,           ///< compared dirty pages with the threshold(s)
    Writeback,       ///< wrote back this device's pages itself (writeback_inodes())
    Sleep,           ///< slept (io_schedule_timeout(), the 2.6.3x doubling back-off)
    CongestionWait,  ///< congestion_wait(): until the queue decongests, at most HZ/10
    Leave,           ///< left the loop
  };
  Kind kind = Kind::Check;
  double timeS = 0;   ///< simulated time the step began
  Pages dirty = 0;    ///< Check: global nr_dirty + nr_writeback
  Pages thresh = 0;   ///< Check: dirty_thresh as the task sees it
  Pages wbDirty = 0;  ///< Check: the device's dirty + writeback (perbdi)
  Pages wbThresh =
      0;  ///< Check: the task's share of the device threshold (perbdi: task_dirty_limit)
  bool over = false;  ///< Check: over the threshold
  Pages pages = 0;    ///< Writeback: pages asked for, then pages actually written
  double ms = 0;      ///< Sleep / CongestionWait: the bound or length of the sleep
};

/// One throttle call (its last pass, for the IO-less policies).
struct ThrottleExplain {
  enum class Kind : std::uint8_t { None, IoLess, IoFul };
  Kind kind = Kind::None;
  SimTime time{};  ///< when the pass (IO-less) or the call (IO-ful) began
  int task = -1;   ///< task index
  int pid = 0;
  std::array<char, 24> policy{};  ///< the policy's name, NUL-terminated
  bool realTime = false;
  bool strictLimit = false;
  /// The task's memory cgroup's own domain (mdtc) set the pause, and the numbers below are that
  /// domain's; false: the global domain (docs/model.md, Memory cgroups).
  bool cgroupDomain = false;

  // --- the task's waits in the file system up to now (docs/model.md, The file system) ---
  double journalWaitS = 0;  ///< in start_this_handle(), do_get_write_access() and fsync()'s commit
  std::int64_t journalWaits = 0;
  /// Of journalWaitS: write()'s own handles in wait_transaction_locked() (a commit's lock-down).
  double writeHandleWaitS = 0;
  double readWaitS = 0;  ///< in uncached reads, queueing included
  double readMaxMs = 0;  ///< the longest of them

  // --- IO-less: the 6.x (or 3.2) balance_dirty_pages() pass ---
  Pages dirty = 0;         ///< global_dirty_state dirty + writeback (as traced: `dirty`)
  Pages thresh = 0;        ///< dirty_thresh as the task sees it (Eq. 4–7, the RT bonus included)
  Pages bgThresh = 0;      ///< background_thresh as the task sees it
  Pages normalThresh = 0;  ///< dirty_thresh of a normal task (differs only with the RT bonus)
  Pages freerun = 0;       ///< (thresh + bg_thresh)/2 (Eq. 10)
  Pages hardLimit = 0;     ///< max(thresh, dirty_limit), what position control uses (Eq. 9)
  Pages limit = 0;         ///< the stored global dirty_limit, as traced (Eq. 8)
  Pages setpoint = 0;      ///< (limit + freerun)/2, as traced (Eq. 11)
  Pages wbDirty = 0;       ///< this device's dirty + writeback
  Pages wbThresh = 0;      ///< the device's share of thresh (Eq. 13)
  Pages wbSetpoint = 0;    ///< as traced: setpoint · wb_thresh / (thresh + 1)
  double posRatioGlobal = 0;      ///< pos_ratio_polynom() (Eq. 16)
  double posRatioWb = 0;          ///< the device's factor (Eq. 17–19): pos_ratio / global part
  double posRatio = 0;            ///< the whole pos_ratio
  bool bandwidthUpdated = false;  ///< the 200 ms update ran in this pass (Eq. 20–25)
  std::int64_t dirtyRatelimitKBps = 0;  ///< wb->dirty_ratelimit, as traced
  std::int64_t taskRatelimitKBps = 0;   ///< dirty_ratelimit × pos_ratio, as traced
  Pages pagesDirtied = 0;               ///< pages dirtied since the last call
  std::int64_t dirtiedPause = 0;        ///< nr_dirtied_pause before this call
  std::int64_t nextDirtiedPause = 0;    ///< nr_dirtied_pause after it (Eq. 26/28)
  std::int64_t periodMs = 0;            ///< HZ · pages_dirtied / task_ratelimit
  std::int64_t thinkMs = 0;             ///< time since the last pause ended (6.x), as traced
  std::int64_t pauseMs = 0;             ///< the traced pause; ≤ 0: no sleep
  std::int64_t minPauseMs = 0;          ///< wb_min_pause() (Eq. 28); 0 for 3.2
  std::int64_t maxPauseMs = 0;          ///< wb_max_pause() (Eq. 27)
  std::int64_t pausedMs = 0;            ///< already slept in this call
  PauseClamp clamp = PauseClamp::None;

  // --- Kind::None: why no call is there to explain (filled for the moment asked about, with
  // dirty, thresh, bg_thresh and freerun as the task sees them then, pagesDirtied its
  // nr_dirtied and dirtiedPause its nr_dirtied_pause) ---
  double startedS = -1;    ///< when the task started; -1: not yet
  double lastCallS = -1;   ///< when its latest balance_dirty_pages() call began; -1: none yet
  Pages dirtiedTotal = 0;  ///< pages it has dirtied since it started

  // --- IO-ful: the loop as it ran ---
  static constexpr int kMaxSteps = 8;
  std::array<LoopStep, kMaxSteps> steps{};
  int stepCount = 0;      ///< steps kept (the first kMaxSteps − 1 and the last)
  int stepsTotal = 0;     ///< steps the loop took
  double callMs = 0;      ///< the whole call, writing back and waiting (once finished)
  bool finished = false;  ///< the call has returned (an IO-less pass always has)
  Pages writtenByTask = 0;

  /// Appends a step, keeping the first ones and always the last.
  void addStep(const LoopStep& s) {
    ++stepsTotal;
    if (stepCount < kMaxSteps) {
      steps[static_cast<std::size_t>(stepCount++)] = s;
    } else {
      steps[kMaxSteps - 1] = s;
    }
  }
  LoopStep* lastStep() {
    return stepCount > 0 ? &steps[static_cast<std::size_t>(stepCount - 1)] : nullptr;
  }
  std::string policyName() const;
};

/// The breakdown as text, one step a line, each naming the kernel's variable or function and
/// the place in docs/model.md that defines it. `name` is the task's name; `nowS`, when given,
/// is the moment asked about (an IO-ful call still going then says how long it has taken).
std::string formatExplain(const ThrottleExplain& e, const std::string& name,
                          std::optional<double> nowS = std::nullopt);

/// `PID@SECONDS` as `--explain` takes it; nullopt with `error` set if malformed.
struct ExplainRequest {
  int pid = 0;
  double seconds = 0;
};
std::optional<ExplainRequest> parseExplainRequest(const std::string& text, std::string& error);

}  // namespace throttlelab::engine
