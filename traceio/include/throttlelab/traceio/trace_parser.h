// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Reading the kernel's writeback tracepoints back from text. Three producers write
/// the same events in slightly different line layouts:
///   ftrace   `/sys/kernel/tracing/trace` and `trace_pipe`:
///            `  dd-4288  [000] .....  294.213189: balance_dirty_pages: bdi 254:0: limit=...`
///            (older kernels have no flags column, or a 4-character one)
///   trace-cmd `trace-cmd report`: `  dd-4288  [000]  294.213189: balance_dirty_pages: ...`
///            (optionally with latency flags, and `CPU 0 is empty` / `cpus=2` preamble lines)
///   perf     `perf script`: `  dd  4288 [000]  294.213189: writeback:balance_dirty_pages: ...`
/// Fields are found by name (`name=value`), never by position: the field sets changed across
/// kernels (3.2 had bdi_setpoint/bdi_dirty, later wb_setpoint/wb_dirty; period/think came in
/// 3.3; 2011 patch versions named setpoint `goal`, bdi_setpoint `bdi_goal`, dirty_ratelimit
/// `base_rate`; cgroup_ino changed type). Missing fields read as 0 and are flagged. A value
/// the kernel cannot print for its field (a negative or wrapped page count, a 21-digit rate,
/// `1e400`: each field has the type of its TP_STRUCT__entry) makes the line Malformed, with
/// the field named in `problemField`.
#include <cstdint>
#include <string>
#include <string_view>

#include "throttlelab/engine/records.h"

namespace throttlelab::traceio {

enum class TraceFormat { Unknown, Ftrace, TraceCmd, PerfScript };
std::string_view toString(TraceFormat f);

/// What became of one line.
enum class LineKind {
  Event,      ///< one of the three writeback events, parsed into `record`
  Other,      ///< a well-formed event line of another event (sched_switch, writeback_start…)
  Comment,    ///< preamble, `#` header, blank line, `CPU n is empty`, `cpus=2`, lost-events notes
  Malformed,  ///< one of our events with a field unreadable or out of range, or a line over
              ///< kMaxLineBytes
  Garbage,    ///< not a trace line at all
};

struct ParsedLine {
  LineKind kind = LineKind::Garbage;
  TraceFormat format = TraceFormat::Unknown;  ///< the layout it was recognised as
  /// Valid when kind == Event. Its `bdi` string_view points into the parsed line: copy it
  /// before the line's storage goes away. Times are the trace timestamp (seconds) as SimTime.
  engine::TraceRecord record;
  /// Fields absent from the line (era differences), as bits of (1 << index in the event's
  /// field list in the order of records.h). 0 when everything was present.
  std::uint32_t missingFields = 0;
  /// For Malformed/Garbage: a short reason ("no value for dirty=", "no timestamp").
  std::string_view problem;
  /// For a value out of range: its `name=value` text, a view into the line (`dirty=-5`);
  /// `problem` then says what the kernel prints there ("is out of range: a page count …").
  std::string_view problemField;
};

/// A line longer than this is Malformed without being read: no kernel prints one (the bdi
/// name is at most 32 bytes, the fields a few hundred), and a bound keeps a file without line
/// ends (binary data, /dev/zero) from being held in memory as one line.
inline constexpr std::size_t kMaxLineBytes = 64 * 1024;

/// A longer bdi name makes the line Malformed: the tracepoints copy dev_name() into a char[32]
/// (31 characters and a NUL); 32 are allowed, as many as a device of a scenario may have.
inline constexpr std::size_t kMaxBdiNameBytes = 32;

/// The problem of a Malformed or Garbage line as one text, the field's text (cut to 64
/// characters, non-printable bytes as '?') in front of the reason when there is one:
/// "dirty=-5 is out of range: a page count (unsigned long) is never negative".
std::string problemText(const ParsedLine& line);

/// Parses one line (without its '\n'; a trailing '\r' is ignored). Never throws, never reads
/// outside `line`. `problem` and `problemField` of the result are views into `line`: keep the
/// line alive as long as they are read (problemText() included). Stateless and cheap: the importer
/// calls it for every line of a GB file.
ParsedLine parseTraceLine(std::string_view line);
/// The same into an existing ParsedLine (its record is rebuilt only for an Event): the
/// importer keeps a buffer of parsed lines and fills it without copying each one.
void parseTraceLine(std::string_view line, ParsedLine& out);

}  // namespace throttlelab::traceio
