// SPDX-License-Identifier: GPL-3.0-or-later
// Sessions travel between machines: untrusted input (issue #27). Through the JSON front door,
// a key given twice, an unknown key, a number a double cannot hold or absurd nesting is refused
// naming the key; a field of the wrong type is refused instead of taking its default; a branch
// the window could not have made (an unknown key, a change of the seed) is refused when the
// session is read, not dropped at export; a scripted run cannot export a branch its --run-for
// never reaches.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStatusBar>
#include <QTemporaryDir>

#include "session_file.h"
#include "window_rig.h"

namespace throttlelab::ui {
namespace {

SessionState withBranch(std::vector<engine::Override> changes, double atS = 1) {
  SessionState s;
  s.scenario = test::builtin("one-dd");
  s.branch =
      SessionBranch{.spec = {atS, std::move(changes)}, .originalS = atS + 1, .branchS = atS + 1};
  return s;
}

QJsonObject sessionObject(const SessionState& s = SessionState{test::builtin("one-dd")}) {
  return SessionFile::toJson(s);
}

QByteArray bytes(const QJsonObject& o) {
  return QJsonDocument(o).toJson();
}

/// The message reading `json` gives; fails the test if it reads.
std::string refusal(const QByteArray& json) {
  const auto r = SessionFile::fromJson(json, QStringLiteral("s.json"));
  EXPECT_FALSE(r.state.has_value()) << json.left(400).toStdString();
  EXPECT_TRUE(r.error.startsWith(QStringLiteral("s.json "))) << r.error.toStdString();
  return r.error.toStdString();
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

QJsonObject withWindowKey(const QString& key, const QJsonValue& value) {
  QJsonObject o = sessionObject();
  QJsonObject w = o["window"].toObject();
  w[key] = value;
  o["window"] = w;
  return o;
}

TEST(SessionInput, AValidBranchReads) {
  const SessionState s = withBranch({{"vm.dirty_ratio", "10"}, {"tasks[0].count", "3"}});
  const auto r = SessionFile::fromJson(bytes(sessionObject(s)), QStringLiteral("s.json"));
  ASSERT_TRUE(r.state) << r.error.toStdString();
  EXPECT_EQ(r.state->branch, s.branch);
}

TEST(SessionInput, ABranchWithAnUnknownKeyIsRefusedNamingIt) {
  const std::string e = refusal(bytes(sessionObject(withBranch({{"vm.dirty_ratoi", "10"}}))));
  EXPECT_TRUE(contains(e, "window.branch.set[0]")) << e;
  EXPECT_TRUE(contains(e, "did you mean 'dirty_ratio'")) << e;
  // An object value's keys too, as --set checks them.
  const std::string inValue =
      refusal(bytes(sessionObject(withBranch({{"vm", R"({"dirty_ratoi": 5})"}}))));
  EXPECT_TRUE(contains(inValue, "vm.dirty_ratoi")) << inValue;
  // And a value out of its range.
  const std::string range = refusal(
      bytes(sessionObject(withBranch({{"vm.dirty_ratio", "10"}, {"tasks[0].count", "-4"}}))));
  EXPECT_TRUE(contains(range, "window.branch.set[1]")) << range;
}

TEST(SessionInput, ABranchThatChangesTheSeedOrWhatARunCannotChangeIsRefused) {
  const std::string seed = refusal(bytes(sessionObject(withBranch({{"seed", "5"}}))));
  EXPECT_TRUE(contains(seed, "seed")) << seed;
  const std::string hz = refusal(bytes(sessionObject(withBranch({{"machine.hz", "1000"}}))));
  EXPECT_TRUE(contains(hz, "machine.hz")) << hz;
}

TEST(SessionInput, FieldsOfTheWrongTypeAreRefusedNotDefaulted) {
  struct Case {
    QString key;
    QJsonValue value;
  };
  for (const Case& c :
       {Case{"running", "yes"}, Case{"presenter", 1}, Case{"unitsPages", "true"},
        Case{"followLive", QJsonValue(QJsonValue::Null)}, Case{"geometry", 5}, Case{"state", true},
        Case{"dashboardLayout", QJsonArray{}}, Case{"geometry", "not base64!"},
        Case{"selectedTask", "3"}, Case{"selectedTask", 2.5}, Case{"selectedTask", -7},
        Case{"visiblePlots", QJsonArray{3}}, Case{"events", "none"}, Case{"branch", 4}}) {
    SCOPED_TRACE(c.key.toStdString());
    const std::string e = refusal(bytes(withWindowKey(c.key, c.value)));
    EXPECT_TRUE(contains(e, "window." + c.key.toStdString())) << e;
  }
}

TEST(SessionInput, KeysGivenTwiceOrUnknownAreRefused) {
  QByteArray json = bytes(sessionObject());
  const QByteArray twice =
      QByteArray(json).replace("\"running\":", "\"running\": true, \"running\":");
  ASSERT_NE(twice, json);
  const std::string e = refusal(twice);
  EXPECT_TRUE(contains(e, "window.running")) << e;
  EXPECT_TRUE(contains(e, "duplicate key")) << e;

  const std::string unknown = refusal(bytes(withWindowKey("runing", false)));
  EXPECT_TRUE(contains(unknown, "window.runing")) << unknown;
  EXPECT_TRUE(contains(unknown, "did you mean 'running'")) << unknown;

  QJsonObject o = sessionObject();
  QJsonObject scenario = o["scenario"].toObject();
  QJsonObject vm = scenario["vm"].toObject();
  vm["dirty_ratoi"] = 5;
  scenario["vm"] = vm;
  o["scenario"] = scenario;
  const std::string inScenario = refusal(bytes(o));
  EXPECT_TRUE(contains(inScenario, "scenario.vm.dirty_ratoi")) << inScenario;
}

TEST(SessionInput, ANumberTooLargeOrNestingTooDeepIsRefusedNamingTheKey) {
  SessionState s{test::builtin("one-dd")};
  s.events = {engine::RunEvent{2, engine::RunEvent::Kind::Note, "look"}};
  QByteArray json = bytes(sessionObject(s));
  const QByteArray big = QByteArray(json).replace("\"timeS\": 2", "\"timeS\": 1e400");
  ASSERT_NE(big, json);
  const std::string e = refusal(big);
  EXPECT_TRUE(contains(e, "window.events[0].timeS")) << e;
  EXPECT_TRUE(contains(e, "1e400")) << e;

  const QByteArray deep = QByteArray(json).replace(
      "\"text\": \"look\"", "\"text\": " + QByteArray(100000, '[') + QByteArray(100000, ']'));
  const std::string d = refusal(deep);
  EXPECT_TRUE(contains(d, "window.events[0].text")) << d;
  EXPECT_TRUE(contains(d, "nested deeper")) << d;
}

TEST(SessionInput, OnlyARegularFileIsRead) {
  QTemporaryDir dir;
  const QString fifo = dir.filePath(QStringLiteral("fifo"));
  ASSERT_EQ(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
  const auto r = SessionFile::read(fifo);  // would block reading a FIFO nobody writes
  ASSERT_FALSE(r.state.has_value());
  EXPECT_TRUE(r.error.contains(QStringLiteral("not a regular file"))) << r.error.toStdString();
  EXPECT_FALSE(SessionFile::read(dir.path()).state.has_value());
}

TEST(SessionInput, AScriptedRunRefusesABranchItsRunForNeverReaches) {
  // A branch at 100 s of a 3 s scenario, exported after --run-for 2.5: the figure was titled
  // with the branch at 100 s.
  QTemporaryDir dir;
  SessionState state = withBranch({{"vm.dirty_ratio", "10"}}, 100);
  state.scenario.durationS = 3;
  state.running = false;
  GuiLaunchOptions options = test::sessionRunFor(dir, QStringLiteral("late.json"), state, 2.5);
  options.exportPng = dir.filePath(QStringLiteral("f.png")).toStdString();
  test::WindowRig rig(options);
  rig.window->show();
  rig.window->startScriptedJob();
  ASSERT_TRUE(test::waitFor([&] {
    return rig.window->statusBar()->currentMessage().startsWith(QStringLiteral("Scripted run"));
  }));
  const QString status = rig.window->statusBar()->currentMessage();
  EXPECT_TRUE(status.contains(QStringLiteral("not done"))) << status.toStdString();
  EXPECT_FALSE(QFile::exists(QString::fromStdString(options.exportPng)));
  ASSERT_EQ(rig.notifier.messages.size(), 1) << rig.notifier.messages.join('\n').toStdString();
  const std::string message = rig.notifier.messages.front().toStdString();
  EXPECT_TRUE(contains(message, "100")) << message;
  EXPECT_TRUE(contains(message, "--run-for")) << message;
}

}  // namespace
}  // namespace throttlelab::ui
