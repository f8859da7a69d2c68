// SPDX-License-Identifier: GPL-3.0-or-later
#include "session_file.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLocale>
#include <QRegularExpression>
#include <cmath>
#include <limits>
#include <string_view>

#include "save_file.h"
#include "throttlelab/engine/json_input.h"
#include "throttlelab/engine/scenario_keys.h"
#include "throttlelab/engine/simulator.h"

namespace throttlelab::ui {

namespace {
// The shortest text that reads back as the same double: the speed comes from a log slider.
QString speedKey(double speed) {
  return speed > 0 ? QString::number(speed, 'g', QLocale::FloatingPointShortest)
                   : QStringLiteral("max");
}

// A session is a small file; its notes can be long, not this long. (No session file is a
// device or a FIFO either: those are refused before a byte is read.)
constexpr qint64 kMaxSessionBytes = 256 * 1024 * 1024;

// What the JSON front door checks of a session (throttlelab/engine/json_input.h): nesting,
// numbers and keys given twice everywhere, and every key of every object, the embedded
// scenario's at any depth.
using engine::JsonField;
using engine::JsonKind;
constexpr JsonField kEventKeys[] = {{.key = "timeS"}, {.key = "kind"}, {.key = "text"}};
constexpr JsonField kBranchKeys[] = {
    {.key = "atS"}, {.key = "set"}, {.key = "originalS"}, {.key = "branchS"}};
constexpr JsonField kWindowKeys[] = {
    {.key = "historyWindow"},
    {.key = "speed"},
    {.key = "running"},
    {.key = "visiblePlots"},
    {.key = "presenter"},
    {.key = "unitsPages"},
    {.key = "followLive"},
    {.key = "selectedTask"},
    {.key = "dashboardLayout"},
    {.key = "geometry"},
    {.key = "state"},
    {.key = "events", .kind = JsonKind::ObjectArray, .children = kEventKeys},
    {.key = "branch", .kind = JsonKind::Object, .children = kBranchKeys}};
constexpr JsonField kRootKeys[] = {
    {.key = "schemaVersion"},
    {.key = "kind"},
    {.key = "scenario", .kind = JsonKind::Object, .children = engine::schema::kRootFields},
    {.key = "window", .kind = JsonKind::Object, .children = kWindowKeys}};
constexpr JsonField kSessionDocument{.key = {}, .kind = JsonKind::Object, .children = kRootKeys};

struct Invalid {
  QString message;
};

QString typeName(QJsonValue::Type type) {
  switch (type) {
    case QJsonValue::Bool:
      return QStringLiteral("true or false");
    case QJsonValue::Double:
      return QStringLiteral("a number");
    case QJsonValue::String:
      return QStringLiteral("a string");
    case QJsonValue::Array:
      return QStringLiteral("an array");
    case QJsonValue::Object:
      return QStringLiteral("an object");
    default:
      return QStringLiteral("a value");
  }
}

/// `o[key]` of `type`; Undefined when it is not there and not `required`.
QJsonValue typed(const QJsonObject& o, const QString& key, QJsonValue::Type type,
                 const QString& path, bool required = true) {
  const QJsonValue v = o.value(key);
  if (v.isUndefined()) {
    if (required) throw Invalid{QStringLiteral("the key \"%1\" is missing").arg(path)};
    return v;
  }
  if (v.type() != type)
    throw Invalid{QStringLiteral("\"%1\" must be %2").arg(path, typeName(type))};
  return v;
}

QJsonValue require(const QJsonObject& o, const QString& key, QJsonValue::Type type,
                   const QString& path) {
  return typed(o, key, type, path, true);
}

bool optionalBool(const QJsonObject& o, const QString& key, bool fallback) {
  const QJsonValue v =
      typed(o, key, QJsonValue::Bool, QStringLiteral("window.") + key, /*required=*/false);
  return v.isUndefined() ? fallback : v.toBool();
}

/// A base64 blob of the window's state (geometry, docks, the dashboard's layout).
QByteArray optionalBlob(const QJsonObject& o, const QString& key) {
  const QString path = QStringLiteral("window.") + key;
  const QJsonValue v = typed(o, key, QJsonValue::String, path, /*required=*/false);
  const auto decoded = QByteArray::fromBase64Encoding(v.toString().toLatin1(),
                                                      QByteArray::AbortOnBase64DecodingErrors);
  if (!decoded) throw Invalid{QStringLiteral("\"%1\" must be base64 text").arg(path)};
  return *decoded;
}

/// A time of the run in seconds: a number >= 0.
double timeAt(const QJsonObject& o, const QString& key, const QString& path) {
  const double t = require(o, key, QJsonValue::Double, path).toDouble();
  if (!std::isfinite(t) || t < 0)
    throw Invalid{QStringLiteral("\"%1\" must be a time >= 0").arg(path)};
  return t;
}

void readSpeed(const QJsonObject& w, SessionState& state) {
  const QJsonValue speed = w.value("speed");
  if (speed.isString() && speed.toString() == QLatin1String("max")) {
    state.speed = 0;
    return;
  }
  bool number = speed.isDouble();
  const double factor = speed.isString() ? speed.toString().toDouble(&number) : speed.toDouble(-1);
  if (!number || !(factor >= 0.1 && factor <= 1000))
    throw Invalid{QStringLiteral("\"window.speed\" must be between 0.1 and 1000, or \"max\"")};
  state.speed = factor;
}

void readPlots(const QJsonObject& w, SessionState& state) {
  state.visiblePlots.clear();
  const QJsonArray plots =
      require(w, "visiblePlots", QJsonValue::Array, "window.visiblePlots").toArray();
  for (qsizetype i = 0; i < plots.size(); ++i) {
    if (!plots[i].isString())
      throw Invalid{QStringLiteral("\"window.visiblePlots[%1]\" must be a string").arg(i)};
    const auto id = plotFromKey(plots[i].toString());
    if (!id)
      throw Invalid{QStringLiteral("\"window.visiblePlots\" names an unknown plot \"%1\"")
                        .arg(plots[i].toString())};
    state.visiblePlots.push_back(*id);
  }
}

void readSelectedTask(const QJsonObject& w, SessionState& state) {
  const QJsonValue v =
      typed(w, "selectedTask", QJsonValue::Double, "window.selectedTask", /*required=*/false);
  if (v.isUndefined()) return;
  const double d = v.toDouble();
  if (!(d >= -1 && d <= std::numeric_limits<int>::max()) || std::trunc(d) != d)
    throw Invalid{QStringLiteral("\"window.selectedTask\" must be a task's index, or -1 for none")};
  state.selectedTask = static_cast<int>(d);
}

void readEvents(const QJsonObject& w, SessionState& state) {
  const QJsonArray list =
      typed(w, "events", QJsonValue::Array, "window.events", /*required=*/false).toArray();
  for (qsizetype i = 0; i < list.size(); ++i) {
    const QString at = QStringLiteral("window.events[%1]").arg(i);
    if (!list[i].isObject()) throw Invalid{QStringLiteral("\"%1\" must be an object").arg(at)};
    const QJsonObject o = list[i].toObject();
    engine::RunEvent e;
    e.timeS = timeAt(o, "timeS", at + ".timeS");
    const QString kind = require(o, "kind", QJsonValue::String, at + ".kind").toString();
    const auto k = engine::runEventKindFromString(kind.toStdString());
    if (!k)
      throw Invalid{QStringLiteral("\"%1.kind\" must be start, stop, oom, reconfigure, "
                                   "policy, reset, note or adjusted, not \"%2\"")
                        .arg(at, kind)};
    e.kind = *k;
    e.text = require(o, "text", QJsonValue::String, at + ".text").toString().toStdString();
    state.events.push_back(std::move(e));
  }
}

/// The branch's changes must be ones the window could have made: each applies to the session's
/// scenario by the rules of --set (known keys, values in range), the seed stays, and the run can
/// take the result (no device added, HZ unchanged: what the running kernel refuses).
void checkBranchChanges(const SessionState& state, const std::vector<engine::Override>& changes) {
  engine::Scenario changed;
  try {
    changed = engine::parseScenario(engine::scenarioToJson(state.scenario), "branch", changes);
    engine::Simulator probe(state.scenario);
    probe.reconfigure(changed);
  } catch (const engine::ScenarioError& e) {
    // Which change did it: the one whose key the problem is at or under.
    const std::string& key = e.key();
    QString at = QStringLiteral("window.branch.set");
    for (std::size_t i = 0; i < changes.size(); ++i) {
      const std::string& p = changes[i].path;
      if (key.rfind(p, 0) == 0 &&
          (key.size() == p.size() || key[p.size()] == '.' || key[p.size()] == '['))
        at = QStringLiteral("window.branch.set[%1]").arg(i);
    }
    const std::string reason = e.reason();
    const bool named = key.empty() || std::string_view(reason).starts_with(key);
    throw Invalid{QStringLiteral("\"%1\": %2")
                      .arg(at, QString::fromStdString(named ? reason : key + ": " + reason))};
  }
  if (changed.seed != state.scenario.seed)
    throw Invalid{
        QStringLiteral("\"window.branch.set\" changes the seed, which a branch cannot: "
                       "it goes on with the random state of the run it branches from")};
}

void readBranch(const QJsonObject& w, SessionState& state) {
  const QJsonValue branch =
      typed(w, "branch", QJsonValue::Object, "window.branch", /*required=*/false);
  if (branch.isUndefined()) return;
  const QJsonObject b = branch.toObject();
  SessionBranch kept;
  kept.spec.atS = timeAt(b, "atS", "window.branch.atS");
  kept.originalS = timeAt(b, "originalS", "window.branch.originalS");
  kept.branchS = timeAt(b, "branchS", "window.branch.branchS");
  if (kept.originalS < kept.spec.atS || kept.branchS < kept.spec.atS)
    throw Invalid{QStringLiteral("\"window.branch\": originalS and branchS cannot be before atS")};
  const QJsonArray set = require(b, "set", QJsonValue::Array, "window.branch.set").toArray();
  for (qsizetype i = 0; i < set.size(); ++i) {
    const QString change = set[i].toString();
    const auto eq = change.indexOf(QLatin1Char('='));
    if (!set[i].isString() || eq <= 0)
      throw Invalid{QStringLiteral("\"window.branch.set[%1]\" must be \"KEY=VALUE\"").arg(i)};
    kept.spec.changes.push_back({change.left(eq).toStdString(), change.mid(eq + 1).toStdString()});
  }
  checkBranchChanges(state, kept.spec.changes);
  state.branch = std::move(kept);
}

void readWindow(const QJsonObject& w, SessionState& state) {
  const QString history =
      require(w, "historyWindow", QJsonValue::String, "window.historyWindow").toString();
  const auto hw = historyFromKey(history);
  if (!hw)
    throw Invalid{QStringLiteral("\"window.historyWindow\" must be 60s, 10min or everything, "
                                 "not \"%1\"")
                      .arg(history)};
  state.historyWindow = *hw;
  readSpeed(w, state);
  state.running = optionalBool(w, "running", true);
  readPlots(w, state);
  state.presenter = optionalBool(w, "presenter", false);
  state.unitsPages = optionalBool(w, "unitsPages", false);
  state.followLive = optionalBool(w, "followLive", true);
  readSelectedTask(w, state);
  state.dashboardLayout = optionalBlob(w, "dashboardLayout");
  state.windowGeometry = optionalBlob(w, "geometry");
  state.windowState = optionalBlob(w, "state");
  readEvents(w, state);
  readBranch(w, state);
}

/// schemaVersion and kind first: a newer file, or a scenario file, is told so before any key
/// of it is judged.
void checkVersionAndKind(const QJsonObject& root) {
  const int version = require(root, "schemaVersion", QJsonValue::Double, "schemaVersion").toInt();
  if (version > SessionFile::kSchemaVersion)
    throw Invalid{QStringLiteral("it was written by a newer ThrottleLab (schemaVersion %1; "
                                 "this version reads %2)")
                      .arg(version)
                      .arg(SessionFile::kSchemaVersion)};
  if (version < 1) throw Invalid{QStringLiteral("\"schemaVersion\" must be 1")};
  if (root.value("kind").toString() != QLatin1String(SessionFile::kKind))
    throw Invalid{QStringLiteral("\"kind\" must be \"%1\" (is this a scenario file? Use "
                                 "File → Open Scenario)")
                      .arg(QLatin1String(SessionFile::kKind))};
}

SessionState readSession(const QJsonObject& root, const QString& origin) {
  SessionState state;
  const QJsonObject scenario = require(root, "scenario", QJsonValue::Object, "scenario").toObject();
  try {
    state.scenario = engine::parseScenario(
        QJsonDocument(scenario).toJson(QJsonDocument::Compact).toStdString(), origin.toStdString());
  } catch (const engine::ScenarioError& e) {
    throw Invalid{QStringLiteral("the embedded scenario is invalid at \"scenario%1%2\": %3")
                      .arg(e.key().empty() ? "" : ".", QString::fromStdString(e.key()),
                           QString::fromUtf8(e.what()))};
  }
  readWindow(require(root, "window", QJsonValue::Object, "window").toObject(), state);
  return state;
}
}  // namespace

QJsonObject SessionFile::toJson(const SessionState& state) {
  QJsonObject window;
  window["historyWindow"] = historyKey(state.historyWindow);
  window["speed"] = speedKey(state.speed);
  window["running"] = state.running;
  QJsonArray plots;
  for (PlotId id : state.visiblePlots) plots.append(plotKey(id));
  window["visiblePlots"] = plots;
  window["presenter"] = state.presenter;
  window["unitsPages"] = state.unitsPages;
  window["followLive"] = state.followLive;
  window["selectedTask"] = state.selectedTask;
  window["dashboardLayout"] = QString::fromLatin1(state.dashboardLayout.toBase64());
  window["geometry"] = QString::fromLatin1(state.windowGeometry.toBase64());
  window["state"] = QString::fromLatin1(state.windowState.toBase64());
  QJsonArray events;
  for (const auto& e : state.events) {
    QJsonObject o;
    o["timeS"] = e.timeS;
    o["kind"] = QString::fromUtf8(engine::toString(e.kind).data(),
                                  static_cast<qsizetype>(engine::toString(e.kind).size()));
    o["text"] = QString::fromStdString(e.text);
    events.append(o);
  }
  window["events"] = events;
  if (state.branch) {
    QJsonArray set;
    for (const auto& c : state.branch->spec.changes)
      set.append(QString::fromStdString(c.path + "=" + c.value));
    window["branch"] = QJsonObject{{"atS", state.branch->spec.atS},
                                   {"set", set},
                                   {"originalS", state.branch->originalS},
                                   {"branchS", state.branch->branchS}};
  }

  const auto scenarioJson = engine::scenarioToJson(state.scenario);
  const QJsonDocument scenarioDoc =
      QJsonDocument::fromJson(QByteArray::fromStdString(scenarioJson));
  QJsonObject root;
  root["schemaVersion"] = kSchemaVersion;
  root["kind"] = QString::fromLatin1(kKind);
  root["scenario"] = scenarioDoc.object();
  root["window"] = window;
  return root;
}

bool SessionFile::isSession(const QByteArray& json) {
  const QJsonDocument doc = QJsonDocument::fromJson(json);
  return doc.isObject() && doc.object().value("kind").toString() == QLatin1String(kKind);
}

SessionFile::ReadResult SessionFile::fromJson(const QByteArray& json, const QString& origin) {
  std::optional<engine::JsonInputError> problem;
  try {
    engine::checkJson(std::string_view(json.constData(), static_cast<std::size_t>(json.size())),
                      kSessionDocument);
  } catch (const engine::JsonInputError& e) {
    problem = e;
  }
  if (problem && problem->kind() == engine::JsonInputError::Kind::Syntax) {
    QString reason = QString::fromStdString(problem->reason());
    reason.remove(QRegularExpression(QStringLiteral("^JSON ")));
    return {std::nullopt, QStringLiteral("%1 is not valid JSON: %2.").arg(origin, reason)};
  }
  const QJsonDocument doc = QJsonDocument::fromJson(json);
  try {
    // A newer file, or a scenario file, is told so before its keys are judged.
    if (doc.isObject() && (!problem || problem->kind() == engine::JsonInputError::Kind::UnknownKey))
      checkVersionAndKind(doc.object());
    if (problem)
      throw Invalid{problem->path().empty() ? QString::fromStdString(problem->reason())
                                            : QStringLiteral("\"%1\": %2")
                                                  .arg(QString::fromStdString(problem->path()),
                                                       QString::fromStdString(problem->reason()))};
    if (!doc.isObject())
      return {std::nullopt,
              QStringLiteral("%1 is not a session: the top level must be an object.").arg(origin)};
    return {readSession(doc.object(), origin), {}};
  } catch (const Invalid& e) {
    return {std::nullopt, QStringLiteral("%1 cannot be used: %2.").arg(origin, e.message)};
  }
}

SessionFile::ReadResult SessionFile::read(const QString& path) {
  QFile file(path);
  const QFileInfo info(path);
  if (info.exists() && !info.isFile())
    return {std::nullopt, QStringLiteral("Cannot read %1: not a regular file.").arg(path)};
  if (!file.open(QIODevice::ReadOnly))
    return {std::nullopt, QStringLiteral("Cannot read %1: %2.").arg(path, file.errorString())};
  if (file.size() > kMaxSessionBytes)
    return {std::nullopt, QStringLiteral("Cannot read %1: larger than %2 MiB; a session is a "
                                         "small JSON file.")
                              .arg(path)
                              .arg(kMaxSessionBytes / (1024 * 1024))};
  return fromJson(file.readAll(), path);
}

QString SessionFile::write(const QString& path, const SessionState& state) {
  SaveFile file(path);
  if (!file.open(QIODevice::WriteOnly))
    return QStringLiteral("Cannot write %1: %2.").arg(path, file.errorString());
  file.write(QJsonDocument(toJson(state)).toJson(QJsonDocument::Indented));
  if (!file.commit()) return QStringLiteral("Cannot write %1: %2.").arg(path, file.errorString());
  return {};
}

}  // namespace throttlelab::ui
