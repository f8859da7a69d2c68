// SPDX-License-Identifier: GPL-3.0-or-later
// Sessions round-trip; bad session and scenario files give a clear message and change nothing;
// a scripted run stops at its --run-for time and exports nothing that did not load.
#include <gtest/gtest.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSpinBox>
#include <QStatusBar>
#include <QTemporaryDir>
#include <chrono>
#include <vector>

#include "dashboard.h"
#include "live_controller.h"
#include "log_slider.h"
#include "parameter_panel.h"
#include "run_controls.h"
#include "session_file.h"
#include "window_parts.h"
#include "window_rig.h"

namespace throttlelab::ui {
namespace {

using test::part;
using test::partPtr;

using test::WindowRig;

void writeFile(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  ASSERT_TRUE(f.open(QIODevice::WriteOnly));
  f.write(bytes);
}

SessionState sampleState() {
  SessionState s;
  s.scenario = test::builtin("ten-dd");
  s.scenario.vm.dirtyRatio = 33;
  s.scenario.seed = 77;
  s.historyWindow = HistoryWindow::Everything;
  s.speed = 0;
  s.running = false;
  s.visiblePlots = {PlotId::ThrottleCurve, PlotId::DirtyPages};
  s.presenter = true;
  s.unitsPages = true;
  s.followLive = false;
  s.selectedTask = 4;
  s.dashboardLayout = QByteArray("\x01\x02layout", 8);
  s.windowGeometry = QByteArray("geometry");
  s.windowState = QByteArray("state");
  return s;
}

TEST(SessionFile, RoundTripsEveryField) {
  const SessionState in = sampleState();
  const QByteArray json = QJsonDocument(SessionFile::toJson(in)).toJson();
  const auto out = SessionFile::fromJson(json, QStringLiteral("memory"));
  ASSERT_TRUE(out.state) << out.error.toStdString();
  EXPECT_EQ(*out.state, in);
  EXPECT_TRUE(SessionFile::isSession(json));
  EXPECT_EQ(QJsonDocument::fromJson(json).object().value("schemaVersion").toInt(), 1);
  EXPECT_TRUE(QJsonDocument::fromJson(json).object().value("scenario").isObject());
}

TEST(Session, SaveAndOpenRestoreTheWindow) {
  WindowRig a;
  MainWindow& w = *a.window;
  part<LiveController>(w, "liveController").setHistoryWindow(HistoryWindow::Last60s);
  part<LiveController>(w, "liveController").setSpeed(5);
  part<Dashboard>(w, "dashboard").setPlotVisible(PlotId::Memory, false);
  w.setPresenterMode(true);
  part<Dashboard>(w, "dashboard").setUnitsPages(true);
  part<Dashboard>(w, "dashboard").setFollowLive(false);
  part<ParameterPanel>(w, "parameterPanel").dirtyRatio()->setValue(30);
  ASSERT_EQ(part<LiveController>(w, "liveController").scenario().vm.dirtyRatio, 30);
  const QString path = a.path(QStringLiteral("session.json"));
  ASSERT_TRUE(w.saveSession(path));
  const SessionState saved = w.captureSession();

  WindowRig b;
  ASSERT_TRUE(b.window->openSession(path));
  EXPECT_TRUE(b.notifier.messages.isEmpty()) << b.notifier.messages.join('\n').toStdString();
  const SessionState restored = b.window->captureSession();
  EXPECT_EQ(restored.scenario, saved.scenario);
  EXPECT_EQ(restored.historyWindow, HistoryWindow::Last60s);
  EXPECT_EQ(restored.speed, 5);
  EXPECT_EQ(restored.visiblePlots, saved.visiblePlots);
  EXPECT_TRUE(restored.presenter);
  EXPECT_TRUE(restored.unitsPages);
  EXPECT_FALSE(restored.followLive);
  EXPECT_EQ(part<ParameterPanel>(*b.window, "parameterPanel").dirtyRatio()->value(), 30);
  EXPECT_EQ(part<RunControls>(*b.window, "runControls").speed(), 5);
  EXPECT_TRUE(b.settings.recentFiles().contains(QFileInfo(path).absoluteFilePath()));
}

class BadSession : public ::testing::Test {
 protected:
  /// Opens `bytes` as a session and checks that exactly one message names the file and
  /// contains `reason`, and that nothing in the window changed.
  void expectRefused(const QByteArray& bytes, const QString& reason) {
    const QString path = rig.path(QStringLiteral("bad-session.json"));
    writeFile(path, bytes);
    expectRefusedPath(path, reason);
  }
  void expectRefusedPath(const QString& path, const QString& reason) {
    const SessionState before = rig.window->captureSession();
    const std::uint64_t commands =
        part<LiveController>(*rig.window, "liveController").lastPostedSeq();
    EXPECT_FALSE(rig.window->openSession(path));
    ASSERT_EQ(rig.notifier.messages.size(), 1);
    const QString message = rig.notifier.messages.front();
    EXPECT_TRUE(message.contains(path)) << message.toStdString();
    EXPECT_TRUE(message.contains(reason)) << message.toStdString();
    const SessionState after = rig.window->captureSession();
    EXPECT_EQ(after.scenario, before.scenario);
    EXPECT_EQ(after.historyWindow, before.historyWindow);
    EXPECT_EQ(after.visiblePlots, before.visiblePlots);
    EXPECT_EQ(after.presenter, before.presenter);
    EXPECT_EQ(part<LiveController>(*rig.window, "liveController").lastPostedSeq(),
              commands);  // nothing sent
  }
  QByteArray validSession() const {
    return QJsonDocument(SessionFile::toJson(sampleState())).toJson();
  }

  WindowRig rig;
};

TEST_F(BadSession, NotJson) {
  expectRefused("{ \"schemaVersion\": 1,\n  oops", "not valid JSON");
}

TEST_F(BadSession, NotJsonNamesTheLine) {
  expectRefused("{\n\n  \"a\": ,\n}", "line 3");
}

TEST_F(BadSession, Unreadable) {
  expectRefusedPath(rig.path(QStringLiteral("missing.json")), QStringLiteral("Cannot read"));
}

TEST_F(BadSession, NewerSchema) {
  QJsonObject o = QJsonDocument::fromJson(validSession()).object();
  o["schemaVersion"] = 9;
  expectRefused(QJsonDocument(o).toJson(), "newer");
}

TEST_F(BadSession, MissingWindow) {
  QJsonObject o = QJsonDocument::fromJson(validSession()).object();
  o.remove("window");
  expectRefused(QJsonDocument(o).toJson(), "\"window\" is missing");
}

TEST_F(BadSession, UnknownPlot) {
  QJsonObject o = QJsonDocument::fromJson(validSession()).object();
  QJsonObject w = o["window"].toObject();
  w["visiblePlots"] = QJsonArray{"dirty-pages", "pie-chart"};
  o["window"] = w;
  expectRefused(QJsonDocument(o).toJson(), "pie-chart");
}

TEST_F(BadSession, InvalidEmbeddedScenarioNamesTheKey) {
  QJsonObject o = QJsonDocument::fromJson(validSession()).object();
  QJsonObject scenario = o["scenario"].toObject();
  QJsonObject vm = scenario["vm"].toObject();
  vm["dirty_ratio"] = 500;
  scenario["vm"] = vm;
  o["scenario"] = scenario;
  expectRefused(QJsonDocument(o).toJson(), "dirty_ratio");
}

TEST_F(BadSession, AScenarioFileIsNotASession) {
  expectRefused(QByteArray::fromStdString(engine::scenarioToJson(test::builtin("one-dd"))),
                "\"kind\"");
}

TEST(Scenario, BadFileNamesTheKeyAndChangesNothing) {
  WindowRig rig;
  const QString path = rig.path(QStringLiteral("bad-scenario.json"));
  QByteArray json = QByteArray::fromStdString(engine::scenarioToJson(test::builtin("one-dd")));
  json.replace("\"dirty_ratio\": 20", "\"dirty_ratio\": \"lots\"");
  ASSERT_TRUE(json.contains("\"lots\""));
  writeFile(path, json);
  const std::string before = part<LiveController>(*rig.window, "liveController").scenario().name;
  const std::uint64_t commands =
      part<LiveController>(*rig.window, "liveController").lastPostedSeq();
  EXPECT_FALSE(rig.window->openScenario(path));
  ASSERT_EQ(rig.notifier.messages.size(), 1);
  EXPECT_TRUE(rig.notifier.messages.front().contains("vm.dirty_ratio"))
      << rig.notifier.messages.front().toStdString();
  EXPECT_EQ(part<LiveController>(*rig.window, "liveController").scenario().name, before);
  EXPECT_EQ(part<LiveController>(*rig.window, "liveController").lastPostedSeq(), commands);
}

TEST(Scenario, OpensAValidFileAndRemembersIt) {
  WindowRig rig;
  const QString path = rig.path(QStringLiteral("mine.json"));
  engine::Scenario s = test::builtin("ten-dd");
  s.name = "mine";
  writeFile(path, QByteArray::fromStdString(engine::scenarioToJson(s)));
  ASSERT_TRUE(rig.window->openScenario(path));
  EXPECT_EQ(part<LiveController>(*rig.window, "liveController").scenario().name, "mine");
  EXPECT_EQ(part<ParameterPanel>(*rig.window, "parameterPanel").writers()->value(), 10);
  EXPECT_EQ(rig.settings.recentFiles().value(0), QFileInfo(path).absoluteFilePath());
}

TEST(Startup, UnloadableScenarioIsReportedInTheStatusBarAndABox) {
  GuiLaunchOptions options;
  options.scenario = "/nonexistent/scenario.json";
  WindowRig rig(options);
  ASSERT_EQ(rig.notifier.messages.size(), 1);
  EXPECT_TRUE(rig.notifier.messages.front().contains("scenario.json"));
  EXPECT_TRUE(rig.window->statusBar()->currentMessage().contains("Could not load"));
  EXPECT_FALSE(part<LiveController>(*rig.window, "liveController")
                   .scenario()
                   .tasks.empty());  // still usable
}

TEST(Startup, OpensRunningTheDefaultScenarioAtOneX) {
  WindowRig rig;
  EXPECT_EQ(part<LiveController>(*rig.window, "liveController").scenario().name, "default");
  EXPECT_TRUE(part<LiveController>(*rig.window, "liveController").isRunning());
  EXPECT_EQ(part<LiveController>(*rig.window, "liveController").speed(), 1);
  ASSERT_TRUE(test::waitFor(
      [&] { return part<LiveController>(*rig.window, "liveController").status().simTimeS > 0.2; }));
}

// A scripted run (--run-for, --quit, exports): what it loads and when it stops.

/// Starts the rig's scripted job and waits until it ended; returns the status bar's words.
QString runScripted(WindowRig& rig) {
  rig.window->show();
  rig.window->startScriptedJob();
  EXPECT_TRUE(test::waitFor([&] {
    return rig.window->statusBar()->currentMessage().startsWith(QStringLiteral("Scripted run"));
  }));
  return rig.window->statusBar()->currentMessage();
}

TEST(Scripted, ASessionSavedRunningAtFullSpeedStopsAtItsRunForTime) {
  QTemporaryDir dir;
  SessionState state = sampleState();
  state.speed = 0;  // "max"
  state.running = true;
  GuiLaunchOptions options = test::sessionRunFor(dir, QStringLiteral("max.json"), state, 2);
  options.exportCsv = dir.filePath(QStringLiteral("r.csv")).toStdString();
  WindowRig rig(options);
  // The application shows the window before the job starts; the session must not run
  // meanwhile, however long that takes.
  const auto shown = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
  test::waitFor([&] { return std::chrono::steady_clock::now() > shown; });
  EXPECT_TRUE(runScripted(rig).contains(QStringLiteral("exports written")));
  EXPECT_DOUBLE_EQ(part<LiveController>(*rig.window, "liveController").status().simTimeS, 2.0);
  QFile csv(QString::fromStdString(options.exportCsv));
  ASSERT_TRUE(csv.open(QIODevice::ReadOnly));
  const QList<QByteArray> rows = csv.readAll().trimmed().split('\n');
  EXPECT_TRUE(rows.back().startsWith("2.000,")) << rows.back().toStdString();
}

TEST(Scripted, FilesThatDoNotLoadExportNothing) {
  QTemporaryDir dir;
  const QString bad = dir.filePath(QStringLiteral("bad.json"));
  writeFile(bad, "{bad");
  const QString csv = dir.filePath(QStringLiteral("r.csv"));
  const auto base = [&] {
    GuiLaunchOptions o;
    o.runForS = 1;
    o.exportCsv = csv.toStdString();
    return o;
  };
  std::vector<std::pair<GuiLaunchOptions, QString>> cases;
  cases.emplace_back(base(), QStringLiteral("bad.json"));
  cases.back().first.scenario = bad.toStdString();
  cases.emplace_back(base(), QStringLiteral("bad.json"));
  cases.back().first.session = bad.toStdString();
  cases.emplace_back(base(), QStringLiteral("missing.txt"));
  cases.back().first.importTrace = dir.filePath(QStringLiteral("missing.txt")).toStdString();
  cases.emplace_back(base(), QStringLiteral("/dev/zero"));
  cases.back().first.importTrace = "/dev/zero";
  for (const auto& [options, named] : cases) {
    SCOPED_TRACE(named.toStdString());
    WindowRig rig(options);
    const QString status = runScripted(rig);
    EXPECT_TRUE(status.contains(QStringLiteral("not done"))) << status.toStdString();
    EXPECT_TRUE(status.contains(named)) << status.toStdString();
    EXPECT_FALSE(QFile::exists(csv)) << "the fallback scenario was exported";
    ASSERT_EQ(rig.notifier.messages.size(), 1) << rig.notifier.messages.join('\n').toStdString();
    EXPECT_TRUE(rig.notifier.messages.front().contains(named));
    QFile::remove(csv);
  }
}

}  // namespace
}  // namespace throttlelab::ui
