// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Streaming import of a trace file into the simulator's own schema: engine::Sample rows at a
/// fixed interval and engine::TaskSample rows per pid, so the same CSV writers, plots and task
/// table serve measured and simulated runs alike. Memory does not depend on the file's size:
/// the file is read in fixed-size blocks, and the converter keeps one interval's accumulators
/// plus a few numbers per pid and per device.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "throttlelab/engine/records.h"
#include "throttlelab/engine/scenario.h"
#include "throttlelab/traceio/trace_parser.h"

namespace throttlelab::traceio {

/// Receives the converted rows in time order. Called on the importing thread.
class ImportSink {
 public:
  virtual ~ImportSink() = default;
  ImportSink() = default;
  ImportSink(const ImportSink&) = default;
  ImportSink& operator=(const ImportSink&) = default;
  /// A pid was seen for the first time in a balance_dirty_pages or bdi_dirty_ratelimit
  /// record (the events that name a bdi; a flusher that only traces global_dirty_state is
  /// not a task). info.index is dense (0, 1, …) in order of appearance, info.pid/name are the
  /// trace's, info.device the index of that first record's bdi (-1 for a bdi beyond the first
  /// engine::kMaxDevices).
  virtual void onTask(const engine::TaskInfo&) {}
  /// A device (bdi name as printed: "254:0", "sda") was seen for the first time.
  virtual void onDevice(int /*index*/, const std::string& /*name*/) {}
  virtual void onSample(const engine::Sample&) {}
  virtual void onTaskSample(const engine::TaskSample&) {}
  /// Every parsed event, before conversion. From importTrace: in time order and on the
  /// continuous time axis (see ImportStats::segments). bdi points into the importer's
  /// buffers: copy it if kept.
  virtual void onRecord(const engine::TraceRecord&) {}
};

/// Counts of what the importer met; `problems` keeps the first few with their line numbers.
struct ImportStats {
  TraceFormat format = TraceFormat::Unknown;  ///< the layout of the first event line
  std::int64_t bytes = 0;
  std::int64_t lines = 0;
  std::int64_t events = 0;            ///< the three writeback events
  std::int64_t globalDirtyState = 0;  ///< of `events`, per event
  std::int64_t bdiDirtyRatelimit = 0;
  std::int64_t balanceDirtyPages = 0;
  /// Per event, the fields that were absent from at least one line (bits as in
  /// ParsedLine::missingFields): how the trace's kernel era differs from today's.
  std::uint32_t globalDirtyStateMissing = 0;
  std::uint32_t bdiDirtyRatelimitMissing = 0;
  std::uint32_t balanceDirtyPagesMissing = 0;
  int tasks = 0;                     ///< distinct pids announced with ImportSink::onTask
  std::vector<std::string> devices;  ///< bdi names in order of appearance
  std::int64_t other = 0;            ///< other events, skipped
  std::int64_t comments = 0;         ///< headers and blank lines, skipped
  std::int64_t malformed = 0;        ///< skipped
  std::int64_t garbage = 0;          ///< skipped
  /// Of `malformed`: lines with a value its field cannot hold (a negative page count, a
  /// wrapped 2^64 - 1, 1e400: see FieldKind in trace_parser.cpp), and lines longer than
  /// kMaxLineBytes. `problems` names their line and field.
  std::int64_t outOfRange = 0;
  std::int64_t overlong = 0;

  /// Time order. Events reach the sink and the converter in time order: an event up to
  /// kReorderWindowS behind the newest so far is put in its place (CPUs' buffers interleave
  /// slightly out of order); one further behind begins a new segment (the trace restarted,
  /// or files were joined), which is placed on the time axis just after the one before it.
  /// Times in the records the sink receives, in the rows and in first/lastTimeS are on that
  /// continuous axis; within the first segment they are the trace's own.
  std::int64_t reordered = 0;   ///< events that arrived after later ones and were put in order
  std::int64_t lateEvents = 0;  ///< arrived after their window was converted: at the time
                                ///< of the one before them (only when it was full)
  std::int64_t segments = 0;    ///< 1 for a trace in time order; 0 without events
  std::vector<std::int64_t> segmentLines;  ///< where segments 2, 3, … begin (the first few)
  /// Stretches without events longer than TraceConverter::kMaxFillS get no rows (the rows
  /// resume at the next event); shorter ones repeat the last values, as the simulation's rows do.
  std::int64_t gapsSkipped = 0;
  double gapsSkippedS = 0;  ///< their total length
  /// Devices beyond the first engine::kMaxDevices get no columns; their events still count
  /// for the global values and the tasks.
  std::int64_t devicesWithoutColumns = 0;
  /// balance_dirty_pages records per traced cgroup_ino (1 = the root; traces before 4.2 carry
  /// none and count as 1), of the first kMaxCgroups inos, counted before any cgroup filter.
  std::map<std::uint64_t, std::int64_t> cgroupRecords;
  static constexpr std::size_t kMaxCgroups = 64;
  /// ImportOptions::cgroupIno as applied, and the balance_dirty_pages and bdi_dirty_ratelimit
  /// records of other cgroups it left out.
  std::optional<std::uint64_t> cgroupFilter;
  std::int64_t otherCgroupRecords = 0;
  /// Lines ended in a carriage return alone (classic Mac OS), and were read as line ends.
  bool crLineEnds = false;
  /// Reading stopped before the end of the input, with why ("line 12 is longer than 16 MiB
  /// …"); what came before it was imported.
  std::string stoppedEarly;
  /// The file ended without '\n' (not an error). That last line may have been cut while
  /// the trace was being written, so it is left out: it is not counted in `lines`, and
  /// lines == events + skipped() always holds.
  bool truncatedLastLine = false;
  double firstTimeS = 0;  ///< timestamps of the first and last event, on the continuous axis
  double lastTimeS = 0;
  struct Problem {
    std::int64_t line = 0;  ///< 1-based
    std::string reason;
  };
  std::vector<Problem> problems;  ///< at most kMaxProblems
  static constexpr std::size_t kMaxProblems = 10;
  /// How far back in time an event may arrive and still be put in order, and the most events
  /// held for that (memory stays bounded whatever the trace).
  static constexpr double kReorderWindowS = 0.01;
  static constexpr std::size_t kReorderCapacity = 4096;
  std::int64_t skipped() const { return other + comments + malformed + garbage; }
  /// Counts one event of `record`'s kind, and the fields its line lacked (ParsedLine::
  /// missingFields), in that event's count and missing-field bits (not in `events`).
  void countEventKind(const engine::TraceRecord& record, std::uint32_t missingFields);
};

/// Turns parsed records into Samples/TaskSamples. Sample times are relative to the first
/// event (t = 0), one row per `intervalS` stamped at the interval's end, as the simulator
/// stamps its samples (records out of time order count in the current interval: importTrace
/// puts them in order first; a stretch of more than kMaxFillS without records gets no rows,
/// the next row is the next record's interval, and shorter ones repeat the last values); per
/// interval the Sample holds the last global_dirty_state values (dirty, writeback, thresholds,
/// cumulative dirtied/written), limit/setpoint from balance_dirty_pages, freerun = (thresh +
/// bg_thresh)/2, the pause statistics of the interval's balance_dirty_pages records with pause > 0,
/// the count of distinct pids that paused, and per device the last bdi_dirty_ratelimit estimates
/// and wb_setpoint/wb_dirty. Fields a trace cannot know (memory, CPU, iostat) stay 0. Per device:
/// wb_dirty goes to reclaimablePages (the trace does not split it from writeback), posRatio =
/// task_ratelimit / dirty_ratelimit of the last balance_dirty_pages. limitPages = max(thresh,
/// traced limit) as in the simulator's samples, dirtyLimitPages the traced limit; setpointPages is
/// the traced setpoint ((limit + freerun)/2 until one is seen). TaskSamples: per pid that appeared
/// in the interval, its dirtied pages (cumulative and as KiB/s), last task_ratelimit and its
/// longest pause.
class TraceConverter {
 public:
  explicit TraceConverter(ImportSink& sink, double intervalS = 0.1);
  ~TraceConverter();
  /// Not copyable: a copy would share (and so corrupt) the state of the one copied.
  TraceConverter(const TraceConverter&) = delete;
  TraceConverter& operator=(const TraceConverter&) = delete;
  TraceConverter(TraceConverter&&) noexcept;
  void add(const engine::TraceRecord& record);
  /// Emits the last, partial interval. Call once at the end.
  void finish();
  double intervalS() const { return m_intervalS; }
  /// Tasks and devices announced so far.
  int taskCount() const;
  const std::vector<std::string>& deviceNames() const;
  /// Gaps longer than kMaxFillS, which got no rows, and their total length.
  std::int64_t gapsSkipped() const;
  double gapsSkippedS() const;
  /// Distinct bdi names beyond the first engine::kMaxDevices (no columns of their own): the
  /// rows carry every device's columns, so without a bound a trace naming a new bdi per line
  /// would make a CSV that grows with the square of its length.
  std::int64_t devicesWithoutColumns() const;

  /// The longest stretch without records that is filled with rows repeating the last values:
  /// a row per interval wherever the trace has data, without turning a trace whose events are
  /// hours apart into gigabytes of identical rows.
  static constexpr double kMaxFillS = 1.0;

 private:
  struct State;
  ImportSink& m_sink;
  double m_intervalS;
  std::unique_ptr<State> m_state;
};

/// How much of the input is checked for binary data before it is read as text.
inline constexpr std::int64_t kSniffBytes = 64 * 1024;
/// A line this long is not a trace line that lost its way but a file without line ends:
/// the reading stops there rather than skip to an end that may never come (/dev/zero).
inline constexpr std::int64_t kMaxStoppingLineBytes = 16 << 20;

struct ImportOptions {
  double sampleIntervalS = 0.1;
  /// Called every few MB: bytes read so far and the file size (0 if unknown, e.g. a pipe).
  std::function<void(std::int64_t done, std::int64_t total)> progress;
  /// A stop request (from another thread) ends the reading early; the result then says
  /// `cancelled`.
  std::stop_token stop;
  /// Only this memory cgroup's records: the balance_dirty_pages and bdi_dirty_ratelimit
  /// records of other cgroup_inos reach neither the sink nor the rows (global_dirty_state, the
  /// machine's, always does). A cgroup_ino no such record carries is an error.
  std::optional<std::uint64_t> cgroupIno;
};

struct ImportResult {
  ImportStats stats;
  bool cancelled = false;
  /// Non-empty when nothing could be imported: the file cannot be opened ("cannot open X: No
  /// such file or directory"), or it holds no writeback event at all ("X is not a kernel
  /// trace: none of its N lines is a writeback:balance_dirty_pages, bdi_dirty_ratelimit or
  /// global_dirty_state event (line 1: …)").
  std::string error;
  bool ok() const { return error.empty() && !cancelled; }
};

/// Reads `path` ("-" = stdin) in blocks and feeds every line through the parser and a
/// TraceConverter into `sink`. Never throws for bad input. Binary data (a NUL byte in the
/// first kSniffBytes, or the magic number of trace-cmd's trace.dat, perf.data or a
/// compressed file) is refused before anything is converted; a line longer than
/// kMaxStoppingLineBytes ends the reading (its text before it is imported); lines that end
/// in a carriage return alone are read as lines.
ImportResult importTrace(const std::string& path, ImportSink& sink,
                         const ImportOptions& options = {});
/// The same over text already in memory (tests, the live recorder).
ImportResult importTraceText(std::string_view text, ImportSink& sink,
                             const ImportOptions& options = {});

/// A one-paragraph human summary: format, events, time span, pids, devices, skipped lines by
/// kind with the first problems ("line 17: no value for dirty="), and the cgroup filter.
std::string describe(const ImportStats& stats);

}  // namespace throttlelab::traceio
