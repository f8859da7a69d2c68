// SPDX-License-Identifier: GPL-3.0-or-later
#include "metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "report_format.h"

namespace throttlelab::engine::experiments {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kKiBPerPage = 4.0;
}  // namespace

double groupLastRunS(const CaseRun& run, std::string_view group) {
  double sum = 0;
  int n = 0;
  for (const TaskStats* t : run.group(group)) {
    if (t->runsCompleted < 1) continue;
    sum += t->lastRunS;
    ++n;
  }
  return n > 0 ? sum / n : kNaN;
}

double groupAllocMsMax(const CaseRun& run, std::string_view group) {
  const auto tasks = run.group(group);
  if (tasks.empty()) return kNaN;
  double m = 0;
  for (const TaskStats* t : tasks) m = std::max(m, t->allocMsMax);
  return m;
}

namespace {

/// Per task of the group: (value at the end − value at the window's start).
template <class Field>
std::vector<double> windowDeltas(const CaseRun& run, std::string_view group, Field field) {
  const auto end = run.group(group);
  const auto start = run.groupAtWindowStart(group);
  std::vector<double> out;
  for (std::size_t i = 0; i < end.size(); ++i) {
    const double before = i < start.size() ? field(*start[i]) : 0.0;
    out.push_back(field(*end[i]) - before);
  }
  return out;
}

double windowS(const CaseRun& run) {
  return run.window.endS - run.window.startS;
}

}  // namespace

double groupWindowWriteKBps(const CaseRun& run, std::string_view group) {
  const auto d = windowDeltas(run, group, [](const TaskStats& t) {
    return static_cast<double>(t.dirtiedPages) * kKiBPerPage;
  });
  if (d.empty() || windowS(run) <= 0) return kNaN;
  double sum = 0;
  for (const double v : d) sum += v;
  return sum / static_cast<double>(d.size()) / windowS(run);
}

double groupWindowPausedShare(const CaseRun& run, std::string_view group) {
  const auto d = windowDeltas(run, group, [](const TaskStats& t) { return t.pausedS; });
  if (d.empty() || windowS(run) <= 0) return kNaN;
  double sum = 0;
  for (const double v : d) sum += v;
  return sum / static_cast<double>(d.size()) / windowS(run);
}

double groupWindowRateMaxDeviationPct(const CaseRun& run, std::string_view group) {
  const auto d = windowDeltas(run, group, [](const TaskStats& t) {
    return static_cast<double>(t.dirtiedPages) * kKiBPerPage;
  });
  if (d.empty() || windowS(run) <= 0 || !(run.window.writeKBps > 0)) return kNaN;
  const double fair = run.window.writeKBps / static_cast<double>(d.size());
  double worst = 0;
  for (const double kib : d) worst = std::max(worst, std::fabs(kib / windowS(run) - fair) / fair);
  return worst * 100;
}

double wallS(const CaseRun& run) {
  double last = 0;
  for (const TaskStats& t : run.atEnd.tasks) {
    if (t.exitedS < 0) return kNaN;
    last = std::max(last, t.exitedS);
  }
  return last;
}

double cpuUtilisationPct(const CaseRun& run) {
  const double wall = wallS(run);
  if (!(wall > 0)) return kNaN;
  double cpu = 0;
  for (const TaskStats& t : run.atEnd.tasks) cpu += t.userS + t.systemS;
  return cpu / (std::max(1, run.cpus) * wall) * 100;
}

double runsCompleted(const CaseRun& run) {
  double n = 0;
  for (const TaskStats& t : run.atEnd.tasks) n += static_cast<double>(t.runsCompleted);
  return n;
}

MetricSpec metric(std::string key, std::string label, std::string unit,
                  std::function<double(const CaseRun&)> measure) {
  return MetricSpec{.key = std::move(key),
                    .label = std::move(label),
                    .unit = std::move(unit),
                    .seedValue = std::nullopt,
                    .note = {},
                    .measure = std::move(measure)};
}

MetricSpec withSeed(MetricSpec m, double seedValue, std::string note) {
  m.seedValue = seedValue;
  if (!note.empty()) m.note = std::move(note);
  return m;
}

MetricSpec withNote(MetricSpec m, std::string note) {
  m.note = std::move(note);
  return m;
}

std::string figure(std::string_view name, double v, std::string_view unit) {
  std::string out(name);
  out += ' ';
  out += report::number(v);
  if (!unit.empty()) {
    if (unit != "%" && unit != "×") out += ' ';
    out += unit;
  }
  return out;
}

bool allKnown(const std::vector<double>& values) {
  return std::none_of(values.begin(), values.end(), [](double v) { return std::isnan(v); });
}

Verdict notJudged(std::string claim, std::string_view what) {
  return Verdict{.claim = std::move(claim),
                 .holds = false,
                 .detail = "cannot be judged: " + std::string(what) + " has no value"};
}

}  // namespace throttlelab::engine::experiments
