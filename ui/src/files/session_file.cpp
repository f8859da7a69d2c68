// SPDX-License-Identifier: GPL-3.0-or-later
#include "session_file.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLocale>
#include <cmath>

#include "save_file.h"

namespace throttlelab::ui {

namespace {
// The shortest text that reads back as the same double: the speed comes from a log slider.
QString speedKey(double speed) {
  return speed > 0 ? QString::number(speed, 'g', QLocale::FloatingPointShortest)
                   : QStringLiteral("max");
}

struct Invalid {
  QString message;
};

QJsonValue require(const QJsonObject& o, const QString& key, QJsonValue::Type type,
                   const QString& path) {
  const QJsonValue v = o.value(key);
  if (v.isUndefined()) throw Invalid{QStringLiteral("the key \"%1\" is missing").arg(path)};
  if (v.type() != type) {
    static const QHash<int, QString> names = {{QJsonValue::Bool, "true or false"},
                                              {QJsonValue::Double, "a number"},
                                              {QJsonValue::String, "a string"},
                                              {QJsonValue::Array, "an array"},
                                              {QJsonValue::Object, "an object"}};
    throw Invalid{QStringLiteral("\"%1\" must be %2").arg(path, names.value(type))};
  }
  return v;
}

QByteArray decodeBlob(const QJsonObject& o, const QString& key) {
  return QByteArray::fromBase64(o.value(key).toString().toLatin1());
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
  QJsonParseError parseError;
  const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
  if (parseError.error != QJsonParseError::NoError) {
    // Report a line number: nobody counts bytes in a text editor.
    const int line = static_cast<int>(json.left(parseError.offset).count('\n')) + 1;
    return {std::nullopt, QStringLiteral("%1 is not valid JSON: %2 (line %3).")
                              .arg(origin, parseError.errorString())
                              .arg(line)};
  }
  if (!doc.isObject())
    return {std::nullopt,
            QStringLiteral("%1 is not a session: the top level must be an object.").arg(origin)};
  try {
    const QJsonObject root = doc.object();
    const int version = require(root, "schemaVersion", QJsonValue::Double, "schemaVersion").toInt();
    if (version > kSchemaVersion)
      throw Invalid{QStringLiteral("it was written by a newer ThrottleLab (schemaVersion %1; "
                                   "this version reads %2)")
                        .arg(version)
                        .arg(kSchemaVersion)};
    if (version < 1) throw Invalid{QStringLiteral("\"schemaVersion\" must be 1")};
    if (root.value("kind").toString() != QLatin1String(kKind))
      throw Invalid{QStringLiteral("\"kind\" must be \"%1\" (is this a scenario file? Use "
                                   "File → Open Scenario)")
                        .arg(QLatin1String(kKind))};
    SessionState state;
    const QJsonObject scenario =
        require(root, "scenario", QJsonValue::Object, "scenario").toObject();
    try {
      state.scenario = engine::parseScenario(
          QJsonDocument(scenario).toJson(QJsonDocument::Compact).toStdString(),
          origin.toStdString());
    } catch (const engine::ScenarioError& e) {
      throw Invalid{QStringLiteral("the embedded scenario is invalid at \"scenario%1%2\": %3")
                        .arg(e.key().empty() ? "" : ".", QString::fromStdString(e.key()),
                             QString::fromUtf8(e.what()))};
    }
    const QJsonObject w = require(root, "window", QJsonValue::Object, "window").toObject();
    const QString history =
        require(w, "historyWindow", QJsonValue::String, "window.historyWindow").toString();
    const auto hw = historyFromKey(history);
    if (!hw)
      throw Invalid{QStringLiteral("\"window.historyWindow\" must be 60s, 10min or everything, "
                                   "not \"%1\"")
                        .arg(history)};
    state.historyWindow = *hw;
    const QJsonValue speed = w.value("speed");
    if (speed.isString() && speed.toString() == QLatin1String("max")) {
      state.speed = 0;
    } else {
      const double factor = speed.isString() ? speed.toString().toDouble() : speed.toDouble(-1);
      if (!(factor >= 0.1 && factor <= 1000))
        throw Invalid{QStringLiteral("\"window.speed\" must be between 0.1 and 1000, or \"max\"")};
      state.speed = factor;
    }
    state.running = w.value("running").toBool(true);
    state.visiblePlots.clear();
    const QJsonArray plots =
        require(w, "visiblePlots", QJsonValue::Array, "window.visiblePlots").toArray();
    for (const QJsonValue& p : plots) {
      const auto id = plotFromKey(p.toString());
      if (!id)
        throw Invalid{QStringLiteral("\"window.visiblePlots\" names an unknown plot \"%1\"")
                          .arg(p.toString())};
      state.visiblePlots.push_back(*id);
    }
    state.presenter = w.value("presenter").toBool(false);
    state.unitsPages = w.value("unitsPages").toBool(false);
    state.followLive = w.value("followLive").toBool(true);
    state.selectedTask = w.value("selectedTask").toInt(-1);
    state.dashboardLayout = decodeBlob(w, "dashboardLayout");
    state.windowGeometry = decodeBlob(w, "geometry");
    state.windowState = decodeBlob(w, "state");
    const QJsonValue events = w.value("events");
    if (!events.isUndefined() && !events.isArray())
      throw Invalid{QStringLiteral("\"window.events\" must be an array")};
    const QJsonArray list = events.toArray();
    for (qsizetype i = 0; i < list.size(); ++i) {
      const QString at = QStringLiteral("window.events[%1]").arg(i);
      if (!list[i].isObject()) throw Invalid{QStringLiteral("\"%1\" must be an object").arg(at)};
      const QJsonObject o = list[i].toObject();
      engine::RunEvent e;
      e.timeS = require(o, "timeS", QJsonValue::Double, at + ".timeS").toDouble();
      if (!std::isfinite(e.timeS) || e.timeS < 0)
        throw Invalid{QStringLiteral("\"%1.timeS\" must be a time >= 0").arg(at)};
      const QString kind = require(o, "kind", QJsonValue::String, at + ".kind").toString();
      const auto k = engine::runEventKindFromString(kind.toStdString());
      if (!k)
        throw Invalid{QStringLiteral("\"%1.kind\" must be start, stop, oom, reconfigure, "
                                     "policy, reset or note, not \"%2\"")
                          .arg(at, kind)};
      e.kind = *k;
      e.text = require(o, "text", QJsonValue::String, at + ".text").toString().toStdString();
      state.events.push_back(std::move(e));
    }
    if (const QJsonValue branch = w.value("branch"); !branch.isUndefined()) {
      if (!branch.isObject()) throw Invalid{QStringLiteral("\"window.branch\" must be an object")};
      const QJsonObject b = branch.toObject();
      SessionBranch kept;
      const auto time = [&](const char* key) {
        const QString at = QStringLiteral("window.branch.") + QLatin1String(key);
        const double t = require(b, QLatin1String(key), QJsonValue::Double, at).toDouble();
        if (!std::isfinite(t) || t < 0)
          throw Invalid{QStringLiteral("\"%1\" must be a time >= 0").arg(at)};
        return t;
      };
      kept.spec.atS = time("atS");
      kept.originalS = time("originalS");
      kept.branchS = time("branchS");
      if (kept.originalS < kept.spec.atS || kept.branchS < kept.spec.atS)
        throw Invalid{
            QStringLiteral("\"window.branch\": originalS and branchS cannot be "
                           "before atS")};
      const QJsonArray set = require(b, "set", QJsonValue::Array, "window.branch.set").toArray();
      for (qsizetype i = 0; i < set.size(); ++i) {
        const QString change = set[i].toString();
        const auto eq = change.indexOf(QLatin1Char('='));
        if (!set[i].isString() || eq <= 0)
          throw Invalid{QStringLiteral("\"window.branch.set[%1]\" must be \"KEY=VALUE\"").arg(i)};
        kept.spec.changes.push_back(
            {change.left(eq).toStdString(), change.mid(eq + 1).toStdString()});
      }
      state.branch = std::move(kept);
    }
    return {std::move(state), {}};
  } catch (const Invalid& e) {
    return {std::nullopt, QStringLiteral("%1 cannot be used: %2.").arg(origin, e.message)};
  }
}

SessionFile::ReadResult SessionFile::read(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly))
    return {std::nullopt, QStringLiteral("Cannot read %1: %2.").arg(path, file.errorString())};
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
