// SPDX-License-Identifier: GPL-3.0-or-later
// Branching from the window: "Branch here" goes back to a moment of the live run and both
// futures run in the compare view. The branch must be the headless --branch-at run of the same
// scenario and keys, the original must go on as if nothing had happened, the branch point is
// marked on every plot, and sessions and exports keep and name both runs.
#include <gtest/gtest.h>

#include <QApplication>
#include <QFile>
#include <QImage>
#include <QJsonDocument>
#include <QMouseEvent>
#include <QRegularExpression>
#include <sstream>

#include "branch_controller.h"
#include "branch_spec.h"
#include "compare_plot.h"
#include "compare_view.h"
#include "dashboard.h"
#include "live_controller.h"
#include "qcp.h"
#include "session_file.h"
#include "throttlelab/engine/output.h"
#include "window_parts.h"
#include "window_rig.h"

namespace throttlelab::ui {
namespace {

using test::part;

constexpr double kBranchAtS = 5;
constexpr double kUntilS = 20;
const std::vector<engine::Override> kChange{{"vm.dirty_ratio", "10"}};

/// Every column of a sample, as the CSV writes it: two samples with equal rows are equal.
std::string row(const engine::Sample& s) {
  std::ostringstream out;
  engine::writeSampleCsvRow(out, s);
  return out.str();
}

struct Rows : engine::RecordSink {
  std::vector<std::string> rows;
  void onSample(const engine::Sample& s) override { rows.push_back(row(s)); }
};

/// What the headless --branch-at does (app/headless.cpp): run to the branch time, go on from a
/// snapshot of that moment with the changed scenario; and the run itself without a branch.
struct Headless {
  Rows original;
  Rows branch;
  Headless() {
    const engine::Scenario base = test::builtin("default");
    engine::Simulator run(base);
    Rows before;
    run.setSink(&before);
    run.runUntil(engine::atSeconds(kBranchAtS));
    engine::Simulator branched(run.snapshot());
    branched.reconfigure(engine::parseScenario(engine::scenarioToJson(base), "test", kChange));
    run.setSink(&original);
    run.runUntil(engine::atSeconds(kUntilS));
    branched.setSink(&branch);
    branched.runUntil(engine::atSeconds(kUntilS));
    original.rows.insert(original.rows.begin(), before.rows.begin(), before.rows.end());
  }
};

std::vector<std::string> rowsOf(const LiveController& c, double afterS = -1) {
  std::vector<std::string> out;
  for (const auto& s : c.history())
    if (engine::toSeconds(s.time) > afterS + 1e-9) out.push_back(row(s));
  return out;
}

/// Runs a paused run to simulated second `t`.
bool runTo(LiveController& c, double t) {
  test::settle(c);
  return test::advance(c, t - c.status().simTimeS);
}

GuiLaunchOptions scripted() {
  GuiLaunchOptions o;
  o.scenario = "default";
  o.runForS = kUntilS;  // a scripted window: paused until told, every sample kept
  return o;
}

/// A window whose live run went to 12 s and branched at 5 s with vm.dirty_ratio=10, both
/// futures then run to 20 s.
struct Branched {
  test::WindowRig rig{scripted()};
  MainWindow& window = *rig.window;
  LiveController& live = part<LiveController>(window, "liveController");
  BranchController& branch = part<BranchController>(window, "branchController");
  CompareView& compare = part<CompareView>(window, "compareView");
  QString error;

  Branched() {
    if (!runTo(live, 12)) error = QStringLiteral("the live run did not reach 12 s");
    if (error.isEmpty()) error = branch.branchHere(kBranchAtS, kChange, false);
    if (error.isEmpty() && !(runTo(compare.run(0), kUntilS) && runTo(compare.run(1), kUntilS)))
      error = QStringLiteral("the two futures did not reach %1 s").arg(kUntilS);
  }
};

TEST(Branch, FromTheWindowIsTheHeadlessBranchAndTheOriginalGoesOnUnchanged) {
  Branched b;
  ASSERT_TRUE(b.error.isEmpty()) << b.error.toStdString();
  ASSERT_TRUE(b.compare.isActive());
  const Headless expected;
  // The branch after its moment: the headless branch's rows, every column.
  EXPECT_EQ(rowsOf(b.compare.run(1), kBranchAtS), expected.branch.rows);
  // The original, from 0 (the live run's history) to 20 s: the run without any branch.
  EXPECT_EQ(rowsOf(b.compare.run(0)), expected.original.rows);
  // The change made a difference (else the two checks above could not tell the runs apart).
  EXPECT_NE(expected.branch.rows, std::vector<std::string>(expected.original.rows.begin() + 50,
                                                           expected.original.rows.end()));
  EXPECT_EQ(b.compare.run(1).scenario().vm.dirtyRatio, 10);
  EXPECT_EQ(b.compare.run(0).scenario().vm.dirtyRatio, 20);
}

TEST(Branch, ThePointIsMarkedAndTheRunsNamedOnEveryPlot) {
  Branched b;
  ASSERT_TRUE(b.error.isEmpty()) << b.error.toStdString();
  ASSERT_FALSE(b.compare.plots().empty());
  for (ComparePlot* plot : b.compare.plots()) {
    ASSERT_TRUE(plot->branchMarkTime().has_value()) << plotKey(plot->id()).toStdString();
    EXPECT_DOUBLE_EQ(*plot->branchMarkTime(), kBranchAtS);
    EXPECT_EQ(plot->branchMarkLabel().toStdString(), "branch: vm.dirty_ratio=10 at 5 s");
    QStringList names;
    for (int g = 0; g < plot->widget()->graphCount(); ++g)
      names << plot->widget()->graph(g)->name();
    // Every curve of each run, named by its run: as many of the one as of the other.
    EXPECT_EQ(names.filter(QRegularExpression(QStringLiteral("^original "))).size() * 2,
              names.size())
        << plotKey(plot->id()).toStdString();
    EXPECT_EQ(names.filter(QRegularExpression(QStringLiteral("^branch "))).size() * 2,
              names.size());
  }
  // Leaving the compare view ends the branch: no mark remains.
  b.window.setCompareMode(false);
  EXPECT_FALSE(b.branch.branch().has_value());
  for (ComparePlot* plot : b.compare.plots()) EXPECT_FALSE(plot->branchMarkTime().has_value());
}

TEST(Branch, ASessionKeepsTheBranchAndReopensIt) {
  Branched b;
  ASSERT_TRUE(b.error.isEmpty()) << b.error.toStdString();
  const SessionState saved = b.window.captureSession();
  ASSERT_TRUE(saved.branch.has_value());
  EXPECT_DOUBLE_EQ(saved.branch->spec.atS, kBranchAtS);
  EXPECT_EQ(changesText(saved.branch->spec.changes).toStdString(), "vm.dirty_ratio=10");
  EXPECT_NEAR(saved.branch->originalS, kUntilS, 0.01);
  EXPECT_NEAR(saved.branch->branchS, kUntilS, 0.01);
  // Through the file format, into another window.
  const auto read = SessionFile::fromJson(QJsonDocument(SessionFile::toJson(saved)).toJson(),
                                          QStringLiteral("session.json"));
  ASSERT_TRUE(read.state) << read.error.toStdString();
  EXPECT_EQ(read.state->branch, saved.branch);

  test::WindowRig other(scripted());
  auto& branch = part<BranchController>(*other.window, "branchController");
  auto& compare = part<CompareView>(*other.window, "compareView");
  bool restored = false;
  QString error;
  QObject::connect(&branch, &BranchController::restored, [&](const QString& e) {
    restored = true;
    error = e;
  });
  other.window->applySession(*read.state);
  ASSERT_TRUE(test::waitFor([&] {
    for (int i = 0; i < 2; ++i) compare.run(i).frame();
    part<LiveController>(*other.window, "liveController").frame();
    return restored;
  }));
  ASSERT_TRUE(error.isEmpty()) << error.toStdString();
  ASSERT_TRUE(branch.branch().has_value());
  EXPECT_EQ(*branch.branch(), saved.branch->spec);
  test::settle(compare.run(1));
  // The same branch again: its rows after the branch point are the first window's.
  EXPECT_EQ(rowsOf(compare.run(1), kBranchAtS), rowsOf(b.compare.run(1), kBranchAtS));
}

// Opening a session whose branch is far into its run can be cancelled: the run stops where it
// has got, paused, and restored() says so (the window's progress dialog calls cancelRestore()).
TEST(Branch, ReopeningALongBranchCanBeCancelled) {
  Branched b;
  ASSERT_TRUE(b.error.isEmpty()) << b.error.toStdString();
  SessionState saved = b.window.captureSession();
  ASSERT_TRUE(saved.branch.has_value());
  saved.branch->originalS = 1e6;  // far more than this test would wait for
  saved.branch->branchS = 1e6;
  test::WindowRig other(scripted());
  auto& branch = part<BranchController>(*other.window, "branchController");
  auto& live = part<LiveController>(*other.window, "liveController");
  bool restored = false;
  QString error;
  QObject::connect(&branch, &BranchController::restored, [&](const QString& e) {
    restored = true;
    error = e;
  });
  other.window->applySession(saved);
  ASSERT_TRUE(test::waitFor([&] {
    live.frame();
    const auto p = branch.restoreProgress();
    return p && p->first > 1.0;
  }));
  const auto p = branch.restoreProgress();
  ASSERT_TRUE(p.has_value());
  EXPECT_GT(p->second, 1e6);  // the run to the branch, and the branch's own
  EXPECT_FALSE(restored);
  branch.cancelRestore();
  EXPECT_TRUE(restored);
  EXPECT_TRUE(error.startsWith(QStringLiteral("cancelled"))) << error.toStdString();
  EXPECT_FALSE(branch.restoreProgress().has_value());
  EXPECT_FALSE(live.isRunningFor());
  EXPECT_FALSE(live.isRunning());
  EXPECT_FALSE(branch.branch().has_value());
  test::settle(live);
  EXPECT_LT(live.status().simTimeS, 1e6);
}

TEST(Branch, ExportsNameBothRuns) {
  Branched b;
  ASSERT_TRUE(b.error.isEmpty()) << b.error.toStdString();
  const QString png = b.rig.path(QStringLiteral("both.png"));
  ASSERT_TRUE(
      b.window.exportTo(png, {.plot = std::nullopt, .format = ExportFormat::Png1x}).isEmpty());
  const QString title = QImage(png).text(QStringLiteral("Title"));
  EXPECT_TRUE(title.contains(QStringLiteral("original"))) << title.toStdString();
  EXPECT_TRUE(title.contains(QStringLiteral("branch: vm.dirty_ratio=10 at 5 s")))
      << title.toStdString();

  const QString svg = b.rig.path(QStringLiteral("both.svg"));
  ASSERT_TRUE(
      b.window.exportTo(svg, {.plot = std::nullopt, .format = ExportFormat::Svg}).isEmpty());
  QFile svgFile(svg);
  ASSERT_TRUE(svgFile.open(QIODevice::ReadOnly));
  const QByteArray svgText = svgFile.readAll();
  EXPECT_TRUE(svgText.contains("original and branch: vm.dirty_ratio=10 at 5 s"));

  const QString csv = b.rig.path(QStringLiteral("run.csv"));
  ASSERT_TRUE(
      b.window.exportTo(csv, {.plot = std::nullopt, .format = ExportFormat::CsvAll}).isEmpty());
  QFile original(csv);
  QFile branch(BranchController::branchCsvPath(csv));
  EXPECT_EQ(BranchController::branchCsvPath(csv), b.rig.path(QStringLiteral("run-branch.csv")));
  ASSERT_TRUE(original.open(QIODevice::ReadOnly));
  ASSERT_TRUE(branch.open(QIODevice::ReadOnly));
  const QByteArray a = original.readAll();
  const QByteArray bText = branch.readAll();
  EXPECT_TRUE(a.contains("# run: original\n"));
  EXPECT_FALSE(a.contains("# branch_of:"));
  for (const char* line :
       {"# branch_of: default\n", "# branch_at_s: 5\n", "# branch_set: vm.dirty_ratio=10\n"})
    EXPECT_TRUE(bText.contains(line)) << line;
  // The branch's rows are its own: after the branch time they are not the original's.
  EXPECT_NE(a.mid(a.indexOf("time_s")), bText.mid(bText.indexOf("time_s")));
}

TEST(Branch, AChangedControlChangesTheBranchFromTheSameMoment) {
  Branched b;
  ASSERT_TRUE(b.error.isEmpty()) << b.error.toStdString();
  engine::Scenario edited = b.branch.branchScenario();
  ASSERT_EQ(edited.vm.dirtyRatio, 10);
  edited.tasks[0].count = 3;
  ASSERT_TRUE(b.branch.edit(edited).isEmpty());
  ASSERT_TRUE(b.branch.branch().has_value());
  EXPECT_DOUBLE_EQ(b.branch.branch()->atS, kBranchAtS);
  EXPECT_EQ(changesText(b.branch.branch()->changes).toStdString(),
            "vm.dirty_ratio=10, tasks[0].count=3");
  EXPECT_EQ(b.compare.run(1).scenario().tasks[0].count, 3);
  EXPECT_EQ(b.compare.run(0).scenario().tasks[0].count, 2);  // the original is untouched
}

/// A click on a time plot of the dashboard at `timeS`, with `mods` held.
void clickPlot(Dashboard& dashboard, double timeS, Qt::KeyboardModifiers mods) {
  QCustomPlot* w = dashboard.timePlot(PlotId::DirtyPages)->widget();
  w->replot(QCustomPlot::rpImmediateRefresh);  // its axis rect laid out at its size now
  const QPointF pos(w->xAxis->coordToPixel(timeS), w->axisRect()->center().y());
  for (const QEvent::Type type : {QEvent::MouseButtonPress, QEvent::MouseButtonRelease}) {
    QMouseEvent event(type, pos, w->mapToGlobal(pos), Qt::LeftButton,
                      type == QEvent::MouseButtonPress ? Qt::LeftButton : Qt::NoButton, mods);
    QApplication::sendEvent(w, &event);
  }
}

TEST(Branch, ACtrlClickOnATimePlotBranchesThereAndAPlainClickDoesNot) {
  test::WindowRig rig{scripted()};
  MainWindow& window = *rig.window;
  LiveController& live = part<LiveController>(window, "liveController");
  auto& dashboard = part<Dashboard>(window, "dashboard");
  auto& compare = part<CompareView>(window, "compareView");
  window.resize(1280, 720);
  window.show();
  ASSERT_TRUE(runTo(live, 12));
  live.frame(true, true);  // the plots laid out over the run so far
  const auto [lo, hi] = dashboard.timePlot(PlotId::DirtyPages)->timeRange();
  ASSERT_LT(lo, kBranchAtS);
  ASSERT_GT(hi, kBranchAtS);

  clickPlot(dashboard, 3, Qt::NoModifier);
  ASSERT_TRUE(dashboard.markerA().has_value());
  EXPECT_NEAR(*dashboard.markerA(), 3, 0.2);
  EXPECT_FALSE(compare.isActive());

  clickPlot(dashboard, kBranchAtS, Qt::ControlModifier);
  ASSERT_TRUE(compare.isActive());
  ASSERT_TRUE(compare.branch().has_value());
  // At the clicked moment (a sample's time), with marker A there.
  EXPECT_NEAR(compare.branch()->atS, kBranchAtS, 0.2);
  EXPECT_NEAR(*dashboard.markerA(), kBranchAtS, 0.2);
  EXPECT_TRUE(window.compareMode());
}

TEST(BranchSpec, ChangesBetweenScenariosApplyBackToTheEditedOne) {
  const engine::Scenario base = test::builtin("default");
  engine::Scenario edited = base;
  edited.vm.dirtyRatio = 12;
  edited.policy = "perbdi-2.6.24";
  edited.tasks[1].count = 4;
  edited.tasks.push_back(edited.tasks[0]);  // a list that grew is set whole
  const auto changes = scenarioChanges(base, edited);
  EXPECT_EQ(engine::parseScenario(engine::scenarioToJson(base), "test", changes), edited);
  EXPECT_TRUE(scenarioChanges(base, base).empty());
  EXPECT_EQ(changesText(scenarioChanges(base,
                                        [&] {
                                          engine::Scenario s = base;
                                          s.vm.dirtyRatio = 10;
                                          return s;
                                        }())),
            QStringLiteral("vm.dirty_ratio=10"));
}

TEST(BranchSpec, CsvLinesAreTheHeadlessOnes) {
  const BranchSpec spec{600, {{"vm.dirty_ratio", "10"}, {"tasks[0].count", "4"}}};
  EXPECT_EQ(branchCsvLines("ten-dd", spec),
            "# branch_of: ten-dd\n# branch_at_s: 600\n# branch_set: vm.dirty_ratio=10\n"
            "# branch_set: tasks[0].count=4\n");
  EXPECT_EQ(branchRunName(spec),
            QStringLiteral("branch: vm.dirty_ratio=10, tasks[0].count=4 at 600 s"));
}

}  // namespace
}  // namespace throttlelab::ui
