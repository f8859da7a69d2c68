// SPDX-License-Identifier: GPL-3.0-or-later
#include "branch_spec.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <QLocale>
#include <algorithm>
#include <iterator>
#include <sstream>

namespace throttlelab::ui {

namespace {
QJsonObject asJson(const engine::Scenario& s) {
  return QJsonDocument::fromJson(QByteArray::fromStdString(engine::scenarioToJson(s))).object();
}

/// VALUE as --set reads it back: JSON, except a string that is no JSON itself goes bare
/// ("policy=ioless").
std::string valueText(const QJsonValue& v) {
  if (v.isString()) {
    const QByteArray text = v.toString().toUtf8();
    QJsonParseError error;
    QJsonDocument::fromJson("[" + text + "]", &error);
    if (error.error != QJsonParseError::NoError && !text.isEmpty()) return text.toStdString();
  }
  const QByteArray wrapped = QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact);
  return wrapped.mid(1, wrapped.size() - 2).toStdString();
}

void diff(const QJsonValue& a, const QJsonValue& b, const std::string& path,
          std::vector<engine::Override>& out) {
  if (a == b) return;
  if (a.isObject() && b.isObject() && !path.empty()) {
    const QJsonObject oa = a.toObject();
    const QJsonObject ob = b.toObject();
    bool sameKeys = oa.keys() == ob.keys();
    if (sameKeys) {
      for (const QString& key : ob.keys())
        diff(oa.value(key), ob.value(key), path + "." + key.toStdString(), out);
      return;
    }
  }
  if (a.isArray() && b.isArray() && a.toArray().size() == b.toArray().size()) {
    const QJsonArray la = a.toArray();
    const QJsonArray lb = b.toArray();
    for (qsizetype i = 0; i < lb.size(); ++i)
      diff(la[i], lb[i], path + "[" + std::to_string(i) + "]", out);
    return;
  }
  out.push_back({path, valueText(b)});
}

QString seconds(double s) {
  return QString::number(s, 'g', QLocale::FloatingPointShortest);
}
}  // namespace

QString changesText(const std::vector<engine::Override>& changes) {
  QStringList parts;
  for (const auto& c : changes) parts << QString::fromStdString(c.path + "=" + c.value);
  return parts.isEmpty() ? QObject::tr("no change") : parts.join(QStringLiteral(", "));
}

QString branchRunName(const BranchSpec& branch) {
  return QObject::tr("branch: %1 at %2 s").arg(changesText(branch.changes), seconds(branch.atS));
}

QString originalRunName() {
  return QObject::tr("original");
}

std::string branchCsvLines(const std::string& originalName, const BranchSpec& branch) {
  // One line each: control characters would end a header line early.
  const auto line = [](std::string text) {
    for (char& c : text)
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
    return text;
  };
  std::ostringstream out;
  out << "# branch_of: " << line(originalName) << '\n' << "# branch_at_s: " << branch.atS << '\n';
  for (const auto& c : branch.changes)
    out << "# branch_set: " << line(c.path + "=" + c.value) << '\n';
  return out.str();
}

std::vector<engine::Override> scenarioChanges(const engine::Scenario& base,
                                              const engine::Scenario& edited) {
  std::vector<engine::Override> out;
  const QJsonObject a = asJson(base);
  const QJsonObject b = asJson(edited);
  for (const QString& key : b.keys()) {
    // Not the run's identity: a branch keeps its name, seed and length.
    if (key == QLatin1String("name") || key == QLatin1String("seed") ||
        key == QLatin1String("description") || key == QLatin1String("durationS"))
      continue;
    const QJsonValue va = a.value(key);
    const QJsonValue vb = b.value(key);
    if (va.isObject() && vb.isObject() && va.toObject().keys() == vb.toObject().keys()) {
      for (const QString& inner : vb.toObject().keys())
        diff(va.toObject().value(inner), vb.toObject().value(inner),
             key.toStdString() + "." + inner.toStdString(), out);
      continue;
    }
    diff(va, vb, key.toStdString(), out);
  }
  return out;
}

std::vector<engine::Override> inOrderOf(const std::vector<engine::Override>& before,
                                        std::vector<engine::Override> now) {
  std::vector<engine::Override> out;
  for (const auto& b : before) {
    const auto it = std::find_if(now.begin(), now.end(),
                                 [&](const engine::Override& o) { return o.path == b.path; });
    if (it == now.end()) continue;
    out.push_back(std::move(*it));
    now.erase(it);
  }
  out.insert(out.end(), std::make_move_iterator(now.begin()), std::make_move_iterator(now.end()));
  return out;
}

}  // namespace throttlelab::ui
