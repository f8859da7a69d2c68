// SPDX-License-Identifier: GPL-3.0-or-later
#include "reports.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>
#include <thread>

#include "headless.h"
#include "output_file.h"
#include "throttlelab/engine/compare.h"
#include "throttlelab/engine/experiments.h"
#include "throttlelab/engine/number_text.h"
#include "throttlelab/engine/simulator.h"
#include "throttlelab/host/output_target.h"
#include "throttlelab/host/trace_host_facts.h"

namespace throttlelab::cli {

namespace {

namespace te = throttlelab::engine;

std::string joinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

/// Opens the report before the runs (an unwritable path should not cost the simulation).
/// Returns false after printing the reason.
bool openReport(OutputFile& file, std::ostream& err) {
  if (const auto reason = file.open()) {
    err << "throttlelab: " << file.label() << ": cannot write: " << *reason << '\n';
    return false;
  }
  return true;
}

/// Writes the report and puts it in place. Returns false after printing the reason.
bool commitReport(OutputFile& file, const std::string& text, std::ostream& err) {
  file.stream().write(text.data(), static_cast<std::streamsize>(text.size()));
  if (const auto reason = file.commit()) {
    err << "throttlelab: " << file.label() << ": cannot write"
        << (file.isStdout() ? " to standard output: " : ": ") << *reason << '\n';
    return false;
  }
  return true;
}

/// Refuses a report that would replace an input (the scenario) before anything runs.
bool reportConflicts(OutputFile& file, const std::vector<host::NamedPath>& inputs,
                     std::ostream& err) {
  if (file.isStdout()) return false;
  if (const auto reason = file.resolve()) {
    err << "throttlelab: " << file.label() << ": cannot write: " << *reason << '\n';
    return true;
  }
  if (const auto conflict = host::outputConflict({{file.option(), file.path()}}, inputs)) {
    err << "throttlelab: " << *conflict << '\n';
    return true;
  }
  return false;
}

/// --report's format, or a message and nullopt when the name ends in neither .md nor .json.
std::optional<ReportFormat> reportFormatFor(const std::string& path, std::ostream& err) {
  const auto format = reportFormatOf(path);
  if (!format)
    err << "throttlelab: --report needs a file name ending in .md or .json, got '" << path << "'\n";
  return format;
}

/// The optional --report of a trace simulation or an experiment, opened. False, with the
/// message written, for bad input.
bool openOptionalReport(const CliOptions& options, bool checkConflicts, std::ostream& out,
                        std::ostream& err, std::unique_ptr<OutputFile>& file,
                        std::optional<ReportFormat>& format) {
  if (options.report.empty()) return true;
  format = reportFormatFor(options.report, err);
  if (!format) return false;
  file = std::make_unique<OutputFile>("--report", options.report, out);
  if (checkConflicts && reportConflicts(*file, {}, err)) return false;
  return openReport(*file, err);
}

/// Runs a report's work, `body`, which returns the exit status: a scenario the engine refuses
/// is bad input, any other exception an internal error, each with its message on `err`.
int reportExitStatus(std::ostream& err, const std::function<int()>& body) {
  try {
    return body();
  } catch (const te::ScenarioError& e) {
    err << "throttlelab: " << e.what() << '\n';
    return kExitBadInput;
  } catch (const std::exception& e) {
    err << "throttlelab: internal error: " << e.what() << '\n';
    return kExitInternalError;
  }
}

}  // namespace

int runCompare(const CliOptions& options, std::ostream& out, std::ostream& err) {
  const std::string path = options.report.empty() ? std::string("-") : options.report;
  const auto format = reportFormatFor(path, err);
  if (!format) return kExitBadInput;
  OutputFile file("--report", path, out);
  if (reportConflicts(file, {{"--scenario", options.scenario}}, err)) return kExitBadInput;
  const auto loaded = loadScenarioFor(options, err);
  if (!loaded) return kExitBadInput;
  const te::Scenario& scenario = *loaded;
  if (!openReport(file, err)) return kExitBadInput;
  return reportExitStatus(err, [&] {
    te::CompareOptions compare;
    compare.policies = options.comparePolicies;
    compare.seeds = options.seeds.value_or(1);
    const te::CompareResult result = te::comparePolicies(scenario, compare);
    const std::string text = *format == ReportFormat::Json ? te::compareReportJson(result)
                                                           : te::compareReportMarkdown(result);
    return commitReport(file, text, err) ? kExitOk : kExitWriteFailed;
  });
}

// ---------------------------------------------------------------------------------------------
// --import-trace FILE --simulate

namespace {

/// A figure of the comparison: "-" where there is none (a trace without pauses has no pause
/// median), as for a missing off %.
std::string number(double v, int decimals) {
  return std::isfinite(v) ? te::fixed(v, decimals) : "-";
}

/// Enough decimals for a ratio, none for page counts and rates.
std::string value(double v) {
  const double a = std::fabs(v);
  return number(v, a == 0 || a >= 100 ? 0 : (a >= 10 ? 1 : (a >= 1 ? 2 : 3)));
}

std::string offPct(const traceio::ComparisonRow& r) {
  if (!r.offPct) return "-";
  return (*r.offPct > 0 ? "+" : "") + number(*r.offPct, 1);
}

std::string comparisonTable(const std::vector<traceio::ComparisonRow>& rows) {
  std::string text = "| metric | measured | simulated | off % |\n|---|---:|---:|---:|\n";
  for (const auto& r : rows)
    text += "| " + r.metric + " | " + value(r.measured) + " | " + value(r.simulated) + " | " +
            offPct(r) + " |\n";
  return text;
}

std::string simulationMarkdown(const std::string& traceName, const te::Scenario& scenario,
                               const std::vector<traceio::ComparisonRow>& rows,
                               const std::vector<std::string>& notes, double spanS,
                               double warmupS) {
  std::string text = "# Measured against simulated: " + traceName + "\n\n";
  text += "The trace's " + number(spanS, 3) + " s against " +
          number(scenario.durationS - warmupS, 0) + " simulated seconds" +
          (warmupS > 0 ? " after a " + number(warmupS, 0) + " s warm-up" : std::string()) +
          ", both through the same statistics. off % = (simulated - measured) / measured.\n\n";
  text += comparisonTable(rows);
  text += "\n## How the scenario was derived\n\n";
  for (const auto& n : notes) text += "- " + n + "\n";
  if (warmupS > 0)
    text += "- warm-up " + number(warmupS, 0) +
            " s before the compared span: the trace begins above bg_thresh, with the writers "
            "running, while the simulation starts from an empty page cache\n";
  return text;
}

std::string simulationJson(const std::string& traceName, const te::Scenario& scenario,
                           const std::vector<traceio::ComparisonRow>& rows,
                           const std::vector<std::string>& notes, double warmupS) {
  using Json = nlohmann::ordered_json;
  // Non-finite figures (a trace without pauses has no pause median) are written as null.
  const auto number = [](double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); };
  Json comparison = Json::array();
  for (const auto& r : rows)
    comparison.push_back({{"metric", r.metric},
                          {"measured", number(r.measured)},
                          {"simulated", number(r.simulated)},
                          {"offPct", r.offPct ? number(*r.offPct) : Json(nullptr)}});
  const Json doc = {{"trace", traceName},
                    {"warmupS", number(warmupS)},
                    {"scenario", Json::parse(te::scenarioToJson(scenario))},
                    {"comparison", std::move(comparison)},
                    {"notes", notes}};
  // `replace`: a trace's file name need not be UTF-8.
  return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

/// The derivation note behind a ScenarioError ("trace: machine.memoryMiB: must be ..."): the
/// last note about the key the error names, or empty.
std::string derivationOf(std::string_view error, const std::vector<std::string>& notes) {
  const std::size_t keyStart = error.find(": ");
  if (keyStart == std::string_view::npos) return {};
  const std::string_view rest = error.substr(keyStart + 2);
  const std::string_view key = rest.substr(0, rest.find(": "));
  std::string_view term;
  if (key.starts_with("machine.memoryMiB"))
    term = "memory";
  else if (key.starts_with("vm."))
    term = key;
  else if (key.starts_with("tasks"))
    term = " x ";
  else if (key.starts_with("devices"))
    term = "device ";
  else if (key.starts_with("durationS"))
    term = "duration";
  else
    return {};
  for (auto it = notes.rbegin(); it != notes.rend(); ++it)
    if (it->find(term) != std::string::npos) return *it;
  return {};
}

}  // namespace

int runTraceSimulation(const CliOptions& options, const traceio::TraceStats::Result& measured,
                       const std::string& traceName, std::ostream& out, std::ostream& err) {
  std::unique_ptr<OutputFile> file;
  std::optional<ReportFormat> format;
  if (!openOptionalReport(options, false, out, err, file, format)) return kExitBadInput;
  if (measured.records == 0) {
    err << "throttlelab: --simulate: the trace has no writeback record to compare with\n";
    return kExitBadInput;
  }
  std::vector<std::string> notes;
  try {
    const traceio::HostFacts facts =
        options.thisHost ? host::hostFactsFor(measured) : traceio::HostFacts{};
    te::Scenario scenario = traceio::deriveScenario(measured, facts, &notes);
    if (options.thisHost)
      notes.emplace_back(
          "--this-host: CPUs from /proc/stat, memory from /proc/meminfo MemTotal, HZ from "
          "/proc/timer_list (root only), the request queues from /sys/dev/block");
    const double warmupS = traceio::simulationWarmupS(measured);
    const double comparedS = scenario.durationS;
    scenario.durationS = comparedS + warmupS;

    struct Feed final : te::RecordSink {
      explicit Feed(double fromS) : stats(fromS) {}
      traceio::TraceStats stats;
      void onTrace(const te::TraceRecord& r) override { stats.add(r); }
    } feed(warmupS);
    te::Simulator simulator(scenario);
    te::OutputOptions outputs;
    outputs.traces = true;
    simulator.setSink(&feed, outputs);
    simulator.run();
    simulator.setSink(nullptr);

    const auto rows = traceio::compare(measured, feed.stats.result());
    const std::string markdown =
        simulationMarkdown(traceName, scenario, rows, notes, measured.spanS, warmupS);
    if (!file || !file->isStdout()) {
      out << markdown;
      out.flush();
    }
    if (file) {
      const std::string text = *format == ReportFormat::Json
                                   ? simulationJson(traceName, scenario, rows, notes, warmupS)
                                   : markdown;
      if (!commitReport(*file, text, err)) return kExitWriteFailed;
      if (!file->isStdout()) out << "Report: " << file->path() << '\n';
    }
  } catch (const te::ScenarioError& e) {
    // The trace's own values describe a machine beyond the simulator's limits: bad input.
    err << "throttlelab: --simulate: " << traceName
        << " describes a machine the simulator cannot run: " << e.what();
    if (const std::string how = derivationOf(e.what(), notes); !how.empty())
      err << " (derived so: " << how << ")";
    err << '\n';
    return kExitBadInput;
  } catch (const std::exception& e) {
    err << "throttlelab: internal error: " << e.what() << '\n';
    return kExitInternalError;
  }
  return kExitOk;
}

void listExperiments(std::ostream& out) {
  const auto names = te::experimentNames();
  std::size_t width = 0;
  for (const auto& n : names) width = std::max(width, n.size());
  for (const auto& name : names) {
    const auto e = te::makeExperiment(name);
    out << "  " << name << std::string(width - name.size() + 2, ' ') << (e ? e->title : "") << '\n';
  }
}

int runExperimentCommand(const CliOptions& options, std::ostream& out, std::ostream& err) {
  if (options.experiment == "list") {
    listExperiments(out);
    return kExitOk;
  }
  const auto experiment = te::makeExperiment(options.experiment, options.quick);
  if (!experiment) {
    err << "throttlelab: --experiment: unknown experiment '" << options.experiment
        << "' (known: " << joinNames(te::experimentNames())
        << "; --experiment list shows their titles)\n";
    return kExitBadInput;
  }
  std::optional<ReportFormat> format;
  std::unique_ptr<OutputFile> file;
  if (!openOptionalReport(options, true, out, err, file, format)) return kExitBadInput;
  return reportExitStatus(err, [&] {
    te::ExperimentRunOptions run;
    run.seeds = options.seeds.value_or(3);
    const te::ExperimentResult result = te::runExperiment(*experiment, run);
    if (file) {
      const std::string text = *format == ReportFormat::Json
                                   ? te::experimentReportJson(result)
                                   : te::experimentReportMarkdown(*experiment, result);
      if (!commitReport(*file, text, err)) return kExitWriteFailed;
    }
    // Markdown on standard output already carries the verdicts.
    if (!file || !file->isStdout()) {
      out << te::experimentVerdictsText(result);
      if (file) out << "Report: " << file->path() << '\n';
      out.flush();
    }
    return kExitOk;
  });
}

}  // namespace throttlelab::cli
