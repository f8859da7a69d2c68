// SPDX-License-Identifier: GPL-3.0-or-later
// The experiment runner and its reports. The experiments themselves live in one file each
// (morton2003.cpp, wu2010.cpp, arcangeli2002.cpp); this file knows none of them by content.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "metrics.h"
#include "report_format.h"
#include "run_loop.h"
#include "throttlelab/engine/experiments.h"
#include "throttlelab/engine/simulator.h"

namespace throttlelab::engine {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int kMaxSeeds = 1000;

struct Entry {
  std::string_view name;
  Experiment (*make)(bool quick);
};
constexpr Entry kExperiments[] = {
    {"morton2003", &makeMorton2003},
    {"wu2010", &makeWu2010},
    {"arcangeli2002", &makeArcangeli2002},
};

/// Collects the balance_dirty_pages pauses that start inside the window.
class PauseSink final : public RecordSink {
 public:
  explicit PauseSink(SimTime windowStart) : m_windowStart(windowStart) {}
  void onTrace(const TraceRecord& r) override {
    const auto* b = std::get_if<BalanceDirtyPages>(&r);
    if (b && b->pause > 0 && b->header.time >= m_windowStart)
      m_pausesMs.push_back(static_cast<double>(b->pause));
  }
  std::vector<double>& pauses() { return m_pausesMs; }

 private:
  SimTime m_windowStart;
  std::vector<double> m_pausesMs;
};

double median(std::vector<double>& v) {
  if (v.empty()) return kNaN;
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (v.size() % 2 == 1) return *mid;
  const double upper = *mid;
  const double lower = *std::max_element(v.begin(), mid);
  return (lower + upper) / 2;
}

// The Summary's means are over the whole run; multiplying back by its length gives totals,
// and totals difference cleanly.
struct Totals {
  double seconds = 0, kib = 0, requests = 0, sectors = 0, seeks = 0, systemCpuS = 0, userCpuS = 0;
};
Totals totalsOf(const Summary& s, int cpus) {
  Totals t;
  t.seconds = s.simulatedS;
  t.kib = s.deviceWriteKBps * s.simulatedS;
  t.requests = s.avgRequestKiB > 0 ? t.kib / s.avgRequestKiB : 0;
  t.sectors = s.avgrqSzSectors * t.requests;
  t.seeks = s.seeksPerS * s.simulatedS;
  t.systemCpuS = s.systemPct / 100 * s.simulatedS * cpus;
  t.userCpuS = s.userPct / 100 * s.simulatedS * cpus;
  return t;
}

WindowStats windowOf(const Summary& start, const Summary& end, int cpus,
                     std::vector<double>& pauses, bool pausesCollected) {
  const Totals a = totalsOf(start, cpus);
  const Totals b = totalsOf(end, cpus);
  WindowStats w;
  w.startS = start.simulatedS;
  w.endS = end.simulatedS;
  const double span = b.seconds - a.seconds;
  if (span > 0) {
    w.systemPct = (b.systemCpuS - a.systemCpuS) / (span * cpus) * 100;
    w.userPct = (b.userCpuS - a.userCpuS) / (span * cpus) * 100;
    w.writeKBps = (b.kib - a.kib) / span;
    w.seeksPerS = (b.seeks - a.seeks) / span;
  }
  const double requests = b.requests - a.requests;
  w.avgrqSzSectors = requests > 0.5 ? (b.sectors - a.sectors) / requests : 0;
  w.pauses = static_cast<std::int64_t>(pauses.size());
  w.pauseMsP50 = pausesCollected ? median(pauses) : kNaN;
  return w;
}

std::vector<const TaskStats*> groupOf(const Summary& s, std::string_view name) {
  std::vector<const TaskStats*> out;
  for (const TaskStats& t : s.tasks)
    if (t.info.name == name) out.push_back(&t);
  return out;
}

bool groupExited(const Simulator& sim, std::string_view name) {
  const auto stats = sim.taskStats();
  bool any = false;
  for (const TaskStats& t : stats) {
    if (t.info.name != name) continue;
    any = true;
    if (t.state != TaskState::Exited) return false;
  }
  return any;
}

std::string relationToMail(double simulated, double mail) {
  if (std::isnan(simulated)) return "no simulated value";
  if (mail == 0) return simulated == 0 ? "equals the mail's 0" : "the mail has 0";
  const double pct = (simulated - mail) / std::fabs(mail) * 100;
  if (std::fabs(pct) <= 10)
    return "within 10 % of the mail's " + report::number(mail) + " (" + report::percentChange(pct) +
           ")";
  return fixed(std::fabs(pct), 0) + " % " + (pct > 0 ? "above" : "below") + " the mail's " +
         report::number(mail);
}

}  // namespace

// ---------------------------------------------------------------------------------------------

std::vector<const TaskStats*> CaseRun::group(std::string_view name) const {
  return groupOf(atEnd, name);
}

std::vector<const TaskStats*> CaseRun::groupAtWindowStart(std::string_view name) const {
  return groupOf(atWindowStart, name);
}

const MetricResult* ExperimentResult::find(std::string_view caseName,
                                           std::string_view metric) const {
  for (const auto& r : rows)
    if (r.caseName == caseName && r.metric == metric) return &r;
  return nullptr;
}

double ExperimentResult::value(std::string_view caseName, std::string_view metric) const {
  const MetricResult* r = find(caseName, metric);
  return r ? r->simulated : kNaN;
}

std::vector<std::string> experimentNames() {
  std::vector<std::string> names;
  for (const auto& e : kExperiments) names.emplace_back(e.name);
  return names;
}

std::optional<Experiment> makeExperiment(std::string_view name, bool quick) {
  for (const auto& e : kExperiments)
    if (e.name == name) return e.make(quick);
  return std::nullopt;
}

CaseRun runCase(const ExperimentCase& c, std::uint64_t seed, std::uint64_t phaseIndex,
                const std::function<void(double runS)>& afterSlice) {
  Scenario s = c.scenario;
  s.seed = seed;
  if (c.startSpreadS > 0) {
    // A low-discrepancy phase (golden-ratio sequence): seeds 1, 2, 3 spread evenly.
    const std::uint64_t n = phaseIndex == 0 ? seed : phaseIndex;
    const double phase = std::fmod(0.5 + static_cast<double>(n) * 0.6180339887498949, 1.0);
    for (auto& t : s.tasks)
      if (t.name == c.startSpreadGroup) t.startS += phase * c.startSpreadS;
  }
  Simulator sim(s);
  const double windowStart = std::clamp(c.measureFromS, 0.0, s.durationS);
  PauseSink sink(atSeconds(windowStart));
  if (c.collectPauses) sim.setSink(&sink, OutputOptions{.traces = true});

  const bool tasks = detail::hasTasks(s);
  const auto done = [&] {
    if (!tasks) return false;
    if (c.stopWhenAllExited && sim.allTasksExited()) return true;
    return !c.stopWhenExited.empty() && groupExited(sim, c.stopWhenExited);
  };
  CaseRun run;
  run.seed = seed;
  run.cpus = s.machine.cpus;
  bool stopped = false;
  std::function<void()> slice;
  if (afterSlice) slice = [&] { afterSlice(toSeconds(sim.now())); };
  if (windowStart > 0) {
    stopped = detail::runSliced(sim, windowStart, done, slice);
    // A run that ended before its window measures the whole run instead.
    if (!stopped) run.atWindowStart = sim.summary();
  }
  if (!stopped) stopped = detail::runSliced(sim, s.durationS, done, slice);
  sim.setSink(nullptr);
  run.stoppedEarly = stopped;
  run.atEnd = sim.summary();
  run.endS = run.atEnd.simulatedS;
  run.window = windowOf(run.atWindowStart, run.atEnd, std::max(1, s.machine.cpus), sink.pauses(),
                        c.collectPauses);
  return run;
}

ExperimentResult runExperiment(const Experiment& e, const ExperimentRunOptions& options) {
  if (options.seeds < 1 || options.seeds > kMaxSeeds)
    throw ScenarioError("seed", "the number of seeds must be between 1 and " +
                                    std::to_string(kMaxSeeds) + ", got " +
                                    std::to_string(options.seeds));
  ExperimentResult result;
  result.experiment = e.name;
  result.title = e.title;
  result.seeds = options.seeds;
  result.quick = e.quick;
  const std::size_t total = e.cases.size() * static_cast<std::size_t>(options.seeds);
  std::size_t done = 0;
  // Every run of every case, seed and phase, in simulated seconds.
  double totalS = 0;
  for (const ExperimentCase& c : e.cases)
    totalS += c.scenario.durationS * options.seeds *
              (c.startSpreadS > 0 ? std::max(1, c.phasesPerSeed) : 1);
  detail::ProgressTally tally(options.simulated, totalS);
  std::function<void(double)> slice;
  if (options.simulated) slice = [&](double runS) { tally.at(runS); };
  for (const ExperimentCase& c : e.cases) {
    std::vector<std::vector<double>> values(c.metrics.size());
    for (int i = 0; i < options.seeds; ++i) {
      const std::uint64_t seed = c.scenario.seed + static_cast<std::uint64_t>(i);
      const int phases = c.startSpreadS > 0 ? std::max(1, c.phasesPerSeed) : 1;
      std::vector<double> sums(c.metrics.size(), 0.0);
      for (int p = 0; p < phases; ++p) {
        // Seed i's phases are i*k+1 .. i*k+k of one sequence: every run lands somewhere new.
        const std::uint64_t phase =
            phases == 1 ? 0
                        : static_cast<std::uint64_t>(i) * static_cast<std::uint64_t>(phases) +
                              static_cast<std::uint64_t>(p) + 1;
        const CaseRun run = runCase(c, seed, phase, slice);
        tally.endRun(c.scenario.durationS);
        for (std::size_t m = 0; m < c.metrics.size(); ++m)
          sums[m] += c.metrics[m].measure ? c.metrics[m].measure(run) : kNaN;
      }
      for (std::size_t m = 0; m < c.metrics.size(); ++m) values[m].push_back(sums[m] / phases);
      ++done;
      if (options.progress) options.progress(done, total);
      if (options.stop.stop_requested()) throw RunCancelled();
    }
    for (std::size_t m = 0; m < c.metrics.size(); ++m) {
      const MetricSpec& spec = c.metrics[m];
      const report::Spread sp = report::spread(values[m]);
      MetricResult row{.caseName = c.name,
                       .metric = spec.key,
                       .label = spec.label,
                       .unit = spec.unit,
                       .seedValue = spec.seedValue,
                       .simulated = sp.mean,
                       .simulatedMin = sp.min,
                       .simulatedMax = sp.max,
                       .perSeed = values[m],
                       .note = spec.note};
      if (spec.seedValue) {
        const std::string relation = "simulated " + relationToMail(sp.mean, *spec.seedValue);
        row.note = row.note.empty() ? relation : row.note + "; " + relation;
      }
      result.rows.push_back(std::move(row));
    }
  }
  for (const Claim& claim : e.claims) {
    Verdict v = claim.evaluate ? claim.evaluate(result) : Verdict{};
    if (v.claim.empty()) v.claim = claim.text;
    result.verdicts.push_back(std::move(v));
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// Reports

std::string experimentReportMarkdown(const Experiment& e, const ExperimentResult& r) {
  using report::cell;
  std::string out = "# " + cell(e.name) + ": " + cell(e.title) + "\n\n";
  out += "Reproduces " + cell(e.mail) + " (Message-Id `" + cell(e.messageId) + "`).";
  out += " " + std::to_string(r.seeds) + (r.seeds == 1 ? " seed" : " seeds") + " per case";
  if (r.quick)
    out += "; **quick form** (shorter runs, fewer cases: for tests, not for conclusions)";
  out += ".\n\n";
  if (!e.mailSummary.empty()) out += e.mailSummary + "\n\n";

  std::size_t holding = 0;
  for (const auto& v : r.verdicts) holding += v.holds ? 1 : 0;
  out += "## Verdicts (" + std::to_string(holding) + " of " + std::to_string(r.verdicts.size()) +
         " hold)\n\n";
  for (const auto& v : r.verdicts)
    out += std::string("- **") + (v.holds ? "holds" : "does not hold") + "**: " + cell(v.claim) +
           "  \n  " + cell(v.detail) + "\n";

  for (const ReportTable& t : e.tables) {
    // Rows and columns in the order the cases first name them.
    std::vector<std::string> rows, columns;
    std::map<std::pair<std::string, std::string>, std::string> caseAt;
    for (const auto& name : t.caseNames) {
      const auto c = std::find_if(e.cases.begin(), e.cases.end(),
                                  [&](const ExperimentCase& x) { return x.name == name; });
      if (c == e.cases.end()) continue;
      if (std::find(rows.begin(), rows.end(), c->row) == rows.end()) rows.push_back(c->row);
      if (std::find(columns.begin(), columns.end(), c->column) == columns.end())
        columns.push_back(c->column);
      caseAt[{c->row, c->column}] = c->name;
    }
    if (rows.empty()) continue;
    out += "\n## " + cell(t.title) +
           "\n\nEach cell: the mail's value / the simulated mean (– where the mail has no "
           "figure).\n\n";
    std::vector<std::string> head{""};
    for (const auto& col : columns)
      for (const auto& key : t.metrics) {
        std::string label = key;
        for (const auto& row : r.rows)
          if (row.metric == key) {
            label =
                row.label + (row.unit.empty() || row.unit == "count" ? "" : " (" + row.unit + ")");
            break;
          }
        head.push_back(col.empty() ? cell(label) : cell(col) + " " + cell(label));
      }
    out += report::tableRow(head) + report::tableRule(head.size());
    for (const auto& rowName : rows) {
      std::vector<std::string> line{cell(rowName)};
      for (const auto& col : columns)
        for (const auto& key : t.metrics) {
          const auto it = caseAt.find({rowName, col});
          const MetricResult* m = it == caseAt.end() ? nullptr : r.find(it->second, key);
          if (!m) {
            line.emplace_back("");
            continue;
          }
          line.push_back((m->seedValue ? report::number(*m->seedValue) : std::string("–")) + " / " +
                         report::number(m->simulated));
        }
      out += report::tableRow(line);
    }
  }

  out +=
      "\n## The machine\n\nWritten down once for every case; each value with its source. "
      "[D] marks our own choice where no source gives one.\n\n";
  out += report::tableRow({"value", "source"}) + report::tableRule(2, 2);
  for (const auto& f : e.machine) out += report::tableRow({cell(f.value), cell(f.source)});

  if (!e.method.empty()) {
    out += "\n## Method\n\n";
    for (const auto& m : e.method) out += "- " + cell(m) + "\n";
  }

  out += "\n## Every figure\n\nmin–max over the seeds.\n\n";
  out += report::tableRow({"case", "metric", "unit", "mail", "simulated", "min–max", "note"}) +
         "|---|---|---|---:|---:|---:|---|\n";  // the note is text again
  for (const auto& row : r.rows)
    out += report::tableRow(
        {cell(row.caseName), cell(row.label) + " (`" + cell(row.metric) + "`)", cell(row.unit),
         row.seedValue ? report::number(*row.seedValue) : std::string("–"),
         report::number(row.simulated),
         report::number(row.simulatedMin) + "–" + report::number(row.simulatedMax),
         cell(row.note)});
  return out;
}

std::string experimentReportJson(const ExperimentResult& r) {
  using Json = nlohmann::ordered_json;
  Json j;
  j["experiment"] = r.experiment;
  j["rows"] = Json::array();
  for (const auto& row : r.rows) {
    Json x;
    x["case"] = row.caseName;
    x["metric"] = row.metric;
    x["unit"] = row.unit;
    x["seed_value"] = row.seedValue ? Json(*row.seedValue) : Json(nullptr);
    x["simulated"] = row.simulated;  // NaN is written as null
    x["simulated_min"] = row.simulatedMin;
    x["simulated_max"] = row.simulatedMax;
    x["note"] = row.note;
    j["rows"].push_back(std::move(x));
  }
  j["verdicts"] = Json::array();
  for (const auto& v : r.verdicts)
    j["verdicts"].push_back({{"claim", v.claim}, {"holds", v.holds}, {"detail", v.detail}});
  return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string experimentVerdictsText(const ExperimentResult& r) {
  std::string out = r.experiment + ": " + r.title + " (" + std::to_string(r.seeds) +
                    (r.seeds == 1 ? " seed" : " seeds") + (r.quick ? ", quick form" : "") + ")\n";
  std::size_t holding = 0;
  for (const auto& v : r.verdicts) {
    holding += v.holds ? 1 : 0;
    out += std::string(v.holds ? "  holds          " : "  does not hold  ") + v.claim + "\n";
    out += "                 " + v.detail + "\n";
  }
  out += std::to_string(holding) + " of " + std::to_string(r.verdicts.size()) + " claims hold.\n";
  return out;
}

}  // namespace throttlelab::engine
