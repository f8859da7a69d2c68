// SPDX-License-Identifier: GPL-3.0-or-later
// The lesson format's additions for checked answers (docs/lessons.md): `kernel`,
// `question.check`, `question.numeric`, `question.more`, step `terms` and `curves`; each read
// as written, each refused with the file, step and key when it is wrong; a check and a numeric
// expectation evaluated against the step's run; a lesson measured step after step continues
// its run and gives the figures a replay gives.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>

#include "throttlelab/engine/compare.h"
#include "throttlelab/engine/lesson.h"

namespace te = throttlelab::engine;

namespace {

std::string lessonWith(const std::string& step2, const std::string& top = "") {
  return R"({"name": "t", "title": "T", )" + top + R"( "steps": [
      {"caption": "one", "scenario": "ten-dd", "runFor": 10}, )" +
         step2 + "]}";
}

/// The error's "step N, key K: reason" for a lesson that must not load ("" if it loads).
std::string refusal(const std::string& json) {
  try {
    te::parseLesson(json, "test.json");
  } catch (const te::LessonError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("test.json", 0), 0u) << what;
    return what;
  }
  return "";
}

const te::LessonQuestion& questionOf(const te::Lesson& lesson, std::size_t step = 1) {
  return *lesson.steps.at(step).question;
}

}  // namespace

TEST(LessonFormat, ReadsTheKernelTermsCurvesCheckAndMore) {
  const te::Lesson lesson =
      te::parseLesson(lessonWith(R"({"caption": "the setpoint", "runFor": 5,
          "terms": {"setpoint": "Where the controller steers: {setpoint_mib} MiB.",
                    "freerun": "Below it nobody waits."},
          "curves": {"dirty": ["dirty+writeback", "setpoint"], "pause": ["median"]},
          "question": {"text": "Where?", "choices": ["below", "near"], "answer": 1,
                       "check": "freerun_mib < dirty_mib && dirty_mib < limit_mib",
                       "reveal": "At {dirty_mib} MiB.", "more": "Because {tasks:dd} writers."}})",
                                 R"("kernel": "Runs the 3.2+ model (ioless).",)"),
                      "t.json");
  EXPECT_EQ(lesson.kernel, "Runs the 3.2+ model (ioless).");
  const te::LessonStep& step = lesson.steps[1];
  ASSERT_EQ(step.terms.size(), 2u);
  // nlohmann's objects are sorted by key: the glossary is alphabetical anyway.
  EXPECT_EQ(step.terms[0].term, "freerun");
  EXPECT_EQ(step.terms[1].term, "setpoint");
  ASSERT_EQ(step.curves.size(), 2u);
  EXPECT_EQ(step.curves[0].plot, "dirty");
  EXPECT_EQ(step.curves[0].curves, (std::vector<std::string>{"dirty+writeback", "setpoint"}));
  const te::LessonQuestion& q = questionOf(lesson);
  EXPECT_EQ(q.check, "freerun_mib < dirty_mib && dirty_mib < limit_mib");
  EXPECT_EQ(q.more, "Because {tasks:dd} writers.");
  EXPECT_FALSE(q.numeric);
}

TEST(LessonFormat, ReadsANumericQuestionWithAnAbsoluteOrAPercentTolerance) {
  const te::Lesson absolute = te::parseLesson(
      lessonWith(R"({"caption": "x", "runFor": 5, "question": {"text": "How many MiB?",
          "numeric": {"figure": "pause_ms_p50:dd", "unit": "ms", "expected": 150, "tolerance": 30},
          "reveal": "r"}})"),
      "t.json");
  const te::LessonNumeric& n = *questionOf(absolute).numeric;
  EXPECT_EQ(n.figure.metric, "pause_ms_p50");
  EXPECT_EQ(n.figure.group, "dd");
  EXPECT_EQ(n.unit, "ms");
  EXPECT_DOUBLE_EQ(n.toleranceValue(), 30);
  EXPECT_TRUE(questionOf(absolute).choices.empty());
  const te::Lesson percent = te::parseLesson(
      lessonWith(R"({"caption": "x", "runFor": 5, "question": {"text": "How many MiB?",
          "numeric": {"figure": "dirty_mib", "unit": "MiB", "expected": 600, "tolerance": "15%"},
          "reveal": "r"}})"),
      "t.json");
  EXPECT_DOUBLE_EQ(questionOf(percent).numeric->toleranceValue(), 90);
  EXPECT_TRUE(te::lessonGuessWithin(*questionOf(percent).numeric, 650, 560));
  EXPECT_FALSE(te::lessonGuessWithin(*questionOf(percent).numeric, 650, 559));
  EXPECT_FALSE(te::lessonGuessWithin(*questionOf(percent).numeric, std::nan(""), 600));
}

TEST(LessonFormat, EveryBadAdditionNamesTheFileStepAndKey) {
  struct Case {
    std::string step;
    std::string key;
    std::string reason;
  };
  const std::string q = R"("text": "?", "reveal": "r")";
  for (
      const Case& c : std::vector<Case>{
          {R"({"caption": "x", "question": {)" + q +
               R"(, "choices": ["a", "b"], "answer": 0, "check": "dirty_mib < "}})",
           "question.check", "ends where"},
          {R"({"caption": "x", "question": {)" + q +
               R"(, "choices": ["a", "b"], "answer": 0, "check": "dirty_mb < 5"}})",
           "question.check", "unknown figure 'dirty_mb'"},
          {R"({"caption": "x", "question": {)" + q +
               R"(, "choices": ["a", "b"], "answer": 0, "check": "pause_ms_p50:cc1 > 5"}})",
           "question.check", "no task group 'cc1'"},
          {R"({"caption": "x", "question": {)" + q +
               R"(, "choices": ["a", "b"], "answer": 0, "check": "seeks_per_s@sdz > 5"}})",
           "question.check", "no device 'sdz'"},
          {R"({"caption": "x", "question": {)" + q +
               R"(, "choices": ["a", "b"], "answer": 0, "check": "dirty_mib:dd > 5"}})",
           "question.check", "not measured per task group"},
          {R"({"caption": "x", "question": {)" + q +
               R"(, "choices": ["a", "b"], "answer": 0, "check": "runs > 5"}})",
           "question.check", "needs a task group"},
          {R"({"caption": "x", "question": {)" + q +
               R"(, "choices": ["a", "b"], "answer": 0, "check": 5}})",
           "question.check", "must be a string"},
          {R"({"caption": "x", "question": {)" + q +
               R"(, "numeric": {"figure": "dirty_mib", "unit": "MiB", "expected": 5, "tolerance": 1}, "choices": ["a", "b"]}})",
           "question.choices", "no choices"},
          {R"({"caption": "x", "question": {)" + q +
               R"(, "numeric": {"figure": "dirty_mib", "unit": "MiB", "expected": 5}}})",
           "question.numeric.tolerance", "is missing"},
          {R"({"caption": "x", "question": {)" + q +
               R"(, "numeric": {"figure": "dirty_mib", "unit": "MiB", "expected": 5, "tolerance": "lots"}}})",
           "question.numeric.tolerance", "not a percentage"},
          {R"({"caption": "x", "question": {)" + q +
               R"(, "numeric": {"figure": "dirty_mib", "unit": "MiB", "expected": 5, "tolerance": 0}}})",
           "question.numeric.tolerance", "more than 0"},
          {R"({"caption": "x", "question": {)" + q +
               R"(, "numeric": {"figure": "dirty mib", "unit": "MiB", "expected": 5, "tolerance": 1}}})",
           "question.numeric.figure", "not a figure"},
          {R"({"caption": "x", "question": {)" + q +
               R"(, "numeric": {"figure": "dirty_mib", "expected": 5, "tolerance": 1}}})",
           "question.numeric.unit", "is missing"},
          {R"({"caption": "x", "question": {)" + q +
               R"(, "numeric": {"figure": "dirty_mib", "unit": "MiB", "expected": 5, "tolerance": 1, "guess": 3}}})",
           "question.numeric.guess", "unknown key"},
          {R"({"caption": "x", "question": {)" + q +
               R"(, "choices": ["a", "b"], "answer": 0, "more": ["x"]}})",
           "question.more", "must be a string"},
          {R"({"caption": "x", "question": {)" + q +
               R"(, "choices": ["a", "b"], "answer": 0, "more": "{nothing}"}})",
           "question.more", "unknown metric"},
          {R"({"caption": "x", "terms": ["setpoint"]})", "terms", "must be an object"},
          {R"({"caption": "x", "terms": {"setpoint": ""}})", "terms.setpoint", "non-empty"},
          {R"({"caption": "x", "curves": {"disk": ["seeks/s"]}})", "curves.disk", "must be one of"},
          {R"({"caption": "x", "curves": {"memory": ["min"]}})", "curves.memory[0]",
           "did you mean 'wmark_min'"},
          {R"({"caption": "x", "curves": {"memory": []}})", "curves.memory", "at least one"},
          {R"({"caption": "{pause_ms_p50:nobody}"})", "caption", "no task group 'nobody'"},
      }) {
    SCOPED_TRACE(c.step);
    const std::string what = refusal(lessonWith(c.step));
    EXPECT_NE(what.find("step 2, key " + c.key + ":"), std::string::npos) << what;
    EXPECT_NE(what.find(c.reason), std::string::npos) << what;
  }
  const std::string kernel = refusal(lessonWith(R"({"caption": "x"})", R"("kernel": 6,)"));
  EXPECT_NE(kernel.find("key kernel: must be a string"), std::string::npos) << kernel;
}

TEST(LessonFormat, CheckAndNumericAreEvaluatedAgainstTheStepsRun) {
  // Ten dd, the second step: dirty pages sit between freerun and the limit, and the pauses of
  // the group are longer than nothing.
  const te::Lesson lesson = te::parseLesson(lessonWith(R"({"caption": "x", "runFor": 20,
          "question": {"text": "?", "choices": ["a", "b"], "answer": 1,
                       "check": "freerun_mib < dirty_mib && dirty_mib < limit_mib && pause_ms_p50:dd > 0",
                       "reveal": "r"}},
          {"caption": "y", "runFor": 5,
          "question": {"text": "?", "choices": ["a", "b"], "answer": 0,
                       "check": "dirty_mib > limit_mib", "reveal": "r"}},
          {"caption": "z", "runFor": 5,
          "question": {"text": "?", "reveal": "r",
                       "numeric": {"figure": "tasks:dd", "unit": "writers", "expected": 10,
                                   "tolerance": 0.5}}},
          {"caption": "w", "runFor": 5,
          "question": {"text": "?", "reveal": "r",
                       "numeric": {"figure": "tasks:dd", "unit": "writers", "expected": 12,
                                   "tolerance": "10%"}}})"),
                                            "t.json");
  te::LessonRunner runner(lesson);
  const te::LessonMeasurement m1 = runner.measure(1);
  const te::LessonCheckResult holds = te::checkLessonQuestion(questionOf(lesson, 1), m1);
  EXPECT_TRUE(holds.checked);
  EXPECT_TRUE(holds.holds);
  ASSERT_EQ(holds.figures.size(), 4u);
  EXPECT_EQ(holds.figures[0].first, "freerun_mib");
  EXPECT_EQ(holds.figures[0].second, te::lessonFigureValue({"freerun_mib", "", ""}, m1));
  EXPECT_EQ(holds.figures[3].first, "pause_ms_p50:dd");
  const te::LessonCheckResult fails =
      te::checkLessonQuestion(questionOf(lesson, 2), runner.measure(2));
  EXPECT_FALSE(fails.holds);
  EXPECT_EQ(fails.conditions, std::vector<std::string>{"dirty_mib > limit_mib"});
  const te::LessonCheckResult near =
      te::checkLessonQuestion(questionOf(lesson, 3), runner.measure(3));
  EXPECT_TRUE(near.holds);
  EXPECT_EQ(near.conditions.at(0), "tasks:dd within 0.50 of 10 writers");
  const te::LessonCheckResult far =
      te::checkLessonQuestion(questionOf(lesson, 4), runner.measure(4));
  EXPECT_FALSE(far.holds);  // 10 is not within 1.2 of 12
  // A question with neither is not checked, and does not hold.
  te::LessonQuestion bare = questionOf(lesson, 1);
  bare.check.clear();
  EXPECT_FALSE(te::checkLessonQuestion(bare, m1).checked);
}

TEST(LessonFormat, AStepMeasuredAfterTheOneBeforeContinuesItsRunWithTheSameFigures) {
  const te::Lesson lesson =
      te::parseLesson(lessonWith(R"({"caption": "more", "set": {"tasks[0].count": 20}, "runFor": 7},
                    {"caption": "lower", "set": {"vm.dirty_ratio": 8}, "runFor": 6},
                    {"caption": "again", "scenario": "one-dd", "runFor": 4},
                    {"caption": "on", "runFor": 3})"),
                      "t.json");
  te::LessonRunner runner(lesson);
  for (int i = 0; i < static_cast<int>(lesson.steps.size()); ++i) {
    SCOPED_TRACE("step " + std::to_string(i + 1));
    EXPECT_EQ(runner.continues(i), i == 1 || i == 2 || i == 4);
    const te::LessonMeasurement continued = runner.measure(i);
    const te::LessonMeasurement replayed = te::measureLessonStep(lesson, i);
    EXPECT_EQ(continued.fromS, replayed.fromS);
    EXPECT_EQ(continued.toS, replayed.toS);
    ASSERT_EQ(continued.samples.size(), replayed.samples.size());
    for (std::size_t k = 0; k < continued.samples.size(); ++k) {
      EXPECT_EQ(continued.samples[k].time, replayed.samples[k].time);
      EXPECT_EQ(continued.samples[k].dirtyPages, replayed.samples[k].dirtyPages);
      EXPECT_EQ(continued.samples[k].writtenPages, replayed.samples[k].writtenPages);
      EXPECT_EQ(continued.samples[k].pauseMsP50, replayed.samples[k].pauseMsP50);
    }
    EXPECT_EQ(continued.atEnd.events, replayed.atEnd.events);
    EXPECT_EQ(continued.atEnd.tasks.size(), replayed.atEnd.tasks.size());
  }
  // Going back replays; a step out of order too.
  EXPECT_FALSE(runner.continues(1));
  EXPECT_EQ(runner.measure(1).samples.size(), te::measureLessonStep(lesson, 1).samples.size());
  EXPECT_TRUE(runner.continues(2));
  // A later step continues over the steps between (run on, unmeasured, with their changes),
  // as --check measures only the question steps; not over a step that starts a scenario.
  te::LessonRunner skipping(lesson);
  skipping.measure(0);
  EXPECT_TRUE(skipping.continues(2));
  EXPECT_FALSE(skipping.continues(4));
  const te::LessonMeasurement skipped = skipping.measure(2);
  const te::LessonMeasurement replayed = te::measureLessonStep(lesson, 2);
  EXPECT_EQ(skipped.fromS, replayed.fromS);
  ASSERT_EQ(skipped.samples.size(), replayed.samples.size());
  for (std::size_t k = 0; k < skipped.samples.size(); ++k)
    EXPECT_EQ(skipped.samples[k].dirtyPages, replayed.samples[k].dirtyPages);
  EXPECT_EQ(skipped.atEnd.events, replayed.atEnd.events);
  EXPECT_EQ(skipped.scenario.vm.dirtyRatio, replayed.scenario.vm.dirtyRatio);
}

TEST(LessonFormat, AMeasurementReportsProgressAndStopsWhenAsked) {
  const te::Lesson lesson =
      te::parseLesson(lessonWith(R"({"caption": "long", "runFor": 20})"), "t.json");
  te::LessonRunner runner(lesson);
  std::vector<std::pair<double, double>> seen;
  runner.measure(1, [&](double done, double total) { seen.emplace_back(done, total); });
  // From a fresh start: the first step's 10 s and this step's 20 s.
  ASSERT_GE(seen.size(), 50u);
  EXPECT_DOUBLE_EQ(seen.back().first, 30);
  EXPECT_DOUBLE_EQ(seen.back().second, 30);
  for (std::size_t i = 1; i < seen.size(); ++i) EXPECT_GT(seen[i].first, seen[i - 1].first);
  std::stop_source stop;
  int calls = 0;
  EXPECT_THROW(runner.measure(
                   1,
                   [&](double, double) {
                     if (++calls == 3) stop.request_stop();
                   },
                   stop.get_token()),
               te::RunCancelled);
  EXPECT_EQ(calls, 3);
  EXPECT_FALSE(runner.continues(2));  // a cancelled step leaves nothing to continue from
}

TEST(LessonFormat, EveryFigureIsInTheDocs) {
  std::ifstream in(THROTTLELAB_SOURCE_DIR "/docs/lessons.md");
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(doc.empty());
  for (const auto& [name, what] : te::lessonMetricNames())
    EXPECT_NE(doc.find("`" + name + "`"), std::string::npos)
        << name << " is not in docs/lessons.md";
}

TEST(LessonFormat, FiguresOfDevicesGroupsAndCgroupsComeFromTheStep) {
  const te::Lesson lesson = te::parseLesson(R"({"name": "t", "title": "T", "steps": [
      {"caption": "c", "scenario": "container-writer", "runFor": 20}]})",
                                            "t.json");
  const te::LessonMeasurement m = te::measureLessonStep(lesson, 0);
  const auto value = [&](const std::string& text) {
    return te::lessonFigureValue(te::parseLessonFigure(text), m);
  };
  const std::string device = m.devices.at(0);
  EXPECT_EQ(value("write_bw_kbps"), value("write_bw_kbps@" + device));
  EXPECT_GT(value("write_bw_kbps"), 0);
  EXPECT_GT(value("wb_share_pct"), 0);
  EXPECT_LE(value("wb_share_pct"), 100.5);
  EXPECT_GT(value("dirtyable_mib"), value("limit_mib"));
  EXPECT_NEAR(value("nr_dirty_mib") + value("nr_writeback_mib"), value("dirty_mib"),
              0.1 * value("dirty_mib"));
  // The group in the cgroup has its domain's figures; the other has none.
  std::string boxed, host;
  for (const auto& t : m.scenario.tasks) (t.cgroup.empty() ? host : boxed) = t.name;
  ASSERT_FALSE(boxed.empty());
  ASSERT_FALSE(host.empty());
  EXPECT_GT(value("cgroup_limit_mib:" + boxed), 0);
  EXPECT_LT(value("cgroup_limit_mib:" + boxed), value("limit_mib"));
  EXPECT_TRUE(std::isnan(value("cgroup_limit_mib:" + host)));
  // A group's rate over the step: what its tasks dirtied, per task and second.
  double dirtied = 0;
  int tasks = 0;
  for (const auto& t : m.atEnd.tasks)
    if (t.info.name == boxed) dirtied += static_cast<double>(t.dirtiedPages) / 256, ++tasks;
  EXPECT_NEAR(value("dirtied_mibps:" + boxed), dirtied / tasks / 20, 1e-9);
  EXPECT_GT(value("paused_pct:" + boxed), 0);
  EXPECT_LE(value("paused_pct:" + boxed), 100);
}
