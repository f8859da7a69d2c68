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
#include <utility>

#include "json_reader.h"
#include "lesson_figures.h"
#include "throttlelab/engine/compare.h"
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
/// A measurement runs in pieces of this many simulated seconds, to report progress and to stop
/// when asked.
constexpr double kProgressStepS = 0.25;
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

void checkPlaceholders(const std::string& text, const Where& where, int step,
                       const std::string& key, const std::optional<Scenario>& scenario) {
  lesson_detail::substitute(
      text,
      [&](const LessonFigure& f) {
        if (const std::string problem =
                lesson_detail::figureProblem(f, scenario ? &*scenario : nullptr);
            !problem.empty())
          where.fail(step, key, "{" + shortened(f.text()) + "}: " + problem);
        return std::string();
      },
      [&](const std::string& reason) { where.fail(step, key, reason); });
}

/// `question.check`: a condition whose figures the step's run measures.
void checkCondition(const std::string& text, const Where& where, int step,
                    const std::optional<Scenario>& scenario) {
  try {
    const LessonCondition c = LessonCondition::parse(text);
    for (const LessonFigure& f : c.figures())
      if (const std::string problem =
              lesson_detail::figureProblem(f, scenario ? &*scenario : nullptr);
          !problem.empty())
        where.fail(step, "question.check", problem);
  } catch (const LessonConditionError& e) {
    where.fail(step, "question.check", std::string("'") + shortened(text) + "' " + e.what());
  }
}

LessonNumeric parseNumeric(const Json& v, const Where& where, int step,
                           const std::optional<Scenario>& scenario) {
  if (!v.is_object())
    where.fail(step, "question.numeric",
               "must be an object: {\"figure\": ..., \"unit\": ..., \"expected\": ..., "
               "\"tolerance\": ...}");
  checkKeys(v, {"figure", "unit", "expected", "tolerance"}, where, step, "question.numeric.");
  LessonNumeric n;
  const std::string figure = stringAt(v, "figure", where, step, "question.numeric.figure", true);
  try {
    n.figure = parseLessonFigure(figure);
  } catch (const LessonConditionError& e) {
    where.fail(step, "question.numeric.figure", e.what());
  }
  if (const std::string problem =
          lesson_detail::figureProblem(n.figure, scenario ? &*scenario : nullptr);
      !problem.empty())
    where.fail(step, "question.numeric.figure", problem);
  n.unit = stringAt(v, "unit", where, step, "question.numeric.unit", true);
  const Json& e = member(v, "expected");
  if (e.is_null()) where.fail(step, "question.numeric.expected", "is missing (a number is needed)");
  n.expected = number(e, where, step, "question.numeric.expected", -1e12, 1e12);
  const Json& t = member(v, "tolerance");
  const std::string tkey = "question.numeric.tolerance";
  if (t.is_null()) where.fail(step, tkey, "is missing (a number, or a percentage such as \"15%\")");
  if (t.is_string()) {
    const std::string text = t.get<std::string>();
    char* end = nullptr;
    const double pct = std::strtod(text.c_str(), &end);
    if (text.empty() || end == text.c_str() || std::string(end) != "%" || !std::isfinite(pct) ||
        pct <= 0 || pct > 100)
      where.fail(step, tkey,
                 "'" + shortened(text) +
                     "' is not a percentage of expected between 0 and 100 "
                     "(such as \"15%\")");
    n.tolerance = pct;
    n.tolerancePercent = true;
  } else {
    n.tolerance = number(t, where, step, tkey, 0, 1e12);
    if (n.tolerance <= 0) where.fail(step, tkey, "must be more than 0");
  }
  return n;
}

/// A list of `plot`'s curves by their legend names.
std::vector<std::string> curveList(const Json& c, const std::string& plot, const Where& where,
                                   int step, const std::string& key) {
  if (!c.is_array()) where.fail(step, key, "must be a list of curve names");
  const auto& known = lessonCurveNames(plot);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < c.size(); ++i) {
    const std::string k = key + "[" + std::to_string(i) + "]";
    if (!c[i].is_string()) where.fail(step, k, "must be a string");
    const std::string curve = c[i].get<std::string>();
    if (std::find(known.begin(), known.end(), curve) == known.end())
      where.fail(step, k, unknownCurve(curve, plot));
    out.push_back(curve);
  }
  return out;
}

LessonStep parseStep(const Json& j, const Where& where, int step, bool first,
                     std::optional<Scenario>& current) {
  if (!j.is_object()) where.fail(step, "", "a step must be an object");
  checkKeys(j,
            {"caption", "scenario", "set", "runFor", "highlight", "question", "view", "plots",
             "terms", "curves"},
            where, step, "");
  LessonStep s;
  s.caption = stringAt(j, "caption", where, step, "caption", true);
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
  // Placeholders name the figures of the run as it stands after the step's changes.
  checkPlaceholders(s.caption, where, step, "caption", current);
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
    if (const Json& c = member(v, "curves"); !c.is_null())
      h.curves = curveList(c, h.plot, where, step, "highlight.curves");
    if (const Json& f = member(v, "fromS"); !f.is_null())
      h.fromS = number(f, where, step, "highlight.fromS", 0, 1e7);
    if (const Json& t = member(v, "toS"); !t.is_null())
      h.toS = number(t, where, step, "highlight.toS", 0, 1e7);
    if (h.fromS && h.toS && *h.toS < *h.fromS)
      where.fail(step, "highlight.toS", "must not be before highlight.fromS");
    s.highlight = h;
  }
  if (const Json& v = member(j, "curves"); !v.is_null()) {
    if (!v.is_object())
      where.fail(step, "curves", "must be an object: plot name -> list of its curves' names");
    for (const auto& [plot, list] : v.items()) {
      if (!isPlotName(plot)) where.fail(step, "curves." + shortened(plot), plotNames());
      if (list.is_array() && list.empty())
        where.fail(step, "curves." + plot, "must name at least one of the plot's curves");
      s.curves.push_back({plot, curveList(list, plot, where, step, "curves." + plot)});
    }
  }
  if (const Json& v = member(j, "terms"); !v.is_null()) {
    if (!v.is_object())
      where.fail(step, "terms", "must be an object: term -> its definition (one or two sentences)");
    for (const auto& [term, definition] : v.items()) {
      const std::string key = "terms." + shortened(term);
      if (term.empty() || term.size() > 40) where.fail(step, key, "a term is 1 to 40 characters");
      if (!definition.is_string() || definition.get<std::string>().empty())
        where.fail(step, key, "must be the term's definition, a non-empty string");
      s.terms.push_back({term, definition.get<std::string>()});
      checkPlaceholders(s.terms.back().definition, where, step, key, current);
    }
  }
  if (const Json& v = member(j, "question"); !v.is_null()) {
    if (!v.is_object()) where.fail(step, "question", "must be an object");
    checkKeys(v, {"text", "choices", "answer", "reveal", "more", "check", "numeric"}, where, step,
              "question.");
    LessonQuestion q;
    q.text = stringAt(v, "text", where, step, "question.text", true);
    const Json& c = member(v, "choices");
    const Json& a = member(v, "answer");
    if (const Json& n = member(v, "numeric"); !n.is_null()) {
      if (!c.is_null() || !a.is_null())
        where.fail(step, c.is_null() ? "question.answer" : "question.choices",
                   "a numeric question has no choices and no answer: the student types a "
                   "number, which question.numeric checks");
      q.numeric = parseNumeric(n, where, step, current);
    } else {
      if (!c.is_array() || c.size() < 2)
        where.fail(step, "question.choices",
                   "must be a list of at least two strings (or give question.numeric instead)");
      if (c.size() > 26) where.fail(step, "question.choices", "more than 26 choices (A to Z)");
      for (std::size_t i = 0; i < c.size(); ++i) {
        if (!c[i].is_string())
          where.fail(step, "question.choices[" + std::to_string(i) + "]", "must be a string");
        q.choices.push_back(c[i].get<std::string>());
      }
      if (!a.is_number_integer() || a.get<long long>() < 0 ||
          a.get<long long>() >= static_cast<long long>(q.choices.size()))
        where.fail(step, "question.answer",
                   "must be the index of a choice, 0 to " + std::to_string(q.choices.size() - 1));
      q.answer = a.get<int>();
    }
    q.reveal = stringAt(v, "reveal", where, step, "question.reveal", true);
    checkPlaceholders(q.reveal, where, step, "question.reveal", current);
    q.more = stringAt(v, "more", where, step, "question.more", false);
    checkPlaceholders(q.more, where, step, "question.more", current);
    q.check = stringAt(v, "check", where, step, "question.check", false);
    if (const Json& ck = member(v, "check"); !ck.is_null())
      checkCondition(q.check, where, step, current);
    if ((!q.check.empty() || q.numeric) && !current)
      where.fail(step, q.numeric ? "question.numeric" : "question.check",
                 "the step has no run whose figures it could check");
    s.question = q;
  }
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
  /// From now on, collects the samples after `fromS`.
  void start(double fromS) {
    m_from = atSeconds(fromS);
    m_out.clear();
  }
  void onSample(const Sample& s) override {
    // The sample at the step's first moment was taken before its changes applied: it is the
    // previous step's last.
    if (s.time > m_from) m_out.push_back(s);
  }
  std::vector<Sample> take() { return std::exchange(m_out, {}); }

 private:
  SimTime m_from{};
  std::vector<Sample> m_out;
};

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
  checkKeys(doc, {"name", "title", "description", "kernel", "steps"}, where, 0, "");
  Lesson lesson;
  lesson.name = stringAt(doc, "name", where, 0, "name", true);
  lesson.title = stringAt(doc, "title", where, 0, "title", true);
  lesson.description = stringAt(doc, "description", where, 0, "description", false);
  lesson.kernel = stringAt(doc, "kernel", where, 0, "kernel", false);
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

double LessonNumeric::toleranceValue() const {
  return tolerancePercent ? std::fabs(expected) * tolerance / 100 : tolerance;
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

struct LessonRunner::Run {
  std::unique_ptr<Simulator> sim;
  RangeSink sink;
  int step = -1;  ///< the step whose end the simulator stands at
  Scenario scenario;
  double toS = 0;
};

LessonRunner::LessonRunner(Lesson lesson) : m_lesson(std::move(lesson)) {}
LessonRunner::~LessonRunner() = default;
LessonRunner::LessonRunner(LessonRunner&&) noexcept = default;
LessonRunner& LessonRunner::operator=(LessonRunner&&) noexcept = default;

bool LessonRunner::continues(int index) const {
  if (!m_run || !m_run->sim || index <= m_run->step || index <= 0 ||
      index >= static_cast<int>(m_lesson.steps.size()))
    return false;
  // Every step from the one measured last up to `index` changes the running scenario (none
  // starts one), so the run goes on through them: --check measures only the question steps.
  for (int i = m_run->step + 1; i <= index; ++i)
    if (m_lesson.steps[static_cast<std::size_t>(i)].scenario) return false;
  return true;
}

LessonMeasurement LessonRunner::measure(int index, const Progress& progress,
                                        const std::stop_token& stop) {
  LessonMeasurement m;
  if (index < 0 || index >= static_cast<int>(m_lesson.steps.size())) return m;
  // The segments still to run: the step alone when the run stands at the previous step's end,
  // else the run from the step that started it.
  std::vector<LessonSegment> todo;
  const bool continuing = continues(index);
  if (continuing) {
    Scenario next = m_run->scenario;
    double fromS = m_run->toS;
    for (int i = m_run->step + 1; i <= index; ++i) {
      const LessonStep& s = m_lesson.steps[static_cast<std::size_t>(i)];
      if (!s.set.empty()) next = applied(next, s.set, Where{m_lesson.name}, i + 1);
      todo.push_back({i, next, fromS, fromS + s.runForS});
      fromS += s.runForS;
    }
  } else {
    LessonPlan plan = planLessonStep(m_lesson, index);
    if (plan.segments.empty()) {
      m_run.reset();
      return m;
    }
    // The run's length up to the last step that continues it, so that one simulator serves
    // every step of the run (durationS changes no behaviour: it is where run() stops).
    double runEndS = plan.stepToS();
    for (std::size_t i = static_cast<std::size_t>(index) + 1;
         i < m_lesson.steps.size() && !m_lesson.steps[i].scenario; ++i)
      runEndS += m_lesson.steps[i].runForS;
    Scenario first = plan.segments.front().scenario;
    first.durationS = std::max(first.durationS, runEndS + 1);
    m_run = std::make_unique<Run>();
    m_run->sim = std::make_unique<Simulator>(first);
    m_run->sim->setSink(&m_run->sink);
    todo = std::move(plan.segments);
  }
  Run& run = *m_run;
  m.fromS = todo.back().fromS;
  m.toS = todo.back().toS;
  run.sink.start(m.fromS);
  const double startS = toSeconds(run.sim->now());
  const double totalS = m.toS - startS;
  // A cancelled or failed measurement leaves no run to continue from.
  run.step = -1;
  for (std::size_t i = 0; i < todo.size(); ++i) {
    const LessonSegment& seg = todo[i];
    // A replay starts with the scenario of the step that started the run; every later
    // segment is a change to the running scenario.
    if (i > 0 || continuing) run.sim->reconfigure(seg.scenario);
    if (i + 1 == todo.size()) m.atStart = run.sim->taskStats();
    // In pieces of a quarter of a simulated second, to say how far it is and to stop when
    // asked.
    for (double t = toSeconds(run.sim->now()); t < seg.toS;) {
      if (stop.stop_requested()) {
        m_run.reset();
        throw RunCancelled();
      }
      t = std::min(seg.toS, t + kProgressStepS);
      run.sim->runUntil(atSeconds(t));
      if (progress) progress(t - startS, totalS);
    }
    run.sim->runUntil(atSeconds(seg.toS));
  }
  run.step = index;
  run.scenario = todo.back().scenario;
  run.toS = m.toS;
  m.samples = run.sink.take();
  m.atEnd = run.sim->summary();
  for (const DeviceConfig& d : run.sim->scenario().devices) m.devices.push_back(d.name);
  m.scenario = run.sim->scenario();
  return m;
}

LessonMeasurement measureLessonStep(const Lesson& lesson, int index) {
  return LessonRunner(lesson).measure(index);
}

}  // namespace throttlelab::engine
