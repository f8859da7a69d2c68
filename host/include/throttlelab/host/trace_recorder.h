// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Records the three writeback tracepoints from this machine's kernel (issue #6, root only).
/// start() mounts tracefs at the root if it is not mounted, remembers the state it changes
/// (each event's enable file, tracing_on, whether it mounted), enables the events and opens
/// trace_pipe; read() streams complete lines; stop() - also run by the destructor - puts
/// every file back exactly as found and unmounts what it mounted. It never changes anything
/// it did not save first, so an error half-way still restores.
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
  /// writeback:balance_dirty_pages event"). On failure nothing is left changed.
  std::string start();
  bool isRecording() const;
  /// Appends the complete lines available within `timeout` (each ending in '\n') to `out`.
  /// Returns the bytes appended; 0 on timeout. Partial lines are kept for the next call.
  std::size_t read(std::string& out, std::chrono::milliseconds timeout);
  /// Restores everything start() changed. Idempotent. Empty, or what could not be restored.
  std::string stop();

 private:
  struct Saved;
  Options m_options;
  std::unique_ptr<Saved> m_saved;
};

/// `throttlelab --record-trace FILE --duration S`: records until S seconds pass or a
/// SIGINT/SIGTERM arrives, writing the ftrace text (with a `# tracer: nop` header) to FILE
/// atomically. Returns a process exit code (0 ok, 1 failure with a message on `err`).
int recordTraceToFile(const std::string& path, double durationS, std::ostream& out,
                      std::ostream& err, TraceRecorder::Options options = {});

}  // namespace throttlelab::host
