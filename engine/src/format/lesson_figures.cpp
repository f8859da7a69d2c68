// SPDX-License-Identifier: GPL-3.0-or-later
// The figures a lesson quotes in `{placeholders}` and checks in `question.check` and
// `question.numeric` (docs/lessons.md): their names and scopes, and their values over a step.
#include "lesson_figures.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>
#include <vector>

#include "throttlelab/engine/spelling.h"

namespace throttlelab::engine {

namespace lesson_detail {
namespace {

/// " (did you mean 'dd'?)" when one of `names` is a likely spelling of `word`, else "".
std::string didYouMean(const std::string& word, const std::vector<std::string_view>& names) {
  const auto near = closestName(word, names);
  return near ? " (did you mean '" + std::string(names[*near]) + "'?)" : std::string();
}

constexpr MetricDef kMetrics[] = {
    {"dirty_mib", "median dirty + writeback over the step, MiB"},
    {"setpoint_mib", "median setpoint over the step, MiB"},
    {"freerun_mib", "median freerun over the step, MiB"},
    {"limit_mib", "median limit over the step, MiB"},
    {"thresh_mib", "median thresh over the step, MiB"},
    {"free_mib", "median free memory over the step, MiB"},
    {"write_mibps",
     "pages written back per second over the step, MiB/s; with :GROUP a task's mean rate "
     "since it started; with @DEVICE what that device wrote over the step",
     kWhole | kGroup | kDevice},
    {"pause_ms_p50",
     "median over the step's 100 ms intervals of their median pause, ms; with :GROUP the "
     "median of the group's tasks' median pauses",
     kWhole | kGroup},
    {"pause_ms_max", "longest pause of the step, ms; with :GROUP the group's longest",
     kWhole | kGroup},
    {"over_limit_pct",
     "share of the step's samples with dirty + writeback above the limit, percent"},
    {"to_limit_s",
     "seconds from the step's start until dirty + writeback were first at or under the limit "
     "(0 if they were at once; n/a if never)"},
    {"throttled_tasks", "median number of tasks asleep in balance_dirty_pages"},
    {"system_pct", "mean %system over the step"},
    {"user_pct", "mean %user over the step"},
    {"swap_out_mibps", "mean swap-out rate over the step, MiB/s"},
    {"seeks_per_s", "mean seeks per second of the first device (or @DEVICE) over the step",
     kWhole | kDevice},
    {"request_kib", "mean request size of the first device (or @DEVICE) over the step, KiB",
     kWhole | kDevice},
    {"queue_depth", "median requests queued on the first device (or @DEVICE) over the step",
     kWhole | kDevice},
    {"alloc_stall_ms_max", "longest allocation stall of the step, ms; with :GROUP the group's",
     kWhole | kGroup},
    {"oom_kills", "OOM kills during the step; with :GROUP the group's tasks killed so far",
     kWhole | kGroup},
    {"nr_dirty_mib", "median dirty pages not under writeback (NR_FILE_DIRTY) over the step, MiB"},
    {"nr_writeback_mib", "median pages under writeback (NR_WRITEBACK) over the step, MiB"},
    {"bg_thresh_mib", "median background threshold over the step, MiB"},
    {"dirtyable_mib",
     "median dirtyable memory over the step (what vm.dirty_ratio is a percentage of: free and "
     "file pages, by era), MiB"},
    {"file_mib", "median page cache (clean, dirty and under writeback) over the step, MiB"},
    {"anon_mib", "median anonymous memory over the step, MiB"},
    {"alloc_stalls", "allocations that entered direct reclaim during the step"},
    {"pgscan_kswapd_per_s", "mean pages scanned by kswapd per second over the step"},
    {"pgscan_direct_per_s", "mean pages scanned in direct reclaim per second over the step"},
    {"kswapd_pct", "share of the step's samples with kswapd running, percent"},
    {"write_bw_kbps",
     "median write_bw of the first device (or @DEVICE) over the step, KB/s as the tracepoint "
     "prints it",
     kWhole | kDevice},
    {"avg_write_bw_kbps", "median avg_write_bw of the first device (or @DEVICE), KB/s",
     kWhole | kDevice},
    {"dirty_rate_kbps", "median dirty_rate of the first device (or @DEVICE), KB/s",
     kWhole | kDevice},
    {"dirty_ratelimit_kbps", "median dirty_ratelimit of the first device (or @DEVICE), KB/s",
     kWhole | kDevice},
    {"balanced_ratelimit_kbps",
     "median balanced_dirty_ratelimit of the first device (or @DEVICE), KB/s", kWhole | kDevice},
    {"task_ratelimit_kbps",
     "median task_ratelimit (dirty_ratelimit x pos_ratio) of the first device (or @DEVICE), "
     "KB/s",
     kWhole | kDevice},
    {"pos_ratio", "median pos_ratio of the first device (or @DEVICE) over the step",
     kWhole | kDevice},
    {"wb_thresh_mib",
     "median wb_thresh, the device's share of thresh, of the first device (or "
     "@DEVICE), MiB",
     kWhole | kDevice},
    {"wb_share_pct", "median wb_thresh / thresh of the first device (or @DEVICE), percent",
     kWhole | kDevice},
    {"wb_dirty_mib",
     "median dirty + writeback pages of the first device (or @DEVICE) over the step, MiB",
     kWhole | kDevice},
    {"util_pct", "mean share of the step the first device (or @DEVICE) was busy, percent",
     kWhole | kDevice},
    {"dirty_exceeded_pct",
     "share of the step's samples with the first device's (or @DEVICE's) dirty_exceeded set, "
     "percent",
     kWhole | kDevice},
    {"dirtied_mibps", "pages the group's tasks dirtied during the step, per task and second, MiB/s",
     kGroup},
    {"paused_pct",
     "share of the step the group's tasks spent asleep in balance_dirty_pages, percent", kGroup},
    {"read_ms_p50", "median latency of the group's uncached reads since its tasks started, ms",
     kGroup},
    {"read_ms_max", "longest uncached read of the group since its tasks started, ms", kGroup},
    {"reads", "uncached reads the group's tasks finished during the step", kGroup},
    {"journal_wait_s", "seconds the group's tasks waited for the journal during the step, per task",
     kGroup},
    {"cgroup_dirty_mib",
     "median dirty + writeback pages of the memory cgroup the group's tasks are in, MiB", kGroup},
    {"cgroup_limit_mib", "median limit of that memory cgroup's own dirty domain, MiB", kGroup},
    {"cgroup_thresh_mib", "median thresh of that memory cgroup's dirty domain, MiB", kGroup},
    {"cgroup_setpoint_mib", "median setpoint of that memory cgroup's dirty domain, MiB", kGroup},
    {"cgroup_freerun_mib", "median freerun of that memory cgroup's dirty domain, MiB", kGroup},
    {"last_run_s", "mean duration of the group's last finished run (a dd, a compile), s", kGroup},
    {"runs", "runs the group's tasks have finished", kGroup},
    {"tasks", "tasks in the group", kGroup},
};

std::string shortened(std::string_view s, std::size_t max = 40) {
  std::string out;
  for (char c : s.substr(0, max)) out += (static_cast<unsigned char>(c) < 0x20) ? '?' : c;
  if (s.size() > max) out += "...";
  return out;
}

}  // namespace

const MetricDef* findMetric(std::string_view name) {
  for (const auto& m : kMetrics)
    if (m.name == name) return &m;
  return nullptr;
}

std::string metricNames() {
  std::string names;
  for (const auto& m : kMetrics) names += (names.empty() ? "" : ", ") + std::string(m.name);
  return names;
}

std::string figureProblem(const LessonFigure& figure, const Scenario* scenario) {
  const MetricDef* def = findMetric(figure.metric);
  if (!def)
    return "unknown figure '" + shortened(figure.metric) + "' (known: " + metricNames() + ")";
  const std::string name(def->name);
  if (!figure.group.empty() && !figure.device.empty())
    return name + " takes a task group or a device, not both";
  if (!figure.group.empty() && !(def->scopes & kGroup))
    return name + " is not measured per task group (no ':" + shortened(figure.group) + "')";
  if (!figure.device.empty() && !(def->scopes & kDevice))
    return name + " is not measured per device (no '@" + shortened(figure.device) + "')";
  if (figure.group.empty() && figure.device.empty() && !(def->scopes & kWhole))
    return name + " needs a task group: " + name + ":NAME";
  if (!scenario) return {};
  if (!figure.group.empty()) {
    std::string groups;
    std::vector<std::string_view> names;
    for (const TaskSpec& t : scenario->tasks) {
      if (t.name == figure.group) return {};
      names.push_back(t.name);
      if (groups.find(t.name) == std::string::npos) groups += (groups.empty() ? "" : ", ") + t.name;
    }
    return "no task group '" + shortened(figure.group) + "' in the step's scenario" +
           didYouMean(figure.group, names) + " (its groups: " + (groups.empty() ? "none" : groups) +
           ")";
  }
  if (!figure.device.empty()) {
    std::string devices;
    std::vector<std::string_view> names;
    for (const DeviceConfig& d : scenario->devices) {
      if (d.name == figure.device) return {};
      names.push_back(d.name);
      devices += (devices.empty() ? "" : ", ") + d.name;
    }
    return "no device '" + shortened(figure.device) + "' in the step's scenario" +
           didYouMean(figure.device, names) + " (its devices: " + devices + ")";
  }
  return {};
}

std::string substitute(const std::string& text,
                       const std::function<std::string(const LessonFigure&)>& f,
                       const std::function<void(const std::string&)>& bad) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t open = text.find('{', i);
    if (open == std::string::npos) {
      out += text.substr(i);
      break;
    }
    out += text.substr(i, open - i);
    const std::size_t close = text.find('}', open);
    if (close == std::string::npos) bad("a '{' without its '}'");
    const std::string inner = text.substr(open + 1, close - open - 1);
    // {metric}, {metric:GROUP}, {metric@DEVICE}: a group's name is what follows the colon (a
    // task's name may hold any character); a device's, what follows the last '@'.
    LessonFigure figure;
    const auto colon = inner.find(':');
    const auto at = inner.rfind('@');
    figure.metric = inner.substr(0, std::min(colon, at));
    if (colon != std::string::npos)
      figure.group = inner.substr(
          colon + 1, at == std::string::npos || at < colon ? std::string::npos : at - colon - 1);
    if (at != std::string::npos && (colon == std::string::npos || at > colon))
      figure.device = inner.substr(at + 1);
    if (!findMetric(figure.metric))
      bad("unknown metric {" + shortened(figure.metric, 80) + "} (known: " + metricNames() + ")");
    if ((colon != std::string::npos && figure.group.empty()) ||
        (at != std::string::npos && figure.device.empty()))
      bad("{" + shortened(inner, 80) + "}: a name must follow ':' or '@'");
    out += f(figure);
    i = close + 1;
  }
  return out;
}

}  // namespace lesson_detail

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double mib(Pages p) {
  return static_cast<double>(p) / kPagesPerMiB;
}

/// The index of the device a figure names (the first without @DEVICE), or -1.
int deviceIndex(const LessonFigure& f, const LessonMeasurement& m) {
  if (f.device.empty()) return 0;
  for (std::size_t i = 0; i < m.devices.size(); ++i)
    if (m.devices[i] == f.device) return static_cast<int>(i);
  return -1;
}

double wholeMetric(const LessonFigure& f, const LessonMeasurement& m) {
  const std::string_view name = f.metric;
  const auto& ss = m.samples;
  const int dev = deviceIndex(f, m);
  auto med = [&](auto get) {
    std::vector<double> v;
    for (const Sample& s : ss) v.push_back(static_cast<double>(get(s)));
    return median(std::move(v));
  };
  auto mean = [&](auto get) {
    double sum = 0;
    for (const Sample& s : ss) sum += static_cast<double>(get(s));
    return ss.empty() ? 0.0 : sum / static_cast<double>(ss.size());
  };
  auto device = [dev](const Sample& s) -> const DeviceSample* {
    return dev < 0 || static_cast<std::size_t>(dev) >= s.devices.size()
               ? nullptr
               : &s.devices[static_cast<std::size_t>(dev)];
  };
  if (name == "dirty_mib")
    return med([&](const Sample& s) { return mib(s.dirtyPages + s.writebackPages); });
  if (name == "setpoint_mib") return med([&](const Sample& s) { return mib(s.setpointPages); });
  if (name == "freerun_mib") return med([&](const Sample& s) { return mib(s.freerunPages); });
  if (name == "limit_mib") return med([&](const Sample& s) { return mib(s.limitPages); });
  if (name == "thresh_mib") return med([&](const Sample& s) { return mib(s.threshPages); });
  if (name == "free_mib") return med([&](const Sample& s) { return mib(s.freePages); });
  if (name == "throttled_tasks") return med([](const Sample& s) { return s.throttledTasks; });
  const auto overLimit = [](const Sample& s) {
    return s.dirtyPages + s.writebackPages > s.limitPages;
  };
  if (name == "over_limit_pct") {
    if (ss.empty()) return std::nan("");
    const auto over = std::count_if(ss.begin(), ss.end(), overLimit);
    return 100.0 * static_cast<double>(over) / static_cast<double>(ss.size());
  }
  if (name == "to_limit_s") {
    const auto under = std::find_if_not(ss.begin(), ss.end(), overLimit);
    if (under == ss.end()) return std::nan("");
    return std::max(0.0, toSeconds(under->time) - m.fromS);
  }
  if (name == "system_pct") return mean([](const Sample& s) { return s.systemPct; });
  if (name == "user_pct") return mean([](const Sample& s) { return s.userPct; });
  if (name == "swap_out_mibps") return mean([](const Sample& s) { return s.swapOutKBps / 1024; });
  if (name == "seeks_per_s")
    return mean([&](const Sample& s) { return device(s) ? device(s)->seeksPerS : 0.0; });
  if (name == "request_kib")
    return mean([&](const Sample& s) { return device(s) ? device(s)->avgRequestKiB : 0.0; });
  if (name == "queue_depth")
    return med([&](const Sample& s) { return device(s) ? device(s)->queueDepth : 0; });
  if (name == "write_mibps") {
    if (ss.size() < 2) return 0;
    const double span = toSeconds(ss.back().time - ss.front().time);
    if (span <= 0) return 0;
    if (f.device.empty()) return mib(ss.back().writtenPages - ss.front().writtenPages) / span;
    const DeviceSample* first = device(ss.front());
    const DeviceSample* last = device(ss.back());
    if (!first || !last) return std::nan("");
    return static_cast<double>(last->bytesWritten - first->bytesWritten) / (1024.0 * 1024) / span;
  }
  if (name == "pause_ms_p50") {
    std::vector<double> v;
    for (const Sample& s : ss)
      if (s.pauses > 0) v.push_back(s.pauseMsP50);
    return median(std::move(v));
  }
  if (name == "pause_ms_max") {
    double mx = 0;
    for (const Sample& s : ss) mx = std::max(mx, s.pauseMsMax);
    return mx;
  }
  if (name == "alloc_stall_ms_max") {
    double mx = 0;
    for (const Sample& s : ss) mx = std::max(mx, s.allocStallMsMax);
    return mx;
  }
  if (name == "oom_kills")
    return ss.empty() ? 0 : static_cast<double>(ss.back().oomKills - ss.front().oomKills);
  if (name == "nr_dirty_mib") return med([&](const Sample& s) { return mib(s.dirtyPages); });
  if (name == "nr_writeback_mib")
    return med([&](const Sample& s) { return mib(s.writebackPages); });
  if (name == "bg_thresh_mib") return med([&](const Sample& s) { return mib(s.bgThreshPages); });
  if (name == "dirtyable_mib") return med([&](const Sample& s) { return mib(s.availPages); });
  if (name == "file_mib") return med([&](const Sample& s) { return mib(s.filePages); });
  if (name == "anon_mib") return med([&](const Sample& s) { return mib(s.anonPages); });
  if (name == "alloc_stalls") {
    double n = 0;
    for (const Sample& s : ss) n += s.allocStalls;
    return n;
  }
  if (name == "pgscan_kswapd_per_s")
    return mean([](const Sample& s) { return s.pgscanKswapdPerS; });
  if (name == "pgscan_direct_per_s")
    return mean([](const Sample& s) { return s.pgscanDirectPerS; });
  if (name == "kswapd_pct") {
    if (ss.empty()) return std::nan("");
    return 100.0 *
           static_cast<double>(std::count_if(ss.begin(), ss.end(),
                                             [](const Sample& s) { return s.kswapdActive; })) /
           static_cast<double>(ss.size());
  }
  // The device's own figures: n/a in a step without samples or without that device.
  const auto perDevice = [&](auto get, bool medianOf) {
    if (ss.empty() || !device(ss.front())) return std::nan("");
    return medianOf ? med([&](const Sample& s) { return device(s) ? get(*device(s)) : 0.0; })
                    : mean([&](const Sample& s) { return device(s) ? get(*device(s)) : 0.0; });
  };
  if (name == "write_bw_kbps")
    return perDevice([](const DeviceSample& d) { return d.writeBwKBps; }, true);
  if (name == "avg_write_bw_kbps")
    return perDevice([](const DeviceSample& d) { return d.avgWriteBwKBps; }, true);
  if (name == "dirty_rate_kbps")
    return perDevice([](const DeviceSample& d) { return d.dirtyRateKBps; }, true);
  if (name == "dirty_ratelimit_kbps")
    return perDevice([](const DeviceSample& d) { return d.dirtyRatelimitKBps; }, true);
  if (name == "balanced_ratelimit_kbps")
    return perDevice([](const DeviceSample& d) { return d.balancedDirtyRatelimitKBps; }, true);
  if (name == "task_ratelimit_kbps")
    return perDevice([](const DeviceSample& d) { return d.taskRatelimitKBps; }, true);
  if (name == "pos_ratio") return perDevice([](const DeviceSample& d) { return d.posRatio; }, true);
  if (name == "wb_thresh_mib")
    return perDevice([](const DeviceSample& d) { return mib(d.wbThreshPages); }, true);
  if (name == "wb_dirty_mib")
    return perDevice(
        [](const DeviceSample& d) { return mib(d.reclaimablePages + d.writebackPages); }, true);
  if (name == "util_pct") return perDevice([](const DeviceSample& d) { return d.utilPct; }, false);
  if (name == "dirty_exceeded_pct")
    return perDevice([](const DeviceSample& d) { return d.dirtyExceeded ? 100.0 : 0.0; }, false);
  if (name == "wb_share_pct") {
    if (ss.empty() || !device(ss.front())) return std::nan("");
    return med([&](const Sample& s) {
      const DeviceSample* d = device(s);
      return d && s.threshPages > 0 ? 100.0 * static_cast<double>(d->wbThreshPages) /
                                          static_cast<double>(s.threshPages)
                                    : 0.0;
    });
  }
  return std::nan("");
}

/// The memory cgroup a task group's tasks are in (an index into Sample::cgroups), or -1.
int cgroupOf(const std::string& group, const Scenario& scenario) {
  for (const TaskSpec& t : scenario.tasks) {
    if (t.name != group || t.cgroup.empty()) continue;
    for (std::size_t i = 0; i < scenario.cgroups.size(); ++i)
      if (scenario.cgroups[i].name == t.cgroup) return static_cast<int>(i);
  }
  return -1;
}

/// The figures of a group's memory cgroup: medians over the step.
double cgroupMetric(const LessonFigure& f, const LessonMeasurement& m) {
  const int cg = cgroupOf(f.group, m.scenario);
  if (cg < 0 || m.samples.empty()) return std::nan("");
  const auto idx = static_cast<std::size_t>(cg);
  std::vector<double> v;
  for (const Sample& s : m.samples) {
    if (idx >= s.cgroups.size()) continue;
    const CgroupSample& c = s.cgroups[idx];
    Pages p = 0;
    if (f.metric == "cgroup_dirty_mib") p = c.dirtyPages + c.writebackPages;
    if (f.metric == "cgroup_limit_mib") p = c.limitPages;
    if (f.metric == "cgroup_thresh_mib") p = c.threshPages;
    if (f.metric == "cgroup_setpoint_mib") p = c.setpointPages;
    if (f.metric == "cgroup_freerun_mib") p = c.freerunPages;
    v.push_back(mib(p));
  }
  return v.empty() ? std::nan("") : median(std::move(v));
}

double groupMetric(const LessonFigure& f, const LessonMeasurement& m) {
  const std::string_view name = f.metric;
  if (name.rfind("cgroup_", 0) == 0) return cgroupMetric(f, m);
  std::vector<const TaskStats*> tasks;
  for (const TaskStats& t : m.atEnd.tasks)
    if (t.info.name == f.group) tasks.push_back(&t);
  if (name == "tasks") return static_cast<double>(tasks.size());
  if (tasks.empty()) return std::nan("");
  // What the group did during the step: its tasks at the end against the same tasks at the
  // start (a task the step made starts from nothing).
  const auto atStart = [&](const TaskStats& t) -> const TaskStats* {
    for (const TaskStats& s : m.atStart)
      if (s.info.index == t.info.index) return &s;
    return nullptr;
  };
  const double stepS = m.toS - m.fromS;
  if (name == "dirtied_mibps" || name == "paused_pct" || name == "reads" ||
      name == "journal_wait_s") {
    double sum = 0;
    for (const TaskStats* t : tasks) {
      const TaskStats* s = atStart(*t);
      if (name == "dirtied_mibps") sum += mib(t->dirtiedPages - (s ? s->dirtiedPages : 0));
      if (name == "paused_pct") sum += t->pausedS - (s ? s->pausedS : 0);
      if (name == "reads") sum += static_cast<double>(t->reads - (s ? s->reads : 0));
      if (name == "journal_wait_s") sum += t->journalWaitS - (s ? s->journalWaitS : 0);
    }
    const auto n = static_cast<double>(tasks.size());
    if (name == "reads") return sum;
    if (name == "journal_wait_s") return sum / n;
    if (stepS <= 0) return std::nan("");
    return name == "dirtied_mibps" ? sum / n / stepS : 100.0 * sum / n / stepS;
  }
  double mx = 0, sum = 0, n = 0;
  std::vector<double> v;
  for (const TaskStats* t : tasks) {
    if (name == "pause_ms_p50") v.push_back(t->pauseMsP50);
    if (name == "pause_ms_max") mx = std::max(mx, t->pauseMsMax);
    if (name == "alloc_stall_ms_max") mx = std::max(mx, t->allocMsMax);
    if (name == "write_mibps") sum += t->avgWriteKBps / 1024, ++n;
    if (name == "oom_kills") sum += t->oomKilled ? 1 : 0;
    if (name == "runs") sum += static_cast<double>(t->runsCompleted);
    if (name == "last_run_s" && t->runsCompleted > 0) sum += t->lastRunS, ++n;
    if (name == "read_ms_p50" && t->reads > 0) v.push_back(t->readMsP50);
    if (name == "read_ms_max") mx = std::max(mx, t->readMsMax);
  }
  if (name == "read_ms_p50") return v.empty() ? std::nan("") : median(std::move(v));
  if (name == "read_ms_max") return mx;
  if (name == "pause_ms_p50") return median(std::move(v));
  if (name == "pause_ms_max" || name == "alloc_stall_ms_max") return mx;
  if (name == "write_mibps" || name == "last_run_s") return n > 0 ? sum / n : std::nan("");
  if (name == "oom_kills" || name == "runs") return sum;
  return std::nan("");
}

}  // namespace

double lessonFigureValue(const LessonFigure& figure, const LessonMeasurement& m) {
  if (!lesson_detail::findMetric(figure.metric)) return std::nan("");
  return figure.group.empty() ? wholeMetric(figure, m) : groupMetric(figure, m);
}

std::string formatLessonNumber(double v) {
  if (!std::isfinite(v)) return "n/a";
  char buf[64];
  const double a = std::fabs(v);
  if (a >= 100 || v == std::floor(v))
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else if (a >= 10)
    std::snprintf(buf, sizeof buf, "%.1f", v);
  else
    std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

std::vector<std::pair<std::string, std::string>> lessonMetricNames() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& d : lesson_detail::kMetrics)
    out.emplace_back(std::string(d.name), std::string(d.what));
  return out;
}

LessonCheckResult checkLessonQuestion(const LessonQuestion& q, const LessonMeasurement& m) {
  LessonCheckResult r;
  r.holds = true;
  const auto value = [&](const LessonFigure& f) {
    const double v = lessonFigureValue(f, m);
    const std::string name = f.text();
    const bool seen = std::any_of(r.figures.begin(), r.figures.end(),
                                  [&](const auto& p) { return p.first == name; });
    if (!seen) r.figures.emplace_back(name, v);
    return v;
  };
  if (q.numeric) {
    r.checked = true;
    const LessonNumeric& n = *q.numeric;
    const double tol = n.toleranceValue();
    std::string tolText = formatLessonNumber(tol);
    if (n.tolerancePercent) tolText += " (" + formatLessonNumber(n.tolerance) + " %)";
    r.conditions.push_back(n.figure.text() + " within " + tolText + " of " +
                           formatLessonNumber(n.expected) + " " + n.unit);
    const double v = value(n.figure);
    if (!std::isfinite(v)) {
      r.unmeasured = n.figure.text() + " is n/a";
      r.holds = false;
    } else if (std::fabs(v - n.expected) > tol) {
      r.holds = false;
    }
  }
  if (!q.check.empty()) {
    r.checked = true;
    r.conditions.push_back(q.check);
    const LessonCondition c = LessonCondition::parse(q.check);
    const LessonCondition::Result cr = c.evaluate(value);
    if (!cr.holds) r.holds = false;
    if (r.unmeasured.empty()) r.unmeasured = cr.unmeasured;
  }
  if (!r.checked) r.holds = false;
  return r;
}

bool lessonGuessWithin(const LessonNumeric& numeric, double measured, double guess) {
  return std::isfinite(measured) && std::isfinite(guess) &&
         std::fabs(guess - measured) <= numeric.toleranceValue();
}

std::string fillLessonText(const std::string& text, const LessonMeasurement& m) {
  return lesson_detail::substitute(
      text, [&](const LessonFigure& f) { return formatLessonNumber(lessonFigureValue(f, m)); },
      [](const std::string& reason) { throw LessonError(0, "question.reveal", reason); });
}

}  // namespace throttlelab::engine
