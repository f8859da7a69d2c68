// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: lesson files (engine::parseLesson), which teachers write by hand and share.
// Each input is either refused with a LessonError that names something, or read into a lesson
// whose every step plans (its scenario and `set` changes apply, as the window and --headless
// --lesson apply them) and whose captions and reveals fill in (every placeholder was checked
// when the lesson was read). Nothing is run: the simulation has fuzzers of its own inputs.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "fuzz_support.h"
#include "throttlelab/engine/lesson.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace throttlelab::engine;
  Lesson lesson;
  try {
    lesson = parseLesson(throttlelab::fuzz::asText(data, size), "fuzz.json");
  } catch (const LessonError& e) {
    throttlelab::fuzz::requireMessage(e.what());
    return 0;
  }
  const LessonMeasurement nothing;  // no run: every figure n/a, every placeholder filled
  for (int i = 0; i < static_cast<int>(lesson.steps.size()); ++i) {
    const LessonStep& step = lesson.steps[static_cast<std::size_t>(i)];
    try {
      const LessonPlan plan = planLessonStep(lesson, i);
      for (const LessonSegment& segment : plan.segments)
        throttlelab::fuzz::requireRoundTrip(segment.scenario);
      (void)fillLessonText(step.caption, nothing);
      if (step.question) (void)fillLessonText(step.question->reveal, nothing);
    } catch (const std::exception& e) {
      throttlelab::fuzz::fail("an accepted lesson's step cannot be planned or filled", e.what());
    }
  }
  return 0;
}
