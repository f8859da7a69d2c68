// SPDX-License-Identifier: GPL-3.0-or-later
// The compare view: two workers on the same scenario and seed under two policies, plots on a
// shared time axis with one cursor, and the delta table computed from the published summaries.
#include <gtest/gtest.h>

#include <QStackedWidget>
#include <algorithm>
#include <cmath>

#include "compare_plot.h"
#include "compare_table_model.h"
#include "compare_view.h"
#include "dashboard.h"
#include "live_controller.h"
#include "qcp.h"
#include "run_controls.h"
#include "ui_test_support.h"
#include "window_parts.h"
#include "window_rig.h"

namespace throttlelab::ui {
namespace {

using test::part;
using test::partPtr;

using test::builtin;

engine::Scenario defaultScenario(const char* policy) {
  engine::Scenario s = builtin("default");
  s.policy = policy;
  return s;
}

/// Both runs, paused, advanced to the same simulated time.
void advanceBoth(CompareView& view, double seconds) {
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(test::advance(view.run(i), seconds));
}

TEST(CompareView, TwoPoliciesGiveDifferentRunsOfTheSameScenario) {
  CompareView view;
  view.start(defaultScenario("ioless"), false);
  view.setPolicies(QStringLiteral("ioless"), QStringLiteral("perbdi-2.6.24"));
  advanceBoth(view, 8);

  const LiveController& a = view.run(0);
  const LiveController& b = view.run(1);
  EXPECT_EQ(a.scenario().policy, "ioless");
  EXPECT_EQ(b.scenario().policy, "perbdi-2.6.24");
  EXPECT_EQ(a.scenario().seed, b.scenario().seed);
  EXPECT_EQ(a.scenario().tasks, b.scenario().tasks);
  ASSERT_FALSE(a.history().empty());
  ASSERT_FALSE(b.history().empty());
  // Same scenario, different throttling: the dirty levels part within a few seconds.
  int differing = 0;
  const std::size_t n = std::min(a.history().size(), b.history().size());
  for (std::size_t i = 0; i < n; ++i) {
    const auto& sa = a.history()[i];
    const auto& sb = b.history()[i];
    if (sa.dirtyPages + sa.writebackPages != sb.dirtyPages + sb.writebackPages) ++differing;
  }
  EXPECT_GT(differing, 0);

  // Every compare plot holds both runs' curves.
  for (ComparePlot* plot : view.plots()) {
    bool sawA = false;
    bool sawB = false;
    for (int g = 0; g < plot->widget()->graphCount(); ++g) {
      const QString name = plot->widget()->graph(g)->name();
      sawA |= name.startsWith(QStringLiteral("ioless "));
      sawB |= name.startsWith(QStringLiteral("perbdi-2.6.24 "));
    }
    EXPECT_TRUE(sawA && sawB) << plotKey(plot->id()).toStdString();
  }
}

// The groups that start at 15 s and 30 s are marked on every plot of the comparison (it had
// no marks), as one mark where both runs have them; the labels go above the top plot only.
TEST(CompareView, TheRunsEventsAreMarkedOnEveryPlot) {
  CompareView view;
  view.start(defaultScenario("ioless"), false);
  view.setPolicies(QStringLiteral("ioless"), QStringLiteral("perbdi-2.6.24"));
  advanceBoth(view, 31);
  ASSERT_TRUE(test::waitFor([&] {
    for (int i = 0; i < 2; ++i) view.run(i).frame();
    const auto& marks = view.plots().front()->eventMarks();
    return std::any_of(marks.begin(), marks.end(),
                       [](const EventMark& m) { return m.timeS >= 30 && m.timeS < 30.01; });
  }));
  for (ComparePlot* plot : view.plots()) {
    const auto& marks = plot->eventMarks();
    for (double t : {0.0, 15.0, 30.0}) {
      const auto n = std::count_if(marks.begin(), marks.end(), [t](const EventMark& m) {
        return m.timeS >= t && m.timeS < t + 0.01;
      });
      EXPECT_EQ(n, 1) << plotKey(plot->id()).toStdString() << " at " << t;
    }
    EXPECT_EQ(plot->eventLabelsShown(), plot == view.plots().front());
  }
  const auto& marks = view.plots().front()->eventMarks();
  EXPECT_TRUE(std::any_of(marks.begin(), marks.end(), [](const EventMark& m) {
    return m.full == QStringLiteral("rt-dd ×1 start");
  }));
}

TEST(CompareView, DeltaTableHasTheRowsAndConsistentDeltas) {
  CompareView view;
  view.start(defaultScenario("ioless"), false);
  view.setPolicies(QStringLiteral("ioless"), QStringLiteral("perbdi-2.6.24"));
  advanceBoth(view, 5);
  ASSERT_TRUE(test::settle(view.run(0)));
  ASSERT_TRUE(test::settle(view.run(1)));
  ASSERT_TRUE(view.updateTable());

  const CompareTableModel& model = view.table();
  const QStringList expected = {"system_pct",   "write_kbps",   "avgrq_sz_sectors", "seeks_per_s",
                                "pause_ms_p50", "pause_ms_p99", "dirty_pages_p50",  "writer_kbps"};
  ASSERT_EQ(model.rowCount(), expected.size());
  for (int r = 0; r < model.rowCount(); ++r) {
    const DeltaRow& row = model.rows()[static_cast<std::size_t>(r)];
    EXPECT_EQ(row.key, expected[r]);
    EXPECT_DOUBLE_EQ(model.index(r, CompareTableModel::RunA).data(Qt::EditRole).toDouble(), row.a);
    EXPECT_DOUBLE_EQ(model.index(r, CompareTableModel::RunB).data(Qt::EditRole).toDouble(), row.b);
    const QVariant delta = model.index(r, CompareTableModel::Delta).data(Qt::EditRole);
    if (row.a != 0) {
      ASSERT_TRUE(delta.isValid()) << row.key.toStdString();
      EXPECT_NEAR(delta.toDouble(), (row.b - row.a) / std::abs(row.a) * 100, 1e-9);
    }
  }
  // The summaries are the workers' own: dirty p50 and wkB/s are those of the two runs.
  const auto sa = view.run(0).snapshot();
  const auto sb = view.run(1).snapshot();
  EXPECT_DOUBLE_EQ(model.rows()[6].a, sa->summary->dirtyPagesP50);
  EXPECT_DOUBLE_EQ(model.rows()[6].b, sb->summary->dirtyPagesP50);
  EXPECT_GT(model.rows()[1].a, 0);
  EXPECT_TRUE(model.headerData(CompareTableModel::RunA, Qt::Horizontal)
                  .toString()
                  .contains(QStringLiteral("ioless")));
}

TEST(CompareTableModel, DeltaPercentAgainstA) {
  EXPECT_DOUBLE_EQ(*CompareTableModel::deltaPct(200, 250), 25);
  EXPECT_DOUBLE_EQ(*CompareTableModel::deltaPct(200, 100), -50);
  EXPECT_DOUBLE_EQ(*CompareTableModel::deltaPct(0, 0), 0);
  EXPECT_FALSE(CompareTableModel::deltaPct(0, 3).has_value());
}

TEST(CompareView, CursorIsDrawnAtTheSameTimeInEveryPlotWithBothRuns) {
  CompareView view;
  view.start(defaultScenario("ioless"), false);
  view.setPolicies(QStringLiteral("ioless"), QStringLiteral("perbdi-2.6.24"));
  advanceBoth(view, 4);
  view.setCursorTime(2.0);
  for (ComparePlot* plot : view.plots()) {
    ASSERT_TRUE(plot->cursorTime().has_value());
    EXPECT_DOUBLE_EQ(*plot->cursorTime(), 2.0);
    EXPECT_TRUE(plot->readoutText().contains(QStringLiteral("ioless ")));
    EXPECT_TRUE(plot->readoutText().contains(QStringLiteral("perbdi-2.6.24 ")));
  }
  view.setCursorTime(std::nullopt);
  for (ComparePlot* plot : view.plots()) EXPECT_FALSE(plot->cursorTime().has_value());
}

TEST(CompareView, TheLogPauseAxisHoldsBothRunsPauses) {
  // ioless settles at pauses of tens of ms, the 2.6.24 loop at other ones: every pause point
  // of either run in view must be inside the axis, not cut off at its edge.
  CompareView view;
  view.resize(1200, 800);
  view.show();
  view.start(defaultScenario("ioless"), false);
  view.setPolicies(QStringLiteral("ioless"), QStringLiteral("perbdi-2.6.24"));
  advanceBoth(view, 40);
  view.refresh();
  ComparePlot* pauses = nullptr;
  for (ComparePlot* plot : view.plots())
    if (plot->id() == PlotId::Pauses) pauses = plot;
  ASSERT_NE(pauses, nullptr);
  QCustomPlot* w = pauses->widget();
  const QCPRange keys = w->xAxis->range();
  const QCPRange values = w->yAxis->range();
  int points = 0;
  for (int g = 0; g < w->graphCount(); ++g) {
    QCPGraph* graph = w->graph(g);
    for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it) {
      if (!keys.contains(it->key) || !(it->value > 0)) continue;
      ++points;
      EXPECT_TRUE(values.contains(it->value))
          << graph->name().toStdString() << " at " << it->key << " s: " << it->value
          << " ms outside " << values.lower << "–" << values.upper;
    }
  }
  EXPECT_GT(points, 0);
}

TEST(CompareView, PanningOnePlotMovesThemAll) {
  CompareView view;
  view.start(defaultScenario("ioless"), false);
  view.plots()[1]->widget()->xAxis->setRange(3, 7);  // as a drag would
  EXPECT_FALSE(view.followLive());
  for (ComparePlot* plot : view.plots()) {
    EXPECT_DOUBLE_EQ(plot->timeRange().first, 3);
    EXPECT_DOUBLE_EQ(plot->timeRange().second, 7);
  }
}

TEST(CompareMode, WindowSwitchesViewsAndRoutesTheRunControls) {
  test::WindowRig rig;
  MainWindow& w = *rig.window;
  part<LiveController>(w, "liveController").load(defaultScenario("ioless"));
  partPtr<QAction>(w, "compareAction")->trigger();
  ASSERT_TRUE(w.compareMode());
  auto* stack = qobject_cast<QStackedWidget*>(w.centralWidget());
  ASSERT_NE(stack, nullptr);
  EXPECT_EQ(stack->currentWidget(), &part<CompareView>(w, "compareView"));
  EXPECT_EQ(part<CompareView>(w, "compareView").policyA(), QStringLiteral("ioless"));
  EXPECT_NE(part<CompareView>(w, "compareView").policyB(),
            part<CompareView>(w, "compareView").policyA());
  EXPECT_FALSE(part<LiveController>(w, "liveController").isRunning());  // the live run waits

  part<RunControls>(w, "runControls").runAction()->trigger();  // pause: both compared runs
  EXPECT_FALSE(part<CompareView>(w, "compareView").run(0).isRunning());
  EXPECT_FALSE(part<CompareView>(w, "compareView").run(1).isRunning());

  partPtr<QAction>(w, "compareAction")->trigger();
  EXPECT_FALSE(w.compareMode());
  EXPECT_EQ(stack->currentWidget(), &part<Dashboard>(w, "dashboard"));
  EXPECT_TRUE(part<LiveController>(w, "liveController").isRunning());
  EXPECT_TRUE(rig.notifier.messages.isEmpty());
}

}  // namespace
}  // namespace throttlelab::ui
