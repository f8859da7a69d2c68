// SPDX-License-Identifier: GPL-3.0-or-later
#include "throttlelab/engine/lesson.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "json_reader.h"
#include "throttlelab/engine/experiments.h"
#include "throttlelab/engine/scenario_keys.h"
#include "throttlelab/engine/simulator.h"
#include "throttlelab/engine/spelling.h"

namespace throttlelab::engine {

namespace detail {
const std::vector<std::pair<std::string_view, std::string_view>>& embeddedLessons();
}

namespace {

using input::Json;

constexpr std::size_t kMaxLessonBytes = 1024 * 1024;
constexpr int kMaxSteps = 200;
constexpr double kMaxRunForS = 3600;
// The window's plots by the names lessons use (docs/lessons.md); "device" is the disk's
// requests (seeks, request size, queue depth).
const std::vector<std::string_view> kPlots = {"dirty",     "curve",  "pause",
                                              "bandwidth", "memory", "device"};

// Each plot's curves by their legend names, as the window draws them (ui/src/plots/*; the
// window's lessons test holds the two lists equal).
const std::vector<std::vector<std::string_view>> kCurves = {
    // dirty
    {"dirty+writeback", "dirty", "writeback", "limit", "setpoint", "freerun", "bg_thresh",
     "task_ratelimit", "dirty_ratelimit", "balanced_ratelimit", "cgroup dirty+writeback",
     "cgroup limit", "cgroup setpoint", "cgroup freerun"},
    // curve
    {"global cubic", "with the bdi line", "last 20 s", "now", "bg_thresh", "freerun", "setpoint",
     "limit"},
    // pause
    {"max_pause", "min–max band", "median", "outliers (top 4)"},
    // bandwidth
    {"device writes", "write_bw", "avg_write_bw", "dirty_rate", "N × dirty_ratelimit"},
    // memory
    {"free", "file cache", "anon", "dirty", "writeback", "wmark_high", "wmark_low", "wmark_min"},
    // device
    {"seeks/s", "requests queued", "request size (right axis)"},
};

bool isPlotName(const std::string& name) {
  return std::find(kPlots.begin(), kPlots.end(), name) != kPlots.end();
}

std::string plotNames() {
  std::string out = "must be one of";
  for (std::size_t i = 0; i < kPlots.size(); ++i)
    out += (i == 0 ? " " : ", ") + std::string(kPlots[i]);
  return out;
}

std::string shortened(std::string_view s, std::size_t max = 80) {
  std::string out;
  for (char c : s.substr(0, max)) out += (static_cast<unsigned char>(c) < 0x20) ? '?' : c;
  if (s.size() > max) out += "...";
  return out;
}

/// "no curve 'min' in the memory plot (did you mean wmark_min?; its curves: ...)".
std::string unknownCurve(const std::string& curve, const std::string& plot) {
  const auto& names = lessonCurveNames(plot);
  std::string out = "no curve '" + shortened(curve) + "' in the " + plot + " plot";
  std::optional<std::size_t> near = closestName(curve, names);
  if (!near && !curve.empty())
    for (std::size_t i = 0; i < names.size() && !near; ++i)
      if (names[i].find(curve) != std::string_view::npos) near = i;
  if (near) out += " (did you mean '" + std::string(names[*near]) + "'?)";
  out += "; its curves, by their legend names:";
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? " " : ", ") + std::string(names[i]);
  return out;
}

/// Throws LessonError with the file, step and key in its sentence.
class Where {
 public:
  explicit Where(std::string origin) : m_origin(std::move(origin)) {}
  [[noreturn]] void fail(int step, const std::string& key, const std::string& reason) const {
    std::string message = m_origin;
    if (step > 0) message += ", step " + std::to_string(step);
    if (!key.empty()) message += ", key " + key;
    message += ": " + reason;
    throw LessonError(step, key, message);
  }
  const std::string& origin() const { return m_origin; }

 private:
  std::string m_origin;
};

// What the JSON front door checks of a lesson (throttlelab/engine/json_input.h): nesting,
// numbers and keys given twice everywhere; the keys of an inline scenario at any depth. The
// lesson's own keys, and those of `set` (paths of --set), are this file's to check.
constexpr JsonField kStepKeys[] = {
    {.key = "scenario", .kind = JsonKind::Object, .children = schema::kRootFields}};
constexpr JsonField kLessonKeys[] = {
    {.key = "steps", .kind = JsonKind::ObjectArray, .children = kStepKeys, .open = true}};
constexpr JsonField kLessonDocument{
    .key = {}, .kind = JsonKind::Object, .children = kLessonKeys, .open = true};

/// A problem at a JSON path of the lesson ("steps[2].runFor": step 3, key runFor).
[[noreturn]] void failAt(const Where& where, const std::string& path, const std::string& reason) {
  static constexpr std::string_view kSteps = "steps[";
  if (path.rfind(kSteps, 0) == 0) {
    const std::size_t close = path.find(']');
    std::size_t index = 0;
    const auto r = std::from_chars(path.data() + kSteps.size(), path.data() + close, index);
    if (r.ec == std::errc{} && index < static_cast<std::size_t>(kMaxSteps)) {
      std::string key = path.substr(close + 1);
      if (!key.empty() && key.front() == '.') key.erase(0, 1);
      where.fail(static_cast<int>(index) + 1, key, reason);
    }
  }
  where.fail(0, path, reason);
}

const Json& member(const Json& object, const char* key) {
  static const Json kNull;
  const auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

std::string stringAt(const Json& object, const char* key, const Where& where, int step,
                     const std::string& path, bool required) {
  const Json& v = member(object, key);
  if (v.is_null()) {
    if (required) where.fail(step, path, "is missing (a string is needed)");
    return {};
  }
  if (!v.is_string()) where.fail(step, path, "must be a string");
  return v.get<std::string>();
}

void checkKeys(const Json& object, std::initializer_list<std::string_view> known,
               const Where& where, int step, const std::string& prefix) {
  for (const auto& [key, value] : object.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      std::string names;
      for (auto k : known) names += (names.empty() ? "" : ", ") + std::string(k);
      where.fail(step, prefix + key, "unknown key (known: " + names + ")");
    }
  }
}

Scenario experimentScenario(std::string_view ref, const Where& where, int step) {
  // "experiment:NAME/CASE"
  const std::string_view rest = ref.substr(std::string_view("experiment:").size());
  const auto slash = rest.find('/');
  const std::string name(rest.substr(0, slash));
  const auto experiment = makeExperiment(name);
  if (!experiment) {
    std::string names;
    for (const auto& n : experimentNames()) names += (names.empty() ? "" : ", ") + n;
    where.fail(step, "scenario", "no experiment '" + shortened(name) + "' (known: " + names + ")");
  }
  if (slash == std::string_view::npos)
    where.fail(step, "scenario", "give the case: experiment:" + name + "/CASE");
  const std::string caseName(rest.substr(slash + 1));
  std::string names;
  for (const auto& c : experiment->cases) {
    if (c.name == caseName) {
      Scenario s = c.scenario;
      s.name = experiment->name + ": " + c.name;
      return s;
    }
    names += (names.empty() ? "" : "; ") + c.name;
  }
  where.fail(
      step, "scenario",
      "experiment " + name + " has no case '" + shortened(caseName) + "' (cases: " + names + ")");
}

Scenario scenarioOf(const Json& v, const Where& where, int step, std::string& ref) {
  if (v.is_string()) {
    ref = v.get<std::string>();
    if (ref.rfind("experiment:", 0) == 0) return experimentScenario(ref, where, step);
    // Only built-in names: a lesson must mean the same on every machine.
    const auto json = builtinScenarioJson(ref);
    if (!json) {
      std::string names;
      for (const auto& n : builtinScenarioNames()) names += (names.empty() ? "" : ", ") + n;
      where.fail(step, "scenario",
                 "no built-in scenario '" + shortened(ref) + "' (built-in: " + names +
                     "; or experiment:NAME/CASE, or an inline scenario object)");
    }
    try {
      return parseScenario(*json, ref + " (built-in)");
    } catch (const ScenarioError& e) {
      where.fail(step, "scenario", e.what());
    }
  }
  if (v.is_object()) {
    ref = "(inline)";
    try {
      return parseScenario(v.dump(), where.origin() + " step " + std::to_string(step));
    } catch (const ScenarioError& e) {
      where.fail(step, e.key().empty() ? "scenario" : "scenario." + e.key(), e.reason());
    }
  }
  where.fail(step, "scenario", "must be a built-in scenario name or a scenario object");
}

Scenario applied(const Scenario& base, const std::vector<Override>& set, const Where& where,
                 int step) {
  if (set.empty()) return base;
  try {
    Scenario s = parseScenario(scenarioToJson(base), where.origin(), set);
    return s;
  } catch (const ScenarioError& e) {
    // The message names the lesson's file, step and key; the scenario's own "command line:"
    // (where --set overrides come from) or origin would name the wrong place.
    const std::string& key = e.key();
    const auto named = std::find_if(set.begin(), set.end(), [&](const Override& o) {
      return key.rfind(o.path, 0) == 0 && (key.size() == o.path.size() ||
                                           key[o.path.size()] == '.' || key[o.path.size()] == '[');
    });
    if (key.empty()) where.fail(step, "set." + set.front().path, e.reason());
    if (named != set.end()) where.fail(step, "set." + key, e.reason());
    // A key the step did not set, made invalid by one it did (a background ratio above the
    // new ratio): name both.
    where.fail(step, "set", "makes " + key + " invalid: " + e.reason());
  }
}

double number(const Json& v, const Where& where, int step, const std::string& key, double lo,
              double hi) {
  if (!v.is_number()) where.fail(step, key, "must be a number");
  const double d = v.get<double>();
  if (!std::isfinite(d) || d < lo || d > hi)
    where.fail(step, key,
               "must be between " + std::to_string(static_cast<long long>(lo)) + " and " +
                   std::to_string(static_cast<long long>(hi)));
  return d;
}

struct MetricDef {
  std::string_view name;
  std::string_view what;
  bool group;  ///< only with :group
};
constexpr MetricDef kMetrics[] = {
    {"dirty_mib", "median dirty + writeback over the step, MiB", false},
    {"setpoint_mib", "median setpoint over the step, MiB", false},
    {"freerun_mib", "median freerun over the step, MiB", false},
    {"limit_mib", "median limit over the step, MiB", false},
    {"thresh_mib", "median thresh over the step, MiB", false},
    {"free_mib", "median free memory over the step, MiB", false},
    {"write_mibps",
     "pages written back per second over the step, MiB/s; with :group a task's "
     "mean rate since it started",
     false},
    {"pause_ms_p50",
     "median over the step's 100 ms intervals of their median pause, ms; with "
     ":group the median of the group's tasks' median pauses",
     false},
    {"pause_ms_max", "longest pause of the step, ms; with :group the group's longest", false},
    {"over_limit_pct",
     "share of the step's samples with dirty + writeback above the limit, percent", false},
    {"to_limit_s",
     "seconds from the step's start until dirty + writeback were first at or under the limit "
     "(0 if they were at once; n/a if never)",
     false},
    {"throttled_tasks", "median number of tasks asleep in balance_dirty_pages", false},
    {"system_pct", "mean %system over the step", false},
    {"user_pct", "mean %user over the step", false},
    {"swap_out_mibps", "mean swap-out rate over the step, MiB/s", false},
    {"seeks_per_s", "mean seeks per second of the first device over the step", false},
    {"request_kib", "mean request size of the first device over the step, KiB", false},
    {"queue_depth", "median requests queued on the first device over the step", false},
    {"alloc_stall_ms_max", "longest allocation stall of the step, ms; with :group the group's",
     false},
    {"oom_kills", "OOM kills during the step; with :group the group's tasks killed so far", false},
    {"last_run_s", "mean duration of the group's last finished run (a dd, a compile), s", true},
    {"runs", "runs the group's tasks have finished", true},
    {"tasks", "tasks in the group", true},
};

const MetricDef* findMetric(std::string_view name) {
  for (const auto& m : kMetrics)
    if (m.name == name) return &m;
  return nullptr;
}

/// Calls `f(metric, group)` for every placeholder; `bad(reason)` for a malformed one.
template <class F, class Bad>
std::string substitute(const std::string& text, F f, Bad bad) {
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
    const auto colon = inner.find(':');
    const std::string metric = inner.substr(0, colon);
    const std::string group = colon == std::string::npos ? "" : inner.substr(colon + 1);
    const MetricDef* def = findMetric(metric);
    if (!def) {
      std::string names;
      for (const auto& m : kMetrics) names += (names.empty() ? "" : ", ") + std::string(m.name);
      bad("unknown metric {" + shortened(metric) + "} (known: " + names + ")");
    }
    if (def->group && group.empty())
      bad("{" + metric + "} needs a task group: {" + metric + ":NAME}");
    out += f(*def, group);
    i = close + 1;
  }
  return out;
}

void checkPlaceholders(const std::string& text, const Where& where, int step,
                       const std::string& key) {
  substitute(
      text, [](const MetricDef&, const std::string&) { return std::string(); },
      [&](const std::string& reason) { where.fail(step, key, reason); });
}

/// Every {metric:group} of `text` names a task group of `scenario`, the run the step measures:
/// a group that is not there would only ever show "n/a".
void checkPlaceholderGroups(const std::string& text, const std::optional<Scenario>& scenario,
                            const Where& where, int step, const std::string& key) {
  substitute(
      text,
      [&](const MetricDef& def, const std::string& group) {
        if (group.empty()) return std::string();
        const std::string placeholder = "{" + std::string(def.name) + ":" + shortened(group) + "}";
        if (!scenario)
          where.fail(step, key,
                     placeholder + " names a task group, but the step has no run to measure");
        std::vector<std::string_view> names;
        for (const TaskSpec& t : scenario->tasks) {
          if (t.name == group) return std::string();
          names.push_back(t.name);
        }
        std::string reason =
            placeholder + ": the scenario has no task group '" + shortened(group) + "'";
        if (const auto near = closestName(group, names))
          reason += " (did you mean '" + std::string(names[*near]) + "'?)";
        std::string known;
        for (const auto name : names) known += (known.empty() ? "" : ", ") + shortened(name);
        where.fail(step, key, reason + "; its groups: " + (known.empty() ? "none" : known));
      },
      [&](const std::string& reason) { where.fail(step, key, reason); });
}

LessonStep parseStep(const Json& j, const Where& where, int step, bool first,
                     std::optional<Scenario>& current) {
  if (!j.is_object()) where.fail(step, "", "a step must be an object");
  checkKeys(j, {"caption", "scenario", "set", "runFor", "highlight", "question", "view", "plots"},
            where, step, "");
  LessonStep s;
  s.caption = stringAt(j, "caption", where, step, "caption", true);
  checkPlaceholders(s.caption, where, step, "caption");
  if (const Json& v = member(j, "view"); !v.is_null()) {
    if (v == "simulation")
      s.view = LessonView::Simulation;
    else if (v == "host")
      s.view = LessonView::Host;
    else
      where.fail(step, "view", "must be \"simulation\" or \"host\"");
  }
  if (const Json& v = member(j, "scenario"); !v.is_null()) {
    s.scenario = scenarioOf(v, where, step, s.scenarioRef);
    current = s.scenario;
  } else if (first && s.view == LessonView::Simulation) {
    where.fail(step, "scenario", "the first step must name a scenario");
  }
  if (const Json& v = member(j, "set"); !v.is_null()) {
    if (!v.is_object()) where.fail(step, "set", "must be an object of KEY: VALUE");
    if (!current) where.fail(step, "set", "there is no scenario to change yet");
    for (const auto& [key, value] : v.items())
      s.set.push_back({key, value.is_string() ? value.get<std::string>() : value.dump()});
    current = applied(*current, s.set, where, step);
  }
  if (const Json& v = member(j, "runFor"); !v.is_null()) {
    s.runForS = number(v, where, step, "runFor", 0, kMaxRunForS);
    if (!current && s.runForS > 0) where.fail(step, "runFor", "there is no scenario to run");
  }
  if (const Json& v = member(j, "plots"); !v.is_null()) {
    if (!v.is_array()) where.fail(step, "plots", "must be a list of plot names");
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::string key = "plots[" + std::to_string(i) + "]";
      if (!v[i].is_string() || !isPlotName(v[i].get<std::string>()))
        where.fail(step, key, plotNames());
      s.plots.push_back(v[i].get<std::string>());
    }
  }
  if (const Json& v = member(j, "highlight"); !v.is_null()) {
    if (!v.is_object()) where.fail(step, "highlight", "must be an object");
    checkKeys(v, {"plot", "curves", "fromS", "toS"}, where, step, "highlight.");
    LessonHighlight h;
    h.plot = stringAt(v, "plot", where, step, "highlight.plot", true);
    if (!isPlotName(h.plot)) where.fail(step, "highlight.plot", plotNames());
    if (const Json& c = member(v, "curves"); !c.is_null()) {
      if (!c.is_array()) where.fail(step, "highlight.curves", "must be a list of curve names");
      const auto& known = lessonCurveNames(h.plot);
      for (std::size_t i = 0; i < c.size(); ++i) {
        const std::string key = "highlight.curves[" + std::to_string(i) + "]";
        if (!c[i].is_string()) where.fail(step, key, "must be a string");
        const std::string curve = c[i].get<std::string>();
        if (std::find(known.begin(), known.end(), curve) == known.end())
          where.fail(step, key, unknownCurve(curve, h.plot));
        h.curves.push_back(curve);
      }
    }
    if (const Json& f = member(v, "fromS"); !f.is_null())
      h.fromS = number(f, where, step, "highlight.fromS", 0, 1e7);
    if (const Json& t = member(v, "toS"); !t.is_null())
      h.toS = number(t, where, step, "highlight.toS", 0, 1e7);
    if (h.fromS && h.toS && *h.toS < *h.fromS)
      where.fail(step, "highlight.toS", "must not be before highlight.fromS");
    s.highlight = h;
  }
  if (const Json& v = member(j, "question"); !v.is_null()) {
    if (!v.is_object()) where.fail(step, "question", "must be an object");
    checkKeys(v, {"text", "choices", "answer", "reveal"}, where, step, "question.");
    LessonQuestion q;
    q.text = stringAt(v, "text", where, step, "question.text", true);
    const Json& c = member(v, "choices");
    if (!c.is_array() || c.size() < 2)
      where.fail(step, "question.choices", "must be a list of at least two strings");
    for (std::size_t i = 0; i < c.size(); ++i) {
      if (!c[i].is_string())
        where.fail(step, "question.choices[" + std::to_string(i) + "]", "must be a string");
      q.choices.push_back(c[i].get<std::string>());
    }
    const Json& a = member(v, "answer");
    if (!a.is_number_integer() || a.get<long long>() < 0 ||
        a.get<long long>() >= static_cast<long long>(q.choices.size()))
      where.fail(step, "question.answer",
                 "must be the index of a choice, 0 to " + std::to_string(q.choices.size() - 1));
    q.answer = a.get<int>();
    q.reveal = stringAt(v, "reveal", where, step, "question.reveal", true);
    checkPlaceholders(q.reveal, where, step, "question.reveal");
    s.question = q;
  }
  checkPlaceholderGroups(s.caption, current, where, step, "caption");
  if (s.question)
    checkPlaceholderGroups(s.question->reveal, current, where, step, "question.reveal");
  return s;
}

std::string readFile(const std::filesystem::path& path, const std::string& shown) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw LessonError(0, "", shown + ": cannot open the file");
  std::string text;
  std::array<char, 65536> buf{};
  while (in.read(buf.data(), buf.size()) || in.gcount() > 0) {
    text.append(buf.data(), static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxLessonBytes)
      throw LessonError(0, "", shown + ": larger than 1 MiB; a lesson is a small JSON file");
  }
  if (in.bad()) throw LessonError(0, "", shown + ": reading the file failed");
  return text;
}

/// Collects the samples of a range of a run.
class RangeSink final : public RecordSink {
 public:
  RangeSink(double fromS, std::vector<Sample>& out) : m_from(atSeconds(fromS)), m_out(out) {}
  void onSample(const Sample& s) override {
    // The sample at the step's first moment was taken before its changes applied: it is the
    // previous step's last.
    if (s.time > m_from) m_out.push_back(s);
  }

 private:
  SimTime m_from;
  std::vector<Sample>& m_out;
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string formatNumber(double v) {
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

double windowMetric(std::string_view name, const LessonMeasurement& m) {
  const auto& ss = m.samples;
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
  auto mib = [](Pages p) { return static_cast<double>(p) / kPagesPerMiB; };
  auto device = [](const Sample& s) -> const DeviceSample* {
    return s.devices.empty() ? nullptr : &s.devices.front();
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
    return span > 0 ? mib(ss.back().writtenPages - ss.front().writtenPages) / span : 0;
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
  return std::nan("");
}

double groupMetric(std::string_view name, const std::string& group, const LessonMeasurement& m) {
  std::vector<const TaskStats*> tasks;
  for (const TaskStats& t : m.atEnd.tasks)
    if (t.info.name == group) tasks.push_back(&t);
  if (name == "tasks") return static_cast<double>(tasks.size());
  if (tasks.empty()) return std::nan("");
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
  }
  if (name == "pause_ms_p50") return median(std::move(v));
  if (name == "pause_ms_max" || name == "alloc_stall_ms_max") return mx;
  if (name == "write_mibps" || name == "last_run_s") return n > 0 ? sum / n : std::nan("");
  if (name == "oom_kills" || name == "runs") return sum;
  return std::nan("");
}

}  // namespace

Lesson parseLesson(std::string_view json, std::string_view origin) {
  const Where where{std::string(origin)};
  Json doc;
  try {
    doc = input::readJson(json, kLessonDocument);
  } catch (const JsonInputError& e) {
    failAt(where, e.path(), e.reason());
  }
  if (!doc.is_object()) where.fail(0, "", "a lesson is a JSON object");
  checkKeys(doc, {"name", "title", "description", "steps"}, where, 0, "");
  Lesson lesson;
  lesson.name = stringAt(doc, "name", where, 0, "name", true);
  lesson.title = stringAt(doc, "title", where, 0, "title", true);
  lesson.description = stringAt(doc, "description", where, 0, "description", false);
  const Json& steps = member(doc, "steps");
  if (!steps.is_array() || steps.empty())
    where.fail(0, "steps", "must be a list of at least one step");
  if (steps.size() > static_cast<std::size_t>(kMaxSteps))
    where.fail(0, "steps", "more than " + std::to_string(kMaxSteps) + " steps");
  std::optional<Scenario> current;
  for (std::size_t i = 0; i < steps.size(); ++i)
    lesson.steps.push_back(parseStep(steps[i], where, static_cast<int>(i) + 1, i == 0, current));
  return lesson;
}

const std::vector<std::string_view>& lessonPlotNames() {
  return kPlots;
}

const std::vector<std::string_view>& lessonCurveNames(std::string_view plot) {
  static const std::vector<std::string_view> kNone;
  const auto it = std::find(kPlots.begin(), kPlots.end(), plot);
  return it == kPlots.end() ? kNone : kCurves[static_cast<std::size_t>(it - kPlots.begin())];
}

std::vector<std::string> builtinLessonNames() {
  std::vector<std::string> names;
  for (const auto& [name, json] : detail::embeddedLessons()) names.emplace_back(name);
  return names;
}

std::optional<std::string> builtinLessonJson(std::string_view name) {
  for (const auto& [builtinName, json] : detail::embeddedLessons())
    if (builtinName == name) return std::string(json);
  return std::nullopt;
}

Lesson loadLesson(std::string_view fileOrName) {
  namespace fs = std::filesystem;
  const std::string given(fileOrName);
  const std::string shown = shortened(given, 200);
  std::error_code ec;
  const fs::path path(given);
  const auto status = fs::status(path, ec);
  if (!ec && fs::exists(status)) {
    if (!fs::is_regular_file(status))
      throw LessonError(0, "", shown + ": not a regular file, not a lesson");
    return parseLesson(readFile(path, shown), shown);
  }
  if (const auto json = builtinLessonJson(given)) return parseLesson(*json, given + " (built-in)");
  std::string names;
  for (const auto& n : builtinLessonNames()) names += (names.empty() ? "" : ", ") + n;
  throw LessonError(
      0, "",
      shown + ": no such file, and no built-in lesson of that name (built-in: " + names + ")");
}

LessonPlan planLessonStep(const Lesson& lesson, int index) {
  LessonPlan plan;
  if (index < 0 || index >= static_cast<int>(lesson.steps.size())) return plan;
  int start = index;
  while (start > 0 && !lesson.steps[static_cast<std::size_t>(start)].scenario) --start;
  plan.runStartStep = start;
  std::optional<Scenario> current;
  double t = 0;
  const Where where{lesson.name};
  for (int i = start; i <= index; ++i) {
    const LessonStep& step = lesson.steps[static_cast<std::size_t>(i)];
    if (step.scenario) current = step.scenario;
    if (!current) continue;  // a host step before any scenario
    current = applied(*current, step.set, where, i + 1);
    plan.segments.push_back({i, *current, t, t + step.runForS});
    t += step.runForS;
  }
  return plan;
}

LessonMeasurement measureLessonStep(const Lesson& lesson, int index) {
  LessonMeasurement m;
  const LessonPlan plan = planLessonStep(lesson, index);
  if (plan.segments.empty()) return m;
  m.fromS = plan.stepFromS();
  m.toS = plan.stepToS();
  Scenario first = plan.segments.front().scenario;
  first.durationS = std::max(first.durationS, m.toS + 1);
  Simulator sim(first);
  RangeSink sink(m.fromS, m.samples);
  sim.setSink(&sink);
  for (std::size_t i = 0; i < plan.segments.size(); ++i) {
    const LessonSegment& seg = plan.segments[i];
    if (i > 0) sim.reconfigure(seg.scenario);
    sim.runUntil(atSeconds(seg.toS));
  }
  m.atEnd = sim.summary();
  return m;
}

std::vector<std::pair<std::string, std::string>> lessonMetricNames() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& d : kMetrics) out.emplace_back(std::string(d.name), std::string(d.what));
  return out;
}

std::string fillLessonText(const std::string& text, const LessonMeasurement& m) {
  return substitute(
      text,
      [&](const MetricDef& def, const std::string& group) {
        return formatNumber(group.empty() ? windowMetric(def.name, m)
                                          : groupMetric(def.name, group, m));
      },
      [](const std::string& reason) { throw LessonError(0, "question.reveal", reason); });
}

}  // namespace throttlelab::engine
