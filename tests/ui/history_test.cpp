// SPDX-License-Identifier: GPL-3.0-or-later
// The GUI-side histories: fixed windows of simulated time, and "everything" kept bounded.
#include <gtest/gtest.h>

#include <algorithm>

#include "sample_history.h"
#include "task_trace_history.h"

namespace throttlelab::ui {
namespace {

engine::Sample at(double t, double pauseMax = 0) {
  engine::Sample s;
  s.time = engine::atSeconds(t);
  s.pauseMsMax = pauseMax;
  s.dirtiedPages = static_cast<engine::Pages>(t * 100);
  return s;
}

TEST(SampleHistory, KeepsOnlyTheLastSixtySeconds) {
  SampleHistory h;
  h.setWindow(HistoryWindow::Last60s);
  for (int i = 0; i <= 1000; ++i) h.append(at(i * 0.1));
  EXPECT_DOUBLE_EQ(h.lastTimeS(), 100.0);
  EXPECT_GE(h.firstTimeS(), 40.0 - 1e-9);
  EXPECT_LT(h.firstTimeS(), 40.2);
}

TEST(SampleHistory, NarrowingTheWindowTrimsAtOnce) {
  SampleHistory h;
  h.setWindow(HistoryWindow::Everything);
  for (int i = 0; i <= 2000; ++i) h.append(at(i * 0.1));
  EXPECT_DOUBLE_EQ(h.firstTimeS(), 0.0);
  h.setWindow(HistoryWindow::Last60s);
  EXPECT_GE(h.firstTimeS(), 140.0 - 1e-9);
}

TEST(SampleHistory, EverythingStaysBoundedAndKeepsTheLongestPause) {
  SampleHistory h(1000);
  h.setWindow(HistoryWindow::Everything);
  bool decimated = false;
  for (int i = 0; i < 5000; ++i) decimated |= h.append(at(i * 0.1, i == 7 ? 180.0 : 5.0));
  EXPECT_TRUE(decimated);
  EXPECT_LE(h.size(), 1000u);
  EXPECT_GT(h.decimations(), 0);
  EXPECT_DOUBLE_EQ(h.firstTimeS(), 0.0);  // nothing dropped, only coarser
  double longest = 0;
  for (const auto& s : h) longest = std::max(longest, s.pauseMsMax);
  EXPECT_EQ(longest, 180.0);
  // Times stay strictly increasing after folding.
  for (std::size_t i = 1; i < h.size(); ++i) EXPECT_LT(h[i - 1].time, h[i].time);
  // The newest data keeps full resolution.
  EXPECT_NEAR(engine::toSeconds(h[h.size() - 1].time - h[h.size() - 2].time), 0.1, 1e-9);
}

TEST(SampleHistory, FindsTheNearestSample) {
  SampleHistory h;
  for (int i = 0; i < 10; ++i) h.append(at(i));
  EXPECT_EQ(h.indexNear(3.4), 3u);
  EXPECT_EQ(h.indexNear(3.6), 4u);
  EXPECT_EQ(h.indexNear(-5), 0u);
  EXPECT_EQ(h.indexNear(50), 9u);
  EXPECT_EQ(h.lowerBound(4.5), 5u);
}

TEST(TaskTraceHistory, FindsPointsAndTrims) {
  TaskTraceHistory h;
  for (int i = 0; i < 10; ++i)
    h.append(engine::TaskSample{.time = engine::atSeconds(i), .task = 20, .pauseMs = i * 10.0});
  const TaskPoint* p = h.pointNear(20, 4.2, 0.5);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->pauseMs, 40.0);
  EXPECT_EQ(h.pointNear(20, 4.5, 0.2), nullptr);
  EXPECT_EQ(h.pointNear(99, 4, 1), nullptr);
  h.trimBefore(5);
  EXPECT_EQ(engine::toSeconds(h.points(20)->front().time), 5.0);
}

TEST(TaskTraceHistory, BoundedPerTask) {
  TaskTraceHistory h(64);
  bool decimated = false;
  for (int i = 0; i < 1000; ++i)
    decimated |= h.append(engine::TaskSample{
        .time = engine::atSeconds(i), .task = 1, .pauseMs = i == 3 ? 99.0 : 1.0});
  EXPECT_TRUE(decimated);
  EXPECT_LE(h.points(1)->size(), 64u);
  double longest = 0;
  for (const auto& p : *h.points(1)) longest = std::max(longest, p.pauseMs);
  EXPECT_EQ(longest, 99.0);
}

}  // namespace
}  // namespace throttlelab::ui
