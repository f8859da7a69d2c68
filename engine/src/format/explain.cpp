// SPDX-License-Identifier: GPL-3.0-or-later
// The text of a throttle breakdown (`--explain`, the window's explain panel): each line names
// the kernel's variable or function and the section of docs/model.md where it is defined.
#include "throttlelab/engine/explain.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "throttlelab/engine/events.h"

namespace throttlelab::engine {

namespace {

constexpr const char* kModel = "docs/model.md";

std::string format(const char* fmt, auto... args) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

/// One step: `name = value   meaning   [docs/model.md#anchor, Eq. N]`.
void line(std::ostringstream& out, const std::string& name, const std::string& value,
          const std::string& meaning, const char* anchor, const char* eq = nullptr) {
  std::string left = "  " + name + " = " + value;
  if (left.size() < 34) left.resize(34, ' ');
  out << left << "  " << meaning << "  [" << kModel << '#' << anchor;
  if (eq) out << ", " << eq;
  out << "]\n";
}

std::string pages(Pages p) {
  return format("%lld pages (%.1f MiB)", static_cast<long long>(p),
                static_cast<double>(p) * 4096.0 / (1024.0 * 1024.0));
}

const char* clampText(PauseClamp c, bool v32) {
  switch (c) {
    case PauseClamp::None:
      return v32 ? "none: HZ x pages_dirtied / task_ratelimit is below max_pause"
                 : "none: period - think lies between min_pause and max_pause";
    case PauseClamp::MinPause:
      return "min_pause: below it, no sleep now; the debt is carried into the next call";
    case PauseClamp::MaxPause:
      return "max_pause: cut to it, the rest moves dirty_paused_when on";
    case PauseClamp::OverLimit:
      return "over the hard limit: task_ratelimit = 0, sleep max_pause and check again";
  }
  return "";
}

/// Which bound the pause met, as the clamp line's value.
const char* clampName(PauseClamp c) {
  switch (c) {
    case PauseClamp::None:
      return "none";
    case PauseClamp::MinPause:
      return "min_pause";
    case PauseClamp::MaxPause:
      return "max_pause";
    case PauseClamp::OverLimit:
      return "max_pause, over the limit";
  }
  return "";
}

void ioless(std::ostringstream& out, const ThrottleExplain& e) {
  const bool v32 = e.policyName() == "ioless-3.2";
  // 3.2's own pause rules (Eq. 30-31) are in the section of that policy.
  const char* pauseAnchor = v32 ? "ioless-32-the-first-release" : "pause-control";
  out << "1. global_dirty_limits(): where dirty stands\n";
  if (e.cgroupDomain)
    line(out, "domain", "the memory cgroup's",
         "its own wb_domain (mdtc) had the smaller pos_ratio; the numbers are that domain's",
         "memory-cgroups", "Eq. 62");
  line(out, "dirty", pages(e.dirty), "nr_dirty + nr_writeback", "dirtyable-memory-and-thresholds");
  line(out, "bg_thresh", pages(e.bgThresh), "background_thresh for this task",
       "dirtyable-memory-and-thresholds", "Eq. 4-7");
  line(out, "thresh", pages(e.thresh), "dirty_thresh for this task",
       "dirtyable-memory-and-thresholds", "Eq. 4-7");
  if (e.realTime && e.normalThresh != e.thresh)
    line(out, "rt bonus", format("+%lld pages", static_cast<long long>(e.thresh - e.normalThresh)),
         format("real-time task: thresh %lld for a normal task",
                static_cast<long long>(e.normalThresh)),
         "the-real-time-bonus", "Eq. 6");
  else if (e.realTime)
    line(out, "rt bonus", "none", "real-time, but this era's limits give it no bonus",
         "the-real-time-bonus", "Eq. 6");
  line(out, "freerun", pages(e.freerun), "(thresh + bg_thresh)/2",
       "the-slowly-following-dirty-limit", "Eq. 10");
  line(out, "limit", pages(e.limit), "the global dirty_limit as stored (traced)",
       "the-slowly-following-dirty-limit", "Eq. 8");
  line(out, "setpoint", pages(e.setpoint), "(limit + freerun)/2 (traced)",
       "the-slowly-following-dirty-limit", "Eq. 11");
  const char* where = e.dirty <= e.freerun    ? "at or below freerun"
                      : e.dirty < e.setpoint  ? "between freerun and setpoint"
                      : e.dirty < e.hardLimit ? "between setpoint and the hard limit"
                                              : "at or over the hard limit";
  out << "   dirty is " << where << " (hard limit max(thresh, dirty_limit) = " << e.hardLimit
      << " pages, Eq. 9)\n";
  out << "2. wb_position_ratio(): position control\n";
  line(out, "wb_dirty", pages(e.wbDirty), "this device's dirty + writeback", "position-control");
  line(out, "wb_thresh", pages(e.wbThresh), "the device's share of thresh",
       "each-devices-share-of-the-limits", "Eq. 13");
  line(out, "wb_setpoint", pages(e.wbSetpoint), "setpoint x wb_thresh / (thresh + 1) (traced)",
       "position-control");
  line(out, "pos_ratio (global)", format("%.4f", e.posRatioGlobal),
       "pos_ratio_polynom(setpoint, dirty, limit)", "position-control", "Eq. 16");
  line(out, "pos_ratio (wb)", format("%.4f", e.posRatioWb),
       e.strictLimit ? "the device's factor, strictlimit form" : "the device line and reserve area",
       "position-control", e.strictLimit ? "Eq. 19" : "Eq. 17-18");
  line(out, "pos_ratio", format("%.4f", e.posRatio), "global x wb, 1.0 = 1024/1024",
       "position-control", "Eq. 16-19");
  out << "3. rate control\n";
  line(out, "dirty_ratelimit", format("%lld KB/s", static_cast<long long>(e.dirtyRatelimitKBps)),
       e.bandwidthUpdated ? "wb->dirty_ratelimit, updated in this pass (200 ms elapsed)"
                          : "wb->dirty_ratelimit, as last updated",
       "rate-control", "Eq. 22-25");
  line(out, "task_ratelimit", format("%lld KB/s", static_cast<long long>(e.taskRatelimitKBps)),
       "dirty_ratelimit x pos_ratio >> RATELIMIT_CALC_SHIFT", "rate-control", "Eq. 23");
  out << "4. pause control\n";
  line(out, "pages_dirtied", format("%lld pages", static_cast<long long>(e.pagesDirtied)),
       format("dirtied since the last call (nr_dirtied_pause was %lld)",
              static_cast<long long>(e.dirtiedPause)),
       "the-entry-ratelimit");
  line(out, "max_pause", format("%lld ms", static_cast<long long>(e.maxPauseMs)),
       v32 ? "3.2's bdi_max_pause(): by bandwidth and rate, 4 jiffies to 200 ms"
           : "wb_max_pause(): ~1/8 of the time to write wb_dirty, <= 200 ms",
       pauseAnchor, v32 ? "Eq. 30" : "Eq. 27");
  if (!v32) {
    line(out, "min_pause", format("%lld ms", static_cast<long long>(e.minPauseMs)),
         "wb_min_pause()", "pause-control", "Eq. 28");
    line(out, "period", format("%lld ms", static_cast<long long>(e.periodMs)),
         "HZ x pages_dirtied / task_ratelimit", "pause-control", "Eq. 29");
    line(out, "think", format("%lld ms", static_cast<long long>(e.thinkMs)),
         "now - dirty_paused_when: time since the last pause ended", "pause-control", "Eq. 29");
  }
  line(out, "pause", format("%lld ms", static_cast<long long>(e.pauseMs)),
       e.pauseMs > 0 ? "sleeps this long (traced)" : "no sleep (traced as <= 0)", pauseAnchor,
       v32 ? "Eq. 30" : "Eq. 29");
  line(out, "clamp", clampName(e.clamp), clampText(e.clamp, v32), pauseAnchor,
       v32 ? "Eq. 30" : "Eq. 27-29");
  if (e.pausedMs > 0)
    line(out, "paused", format("%lld ms", static_cast<long long>(e.pausedMs)),
         "already slept in this call (the loop went round)", "ioless-the-6x-order");
  line(out, "nr_dirtied_pause", format("%lld pages", static_cast<long long>(e.nextDirtiedPause)),
       "pages until the next call", pauseAnchor, v32 ? "Eq. 31" : "Eq. 28");
}

const char* stepName(LoopStep::Kind k) {
  switch (k) {
    case LoopStep::Kind::Check:
      return "check";
    case LoopStep::Kind::Writeback:
      return "writeback_inodes()";
    case LoopStep::Kind::Sleep:
      return "io_schedule_timeout()";
    case LoopStep::Kind::CongestionWait:
      return "congestion_wait()";
    case LoopStep::Kind::Leave:
      return "leave";
  }
  return "";
}

void ioful(std::ostringstream& out, const ThrottleExplain& e, std::optional<double> nowS) {
  const bool perbdi = e.policyName().starts_with("perbdi");
  const char* anchor = perbdi ? "perbdi-2624" : "legacy-260-and-the-2003-real-time-variants";
  out << "balance_dirty_pages() loop, " << e.stepsTotal << " steps";
  if (e.stepsTotal > e.stepCount)
    out << " (the first " << e.stepCount - 1 << " and the last shown)";
  out << ":\n";
  int n = 0;
  for (int i = 0; i < e.stepCount; ++i) {
    const LoopStep& s = e.steps[static_cast<std::size_t>(i)];
    // The last step shown is the loop's last: numbered as such after the gap.
    const bool gap = i == e.stepCount - 1 && e.stepsTotal > e.stepCount;
    if (gap) out << "   ...\n";
    n = gap ? e.stepsTotal : n + 1;
    std::string what;
    switch (s.kind) {
      case LoopStep::Kind::Check:
        what = format("dirty %lld %s thresh %lld", static_cast<long long>(s.dirty),
                      s.dirty > s.thresh ? ">" : "<=", static_cast<long long>(s.thresh));
        if (perbdi)
          what += format("; bdi_nr_reclaimable+writeback %lld vs task limit %lld",
                         static_cast<long long>(s.wbDirty), static_cast<long long>(s.wbThresh));
        what += s.over ? ": over, throttle" : ": under";
        break;
      case LoopStep::Kind::Writeback:
        what = !e.finished && i == e.stepCount - 1
                   ? format("writing back up to %lld pages itself (still at it)",
                            static_cast<long long>(s.pages))
                   : format("wrote back %lld pages itself", static_cast<long long>(s.pages));
        break;
      case LoopStep::Kind::Sleep:
        what = format("slept %.1f ms", s.ms);
        break;
      case LoopStep::Kind::CongestionWait:
        what = format("waited for the queue to decongest, at most %.0f ms", s.ms);
        break;
      case LoopStep::Kind::Leave:
        what = "left the loop";
        break;
    }
    std::string left = format("  %2d. %8.3f s  %s", n, s.timeS, stepName(s.kind));
    if (left.size() < 40) left.resize(40, ' ');
    out << left << what << "  [" << kModel << '#' << anchor
        << (s.kind == LoopStep::Kind::Writeback ? ", Eq. 33"
            : s.kind == LoopStep::Kind::Sleep   ? ", Eq. 34"
                                                : "")
        << "]\n";
  }
  line(out, "written by the task", pages(e.writtenByTask), "pages it wrote back itself", anchor,
       "Eq. 33");
  if (e.finished)
    line(out, "delay", format("%.1f ms", e.callMs), "the whole call: writing back and waiting",
         "pauses");
  else if (nowS)
    line(out, "delay so far", format("%.1f ms", (*nowS - toSeconds(e.time)) * 1000.0),
         format("the call is still going at %.3f s", *nowS), "pauses");
  else
    out << "  (the call is still going)\n";
}

/// Why a task has no throttle call to explain (Kind::None), from what lastExplain() filled in.
void noCall(std::ostringstream& out, const ThrottleExplain& e) {
  const bool position = policyHasPositionControl(e.policyName());
  if (e.startedS < 0) {
    out << "  it has not started yet: nothing dirtied, nothing to throttle\n";
    return;
  }
  if (e.lastCallS < 0) {
    out << format(
               "  it has not reached its first check: %lld pages dirtied since it started at "
               "%.3f s,\n  and balance_dirty_pages() is first called after nr_dirtied_pause "
               "= %lld",
               static_cast<long long>(e.dirtiedTotal), e.startedS,
               static_cast<long long>(e.dirtiedPause))
        << "  [" << kModel << "#the-entry-ratelimit]\n";
  } else if (position) {
    out << format(
               "  every call so far (the latest at %.3f s) found dirty at or below freerun:\n"
               "  balance_dirty_pages() then returns at once, no pause and no trace record",
               e.lastCallS)
        << "  [" << kModel << "#the-slowly-following-dirty-limit, Eq. 10]\n";
  } else {
    out << format(
               "  every call so far (the latest at %.3f s) found dirty under the threshold\n"
               "  and left the loop at once, without writing back or waiting",
               e.lastCallS)
        << "  [" << kModel << "#the-io-ful-policies]\n";
  }
  line(out, "dirty", pages(e.dirty), "nr_dirty + nr_writeback now",
       "dirtyable-memory-and-thresholds");
  line(out, "thresh", pages(e.thresh), "dirty_thresh for this task now",
       "dirtyable-memory-and-thresholds", "Eq. 4-7");
  if (position) {
    line(out, "freerun", pages(e.freerun), "(thresh + bg_thresh)/2 for this task now",
         "the-slowly-following-dirty-limit", "Eq. 10");
    out << "   dirty is "
        << (e.dirty <= e.freerun ? "at or below freerun: no throttling"
                                 : "above freerun: its next check throttles")
        << '\n';
  }
  line(out, "pages_dirtied", format("%lld pages", static_cast<long long>(e.pagesDirtied)),
       format("since its last check; the next after %lld", static_cast<long long>(e.dirtiedPause)),
       "the-entry-ratelimit");
}

}  // namespace

std::string ThrottleExplain::policyName() const {
  return std::string(policy.data(), strnlen(policy.data(), policy.size()));
}

std::string formatExplain(const ThrottleExplain& e, const std::string& name,
                          std::optional<double> nowS) {
  std::ostringstream out;
  if (e.kind == ThrottleExplain::Kind::None)
    // No call to name: the moment asked about, and that there is none.
    out << format("%s (pid %d) at %.3f s under %s", name.c_str(), e.pid,
                  nowS ? *nowS : std::max(0.0, e.lastCallS), e.policyName().c_str())
        << (e.realTime ? ", real-time" : "") << ": no throttled balance_dirty_pages() call\n";
  else
    out << format("%s (pid %d), balance_dirty_pages() at %.3f s under %s", name.c_str(), e.pid,
                  toSeconds(e.time), e.policyName().c_str())
        << (e.realTime ? ", real-time" : "") << '\n';
  switch (e.kind) {
    case ThrottleExplain::Kind::IoLess:
      ioless(out, e);
      break;
    case ThrottleExplain::Kind::IoFul:
      ioful(out, e, nowS);
      break;
    case ThrottleExplain::Kind::None:
      noCall(out, e);
      break;
  }
  if (e.journalWaits > 0 || e.readWaitS > 0) {
    // Time outside balance_dirty_pages(): the journal's and the disk's (so far in the run).
    out << "The file system, so far:\n";
    constexpr const char* kFs = "the-file-system";
    line(out, "journal waits",
         format("%.3f s in %lld waits", e.journalWaitS, static_cast<long long>(e.journalWaits)),
         "start_this_handle(), do_get_write_access(), fsync()'s commit", kFs, "Eq. 63");
    line(out, "of which write()'s handles", format("%.3f s", e.writeHandleWaitS),
         "wait_transaction_locked(): a commit's lock-down", kFs, "Eq. 63-64");
    line(out, "reads", format("%.3f s, longest %.1f ms", e.readWaitS, e.readMaxMs),
         "uncached reads behind the request queue", kFs);
  }
  return out.str();
}

std::optional<ExplainRequest> parseExplainRequest(const std::string& text, std::string& error) {
  const auto at = text.find('@');
  if (at == std::string::npos || at == 0 || at + 1 == text.size()) {
    error = "'" + text + "' is not PID@SECONDS (e.g. 1234@30)";
    return std::nullopt;
  }
  ExplainRequest r;
  const char* first = text.data();
  const char* mid = first + at;
  auto [p, ec] = std::from_chars(first, mid, r.pid);
  if (ec != std::errc{} || p != mid || r.pid <= 0) {
    error = "'" + text.substr(0, at) + "' is not a pid (a positive integer)";
    return std::nullopt;
  }
  const std::string secs = text.substr(at + 1);
  char* end = nullptr;
  r.seconds = std::strtod(secs.c_str(), &end);
  if (end == secs.c_str() || *end != '\0' || !std::isfinite(r.seconds) || r.seconds < 0) {
    error = "'" + secs + "' is not a time in seconds (a number >= 0)";
    return std::nullopt;
  }
  return r;
}

}  // namespace throttlelab::engine
