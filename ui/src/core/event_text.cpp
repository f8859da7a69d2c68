// SPDX-License-Identifier: GPL-3.0-or-later
#include "event_text.h"

#include <QLocale>
#include <QRegularExpression>
#include <QStringList>
#include <algorithm>

namespace throttlelab::ui {

namespace {

using Kind = engine::RunEvent::Kind;

/// Settings whose words are not their key's: units in brackets, knobs by their kernel names.
struct Word {
  const char* key;
  const char* words;
};
constexpr Word kTaskWords[] = {
    {"count", "tasks"},
    {"rtPriority", "rt priority"},
    {"sched", "scheduling"},
    {"blockKiB", "block (KiB)"},
    {"fileMiB", "file size (MiB)"},
    {"copyMBps", "copy speed (MB/s)"},
    {"thinkMs", "think time (ms)"},
    {"startS", "start (s)"},
    {"anonMiB", "anonymous memory (MiB)"},
    {"allocMBps", "allocation speed (MB/s)"},
    {"cpuS", "CPU time (s)"},
    {"holdS", "hold time (s)"},
    {"lessThrottle", "PF_LESS_THROTTLE"},
    {"oomScoreAdj", "oom_score_adj"},
    {"readKiB", "reads (KiB)"},
};
constexpr Word kMachineWords[] = {
    {"memoryMiB", "memory (MiB)"},
    {"cpus", "CPUs"},
    {"hz", "HZ"},
    {"swapMiB", "swap (MiB)"},
    {"allocator", "page allocator"},
    {"writebackUsPerPage", "writeback CPU (µs/page)"},
};
constexpr Word kDeviceWords[] = {
    {"writeMBps", "write speed (MB/s)"}, {"readMBps", "read speed (MB/s)"},
    {"seekMs", "seek time (ms)"},        {"maxRequestKiB", "max request (KiB)"},
    {"nrRequests", "nr_requests"},       {"minRatio", "min_ratio"},
    {"maxRatio", "max_ratio"},           {"strictLimit", "strictlimit"},
};
constexpr Word kCgroupWords[] = {
    {"memoryMaxMiB", "memory.max (MiB)"},
    {"memoryHighMiB", "memory.high (MiB)"},
};

/// "rtPriority" → "rt priority": a camelCase key in words, units kept as written.
QString splitCamel(const QString& key) {
  QString out;
  for (int i = 0; i < key.size(); ++i) {
    const QChar c = key[i];
    if (c.isUpper() && i > 0 && key[i - 1].isLower()) out += QLatin1Char(' ');
    out += c;
  }
  return out;
}

template <std::size_t N>
QString wordsOf(const QString& field, const Word (&table)[N]) {
  for (const Word& w : table)
    if (field == QLatin1String(w.key)) return QString::fromUtf8(w.words);
  return splitCamel(field);
}

QString groupName(const engine::Scenario* s, int index) {
  if (s && index >= 0 && static_cast<std::size_t>(index) < s->tasks.size() &&
      !s->tasks[static_cast<std::size_t>(index)].name.empty())
    return QString::fromStdString(s->tasks[static_cast<std::size_t>(index)].name);
  return QStringLiteral("group %1").arg(index + 1);
}

QString cgroupName(const engine::Scenario* s, int index) {
  if (s && index >= 0 && static_cast<std::size_t>(index) < s->cgroups.size() &&
      !s->cgroups[static_cast<std::size_t>(index)].name.empty())
    return QStringLiteral("cgroup ") +
           QString::fromStdString(s->cgroups[static_cast<std::size_t>(index)].name);
  return QStringLiteral("cgroup %1").arg(index + 1);
}

/// One "key old → new" change in words; the task count as "×old → ×new".
QString describeChange(const QString& change, const engine::Scenario* s) {
  static const QRegularExpression kChange(QStringLiteral(R"(^(\S+) (.*)$)"));
  const auto m = kChange.match(change);
  if (!m.hasMatch()) return change;
  const QString key = m.captured(1);
  QString values = m.captured(2);
  static const QRegularExpression kCount(QStringLiteral(R"(^tasks\[(\d+)\]\.count$)"));
  if (const auto c = kCount.match(key); c.hasMatch()) {
    static const QRegularExpression kNumbers(QStringLiteral(R"(^(\d+) → (\d+)$)"));
    if (const auto n = kNumbers.match(values); n.hasMatch())
      return QStringLiteral("%1 ×%2 → ×%3")
          .arg(groupName(s, c.captured(1).toInt()), n.captured(1), n.captured(2));
  }
  return describeKey(key, s) + QLatin1Char(' ') + values;
}

}  // namespace

QString describeKey(const QString& key, const engine::Scenario* s) {
  static const QRegularExpression kIndexed(QStringLiteral(R"(^(\w+)\[(\d+)\]\.(.+)$)"));
  if (const auto m = kIndexed.match(key); m.hasMatch()) {
    const int index = m.captured(2).toInt();
    const QString list = m.captured(1);
    const QString field = m.captured(3);
    if (list == QLatin1String("tasks"))
      return groupName(s, index) + QStringLiteral(": ") + wordsOf(field, kTaskWords);
    if (list == QLatin1String("cgroups"))
      return cgroupName(s, index) + QStringLiteral(": ") + wordsOf(field, kCgroupWords);
    if (list == QLatin1String("devices"))
      return QStringLiteral("disk %1 ").arg(index + 1) + wordsOf(field, kDeviceWords);
    return key;
  }
  const auto dot = key.indexOf(QLatin1Char('.'));
  if (dot < 0) return key;
  const QString section = key.left(dot);
  const QString field = key.mid(dot + 1);
  // The sysctls keep their names: the sliders and the lessons call them so.
  if (section == QLatin1String("vm")) return key;
  if (section == QLatin1String("machine")) return wordsOf(field, kMachineWords);
  if (section == QLatin1String("device"))
    return QStringLiteral("disk ") + wordsOf(field, kDeviceWords);
  return key;
}

namespace {
/// Unicode code points in UTF-8 `text` (a byte that does not continue a sequence starts one).
std::size_t codePoints(const std::string& text) {
  std::size_t n = 0;
  for (const char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}
}  // namespace

bool shownWhole(const std::string& text) {
  // Four bytes at most per character: a text this short has no more characters than shown.
  if (text.size() <= static_cast<std::size_t>(kShownEventChars)) return true;
  return codePoints(text) <= static_cast<std::size_t>(kShownEventChars);
}

QString shownEventText(const std::string& text) {
  if (shownWhole(text)) return QString::fromStdString(text);
  // Decode no more than the characters shown can take (four bytes each), then cut at a
  // character: never half of a surrogate pair.
  const auto bytes = std::min<std::size_t>(text.size(), 4 * kShownEventChars);
  QString head = QString::fromUtf8(text.data(), static_cast<qsizetype>(bytes));
  qsizetype cut = 0;
  for (int chars = 0; cut < head.size() && chars < kShownEventChars; ++chars)
    cut += head.at(cut).isHighSurrogate() && cut + 1 < head.size() ? 2 : 1;
  head.truncate(cut);
  return QStringLiteral("%1… (%2 characters in all)")
      .arg(head, QLocale(QLocale::English).toString(static_cast<qulonglong>(codePoints(text))));
}

EventText describeEvent(const engine::RunEvent& e, const engine::Scenario* s) {
  const QString text = shownEventText(e.text);
  switch (e.kind) {
    case Kind::TaskStart:
    case Kind::TaskStop: {
      // "tasks[0] dd ×2 start": the group's index is the engine's; its name says it.
      static const QRegularExpression kGroup(QStringLiteral(R"(^tasks\[\d+\] )"));
      QString words = text;
      words.remove(kGroup);
      return {words, words};
    }
    case Kind::Reconfigure: {
      QStringList parts;
      for (const QString& change : text.split(QStringLiteral("; "), Qt::SkipEmptyParts))
        parts << describeChange(change, s);
      if (parts.isEmpty()) return {text, text};
      QString label = parts.front();
      if (parts.size() > 1) label += QStringLiteral(" (+%1 more)").arg(parts.size() - 1);
      return {label, parts.join(QStringLiteral("; "))};
    }
    case Kind::OomKill:
    case Kind::Policy:
    case Kind::Reset:
    case Kind::Note:
    case Kind::Adjusted:
      break;
  }
  return {text, text};
}

}  // namespace throttlelab::ui
