// SPDX-License-Identifier: GPL-3.0-or-later
// A lesson question's `check`: C's precedence, two types, no chained comparisons, n/a makes a
// condition not hold, and whatever is not a condition is refused with where it went wrong.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "throttlelab/engine/lesson_condition.h"

namespace te = throttlelab::engine;

namespace {

bool holds(const std::string& text, const std::map<std::string, double>& figures = {}) {
  const te::LessonCondition c = te::LessonCondition::parse(text);
  return c
      .evaluate([&](const te::LessonFigure& f) {
        const auto it = figures.find(f.text());
        return it == figures.end() ? std::nan("") : it->second;
      })
      .holds;
}

std::string refusal(const std::string& text) {
  try {
    te::LessonCondition::parse(text);
  } catch (const te::LessonConditionError& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST(LessonCondition, ComparesFiguresWithCsPrecedence) {
  const std::map<std::string, double> f = {
      {"freerun_mib", 600}, {"dirty_mib", 700}, {"limit_mib", 820}};
  EXPECT_TRUE(holds("freerun_mib < dirty_mib && dirty_mib < limit_mib", f));
  EXPECT_FALSE(holds("dirty_mib < freerun_mib || dirty_mib > limit_mib", f));
  // * before +, + before <, && before ||.
  EXPECT_TRUE(holds("dirty_mib < freerun_mib + 2 * 60", f));
  EXPECT_FALSE(holds("dirty_mib < (freerun_mib + 2) * 1", f));
  EXPECT_TRUE(holds("1 > 2 && 1 > 2 || 3 > 2"));
  EXPECT_FALSE(holds("1 > 2 && (1 > 2 || 3 > 2)"));
  EXPECT_TRUE(holds("!(dirty_mib > limit_mib)", f));
  EXPECT_TRUE(holds("-dirty_mib < -freerun_mib", f));
  EXPECT_TRUE(holds("dirty_mib - freerun_mib == 100", f));
  EXPECT_TRUE(holds("dirty_mib != 699.5", f));
  EXPECT_TRUE(holds("dirty_mib / limit_mib <= 0.86 && dirty_mib >= 7e2", f));
}

TEST(LessonCondition, NamesGroupsAndDevicesAndListsEachFigureOnce) {
  const te::LessonCondition c = te::LessonCondition::parse(
      "pause_ms_p50:dd-host > 2*pause_ms_p50:dd-box && "
      "write_mibps@sdb < write_mibps@sda && pause_ms_p50:dd-host > 0");
  ASSERT_EQ(c.figures().size(), 4u);
  EXPECT_EQ(c.figures()[0].metric, "pause_ms_p50");
  EXPECT_EQ(c.figures()[0].group, "dd-host");
  EXPECT_EQ(c.figures()[2].device, "sdb");
  EXPECT_EQ(c.figures()[2].text(), "write_mibps@sdb");
  EXPECT_TRUE(holds("pause_ms_max:dd - 5 > 0", {{"pause_ms_max:dd", 6}}));
}

TEST(LessonCondition, AFigureThatIsNotMeasuredMakesItNotHold) {
  const te::LessonCondition c = te::LessonCondition::parse("to_limit_s > 1 || dirty_mib > 0");
  const auto r = c.evaluate(
      [](const te::LessonFigure& f) { return f.metric == "to_limit_s" ? std::nan("") : 5.0; });
  EXPECT_FALSE(r.holds);
  EXPECT_EQ(r.unmeasured, "to_limit_s is n/a");
  ASSERT_EQ(r.values.size(), 2u);
  EXPECT_EQ(r.values[1], 5.0);
  // 0/0 is no truth either.
  EXPECT_FALSE(holds("0 / 0 == 0 / 0"));
}

TEST(LessonCondition, RefusesWhatIsNotAConditionSayingWhere) {
  EXPECT_NE(refusal("dirty_mib").find("a number, not a condition"), std::string::npos);
  EXPECT_NE(refusal("a < b < c").find("do not chain"), std::string::npos);
  EXPECT_NE(refusal("a == b == c").find("do not chain"), std::string::npos);
  EXPECT_NE(refusal("(a < b) + 1 > 0").find("takes numbers"), std::string::npos);
  EXPECT_NE(refusal("a && b").find("takes conditions"), std::string::npos);
  EXPECT_NE(refusal("!a").find("takes conditions"), std::string::npos);
  EXPECT_NE(refusal("a < ").find("ends where"), std::string::npos);
  EXPECT_NE(refusal("(a < b").find("without its ')'"), std::string::npos);
  EXPECT_NE(refusal("a < b)").find("at character 6"), std::string::npos);
  EXPECT_NE(refusal("a < b; system(\"rm\")").find("unexpected ';"), std::string::npos);
  EXPECT_NE(refusal("a = b").find("at character 3"), std::string::npos);
  EXPECT_NE(refusal("a < 3mib").find("figures' names start with a letter"), std::string::npos);
  EXPECT_NE(refusal("a: < 1").find("task group's name must follow"), std::string::npos);
  EXPECT_NE(refusal("").find("empty"), std::string::npos);
  EXPECT_NE(refusal("1e999 > 1").find("not a number"), std::string::npos);
  EXPECT_NE(refusal("1 > 2 == 2 > 1").find("takes numbers"), std::string::npos);
}

TEST(LessonCondition, DeepOrLongInputIsRefusedNotACrash) {
  EXPECT_NE(refusal(std::string(500, '(') + "1 > 0" + std::string(500, ')')).find("nested"),
            std::string::npos);
  EXPECT_NE(refusal(std::string(500, '!') + "(1 > 0)").find("nested"), std::string::npos);
  EXPECT_NE(refusal(std::string(3000, ' ') + "1 > 0").find("longer than"), std::string::npos);
  // A long flat chain is fine and evaluates.
  std::string sum = "0";
  for (int i = 0; i < 300; ++i) sum += " + 1";
  EXPECT_TRUE(holds(sum + " == 300"));
}

TEST(LessonCondition, AFigureReferenceAloneParsesOrSaysWhy) {
  const te::LessonFigure f = te::parseLessonFigure("pause_ms_p50:rt-dd");
  EXPECT_EQ(f.metric, "pause_ms_p50");
  EXPECT_EQ(f.group, "rt-dd");
  EXPECT_TRUE(f.device.empty());
  EXPECT_EQ(te::parseLessonFigure("write_mibps@sdb").device, "sdb");
  EXPECT_THROW(te::parseLessonFigure("dirty mib"), te::LessonConditionError);
  EXPECT_THROW(te::parseLessonFigure("3dirty"), te::LessonConditionError);
  EXPECT_THROW(te::parseLessonFigure("dirty_mib:"), te::LessonConditionError);
}
