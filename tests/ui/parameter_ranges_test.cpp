// SPDX-License-Identifier: GPL-3.0-or-later
// The Parameters panel takes each control's range, unit, step and meaning from the scenario
// key table (issue #28): its think time and dirty_bytes once disagreed with the format
// (0.1–10,000 ms against 0–1e9; 1 TiB against 16 TiB). Each control here is compared with the
// table's row, so a change to either side shows.
#include <gtest/gtest.h>

#include <QDoubleSpinBox>
#include <QSpinBox>
#include <cmath>
#include <functional>
#include <map>
#include <string>

#include "log_slider.h"
#include "parameter_panel.h"
#include "throttlelab/engine/scenario_keys.h"

namespace throttlelab::ui {
namespace {

namespace schema = engine::schema;

struct Shown {
  double lo;
  double hi;
  double step;
  QString suffix;
  QString tip;
};

template <class Box>
Shown shownBy(const Box* box) {
  return {static_cast<double>(box->minimum()), static_cast<double>(box->maximum()),
          static_cast<double>(box->singleStep()), box->suffix(), box->toolTip()};
}

Shown shownBy(const LogSlider* slider) {
  Shown s = shownBy(slider->spinBox());
  s.tip = slider->toolTip();
  return s;
}

std::map<std::string, std::function<Shown(const ParameterPanel&)>> controls() {
  return {
      {"writers", [](const auto& p) { return shownBy(p.writers()); }},
      {"blockSize", [](const auto& p) { return shownBy(p.blockSize()); }},
      {"thinkTime", [](const auto& p) { return shownBy(p.thinkTime()); }},
      {"rtWriters", [](const auto& p) { return shownBy(p.rtWriters()); }},
      {"rtPriority", [](const auto& p) { return shownBy(p.rtPriority()); }},
      {"dirtyRatio", [](const auto& p) { return shownBy(p.dirtyRatio()); }},
      {"dirtyBytesMiB", [](const auto& p) { return shownBy(p.dirtyBytesMiB()); }},
      {"backgroundRatio", [](const auto& p) { return shownBy(p.backgroundRatio()); }},
      {"backgroundBytesMiB", [](const auto& p) { return shownBy(p.backgroundBytesMiB()); }},
      {"expireCentisecs", [](const auto& p) { return shownBy(p.expireCentisecs()); }},
      {"writebackCentisecs", [](const auto& p) { return shownBy(p.writebackCentisecs()); }},
      {"memoryMiB", [](const auto& p) { return shownBy(p.memoryMiB()); }},
      {"cpus", [](const auto& p) { return shownBy(p.cpus()); }},
      {"deviceMBps", [](const auto& p) { return shownBy(p.deviceMBps()); }},
      {"seekMs", [](const auto& p) { return shownBy(p.seekMs()); }},
  };
}

TEST(ParameterRanges, EveryControlShowsTheRangeAndMeaningOfItsKeyFromTheTable) {
  ParameterPanel panel;
  const auto all = controls();
  EXPECT_EQ(all.size(), std::size(schema::kControlSpans)) << "a control without a row, or a row "
                                                             "without a control";
  for (const schema::ControlSpan& span : schema::kControlSpans) {
    SCOPED_TRACE(std::string(span.control));
    const auto it = all.find(std::string(span.control));
    ASSERT_NE(it, all.end());
    const Shown shown = it->second(panel);
    const auto facts = schema::keyFacts(span.table, span.key);
    ASSERT_TRUE(facts);
    const bool whole = span.range.lo == 0 && span.range.hi == 0;
    const double lo = whole ? std::ceil(facts->range.lo / span.keyPerUnit) : span.range.lo;
    const double hi = whole ? std::floor(facts->range.hi / span.keyPerUnit) : span.range.hi;
    EXPECT_DOUBLE_EQ(shown.lo, span.zeroToo ? 0.0 : lo);
    EXPECT_DOUBLE_EQ(shown.hi, hi);
    const QString key = QString::fromUtf8(span.table) + u'.' + QString::fromUtf8(span.key);
    EXPECT_TRUE(shown.tip.contains(key)) << shown.tip.toStdString();
    EXPECT_FALSE(shown.tip.contains(u'`')) << "Markdown left in: " << shown.tip.toStdString();
    EXPECT_EQ(shown.tip.contains(QStringLiteral("A scenario file or --set reaches the rest")),
              !span.why.empty())
        << shown.tip.toStdString();
    const QString unit = QString::fromUtf8(span.unit.empty() ? facts->unit : span.unit);
    if (!unit.isEmpty() && !span.control.starts_with("writers")) {
      EXPECT_TRUE(shown.suffix.contains(unit) || shown.tip.contains(unit)) << unit.toStdString();
    }
    if (!std::string_view(span.control).ends_with("MBps") && span.step != 1) {
      EXPECT_DOUBLE_EQ(shown.step, span.step);
    }
  }
}

TEST(ParameterRanges, WhatTheIssueFoundDisagreeingNowFollowsTheFormat) {
  ParameterPanel panel;
  // dirty_bytes: the format's 16 TiB, in MiB (the panel offered 1 TiB).
  const double tib16 = schema::findKey(schema::kVmKeys, "dirty_bytes")->range.hi;
  EXPECT_DOUBLE_EQ(panel.dirtyBytesMiB()->maximum(), tib16 / (1024.0 * 1024.0));
  EXPECT_DOUBLE_EQ(panel.cpus()->maximum(),
                   schema::findKey(schema::kMachineKeys, "cpus")->range.hi);
  // Think time keeps a slider's span, and its tooltip says the format allows more and why.
  const QString tip = panel.thinkTime()->toolTip();
  EXPECT_TRUE(tip.contains(QStringLiteral("tasks.thinkMs"))) << tip.toStdString();
  EXPECT_TRUE(tip.contains(QStringLiteral("slider"))) << tip.toStdString();
}

}  // namespace
}  // namespace throttlelab::ui
