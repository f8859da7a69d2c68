// SPDX-License-Identifier: GPL-3.0-or-later
// Every item model of the window under QAbstractItemModelTester while the window fills it:
// the live task table, the comparison's deltas, an experiment's report, and a trace's pids and
// its comparison with the simulation. The tester checks each model's answers (row counts,
// parents, data roles) and every change it signals; a broken contract is reported as a
// "FAIL!" warning, which this test counts.
#include <gtest/gtest.h>

#include <QAbstractItemModel>
#include <QAbstractItemModelTester>
#include <QAction>
#include <QLoggingCategory>
#include <QMetaObject>
#include <atomic>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "compare_view.h"
#include "experiment_panel.h"
#include "experiment_report_model.h"
#include "trace_task_model.h"
#include "trace_view.h"
#include "window_parts.h"
#include "window_rig.h"

namespace throttlelab::ui {
namespace {

using test::part;
using test::partPtr;

std::atomic<int> g_failures{0};
std::string g_firstFailure;
QtMessageHandler g_previous = nullptr;

void countFailures(QtMsgType type, const QMessageLogContext& context, const QString& message) {
  if (type != QtDebugMsg && message.contains(QStringLiteral("FAIL!")) && g_failures++ == 0)
    g_firstFailure = message.toStdString();
  if (g_previous) g_previous(type, context, message);
}

/// The window's own models (not Qt's inside combo boxes and headers), each under a tester.
std::set<std::string> testAll(MainWindow& w,
                              std::vector<std::unique_ptr<QAbstractItemModelTester>>& testers) {
  std::set<std::string> names;
  for (QAbstractItemModel* model : w.findChildren<QAbstractItemModel*>()) {
    const std::string name = model->metaObject()->className();
    if (name.rfind("throttlelab::ui::", 0) != 0) continue;
    names.insert(name);
    testers.push_back(std::make_unique<QAbstractItemModelTester>(
        model, QAbstractItemModelTester::FailureReportingMode::Warning));
  }
  return names;
}

TEST(ItemModels, EveryModelOfTheWindowKeepsTheModelContractWhileItFills) {
  g_failures = 0;
  g_previous = qInstallMessageHandler(countFailures);
  {
    test::WindowRig rig;
    MainWindow& w = *rig.window;
    std::vector<std::unique_ptr<QAbstractItemModelTester>> testers;
    const std::set<std::string> names = testAll(w, testers);
    for (const char* expected :
         {"throttlelab::ui::TaskTableModel", "throttlelab::ui::CompareTableModel",
          "throttlelab::ui::ExperimentReportModel", "throttlelab::ui::TraceTaskModel",
          "throttlelab::ui::TraceComparisonModel"})
      EXPECT_TRUE(names.count(expected)) << expected << " is not under test";

    // The live run fills the task table.
    ASSERT_TRUE(test::waitFor(
        [&] { return part<LiveController>(w, "liveController").status().simTimeS > 1.0; }));
    // The comparison fills its delta table.
    partPtr<QAction>(w, "compareAction")->trigger();
    ASSERT_TRUE(test::waitFor([&] { return part<CompareView>(w, "compareView").isActive(); }));
    test::waitFor([] { return false; }, std::chrono::seconds(2));
    partPtr<QAction>(w, "compareAction")->trigger();
    // An experiment fills its report.
    ASSERT_TRUE(w.runExperiment(QStringLiteral("morton2003"), true, 1));
    ASSERT_TRUE(
        test::waitFor([&] { return !part<ExperimentPanel>(w, "experimentPanel").isRunning(); }));
    EXPECT_GT(part<ExperimentPanel>(w, "experimentPanel").model().rowCount(), 0);
    // A trace fills its pids, and its simulation the comparison.
    w.importTrace(QStringLiteral(THROTTLELAB_TEST_DATA_DIR "/real-trace-excerpt.txt"));
    ASSERT_TRUE(test::waitFor([&] { return !part<TraceView>(w, "traceView").isImporting(); }));
    EXPECT_GT(part<TraceView>(w, "traceView").taskModel().rowCount(), 0);
    ASSERT_TRUE(part<TraceView>(w, "traceView").simulate());
    ASSERT_TRUE(test::waitFor([&] { return !part<TraceView>(w, "traceView").isSimulating(); },
                              std::chrono::seconds(300)));
    // And a new scenario empties and refills the task table.
    w.showCentralView(CentralView::Dashboard);
    ASSERT_TRUE(w.openScenario(QStringLiteral("default")));
    ASSERT_TRUE(test::waitFor(
        [&] { return part<LiveController>(w, "liveController").status().simTimeS > 0.5; }));
  }
  qInstallMessageHandler(g_previous);
  EXPECT_EQ(g_failures, 0) << g_firstFailure;
}

}  // namespace
}  // namespace throttlelab::ui
