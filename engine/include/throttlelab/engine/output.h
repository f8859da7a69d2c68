// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Writers for the run's outputs: CSV (samples and tasks), ftrace text, the summary table.
/// The headless command line and the window's exports share them, so the columns match.
#include <cstddef>
#include <cstdint>
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

/// Column names of the sample CSV, in order (snake_case, units in the names). The per-device
/// columns without a prefix are device 0's; each further device k adds them again prefixed
/// `dev<k>_` (`dev1_write_bw_kbps`).
std::vector<std::string> sampleCsvColumns(std::size_t deviceCount = 1);
/// The same followed by the columns of each memory cgroup, `cgroup_<name>_dirty_pages` and so on
/// (file, dirty, writeback, max, avail, bg_thresh, thresh, freerun, setpoint, limit, dirty_limit
/// pages, pos_ratio, reclaimed pages, oom kills).
std::vector<std::string> sampleCsvColumns(std::size_t deviceCount,
                                          const std::vector<std::string>& cgroupNames);
/// The names of `s`'s memory cgroups, in order: the cgroup columns of its sample CSV (the
/// headless --csv and the window's export both take them from here).
std::vector<std::string> csvCgroupNames(const Scenario& s);
/// Column names of the task CSV.
const std::vector<std::string>& taskCsvColumns();

/// The provenance of a run of `s` with this build: its name, seed and policy, the version,
/// and scenarioToJson(s). The headless CSVs and the window's exports both use it, so their
/// `#` header lines are the same for the same scenario.
Provenance provenanceOf(const Scenario& s);
/// The provenance of an imported kernel trace read from `source` (a path, or "-" for
/// standard input): no scenario, seed 0, policy "measured".
Provenance traceProvenance(std::string_view source);

void writeCsvProvenance(std::ostream& out, const Provenance& p);
void writeSampleCsvHeader(std::ostream& out, std::size_t deviceCount = 1,
                          const std::vector<std::string>& cgroupNames = {});
/// Writes exactly the columns of sampleCsvColumns(deviceCount, cgroupNames) for
/// `cgroupCount` cgroups: devices and cgroups missing from the sample are written as zeros,
/// extra ones are left out, so every row matches the header.
void writeSampleCsvRow(std::ostream& out, const Sample& s, std::size_t deviceCount = 1,
                       std::size_t cgroupCount = 0);
/// What a row under a policy without position control (Sample::positionControl false) writes
/// in the columns of position control: freerun_pages, setpoint_pages, dirty_ratelimit_kbps,
/// balanced_dirty_ratelimit_kbps, task_ratelimit_kbps, pos_ratio, wb_setpoint_pages (each
/// device's) and each cgroup's freerun_pages, setpoint_pages and pos_ratio.
enum class PositionColumns : std::uint8_t {
  AsSampled,     ///< the numbers the sample holds (a run that never changes policy, headless)
  EmptyWithout,  ///< empty fields (a CSV with a `policy` column, and the window's)
};
void writeSampleCsvRow(std::ostream& out, const Sample& s, std::size_t deviceCount,
                       std::size_t cgroupCount, PositionColumns position);
void writeTaskCsvHeader(std::ostream& out);
void writeTaskCsvRow(std::ostream& out, const TaskSample& s, const TaskInfo& info);

/// One line in the format of /sys/kernel/tracing/trace (no trailing newline added). The bdi
/// field carries the device's configured name (`sda`) where the kernel prints `8:0`.
std::string formatTraceLine(const TraceRecord& r);
/// The same for the block layer's and jbd2's tracepoints, as their TP_printk prints them.
std::string formatTraceLine(const FsTraceRecord& r);
/// The `# tracer: nop` preamble of a trace file, with the kernel's column header lines. The
/// `# entries-in-buffer` line is left out: a streamed trace does not know its length.
void writeTraceHeader(std::ostream& out);
/// The same with the `# entries-in-buffer/entries-written: N/N   #P:CPUS` line of a finished
/// trace of `entries` lines from `cpus` CPUs, as tracefs's `trace` file prints it.
void writeTraceHeader(std::ostream& out, std::int64_t entries, long cpus);

/// The human-readable table printed by --summary.
void writeSummary(std::ostream& out, const Summary& s, const Scenario& scenario);

}  // namespace throttlelab::engine
