// SPDX-License-Identifier: GPL-3.0-or-later
// The headless run. Outputs are streamed while the simulator runs (a long run does not fit in
// memory) into temporary files that replace the user's files only once everything succeeded.
#include "headless.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "output_file.h"
#include "reports.h"
#include "terminal_progress.h"
#include "throttlelab/engine/compare.h"
#include "throttlelab/engine/events.h"
#include "throttlelab/engine/explain.h"
#include "throttlelab/engine/lesson.h"
#include "throttlelab/engine/output.h"
#include "throttlelab/engine/progress.h"
#include "throttlelab/engine/simulator.h"
#include "throttlelab/host/output_target.h"
#include "throttlelab/traceio/trace_import.h"
#include "throttlelab/traceio/trace_stats.h"

namespace throttlelab::cli {

namespace {

namespace te = throttlelab::engine;

/// A stream that failed mid-run (disk full, ...): ends the run early.
struct WriteFailed {
  std::string path;
  int error = 0;
};

/// An unnamed temporary file (std::tmpfile(), gone once closed) that rows are written to and
/// then read back from the start; a failed write is remembered.
class TempFile {
 public:
  TempFile() : m_file(std::tmpfile()) {}
  ~TempFile() {
    if (m_file) std::fclose(m_file);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  bool ok() const { return m_file != nullptr && !m_failed; }
  void write(const std::string& text) {
    if (m_file && !text.empty() && std::fwrite(text.data(), 1, text.size(), m_file) != text.size())
      m_failed = true;
  }
  /// Goes back to the start for reading; false if the file is not ok or cannot.
  bool rewind() { return ok() && std::fflush(m_file) == 0 && std::fseek(m_file, 0, SEEK_SET) == 0; }
  std::size_t read(std::vector<char>& buffer) {
    return std::fread(buffer.data(), 1, buffer.size(), m_file);
  }
  bool readFailed() const { return std::ferror(m_file) != 0; }

 private:
  std::FILE* m_file;
  bool m_failed = false;
};

/// Rows held in an unnamed temporary file until the run ends, so that the `# event:` lines of
/// everything that happened in the run can come before them, in the header.
class RowSpool {
 public:
  bool ok() const { return m_file.ok(); }
  std::ostream& stream() { return m_row; }
  /// Moves what was written to stream() into the file.
  void flush() {
    m_file.write(m_row.str());
    m_row.str(std::string());
  }
  bool copyTo(std::ostream& out) {
    flush();
    if (!m_file.rewind()) return false;
    std::vector<char> buffer(1 << 16);
    for (std::size_t n; (n = m_file.read(buffer)) > 0;)
      out.write(buffer.data(), static_cast<std::streamsize>(n));
    return !m_file.readFailed() && static_cast<bool>(out);
  }

 private:
  TempFile m_file;
  std::ostringstream m_row;
};

/// Streams what the simulator reports into the open outputs, as it comes.
class StreamingSink final : public te::RecordSink {
 public:
  StreamingSink(RowSpool* csv, RowSpool* taskCsv, OutputFile* trace, std::size_t devices,
                std::size_t cgroups = 0)
      : m_csv(csv), m_taskCsv(taskCsv), m_trace(trace), m_devices(devices), m_cgroups(cgroups) {}

  /// Rows of a run whose policy changes: each ends in a `policy` field, the policy set here
  /// (the one running as the row is sampled), and a policy without position control leaves
  /// that control's fields empty.
  void setPolicyColumn(std::string policy) { m_policy = std::move(policy); }

  void onSample(const te::Sample& s) override {
    if (m_csv) {
      if (m_policy.empty()) {
        te::writeSampleCsvRow(m_csv->stream(), s, m_devices, m_cgroups);
      } else {
        std::ostringstream row;
        te::writeSampleCsvRow(row, s, m_devices, m_cgroups, te::PositionColumns::EmptyWithout);
        std::string line = row.str();
        if (!line.empty() && line.back() == '\n') line.pop_back();
        m_csv->stream() << line << ',' << m_policy << '\n';
      }
      m_csv->flush();
      if (!m_csv->ok()) throw WriteFailed{"a temporary file", errno};
    }
    if (m_taskCsv) {
      m_taskCsv->flush();
      if (!m_taskCsv->ok()) throw WriteFailed{"a temporary file", errno};
    }
    // Once per sample is often enough to stop a run whose disk is full.
    if (m_trace) check(*m_trace);
  }

  void onTaskSample(const te::TaskSample& s) override {
    if (!m_taskCsv) return;
    if (s.task >= 0 && static_cast<std::size_t>(s.task) < m_tasks.size()) {
      te::writeTaskCsvRow(m_taskCsv->stream(), s, m_tasks[static_cast<std::size_t>(s.task)]);
    } else {
      // A task the simulator never announced: still one row, so nothing is lost silently.
      te::TaskInfo unknown;
      unknown.index = s.task;
      unknown.name = "task" + std::to_string(s.task);
      te::writeTaskCsvRow(m_taskCsv->stream(), s, unknown);
    }
  }

  void onTrace(const te::TraceRecord& r) override { writeTraceLine(r); }
  void onFsTrace(const te::FsTraceRecord& r) override { writeTraceLine(r); }

  void onTaskCreated(const te::TaskInfo& info) override {
    if (info.index < 0) return;
    const auto index = static_cast<std::size_t>(info.index);
    if (index >= m_tasks.size()) m_tasks.resize(index + 1);
    m_tasks[index] = info;
  }

 private:
  /// A record of either kind (TraceRecord, FsTraceRecord) as a line of --trace-out.
  template <typename Record>
  void writeTraceLine(const Record& r) {
    if (!m_trace) return;
    std::string line = te::formatTraceLine(r);
    line += '\n';
    m_trace->stream().write(line.data(), static_cast<std::streamsize>(line.size()));
  }

  static void check(OutputFile& f) {
    if (!f.stream())
      throw WriteFailed{
          f.label() + (f.isStdout() ? ": cannot write to standard output" : ": cannot write"),
          f.writeError()};
  }

  RowSpool* m_csv;
  RowSpool* m_taskCsv;
  OutputFile* m_trace;
  std::size_t m_devices;
  std::size_t m_cgroups;
  std::vector<te::TaskInfo> m_tasks;
  std::string m_policy;  ///< empty: no policy column
};

/// Until the branch point, what the run reports goes to its outputs and to the branch's.
class TeeSink final : public te::RecordSink {
 public:
  TeeSink(te::RecordSink& a, te::RecordSink& b) : m_a(a), m_b(b) {}
  void onSample(const te::Sample& s) override { tee(&te::RecordSink::onSample, s); }
  void onTaskSample(const te::TaskSample& s) override { tee(&te::RecordSink::onTaskSample, s); }
  void onTrace(const te::TraceRecord& r) override { tee(&te::RecordSink::onTrace, r); }
  void onFsTrace(const te::FsTraceRecord& r) override { tee(&te::RecordSink::onFsTrace, r); }
  void onTaskCreated(const te::TaskInfo& i) override { tee(&te::RecordSink::onTaskCreated, i); }
  void onTaskExplain(const te::ThrottleExplain& e) override {
    tee(&te::RecordSink::onTaskExplain, e);
  }

 private:
  /// Every record to both sinks, in the same order.
  template <class Record>
  void tee(void (te::RecordSink::*deliver)(const Record&), const Record& r) {
    (m_a.*deliver)(r);
    (m_b.*deliver)(r);
  }

  te::RecordSink& m_a;
  te::RecordSink& m_b;
};

/// One line of a CSV header: control characters become spaces.
std::string headerText(std::string text) {
  for (char& c : text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return text;
}

/// The branch's scenario: `base` with the --branch-set changes, by the rules of --set. Throws
/// ScenarioError naming the key.
te::Scenario branchScenario(const te::Scenario& base, const CliOptions& options) {
  te::Scenario changed =
      te::parseScenario(te::scenarioToJson(base), "--branch-set", options.branchOverrides);
  if (changed.seed != base.seed)
    throw te::ScenarioError("seed",
                            "--branch-set seed: a branch goes on with the random state of the "
                            "run it branches from; the seed cannot change at --branch-at");
  if (!(changed.durationS > *options.branchAtS))
    throw te::ScenarioError("durationS", "--branch-set durationS: the branch would end (at " +
                                             std::to_string(changed.durationS) +
                                             " s) before --branch-at");
  // What the running kernel refuses (devices added or renamed, HZ) is found before the run:
  // the same change applied to a fresh simulator of the scenario.
  te::Simulator probe(base);
  probe.reconfigure(changed);
  return changed;
}

/// Whether output `a` would write the file `b` names (b an input, or another output).
bool sameFile(const std::string& a, const std::string& b) {
  const host::NamedPath output{"", a};
  const host::NamedPath other{"", b};
  return host::outputConflict({output}, {other}) || host::outputConflict({other, output}, {});
}

/// The sample rows of an import, held in an unnamed temporary file until the end: the CSV
/// header names one column group per device, and a trace reveals its last device only when
/// it has been read to the end. Rows written before a device appeared get its columns as the
/// writer writes an absent device's (zeros) when they are copied into the output.
class SampleRows {
 public:
  bool ok() const { return m_file.ok(); }

  void add(const te::Sample& s, std::size_t devices) {
    m_row.str(std::string());
    te::writeSampleCsvRow(m_row, s, devices);
    m_file.write(m_row.str());
  }

  /// Copies the rows into `out`, each padded to `devices` devices.
  bool copyTo(std::ostream& out, std::size_t devices) {
    if (!m_file.rewind()) return false;
    const std::size_t one = te::sampleCsvColumns(1).size();
    const std::size_t perDevice = te::sampleCsvColumns(2).size() - one;
    const std::size_t global = one - 1 - perDevice;  // columns before device 0's, after time_s
    // A row with no devices known, written for `devices` devices: its tail supplies the
    // columns of devices missing from earlier rows.
    std::ostringstream emptyRow;
    te::writeSampleCsvRow(emptyRow, te::Sample{}, devices);
    std::string full = emptyRow.str();
    if (!full.empty() && full.back() == '\n') full.pop_back();
    std::vector<std::size_t> commas;
    for (std::size_t i = 0; i < full.size(); ++i)
      if (full[i] == ',') commas.push_back(i);

    std::string line;
    std::vector<char> buffer(1 << 16);
    std::string pending;
    for (;;) {
      const std::size_t n = m_file.read(buffer);
      if (n == 0) break;
      pending.append(buffer.data(), n);
      std::size_t start = 0;
      for (std::size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
        line.assign(pending, start, nl - start);
        const auto fields = static_cast<std::size_t>(std::count(line.begin(), line.end(), ',')) + 1;
        const std::size_t have = fields > 1 + global ? (fields - 1 - global) / perDevice : 1;
        if (have < devices) line += full.substr(commas[global + perDevice * have]);
        line += '\n';
        out.write(line.data(), static_cast<std::streamsize>(line.size()));
      }
      pending.erase(0, start);
    }
    return !m_file.readFailed() && pending.empty();
  }

 private:
  TempFile m_file;
  std::ostringstream m_row;
};

/// Receives the import: rows to the outputs, records to the statistics for --simulate.
class ImportOutputs final : public traceio::ImportSink {
 public:
  ImportOutputs(SampleRows* rows, OutputFile* taskCsv, traceio::TraceStats* stats)
      : m_rows(rows), m_taskCsv(taskCsv), m_stats(stats) {}

  void onTask(const te::TaskInfo& info) override {
    const auto index = static_cast<std::size_t>(info.index);
    if (index >= m_tasks.size()) m_tasks.resize(index + 1);
    m_tasks[index] = info;
  }
  void onDevice(int, const std::string&) override { ++m_devices; }
  void onSample(const te::Sample& s) override {
    if (m_rows) m_rows->add(s, m_devices);
    if (m_taskCsv && !m_taskCsv->stream()) throw WriteFailed{m_taskCsv->path(), errno};
  }
  void onTaskSample(const te::TaskSample& s) override {
    if (m_taskCsv)
      te::writeTaskCsvRow(m_taskCsv->stream(), s, m_tasks.at(static_cast<std::size_t>(s.task)));
  }
  void onRecord(const te::TraceRecord& r) override {
    if (m_stats) m_stats->add(r);
  }
  std::size_t devices() const { return m_devices; }

 private:
  SampleRows* m_rows;
  OutputFile* m_taskCsv;
  traceio::TraceStats* m_stats;
  std::vector<te::TaskInfo> m_tasks;
  std::size_t m_devices = 0;
};

using OutputFiles = std::vector<std::unique_ptr<OutputFile>>;

/// The output `option` names, added to `files`; null when `path` is empty (not given).
OutputFile* addOutput(OutputFiles& files, const char* option, const std::string& path,
                      std::ostream& out) {
  if (path.empty()) return nullptr;
  files.push_back(std::make_unique<OutputFile>(option, path, out));
  return files.back().get();
}

/// Whether more than one thing would write to standard output: the outputs named "-", then
/// `alsoThere` (what the run prints there itself). Two outputs interleaved in one stream
/// would be unreadable; said on `err`, before anything runs.
bool stdoutShared(const OutputFiles& files, const std::vector<std::string>& alsoThere,
                  std::ostream& err) {
  std::vector<std::string> toStdout;
  for (const auto& f : files)
    if (f->isStdout()) toStdout.push_back(f->option() + " -");
  toStdout.insert(toStdout.end(), alsoThere.begin(), alsoThere.end());
  if (toStdout.size() <= 1) return false;
  err << "throttlelab: " << toStdout[0] << " and " << toStdout[1]
      << " would both write to standard output; send one of them to a file\n";
  return true;
}

}  // namespace

int runImportTrace(const CliOptions& options, std::ostream& out, std::ostream& err) {
  const std::string& path = options.importTrace;
  OutputFiles files;
  OutputFile* csv = addOutput(files, "--csv", options.csv, out);
  OutputFile* taskCsv = addOutput(files, "--task-csv", options.taskCsv, out);

  // Standard output carries at most one thing; the import's own summary yields to it.
  std::vector<std::string> printed;
  if (options.simulate) printed.emplace_back("--simulate");
  if (stdoutShared(files, printed, err)) return kExitBadInput;
  const bool stdoutTaken =
      options.simulate ||
      std::any_of(files.begin(), files.end(), [](const auto& f) { return f->isStdout(); });
  if (csv && taskCsv && !csv->isStdout() && sameFile(csv->path(), taskCsv->path())) {
    err << "throttlelab: --csv and --task-csv both name '" << csv->path() << "'\n";
    return kExitBadInput;
  }
  if (path != "-")
    for (const auto& f : files)
      if (!f->isStdout() && sameFile(f->path(), path)) {
        err << "throttlelab: " << f->option() << " names the trace being read, '" << path << "'\n";
        return kExitBadInput;
      }
  for (const auto& f : files)
    if (const auto reason = f->open()) {
      err << "throttlelab: " << f->option() << ": cannot write '" << f->path() << "': " << *reason
          << '\n';
      return kExitBadInput;
    }

  try {
    SampleRows rows;
    if (csv && !rows.ok()) {
      err << "throttlelab: --csv: cannot create a temporary file: " << std::strerror(errno) << '\n';
      return kExitBadInput;
    }
    const te::Provenance provenance = te::traceProvenance(path);
    // Rows of one cgroup's records say which (--trace-cgroup).
    const std::string cgroupLine =
        options.traceCgroup ? "# cgroup_ino: " + std::to_string(*options.traceCgroup) + '\n' : "";
    if (taskCsv) {
      te::writeCsvProvenance(taskCsv->stream(), provenance);
      taskCsv->stream() << cgroupLine;
      te::writeTaskCsvHeader(taskCsv->stream());
    }
    traceio::TraceStats stats;
    ImportOutputs sink(csv ? &rows : nullptr, taskCsv, options.simulate ? &stats : nullptr);
    traceio::ImportOptions importOptions;
    importOptions.cgroupIno = options.traceCgroup;
    const traceio::ImportResult result = traceio::importTrace(path, sink, importOptions);
    if (!result.ok()) {
      err << "throttlelab: --import-trace: " << result.error << '\n';
      return kExitBadInput;
    }
    if (csv) {
      te::writeCsvProvenance(csv->stream(), provenance);
      csv->stream() << cgroupLine;
      te::writeSampleCsvHeader(csv->stream(), std::max<std::size_t>(sink.devices(), 1));
      if (!rows.copyTo(csv->stream(), std::max<std::size_t>(sink.devices(), 1)))
        throw WriteFailed{"a temporary file", errno};
    }
    for (const auto& f : files)
      if (!f->stream()) throw WriteFailed{f->path(), errno};
    // All outputs or none, as for a headless run (--help: "Several outputs").
    if (!commitAll(files, err)) return kExitWriteFailed;
    // What was read, on standard output unless that carries a CSV or the comparison.
    (stdoutTaken ? err : out) << "Read " << (path == "-" ? std::string("standard input") : path)
                              << ": " << traceio::describe(result.stats) << '\n';
    if (options.simulate) return runTraceSimulation(options, stats.result(), path, out, err);
  } catch (const WriteFailed& e) {
    err << "throttlelab: cannot write '" << e.path
        << "': " << (e.error ? std::strerror(e.error) : "write failed") << '\n';
    return kExitWriteFailed;
  } catch (const std::exception& e) {
    err << "throttlelab: internal error: " << e.what() << '\n';
    return kExitInternalError;
  }
  return kExitOk;
}

std::optional<te::Scenario> loadScenarioFor(const CliOptions& options, std::ostream& err) {
  try {
    return te::loadScenario(options.scenario, options.allOverrides());
  } catch (const te::ScenarioError& e) {
    err << "throttlelab: " << e.what() << '\n';
    return std::nullopt;
  }
}

namespace {

/// The outputs of a headless run: `files` in the order they are renamed (--help: "Output
/// files"), and each by its option, null where that option was not given.
struct HeadlessOutputs {
  OutputFiles files;
  OutputFile* csv = nullptr;
  OutputFile* taskCsv = nullptr;
  OutputFile* trace = nullptr;
  OutputFile* branchCsv = nullptr;
  OutputFile* report = nullptr;  ///< the branch comparison; --compare writes its own
};

HeadlessOutputs headlessOutputs(const CliOptions& options, std::ostream& out) {
  HeadlessOutputs o;
  o.csv = addOutput(o.files, "--csv", options.csv, out);
  o.taskCsv = addOutput(o.files, "--task-csv", options.taskCsv, out);
  o.trace = addOutput(o.files, "--trace-out", options.traceOut, out);
  o.branchCsv = addOutput(o.files, "--branch-csv", options.branchCsv, out);
  if (options.branching()) o.report = addOutput(o.files, "--report", options.report, out);
  return o;
}

/// `step` (OutputFile::resolve or OutputFile::open) for every output, up to the first that
/// cannot be written, said on `err`: false then.
bool eachOutputWritable(const OutputFiles& files, std::optional<std::string> (OutputFile::*step)(),
                        std::ostream& err) {
  for (const auto& f : files)
    if (const auto reason = ((*f).*step)()) {
      err << "throttlelab: " << f->label() << ": cannot write: " << *reason << '\n';
      return false;
    }
  return true;
}

/// The outputs checked before anything is read or written: at most one thing on standard
/// output, no path that cannot be an output, no output that would replace the scenario being
/// read, no two outputs that would overwrite each other. False when refused, said on `err`.
bool outputsAcceptable(const OutputFiles& files, const CliOptions& options, bool summary,
                       std::ostream& err) {
  std::vector<std::string> printed;
  if (summary) printed.emplace_back("--summary");
  if (!options.explain.empty()) printed.emplace_back("--explain");
  if (stdoutShared(files, printed, err)) return false;
  if (!eachOutputWritable(files, &OutputFile::resolve, err)) return false;
  if (const auto conflict =
          host::outputConflict(namedPaths(files), {{"--scenario", options.scenario}})) {
    err << "throttlelab: " << *conflict << '\n';
    return false;
  }
  return true;
}

/// With --branch-at, the branch's scenario in `branched`, checked against the run before
/// anything is written. False when refused, said on `err`.
bool prepareBranch(const CliOptions& options, const te::Scenario& scenario,
                   std::optional<te::Scenario>& branched, std::ostream& err) {
  if (!options.branching()) return true;
  if (!options.explain.empty()) {
    err << "throttlelab: --explain and --branch-at cannot be combined; explain the run, or the "
           "branch's scenario, in a run of its own\n";
    return false;
  }
  if (!(*options.branchAtS < scenario.durationS)) {
    err << "throttlelab: --branch-at " << *options.branchAtS
        << " is not before the end of the run (durationS " << scenario.durationS << " s)\n";
    return false;
  }
  try {
    branched = branchScenario(scenario, options);
  } catch (const te::ScenarioError& e) {
    err << "throttlelab: --branch-set: " << e.what() << '\n';
    return false;
  }
  return true;
}

/// Whether --explain, if given, asks for a moment the run reaches; if not, said on `err`.
bool explainWithinRun(const CliOptions& options, const te::Scenario& scenario, std::ostream& err) {
  if (options.explain.empty() || !(options.explainS > scenario.durationS)) return true;
  err << "throttlelab: --explain " << options.explain << ": " << options.explainS
      << " s is after the end of the run (" << scenario.durationS << " s)\n";
  return false;
}

/// The rows of each CSV asked for, waiting in temporary files: the header's `# event:` lines
/// need the whole run.
struct Spools {
  std::optional<RowSpool> csv, tasks, branch;

  static RowSpool* of(std::optional<RowSpool>& rows) { return rows ? &*rows : nullptr; }
};

/// A spool for each CSV of `outputs`; false when a temporary file cannot be created, said on
/// `err`.
bool createSpools(Spools& spools, const HeadlessOutputs& outputs, std::ostream& err) {
  if (outputs.csv) spools.csv.emplace();
  if (outputs.taskCsv) spools.tasks.emplace();
  if (outputs.branchCsv) spools.branch.emplace();
  for (const auto* rows : {&spools.csv, &spools.tasks, &spools.branch})
    if (*rows && !(*rows)->ok()) {
      err << "throttlelab: cannot create a temporary file: " << std::strerror(errno) << '\n';
      return false;
    }
  return true;
}

/// --explain's answer from `simulator`, which has run to the moment asked: the task's last
/// balance_dirty_pages() call. Nullopt when no task has the pid then, said on `err` once the
/// progress line is gone.
std::optional<std::string> explainTask(const te::Simulator& simulator, const CliOptions& options,
                                       TerminalProgress& progress, std::ostream& err) {
  const auto& tasks = simulator.tasks();
  const auto it = std::find_if(tasks.begin(), tasks.end(),
                               [&](const te::TaskInfo& t) { return t.pid == options.explainPid; });
  if (it != tasks.end())
    return te::formatExplain(simulator.lastExplain(it->index), it->name, options.explainS);
  progress.finish();
  std::string pids;
  for (const auto& t : tasks) pids += (pids.empty() ? "" : ", ") + std::to_string(t.pid);
  err << "throttlelab: --explain " << options.explain << ": no task has pid " << options.explainPid
      << " at " << options.explainS
      << " s (pids then: " << (pids.empty() ? std::string("none") : pids) << ")\n";
  return std::nullopt;
}

/// The column-name line of a sample CSV; with `policyColumn`, a last column `policy` (a
/// branch whose policy changes, StreamingSink::setPolicyColumn).
std::string sampleColumnLine(std::size_t devices, const std::vector<std::string>& cgroupNames,
                             bool policyColumn) {
  std::ostringstream header;
  te::writeSampleCsvHeader(header, devices, cgroupNames);
  std::string text = header.str();
  if (policyColumn && !text.empty() && text.back() == '\n') text.insert(text.size() - 1, ",policy");
  return text;
}

std::string taskColumnLine() {
  std::ostringstream header;
  te::writeTaskCsvHeader(header);
  return header.str();
}

/// One CSV of a run that has ended: where it came from (`origin`), `extraLines`, the run's
/// events, `columns`, then the rows waiting in `rows`.
void writeCsv(OutputFile& file, RowSpool& rows, const te::Simulator& run, te::Provenance origin,
              const std::string& extraLines, const std::string& columns) {
  // A run whose policy changed names every policy it ran under, not the last one.
  origin.policy = te::policyHistory(run.events(), origin.policy);
  te::writeCsvProvenance(file.stream(), origin);
  file.stream() << extraLines;
  te::writeCsvEvents(file.stream(), run.events());
  file.stream() << columns;
  if (!rows.copyTo(file.stream()))
    throw WriteFailed{
        file.label() + (file.isStdout() ? ": cannot write to standard output" : ": cannot write"),
        errno};
}

/// The `# branch` header lines of --branch-csv: what the branch is of, its time, its changes.
std::string branchCsvLines(const te::Scenario& scenario, const CliOptions& options) {
  std::ostringstream lines;
  lines << "# branch_of: " << headerText(scenario.name) << '\n'
        << "# branch_at_s: " << *options.branchAtS << '\n';
  for (const auto& o : options.branchOverrides)
    lines << "# branch_set: " << headerText(o.path + "=" + o.value) << '\n';
  return lines.str();
}

/// --report of a branched run: the run and its branch compared, each over its whole length.
void writeBranchReport(OutputFile& report, const te::Scenario& scenario, const CliOptions& options,
                       const te::Simulator& run, const te::Simulator& branch) {
  te::CompareResult result = te::compareSummaries(
      scenario.name, {{"original", run.summary()}, {"branch", branch.summary()}});
  for (auto& r : result.runs) r.seed = scenario.seed;
  result.heading = "Branch comparison";
  std::string changes;
  for (const auto& o : options.branchOverrides)
    changes += (changes.empty() ? "`" : ", `") + headerText(o.path + "=" + o.value) + "`";
  std::ostringstream at;
  at << *options.branchAtS;
  result.note = "The branch is the run itself up to " + at.str() +
                " s, then goes on from that state with " + changes +
                ". Both columns cover the whole of each run, the shared part included.";
  const bool json = reportFormatOf(report.path()) == ReportFormat::Json;
  report.stream() << (json ? te::compareReportJson(result) : te::compareReportMarkdown(result));
}

/// The checked run itself: simulates it (and its branch), streaming the rows into spools,
/// then writes the CSVs and the report, commits them, and prints the explanation and the
/// summary. Exceptions are for runHeadless to report.
int simulateAndWrite(const CliOptions& options, const te::Scenario& scenario,
                     const std::optional<te::Scenario>& branched, HeadlessOutputs& outputs,
                     bool summary, std::ostream& out, std::ostream& err) {
  te::Simulator simulator(scenario);
  const std::size_t devices = scenario.devices.size();
  const te::Provenance provenance = te::provenanceOf(scenario);
  Spools spools;
  if (!createSpools(spools, outputs, err)) return kExitBadInput;
  if (outputs.trace) te::writeTraceHeader(outputs.trace->stream());

  const std::size_t cgroups = scenario.cgroups.size();
  StreamingSink sink(Spools::of(spools.csv), Spools::of(spools.tasks), outputs.trace, devices,
                     cgroups);
  te::OutputOptions outputOptions;
  outputOptions.taskSamples = outputs.taskCsv != nullptr;
  outputOptions.traces = outputs.trace != nullptr;
  std::string explained;
  std::optional<te::Simulator> branch;
  StreamingSink branchSink(Spools::of(spools.branch), nullptr, nullptr, devices, cgroups);
  // A branch that changes the policy says in each row which one it ran under.
  const bool branchPolicyChanges = branched && branched->policy != scenario.policy;
  if (branchPolicyChanges) branchSink.setPolicyColumn(scenario.policy);
  // Simulated seconds of every run together: the run, and the branch from its moment on.
  const double totalS =
      scenario.durationS + (branched ? branched->durationS - *options.branchAtS : 0.0);
  TerminalProgress progress(err, options.progressOnTerminal, totalS,
                            branched ? "--branch-at: " : "");
  double doneBeforeS = 0;  // the runs before the one in progress
  const auto runTo = [&](te::Simulator& sim, te::SimTime until) {
    te::runInSlices(sim, until, [&] { progress.update(doneBeforeS + te::toSeconds(sim.now())); });
  };
  if (!branched) {
    simulator.setSink(&sink, outputOptions);
    if (!options.explain.empty()) {
      runTo(simulator, te::atSeconds(options.explainS));
      const auto answer = explainTask(simulator, options, progress, err);
      if (!answer) return kExitBadInput;
      explained = *answer;
    }
    runTo(simulator, te::atSeconds(scenario.durationS));
    simulator.setSink(nullptr);
  } else {
    // The branch shares the run's rows up to the branch time, then goes on from a snapshot
    // of that moment with the changes.
    TeeSink both(sink, branchSink);
    simulator.setSink(&both, outputOptions);
    runTo(simulator, te::atSeconds(*options.branchAtS));
    branch.emplace(simulator.snapshot());
    branch->reconfigure(*branched);
    if (branchPolicyChanges) branchSink.setPolicyColumn(branched->policy);
    simulator.setSink(&sink, outputOptions);
    runTo(simulator, te::atSeconds(scenario.durationS));
    simulator.setSink(nullptr);
    branch->setSink(&branchSink);
    // The branch's own clock starts at the branch time, which the run has counted.
    doneBeforeS = scenario.durationS - *options.branchAtS;
    runTo(*branch, te::atSeconds(branched->durationS));
    branch->setSink(nullptr);
  }
  progress.finish();

  const std::vector<std::string> cgroupNames = te::csvCgroupNames(scenario);
  if (outputs.csv)
    writeCsv(*outputs.csv, *spools.csv, simulator, provenance, {},
             sampleColumnLine(devices, cgroupNames, false));
  if (outputs.taskCsv)
    writeCsv(*outputs.taskCsv, *spools.tasks, simulator, provenance, {}, taskColumnLine());
  if (branch && outputs.branchCsv)
    writeCsv(*outputs.branchCsv, *spools.branch, *branch, te::provenanceOf(*branched),
             branchCsvLines(scenario, options),
             sampleColumnLine(devices, cgroupNames, branchPolicyChanges));
  if (branch && outputs.report)
    writeBranchReport(*outputs.report, scenario, options, simulator, *branch);

  if (!commitAll(outputs.files, err)) return kExitWriteFailed;
  if (!explained.empty()) out << explained;
  if (summary) te::writeSummary(out, simulator.summary(), simulator.scenario());
  return kExitOk;
}

}  // namespace

int runHeadless(const CliOptions& options, std::ostream& out, std::ostream& err) {
  HeadlessOutputs outputs = headlessOutputs(options, out);
  const bool summary = options.summary || options.summaryImplied();
  if (!outputsAcceptable(outputs.files, options, summary, err)) return kExitBadInput;

  const auto loaded = loadScenarioFor(options, err);
  if (!loaded) return kExitBadInput;
  const te::Scenario& scenario = *loaded;
  std::optional<te::Scenario> branched;
  if (!prepareBranch(options, scenario, branched, err)) return kExitBadInput;
  if (!explainWithinRun(options, scenario, err)) return kExitBadInput;
  // Open everything before the run: an unwritable path should not cost a long simulation.
  if (!eachOutputWritable(outputs.files, &OutputFile::open, err)) return kExitBadInput;

  try {
    return simulateAndWrite(options, scenario, branched, outputs, summary, out, err);
  } catch (const te::ScenarioError& e) {
    err << "throttlelab: " << e.what() << '\n';
    return kExitBadInput;
  } catch (const WriteFailed& e) {
    err << "throttlelab: " << e.path << ": "
        << (e.error ? std::strerror(e.error) : "writing failed") << '\n';
    return kExitWriteFailed;
  } catch (const std::exception& e) {
    err << "throttlelab: internal error: " << e.what() << '\n';
    return kExitInternalError;
  }
}

void listScenarios(std::ostream& out) {
  const auto names = te::builtinScenarioNames();
  std::size_t width = 0;
  for (const auto& n : names) width = std::max(width, n.size());
  for (const auto& name : names) {
    std::string description;
    try {
      // By name only: a file called "default" in the working directory is not a built-in.
      description = te::parseScenario(*te::builtinScenarioJson(name), name).description;
    } catch (const te::ScenarioError& e) {
      description = std::string("(does not load: ") + e.what() + ")";
    }
    for (char& c : description)
      if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    std::string line = "  " + name + std::string(width - name.size() + 2, ' ') + description;
    out << line << (name == te::kDefaultScenarioName ? "  [default]" : "") << '\n';
  }
}

void listLessons(std::ostream& out) {
  const auto names = te::builtinLessonNames();
  std::size_t width = 0;
  for (const auto& n : names) width = std::max(width, n.size());
  for (const auto& name : names) {
    std::string title;
    try {
      const te::Lesson lesson = te::parseLesson(*te::builtinLessonJson(name), name);
      title = lesson.title + " (" + std::to_string(lesson.steps.size()) + " steps)";
    } catch (const te::LessonError& e) {
      title = std::string("(does not load: ") + e.what() + ")";
    }
    out << "  " << name << std::string(width - name.size() + 2, ' ') << title << '\n';
  }
}

void listPolicies(std::ostream& out) {
  for (const auto& p : te::Simulator::policyDescriptions())
    out << p.name << " (" << p.kernels << ")\n  " << p.summary << "\n  " << p.details << "\n\n";
}

namespace {

/// Prints what --check found for a step's question; true if it holds.
bool printLessonCheck(int index, const te::LessonQuestion& q, const te::LessonMeasurement& m,
                      std::ostream& out) {
  const te::LessonCheckResult r = te::checkLessonQuestion(q, m);
  out << "step " << index + 1 << ": " << q.text << "\n";
  if (q.numeric) {
    out << "  numeric: " << q.numeric->figure.text() << ", " << q.numeric->unit << "\n";
  } else {
    out << "  keyed: " << static_cast<char>('A' + q.answer) << ") "
        << q.choices[static_cast<std::size_t>(q.answer)] << "\n";
  }
  if (!r.checked) {
    out << "  no check: not verified\n";
    return true;
  }
  for (const auto& c : r.conditions) out << "  check: " << c << "\n";
  for (const auto& [name, value] : r.figures)
    out << "    " << name << " = " << te::formatLessonNumber(value) << "\n";
  out << "  " << (r.holds ? "holds" : "does not hold");
  if (!r.holds && !r.unmeasured.empty()) out << " (" << r.unmeasured << ")";
  out << "\n";
  return r.holds;
}

}  // namespace

int runLessonText(const CliOptions& options, std::ostream& out, std::ostream& err) {
  te::Lesson lesson;
  try {
    lesson = te::loadLesson(options.lesson);
  } catch (const te::LessonError& e) {
    err << "throttlelab: --lesson " << e.what() << '\n';
    return kExitBadInput;
  }
  const int count = static_cast<int>(lesson.steps.size());
  if (options.lessonStep && *options.lessonStep > count) {
    err << "throttlelab: --step " << *options.lessonStep << ": the lesson " << lesson.name
        << " has " << count << " steps\n";
    return kExitBadInput;
  }
  // One runner for the whole lesson: each step continues the run of the step before, as the
  // window plays it, instead of replaying the run from its start.
  te::LessonRunner runner(lesson);
  int questions = 0, failed = 0, unchecked = 0;
  const auto measured = [&](int i) {
    return (!options.lessonStep || i + 1 == *options.lessonStep) &&
           (!options.lessonCheck || lesson.steps[static_cast<std::size_t>(i)].question);
  };
  // The progress line covers the simulated seconds of every step up to the last one measured:
  // each measurement continues the run of the one before, so they add up. --step K replays
  // from the step that started K's run, whose length only the runner knows: it gives it.
  double wholeS = 0;
  if (!options.lessonStep) {
    int last = count - 1;
    while (last >= 0 && !measured(last)) --last;
    for (int i = 0; i <= last; ++i) wholeS += lesson.steps[static_cast<std::size_t>(i)].runForS;
  }
  TerminalProgress progress(err, options.progressOnTerminal, wholeS,
                            "--lesson " + lesson.name + ": ");
  const te::SimulatedProgress replayed = progress.callback();
  double doneBeforeS = 0;  // simulated seconds of the measurements before this one
  try {
    if (options.lessonCheck)
      out << lesson.name << ": " << lesson.title << "\n";
    else
      out << lesson.title << "\n"
          << (lesson.kernel.empty() ? "" : lesson.kernel + "\n") << "\n"
          << lesson.description << "\n";
    for (int i = 0; i < count; ++i) {
      if (!measured(i)) continue;
      const te::LessonStep& step = lesson.steps[static_cast<std::size_t>(i)];
      double thisS = 0;
      const te::LessonMeasurement m = runner.measure(i, [&](double doneS, double totalS) {
        thisS = totalS;
        if (options.lessonStep) {
          if (replayed) replayed(doneS, totalS);
        } else {
          progress.update(doneBeforeS + doneS);
        }
      });
      doneBeforeS += thisS;
      progress.finish();
      if (options.lessonCheck) {
        ++questions;
        const te::LessonQuestion& q = *step.question;
        if (q.check.empty() && !q.numeric) ++unchecked;
        if (!printLessonCheck(i, q, m, out)) ++failed;
        continue;
      }
      out << "\n## Step " << i + 1 << " of " << count;
      if (!step.scenarioRef.empty()) out << " (" << step.scenarioRef << ")";
      out << "\n\n" << te::fillLessonText(step.caption, m) << "\n";
      for (const te::LessonTerm& t : step.terms)
        out << "\n  " << t.term << ": " << te::fillLessonText(t.definition, m);
      if (!step.terms.empty()) out << "\n";
      if (step.question) {
        const te::LessonQuestion& q = *step.question;
        out << "\nQ: " << q.text << "\n";
        for (std::size_t c = 0; c < q.choices.size(); ++c)
          out << "  " << static_cast<char>('A' + c) << ") " << q.choices[c]
              << (static_cast<int>(c) == q.answer ? "   <- answer" : "") << "\n";
        if (q.numeric) {
          const double figure = te::lessonFigureValue(q.numeric->figure, m);
          out << "  (a number, in " << q.numeric->unit << ")   <- measured "
              << te::formatLessonNumber(figure) << " " << q.numeric->unit << "; a guess within "
              << te::formatLessonNumber(q.numeric->toleranceValue()) << " " << q.numeric->unit
              << " of it is right\n";
        }
        out << "\n" << te::fillLessonText(q.reveal, m) << "\n";
        if (!q.more.empty()) out << "\nMore: " << te::fillLessonText(q.more, m) << "\n";
      }
    }
  } catch (const te::ScenarioError& e) {
    err << "throttlelab: --lesson " << lesson.name << ": " << e.what() << '\n';
    return kExitBadInput;
  } catch (const te::LessonError& e) {
    err << "throttlelab: --lesson " << lesson.name << ": " << e.what() << '\n';
    return kExitBadInput;
  }
  if (!options.lessonCheck) return kExitOk;
  const int checked = questions - unchecked;
  out << "\n"
      << checked - failed << " of " << checked << (checked == 1 ? " check holds" : " checks hold");
  if (unchecked > 0)
    out << "; " << unchecked << (unchecked == 1 ? " question has" : " questions have")
        << " no check (not verified)";
  out << "\n";
  return failed > 0 ? kExitCheckFailed : kExitOk;
}

}  // namespace throttlelab::cli
