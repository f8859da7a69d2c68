// SPDX-License-Identifier: GPL-3.0-or-later
// The Experiments menu: it lists the seed experiments, loads the telling case live, runs the
// experiment in the background into a report (rows and verdicts), saves it, and cancel or a
// failure leave the window usable with a clear message.
#include <gtest/gtest.h>

#include <QAction>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QListWidget>
#include <QMenu>
#include <QPushButton>

#include "experiment_job.h"
#include "experiment_panel.h"
#include "experiment_report_model.h"
#include "live_controller.h"
#include "window_parts.h"
#include "window_rig.h"

namespace throttlelab::ui {
namespace {

using test::part;
using test::partPtr;

using test::waitFor;
using test::WindowRig;

QStringList menuExperiments(const MainWindow& w) {
  QStringList names;
  for (QAction* a : partPtr<QMenu>(w, "experimentsMenu")->actions())
    if (a->data().isValid()) names << a->data().toString();
  return names;
}

TEST(ExperimentsMenu, ListsTheThreeExperimentsWithTitles) {
  WindowRig rig;
  EXPECT_EQ(menuExperiments(*rig.window), (QStringList{"morton2003", "wu2010", "arcangeli2002"}));
  for (QAction* a : partPtr<QMenu>(*rig.window, "experimentsMenu")->actions())
    if (a->data().isValid()) {
      EXPECT_TRUE(a->text().contains(QStringLiteral(" — ")));
    }
}

TEST(ExperimentsMenu, PicksTheTellingCaseOfEachExperiment) {
  const std::map<std::string, std::string> expected = {
      {"morton2003", "legacy-2.6.0-rt-break, 512 MiB, SCHED_FIFO"},
      {"wu2010", "10dd ioless"},
      {"arcangeli2002", "-j75"}};
  for (const auto& [name, caseName] : expected) {
    const auto e = engine::makeExperiment(name);
    ASSERT_TRUE(e);
    const engine::ExperimentCase* c = MainWindow::liveCase(*e);
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->name, caseName);
  }
}

TEST(ExperimentsMenu, EveryExperimentNamesALiveCaseItHasInBothForms) {
  for (const std::string& name : engine::experimentNames())
    for (const bool quick : {false, true}) {
      const auto e = engine::makeExperiment(name, quick);
      ASSERT_TRUE(e);
      const engine::ExperimentCase* c = MainWindow::liveCase(*e);
      ASSERT_NE(c, nullptr);
      // The one it names, not the fallback.
      EXPECT_EQ(c->name, e->liveCase) << name << (quick ? " (quick)" : "");
    }
}

TEST(ExperimentsMenu, QuickRunGivesAReportWithRowsAndVerdicts) {
  WindowRig rig;
  MainWindow& w = *rig.window;
  ASSERT_TRUE(w.runExperiment(QStringLiteral("morton2003"), true, 1));
  // The telling case runs live meanwhile.
  EXPECT_EQ(part<LiveController>(w, "liveController").scenario().policy, "legacy-2.6.0-rt-break");
  EXPECT_TRUE(part<LiveController>(w, "liveController").isRunning());
  ExperimentPanel& panel = part<ExperimentPanel>(w, "experimentPanel");
  EXPECT_TRUE(panel.isRunning());
  ASSERT_TRUE(waitFor([&] { return !panel.isRunning(); }));

  const ExperimentReportModel& model = panel.model();
  ASSERT_GT(model.rowCount(), 0);
  ASSERT_FALSE(model.verdicts().empty());
  EXPECT_EQ(panel.verdictList().count(), static_cast<int>(model.verdicts().size()));
  EXPECT_EQ(model.columnCount(), ExperimentReportModel::ColumnCount);
  EXPECT_EQ(model.headerData(ExperimentReportModel::Simulated, Qt::Horizontal).toString(),
            QStringLiteral("simulated (min–max)"));
  EXPECT_FALSE(model.index(0, ExperimentReportModel::Case).data().toString().isEmpty());
  EXPECT_TRUE(panel.saveButton()->isEnabled());
  EXPECT_TRUE(rig.notifier.messages.isEmpty()) << rig.notifier.messages.join('\n').toStdString();

  const QString md = rig.path(QStringLiteral("report.md"));
  ASSERT_EQ(panel.saveReport(md), QString());
  QFile mdFile(md);
  ASSERT_TRUE(mdFile.open(QIODevice::ReadOnly));
  EXPECT_TRUE(mdFile.readAll().contains("morton2003"));
  const QString json = rig.path(QStringLiteral("report.json"));
  ASSERT_EQ(panel.saveReport(json), QString());
  QFile jsonFile(json);
  ASSERT_TRUE(jsonFile.open(QIODevice::ReadOnly));
  const QJsonObject doc = QJsonDocument::fromJson(jsonFile.readAll()).object();
  EXPECT_EQ(doc.value("experiment").toString(), QStringLiteral("morton2003"));
  EXPECT_FALSE(doc.value("verdicts").toArray().isEmpty());
}

TEST(ExperimentsMenu, CancelLeavesNoReportAndTheWindowUsable) {
  WindowRig rig;
  MainWindow& w = *rig.window;
  ExperimentPanel& panel = part<ExperimentPanel>(w, "experimentPanel");
  bool cancelled = false;
  QObject::connect(&panel.job(), &ExperimentJob::cancelled, [&] { cancelled = true; });
  ASSERT_TRUE(w.runExperiment(QStringLiteral("arcangeli2002"), true, 3));
  panel.cancelButton()->click();  // before the first of its nine runs can finish
  ASSERT_TRUE(waitFor([&] { return !panel.isRunning(); }));
  EXPECT_TRUE(cancelled);
  EXPECT_EQ(panel.model().rowCount(), 0);
  EXPECT_FALSE(panel.saveButton()->isEnabled());
  EXPECT_TRUE(panel.statusText().contains(QStringLiteral("Cancelled")));
  EXPECT_TRUE(rig.notifier.messages.isEmpty());

  // Usable afterwards: another run completes.
  ASSERT_TRUE(w.runExperiment(QStringLiteral("morton2003"), true, 1));
  ASSERT_TRUE(waitFor([&] { return !panel.isRunning(); }));
  EXPECT_GT(panel.model().rowCount(), 0);
}

TEST(ExperimentsMenu, AFailingExperimentGivesAClearMessage) {
  WindowRig rig;
  ExperimentPanel& panel = part<ExperimentPanel>(*rig.window, "experimentPanel");
  auto broken = engine::makeExperiment("morton2003", true);
  ASSERT_TRUE(broken);
  broken->cases.front().scenario.devices.clear();  // invalid: no device to write to
  panel.run(*broken, 1);
  ASSERT_TRUE(waitFor([&] { return !panel.isRunning(); }));
  ASSERT_EQ(rig.notifier.messages.size(), 1);
  EXPECT_TRUE(rig.notifier.messages.front().startsWith(QStringLiteral("Experiment failed")));
  EXPECT_EQ(panel.model().rowCount(), 0);
  EXPECT_TRUE(panel.statusText().contains(QStringLiteral("failed")));
}

TEST(ExperimentsMenu, UnknownNameIsRefused) {
  WindowRig rig;
  EXPECT_FALSE(rig.window->runExperiment(QStringLiteral("nosuch")));
  EXPECT_EQ(rig.notifier.messages.size(), 1);
}

}  // namespace
}  // namespace throttlelab::ui
