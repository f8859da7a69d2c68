// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Writers for the run's outputs: CSV (samples and tasks), ftrace text, the summary table.
/// The headless command line and the window's exports share them, so the columns match.
#include <iosfwd>
#include <string>
#include <vector>

#include "throttlelab/engine/records.h"

namespace throttlelab::engine {

/// Provenance written as `# key: value` header lines (CSV) or PNG text chunks.
struct Provenance {
  std::string scenarioName;
  std::uint64_t seed = 0;
  std::string version;
  std::string policy;
  std::string scenarioJson;  ///< compact JSON of the scenario; empty to omit
};

/// Column names of the sample CSV, in order (snake_case, units in the names).
const std::vector<std::string>& sampleCsvColumns();
/// Column names of the task CSV.
const std::vector<std::string>& taskCsvColumns();

void writeCsvProvenance(std::ostream& out, const Provenance& p);
void writeSampleCsvHeader(std::ostream& out);
void writeSampleCsvRow(std::ostream& out, const Sample& s);
void writeTaskCsvHeader(std::ostream& out);
void writeTaskCsvRow(std::ostream& out, const TaskSample& s, const TaskInfo& info);

/// One line in the format of /sys/kernel/tracing/trace (no trailing newline added).
std::string formatTraceLine(const TraceRecord& r);
/// The `# tracer: nop` preamble of a trace file.
void writeTraceHeader(std::ostream& out);

/// The human-readable table printed by --summary.
void writeSummary(std::ostream& out, const Summary& s, const Scenario& scenario);

}  // namespace throttlelab::engine
