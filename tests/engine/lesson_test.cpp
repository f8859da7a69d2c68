// SPDX-License-Identifier: GPL-3.0-or-later
// Lessons: every file in resources/lessons loads and every step of it applies and runs; a bad
// lesson names its step and key; the plan and the reveal numbers come from the step's own run.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "throttlelab/engine/lesson.h"

namespace te = throttlelab::engine;

namespace {

std::vector<std::filesystem::path> lessonFiles() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry :
       std::filesystem::directory_iterator(THROTTLELAB_SOURCE_DIR "/resources/lessons"))
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::string minimalLesson(const std::string& step2) {
  return R"({"name": "t", "title": "T", "steps": [
      {"caption": "one", "scenario": "one-dd", "runFor": 2}, )" +
         step2 + "]}";
}

int failingStep(const std::string& json, std::string* key = nullptr) {
  try {
    te::parseLesson(json, "test.json");
  } catch (const te::LessonError& e) {
    if (key) *key = e.key();
    EXPECT_NE(std::string(e.what()).find("test.json"), std::string::npos) << e.what();
    return e.step();
  }
  return -1;
}

}  // namespace

TEST(Lessons, EveryFileInTheFolderIsBuiltInLoadsAndEveryStepRuns) {
  const auto files = lessonFiles();
  ASSERT_GE(files.size(), 5u);
  const auto builtins = te::builtinLessonNames();
  for (const auto& file : files) {
    SCOPED_TRACE(file.string());
    EXPECT_NE(std::find(builtins.begin(), builtins.end(), file.stem().string()), builtins.end());
    const te::Lesson lesson = te::loadLesson(file.string());
    ASSERT_FALSE(lesson.steps.empty());
    EXPECT_FALSE(lesson.title.empty());
    for (int i = 0; i < static_cast<int>(lesson.steps.size()); ++i) {
      SCOPED_TRACE("step " + std::to_string(i + 1));
      const te::LessonStep& step = lesson.steps[static_cast<std::size_t>(i)];
      if (step.view == te::LessonView::Host && !step.scenario) continue;
      const te::LessonPlan plan = te::planLessonStep(lesson, i);
      ASSERT_FALSE(plan.segments.empty());
      // The step's changes are in the scenario it runs.
      if (!step.set.empty()) {
        const te::Scenario& before =
            step.scenario ? *step.scenario : plan.segments[plan.segments.size() - 2].scenario;
        EXPECT_NE(te::scenarioToJson(before), te::scenarioToJson(plan.scenario()));
      }
      const te::LessonMeasurement m = te::measureLessonStep(lesson, i);
      EXPECT_DOUBLE_EQ(m.toS, plan.stepToS());
      if (step.runForS > 0) {
        EXPECT_FALSE(m.samples.empty());
      }
      if (step.question) {
        const std::string reveal = te::fillLessonText(step.question->reveal, m);
        EXPECT_EQ(reveal.find('{'), std::string::npos) << reveal;
        EXPECT_EQ(reveal.find("n/a"), std::string::npos) << reveal;
      }
    }
  }
}

TEST(Lessons, ShippedLessonsCoverTheSeedMailsAndTheLiveHostView) {
  const auto names = te::builtinLessonNames();
  int seedMails = 0;
  bool host = false;
  for (const auto& name : names) {
    const te::Lesson lesson = te::loadLesson(name);
    for (const auto& step : lesson.steps) {
      host = host || step.view == te::LessonView::Host;
      if (step.scenarioRef.rfind("experiment:", 0) == 0) {
        ++seedMails;
        break;
      }
    }
  }
  EXPECT_GE(seedMails, 3);
  EXPECT_TRUE(host);
}

TEST(Lessons, ABadStepIsNamedWithItsKey) {
  std::string key;
  EXPECT_EQ(
      failingStep(minimalLesson(R"({"caption": "x", "set": {"vm.dirty_ratio": "lots"}})"), &key),
      2);
  EXPECT_EQ(key.rfind("set.vm.dirty_ratio", 0), 0u) << key;
  EXPECT_EQ(
      failingStep(
          minimalLesson(
              R"({"caption": "x", "question": {"text": "q", "choices": ["a", "b"], "answer": 2, "reveal": "r"}})"),
          &key),
      2);
  EXPECT_EQ(key, "question.answer");
  EXPECT_EQ(
      failingStep(
          minimalLesson(
              R"({"caption": "x", "question": {"text": "q", "choices": ["a", "b"], "answer": 0, "reveal": "{no_such_metric}"}})"),
          &key),
      2);
  EXPECT_EQ(key, "question.reveal");
  EXPECT_EQ(failingStep(minimalLesson(R"({"caption": "x", "scenario": "no-such-scenario"})"), &key),
            2);
  EXPECT_EQ(key, "scenario");
  EXPECT_EQ(
      failingStep(minimalLesson(R"({"caption": "x", "scenario": "experiment:wu2010/no case"})"),
                  &key),
      2);
  EXPECT_EQ(key, "scenario");
  EXPECT_EQ(failingStep(minimalLesson(R"({"caption": "x", "runFor": -1})"), &key), 2);
  EXPECT_EQ(key, "runFor");
  EXPECT_EQ(failingStep(minimalLesson(R"({"caption": "x", "colour": "red"})"), &key), 2);
  EXPECT_EQ(key, "colour");
  EXPECT_EQ(
      failingStep(minimalLesson(R"({"caption": "x", "highlight": {"plot": "nowhere"}})"), &key), 2);
  EXPECT_EQ(key, "highlight.plot");
  EXPECT_EQ(failingStep(minimalLesson(R"({"caption": "x", "plots": ["dirty", "disk"]})"), &key), 2);
  EXPECT_EQ(key, "plots[1]");
  EXPECT_EQ(
      failingStep(R"({"name": "t", "title": "T", "steps": [{"caption": "no scenario"}]})", &key),
      1);
  EXPECT_EQ(key, "scenario");
  EXPECT_EQ(failingStep(R"({"name": "t", "steps": []})", &key), 0);
  EXPECT_EQ(failingStep("{ not json", &key), 0);
}

TEST(Lessons, AStepWithoutAScenarioContinuesTheRunWithItsChanges) {
  const te::Lesson lesson = te::parseLesson(
      minimalLesson(R"({"caption": "more", "set": {"tasks[0].count": 5}, "runFor": 3},
                       {"caption": "again", "set": {"vm.dirty_ratio": 7}, "runFor": 1})"),
      "t");
  const te::LessonPlan plan = te::planLessonStep(lesson, 2);
  EXPECT_EQ(plan.runStartStep, 0);
  ASSERT_EQ(plan.segments.size(), 3u);
  EXPECT_DOUBLE_EQ(plan.segments[1].fromS, 2);
  EXPECT_DOUBLE_EQ(plan.segments[2].fromS, 5);
  EXPECT_DOUBLE_EQ(plan.stepToS(), 6);
  EXPECT_EQ(plan.segments[1].scenario.tasks[0].count, 5);
  EXPECT_EQ(plan.scenario().tasks[0].count, 5);
  EXPECT_EQ(plan.scenario().vm.dirtyRatio, 7);
  EXPECT_NE(plan.segments[1].scenario.vm.dirtyRatio, 7);
}

TEST(Lessons, RevealNumbersAreTheStepsOwnRun) {
  // Ten writers against one: the same disk, so the written rate stays while the pause grows.
  const te::Lesson lesson = te::parseLesson(
      R"({"name": "t", "title": "T", "steps": [
          {"caption": "one", "scenario": "ten-dd", "set": {"tasks[0].count": 1}, "runFor": 30},
          {"caption": "ten", "set": {"tasks[0].count": 10}, "runFor": 30}]})",
      "t");
  const te::LessonMeasurement one = te::measureLessonStep(lesson, 0);
  const te::LessonMeasurement ten = te::measureLessonStep(lesson, 1);
  EXPECT_GE(ten.samples.front().time, te::atSeconds(30));
  EXPECT_EQ(te::fillLessonText("{tasks:dd}", ten), "10");
  const double onePause = std::stod(te::fillLessonText("{pause_ms_p50}", one));
  const double tenPause = std::stod(te::fillLessonText("{pause_ms_p50}", ten));
  EXPECT_GT(tenPause, onePause);
  EXPECT_THROW(te::fillLessonText("{bogus}", ten), te::LessonError);
}

TEST(Lessons, AStepCanShowAndHighlightTheDevicePlot) {
  const te::Lesson lesson =
      te::parseLesson(minimalLesson(R"({"caption": "the disk", "plots": ["bandwidth", "device"],
                        "highlight": {"plot": "device", "curves": ["seeks/s"]}})"),
                      "test.json");
  ASSERT_EQ(lesson.steps.size(), 2u);
  const te::LessonStep& step = lesson.steps[1];
  EXPECT_EQ(step.plots, (std::vector<std::string>{"bandwidth", "device"}));
  ASSERT_TRUE(step.highlight);
  EXPECT_EQ(step.highlight->plot, "device");
}

TEST(Lessons, AHighlightCurveThatItsPlotDoesNotDrawIsNamedWithItsStepAndKey) {
  // The memory plot's watermarks are wmark_min and wmark_low; "min" is no curve of it.
  const std::string json = minimalLesson(
      R"({"caption": "x", "highlight": {"plot": "memory", "curves": ["wmark_low", "min"]}})");
  std::string key;
  EXPECT_EQ(failingStep(json, &key), 2);
  EXPECT_EQ(key, "highlight.curves[1]");
  try {
    te::parseLesson(json, "test.json");
  } catch (const te::LessonError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'min'"), std::string::npos) << what;
    EXPECT_NE(what.find("memory plot"), std::string::npos) << what;
    EXPECT_NE(what.find("did you mean 'wmark_min'"), std::string::npos) << what;
  }
  // A curve of another plot is not one of this plot's either.
  EXPECT_EQ(failingStep(
                minimalLesson(
                    R"({"caption": "x", "highlight": {"plot": "pause", "curves": ["setpoint"]}})"),
                &key),
            2);
  EXPECT_EQ(key, "highlight.curves[0]");
  // Every name of every plot's list is accepted on that plot.
  for (const auto& plot : te::lessonPlotNames()) {
    for (const auto& curve : te::lessonCurveNames(plot)) {
      const std::string step = R"({"caption": "x", "highlight": {"plot": ")" + std::string(plot) +
                               R"(", "curves": [")" + std::string(curve) + R"("]}})";
      EXPECT_EQ(failingStep(minimalLesson(step)), -1) << plot << ": " << curve;
    }
  }
}

TEST(Lessons, EveryShippedHighlightNamesCurvesItsPlotDraws) {
  // Read as plain JSON, so that a name the checker would refuse is reported here by file, step
  // and name rather than as a lesson that does not load.
  int named = 0;
  for (const auto& file : lessonFiles()) {
    std::ifstream in(file);
    const auto doc = nlohmann::json::parse(in);
    const auto& steps = doc.at("steps");
    for (std::size_t i = 0; i < steps.size(); ++i) {
      if (!steps[i].contains("highlight")) continue;
      const auto& h = steps[i].at("highlight");
      const std::string plot = h.at("plot").get<std::string>();
      const auto& known = te::lessonCurveNames(plot);
      EXPECT_FALSE(known.empty()) << file << " step " << i + 1 << ": plot " << plot;
      for (const auto& c : h.value("curves", nlohmann::json::array())) {
        ++named;
        EXPECT_NE(std::find(known.begin(), known.end(), c.get<std::string>()), known.end())
            << file.filename() << " step " << i + 1 << ": no curve " << c << " in the " << plot
            << " plot";
      }
    }
  }
  EXPECT_GT(named, 5);
}

TEST(Lessons, ABadSetNamesTheLessonsFileStepAndKeyNotTheCommandLine) {
  for (const auto& [step, key, reason] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {R"({"caption": "x", "set": {"vm.dirty_ratoi": 10}})", "set.vm.dirty_ratoi",
            "did you mean 'dirty_ratio'"},
           {R"({"caption": "x", "set": {"tasks[0].count": "ten"}})", "set.tasks[0].count",
            "integer"},
           {R"({"caption": "x", "scenario": {"schemaVersion": 1, "vm": {"dirty_ratio": 500}}})",
            "scenario", ""}}) {
    SCOPED_TRACE(step);
    try {
      te::parseLesson(minimalLesson(step), "lesson.json");
      ADD_FAILURE() << "accepted";
    } catch (const te::LessonError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind("lesson.json, step 2, key " + key, 0), 0u) << what;
      EXPECT_NE(what.find(reason), std::string::npos) << what;
      EXPECT_EQ(what.find("command line"), std::string::npos) << what;
      // The place is said once, at the start.
      EXPECT_EQ(what.find("lesson.json", 1), std::string::npos) << what;
    }
  }
}

TEST(Lessons, TimeToTheLimitAndTimeOverItAreTheStepsOwnSamples) {
  // vm.dirty_bytes of 64 MiB under ten dd that hold ~750 MiB dirty: the excess must first be
  // written out, so dirty pages reach the new limit only after a while.
  const te::Lesson lesson = te::parseLesson(
      R"({"name": "t", "title": "T", "steps": [
          {"caption": "ten", "scenario": "ten-dd", "runFor": 20},
          {"caption": "64 MiB", "set": {"vm.dirty_bytes": 67108864,
                                         "vm.dirty_background_bytes": 33554432}, "runFor": 30}]})",
      "t");
  const te::LessonMeasurement m = te::measureLessonStep(lesson, 1);
  ASSERT_FALSE(m.samples.empty());
  const auto over = [](const te::Sample& s) {
    return s.dirtyPages + s.writebackPages > s.limitPages;
  };
  const auto first = std::find_if_not(m.samples.begin(), m.samples.end(), over);
  ASSERT_NE(first, m.samples.end());
  const double toLimit = te::toSeconds(first->time) - m.fromS;
  EXPECT_GT(toLimit, 1.0);  // the drain is visible
  EXPECT_NEAR(std::stod(te::fillLessonText("{to_limit_s}", m)), toLimit, 0.06);
  const double share =
      100.0 * static_cast<double>(std::count_if(m.samples.begin(), m.samples.end(), over)) /
      static_cast<double>(m.samples.size());
  EXPECT_NEAR(std::stod(te::fillLessonText("{over_limit_pct}", m)), share, 0.6);
  // A step that never reaches the limit says so rather than printing a number.
  te::LessonMeasurement never = m;
  never.samples.resize(static_cast<std::size_t>(first - m.samples.begin()));
  EXPECT_EQ(te::fillLessonText("{to_limit_s}", never), "n/a");
}
