// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Lessons (docs/lessons.md): a walk through a few runs of the simulation, one step at a time,
/// each with a caption, the scenario or the changes it applies, what to look at, and a question
/// asked before the step runs whose answer is revealed with the numbers the run measured.
/// Qt-free: the command line lists and checks them, the window plays them.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "throttlelab/engine/lesson_condition.h"
#include "throttlelab/engine/records.h"
#include "throttlelab/engine/scenario.h"

namespace throttlelab::engine {

/// What a step points at: a plot ("dirty", "curve", "pause", "bandwidth", "memory", "device"),
/// curves of it by their legend names (lessonCurveNames()), and a time range in seconds of the
/// run.
struct LessonHighlight {
  std::string plot;
  std::vector<std::string> curves;
  std::optional<double> fromS;
  std::optional<double> toS;
  bool operator==(const LessonHighlight&) const = default;
};

/// A numeric prediction: the student types a number, the reveal shows the measured figure and
/// whether the guess was within `tolerance` of it.
struct LessonNumeric {
  LessonFigure figure;  ///< what is measured ("dirty_mib", "pause_ms_p50:dd")
  std::string unit;     ///< shown beside the number box ("MiB")
  double expected = 0;  ///< what the lesson's author measured; `--check` holds the run to it
  double tolerance = 0;
  bool tolerancePercent = false;  ///< `tolerance` is a percentage of `expected`
  /// The tolerance in the figure's unit: `tolerance`, or that percentage of `expected`.
  double toleranceValue() const;
  bool operator==(const LessonNumeric&) const = default;
};

/// Predict, then reveal: asked before the step runs. Either `choices` and `answer`, or
/// `numeric`.
struct LessonQuestion {
  std::string text;
  std::vector<std::string> choices;
  int answer = 0;      ///< index into choices
  std::string reveal;  ///< may hold {metric} / {metric:group} placeholders (lessonMetricNames())
  std::string more;    ///< the rest of the answer, behind "More" (placeholders too)
  /// A condition on the step's figures that holds for the keyed choice (lesson_condition.h);
  /// empty: none.
  std::string check;
  std::optional<LessonNumeric> numeric;
  bool operator==(const LessonQuestion&) const = default;
};

/// A term a step introduces, with its definition (one or two sentences).
struct LessonTerm {
  std::string term;
  std::string definition;
  bool operator==(const LessonTerm&) const = default;
};

/// The curves of one plot a step is about (the others are faded until the student asks for
/// all of them).
struct LessonCurves {
  std::string plot;
  std::vector<std::string> curves;
  bool operator==(const LessonCurves&) const = default;
};

/// Where the step is shown: the live simulation (the default) or this machine's live view.
enum class LessonView { Simulation, Host };

struct LessonStep {
  std::string caption;
  /// The run this step starts: set when the step names a scenario, else the previous run
  /// continues. `scenarioRef` is what the file said ("ten-dd", "experiment:wu2010/10dd
  /// ioless", "(inline)").
  std::optional<Scenario> scenario;
  std::string scenarioRef;
  std::vector<Override> set;  ///< applied to the running scenario when the step begins
  double runForS = 0;         ///< simulated seconds the step runs (0: it does not run on)
  std::optional<LessonHighlight> highlight;
  std::optional<LessonQuestion> question;
  LessonView view = LessonView::Simulation;
  std::vector<std::string> plots;    ///< the plots to show (empty: leave the choice as it is)
  std::vector<LessonTerm> terms;     ///< the terms this step introduces, as the file lists them
  std::vector<LessonCurves> curves;  ///< the curves it is about (empty: all of them)
};

struct Lesson {
  std::string name;  ///< file name without .json, or the name it gives
  std::string title;
  std::string description;
  /// Which kernel the lesson's runs model and, if another, which its story is about; shown
  /// under the title.
  std::string kernel;
  std::vector<LessonStep> steps;
};

/// A lesson that cannot be used. `step()` is the 1-based step at fault (0: the lesson's own
/// keys), `key()` the key inside it ("question.answer", "set.vm.dirty_ratio"); what() is one
/// sentence naming the file, the step and the key.
class LessonError : public std::runtime_error {
 public:
  LessonError(int step, std::string key, const std::string& message)
      : std::runtime_error(message), m_step(step), m_key(std::move(key)) {}
  int step() const { return m_step; }
  const std::string& key() const { return m_key; }

 private:
  int m_step;
  std::string m_key;
};

/// Parses and checks a lesson: every scenario resolves, every `set` applies to the scenario in
/// effect at its step, every placeholder names a metric. Throws LessonError.
Lesson parseLesson(std::string_view json, std::string_view origin);
/// A lesson file, or a built-in lesson (resources/lessons/NAME.json) by name.
Lesson loadLesson(std::string_view fileOrName);
std::vector<std::string> builtinLessonNames();
/// The plots a step may show or highlight, by the names lessons use.
const std::vector<std::string_view>& lessonPlotNames();
/// The curves `highlight.curves` may name in `plot`: the legend names of the window's plot of
/// that name (the pause plot's curves of single tasks, named after their pids, are not among
/// them). Empty for a name that is not a plot.
const std::vector<std::string_view>& lessonCurveNames(std::string_view plot);
std::optional<std::string> builtinLessonJson(std::string_view name);

/// How to reach step `index` (0-based) from a fresh start: the scenario of the run it belongs
/// to, and the segments of that run up to the end of the step, each a scenario in effect from
/// `fromS` to `toS`.
struct LessonSegment {
  int step = 0;
  Scenario scenario;
  double fromS = 0;
  double toS = 0;
};
struct LessonPlan {
  int runStartStep = 0;  ///< the step that started the run
  std::vector<LessonSegment> segments;
  double stepFromS() const { return segments.empty() ? 0 : segments.back().fromS; }
  double stepToS() const { return segments.empty() ? 0 : segments.back().toS; }
  const Scenario& scenario() const { return segments.back().scenario; }
};
LessonPlan planLessonStep(const Lesson& lesson, int index);

/// What a step's run measured over the step's own time range [fromS, toS].
struct LessonMeasurement {
  double fromS = 0;
  double toS = 0;
  std::vector<Sample> samples;       ///< the samples after fromS, up to toS
  Summary atEnd;                     ///< the whole run at toS
  std::vector<std::string> devices;  ///< the devices' names, as Sample::devices orders them
  Scenario scenario;                 ///< the scenario in effect at toS
  std::vector<TaskStats> atStart;    ///< every task at fromS (for what a group did in the step)
};
/// Runs the step headless, from the start of its run (deterministic: the window's run of the
/// same step shows the same numbers).
LessonMeasurement measureLessonStep(const Lesson& lesson, int index);

/// Measures a lesson's steps one after the other as the window plays them: a step later than
/// the one measured last continues that run when neither it nor any step between starts a
/// scenario (the steps between run on unmeasured, as --check skips the steps without a
/// question); any other replays its run from the step that started it. The figures are the same
/// either way (the engine is deterministic), but a lesson of N steps costs one run, not N.
class LessonRunner {
 public:
  explicit LessonRunner(Lesson lesson);
  ~LessonRunner();
  LessonRunner(LessonRunner&&) noexcept;
  LessonRunner& operator=(LessonRunner&&) noexcept;

  const Lesson& lesson() const { return m_lesson; }
  /// Simulated seconds run so far and in all for this measurement (after each half second).
  using Progress = std::function<void(double doneS, double totalS)>;
  /// Measures step `index` (0-based). A stop request ends it with RunCancelled (compare.h),
  /// and the next measurement replays. Throws ScenarioError if the engine refuses a change.
  LessonMeasurement measure(int index, const Progress& progress = {},
                            const std::stop_token& stop = {});
  /// Whether measure(index) would continue the run it holds (rather than replay).
  bool continues(int index) const;

 private:
  struct Run;
  Lesson m_lesson;
  std::unique_ptr<Run> m_run;
};
/// The names {metric} and {metric:group} accept, with what each is.
std::vector<std::pair<std::string, std::string>> lessonMetricNames();
/// `text` with every placeholder replaced by its measured value. Throws LessonError (key
/// "question.reveal") for an unknown metric.
std::string fillLessonText(const std::string& text, const LessonMeasurement& m);
/// A figure's value over the step (NaN: the run cannot give it; shown as "n/a").
double lessonFigureValue(const LessonFigure& figure, const LessonMeasurement& m);
/// What `--check` finds for one question: its condition (or numeric expectation), the figures
/// it uses with their values, and whether it holds.
struct LessonCheckResult {
  bool checked = false;  ///< the question has a check or is numeric
  bool holds = false;
  /// The condition as written, or "dirty_mib within 60 of 610 MiB".
  std::vector<std::string> conditions;
  std::vector<std::pair<std::string, double>> figures;  ///< each figure used, with its value
  std::string unmeasured;  ///< "dirty_mib is n/a" when that is why it does not hold
};
LessonCheckResult checkLessonQuestion(const LessonQuestion& question, const LessonMeasurement& m);
/// Whether a student's guess is within the numeric question's tolerance of the measured value.
bool lessonGuessWithin(const LessonNumeric& numeric, double measured, double guess);

/// A figure as lessons print it: 3 significant digits or the integer, "n/a" for NaN.
std::string formatLessonNumber(double v);

}  // namespace throttlelab::engine
