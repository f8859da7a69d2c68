// SPDX-License-Identifier: GPL-3.0-or-later
// The window's controls and the scenario key table cannot disagree (issue #28): every row of
// schema::kControlSpans names a key of the table, offers nothing the key's range refuses, and
// says why wherever it offers less than the whole range.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "throttlelab/engine/scenario_keys.h"

namespace schema = throttlelab::engine::schema;

TEST(ControlSpans, EveryRowNamesAKeyAndStaysInsideItsRange) {
  std::set<std::string> controls;
  for (const schema::ControlSpan& c : schema::kControlSpans) {
    SCOPED_TRACE(std::string(c.control));
    EXPECT_TRUE(controls.insert(std::string(c.control)).second) << "two rows for one control";
    const auto facts = schema::keyFacts(c.table, c.key);
    ASSERT_TRUE(facts) << c.table << "." << c.key << " is no key of the scenario format";
    EXPECT_GT(c.keyPerUnit, 0);
    EXPECT_GT(c.step, 0);
    const bool whole = c.range.lo == 0 && c.range.hi == 0;
    // A narrower span says why; the whole range needs no reason.
    EXPECT_EQ(whole, c.why.empty());
    if (whole) continue;
    EXPECT_LT(c.range.lo, c.range.hi);
    EXPECT_GE(c.range.lo * c.keyPerUnit, facts->range.lo);
    EXPECT_LE(c.range.hi * c.keyPerUnit, facts->range.hi);
    if (c.zeroToo) {
      EXPECT_LE(facts->range.lo, 0) << "0 is offered but the key refuses it";
    }
  }
  EXPECT_GE(controls.size(), 15u);
}

TEST(ControlSpans, KeyFactsAreTheTablesRows) {
  const auto ratio = schema::keyFacts("vm", "dirty_ratio");
  ASSERT_TRUE(ratio);
  EXPECT_EQ(ratio->range.hi, schema::findKey(schema::kVmKeys, "dirty_ratio")->range.hi);
  EXPECT_EQ(ratio->unit, "%");
  const auto think = schema::keyFacts("tasks", "thinkMs");
  ASSERT_TRUE(think);
  EXPECT_EQ(think->range.hi, schema::findKey(schema::kTaskKeys, "thinkMs")->range.hi);
  EXPECT_FALSE(schema::keyFacts("vm", "dirty_ratoi"));
  EXPECT_FALSE(schema::keyFacts("nosuch", "dirty_ratio"));
  EXPECT_EQ(schema::findControl("dirtyBytesMiB")->key, "dirty_bytes");
  EXPECT_EQ(schema::findControl("nosuch"), nullptr);
}
