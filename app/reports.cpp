// SPDX-License-Identifier: GPL-3.0-or-later
#include "reports.h"

#include <algorithm>
#include <exception>
#include <ostream>

#include "headless.h"
#include "output_file.h"
#include "throttlelab/engine/compare.h"
#include "throttlelab/engine/experiments.h"

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
    err << "throttlelab: --report: cannot write '" << file.path() << "': " << *reason << '\n';
    return false;
  }
  return true;
}

bool commitReport(OutputFile& file, const std::string& text, std::ostream& err) {
  file.stream().write(text.data(), static_cast<std::streamsize>(text.size()));
  if (const auto reason = file.commit(); reason || !file.stream()) {
    err << "throttlelab: --report: cannot write '" << file.path()
        << "': " << (reason ? *reason : std::string("write failed")) << '\n';
    return false;
  }
  return true;
}

}  // namespace

int runCompare(const CliOptions& options, std::ostream& out, std::ostream& err) {
  te::Scenario scenario;
  try {
    scenario = te::loadScenario(options.scenario, options.allOverrides());
  } catch (const te::ScenarioError& e) {
    err << "throttlelab: " << e.what() << '\n';
    return kExitBadInput;
  }
  const std::string path = options.report.empty() ? std::string("-") : options.report;
  const auto format = reportFormatOf(path);
  if (!format) {
    err << "throttlelab: --report needs a file name ending in .md or .json, got '" << path << "'\n";
    return kExitBadInput;
  }
  OutputFile file("--report", path, out);
  if (!openReport(file, err)) return kExitBadInput;
  try {
    te::CompareOptions compare;
    compare.policies = options.comparePolicies;
    compare.seeds = options.seeds.value_or(1);
    const te::CompareResult result = te::comparePolicies(scenario, compare);
    const std::string text = *format == ReportFormat::Json ? te::compareReportJson(result)
                                                           : te::compareReportMarkdown(result);
    if (!commitReport(file, text, err)) return kExitBadInput;
  } catch (const te::ScenarioError& e) {
    err << "throttlelab: " << e.what() << '\n';
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
  if (!options.report.empty()) {
    format = reportFormatOf(options.report);
    if (!format) {
      err << "throttlelab: --report needs a file name ending in .md or .json, got '"
          << options.report << "'\n";
      return kExitBadInput;
    }
    file = std::make_unique<OutputFile>("--report", options.report, out);
    if (!openReport(*file, err)) return kExitBadInput;
  }
  try {
    te::ExperimentRunOptions run;
    run.seeds = options.seeds.value_or(3);
    const te::ExperimentResult result = te::runExperiment(*experiment, run);
    if (file) {
      const std::string text = *format == ReportFormat::Json
                                   ? te::experimentReportJson(result)
                                   : te::experimentReportMarkdown(*experiment, result);
      if (!commitReport(*file, text, err)) return kExitBadInput;
    }
    // Markdown on standard output already carries the verdicts.
    if (!file || !file->isStdout()) {
      out << te::experimentVerdictsText(result);
      if (file) out << "Report: " << file->path() << '\n';
      out.flush();
    }
  } catch (const te::ScenarioError& e) {
    err << "throttlelab: " << e.what() << '\n';
    return kExitBadInput;
  } catch (const std::exception& e) {
    err << "throttlelab: internal error: " << e.what() << '\n';
    return kExitInternalError;
  }
  return kExitOk;
}

}  // namespace throttlelab::cli
