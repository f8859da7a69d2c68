// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Records the three writeback tracepoints from this machine's kernel (issue #6, root only).
/// start() mounts tracefs at the root if it is not mounted, remembers the state it changes
/// (each event's enable file, tracing_on, whether it mounted), enables the events and opens
/// trace_pipe; read() streams complete lines; stop() - also run by the destructor - puts
/// every file back exactly as found and unmounts what it mounted. It never changes anything
/// it did not save first, so an error half-way still restores. An event (or tracing_on) that
/// was already on is left alone and stays on. Reading trace_pipe consumes the top-level ring
/// buffer, so events that other users enabled there are read (and recorded) too.
#include <chrono>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace throttlelab::host {

class TraceRecorder {
 public:
  struct Options {
    std::string tracefsRoot = "/sys/kernel/tracing";
    bool mountIfNeeded = true;
    std::vector<std::string> events{"writeback/global_dirty_state",
                                    "writeback/bdi_dirty_ratelimit",
                                    "writeback/balance_dirty_pages"};
  };

  TraceRecorder();
  explicit TraceRecorder(Options options);
  ~TraceRecorder();
  TraceRecorder(const TraceRecorder&) = delete;
  TraceRecorder& operator=(const TraceRecorder&) = delete;

  /// Empty on success; otherwise why not ("recording needs root: run as root or use live
  /// host mode without tracepoints", "cannot mount tracefs at …: …", "this kernel has no
  /// writeback:balance_dirty_pages event (no …/enable)"). On failure nothing is left changed.
  /// Root means geteuid() == 0, or a writable tracefsRoot (how the tests use a fake tracefs).
  /// Every event's enable file and tracing_on are read before anything is written.
  std::string start();
  bool isRecording() const;
  /// Appends the complete lines available within `timeout` (each ending in '\n') to `out`.
  /// Returns the bytes appended; 0 on timeout. Partial lines are kept for the next call.
  /// Returns at once when lines are already there; otherwise waits up to `timeout` (since 6.1
  /// trace_pipe's poll() wakes only at buffer_percent, so expect the full wait) and returns
  /// what arrived. A signal ends the wait early. 0 when not recording.
  std::size_t read(std::string& out, std::chrono::milliseconds timeout);
  /// Restores everything start() changed (tracing_on first, then the events, then unmounts).
  /// Idempotent. Empty, or what could not be restored; that part is kept and tried again by
  /// the next stop(), start() or the destructor. A partial last line is dropped.
  std::string stop();

 private:
  struct Saved;
  Options m_options;
  std::unique_ptr<Saved> m_saved;
};

/// `throttlelab --record-trace FILE --duration S`: records until S seconds pass or a
/// SIGINT/SIGTERM arrives, writing the ftrace text (with the `# tracer: nop` header block of
/// /sys/kernel/tracing/trace, its entries count being the lines recorded) to FILE atomically:
/// through a temporary file in FILE's directory and rename(2), so an existing FILE is replaced
/// only by a complete recording and is untouched on any failure. `durationS` may be infinity
/// (until a signal). SIGINT/SIGTERM handlers are installed for the call and the previous ones
/// put back. On success prints "recorded N events (B bytes) in T s to FILE" to `out`.
/// Returns a process exit code: 0 ok; 1 failure (cannot record, cannot write FILE, tracing
/// not fully restored) with a message on `err`; 2 for a duration that is not > 0.
int recordTraceToFile(const std::string& path, double durationS, std::ostream& out,
                      std::ostream& err, TraceRecorder::Options options = {});

}  // namespace throttlelab::host
