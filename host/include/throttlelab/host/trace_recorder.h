// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Records the three writeback tracepoints from this machine's kernel (root only).
///
/// start() mounts tracefs at the root if it is not mounted and records in a private ftrace
/// instance: it makes `<tracefs>/instances/throttlelab-<pid>` (mkdir(2) on tracefs makes the
/// kernel create the instance's own ring buffer, events/ tree, tracing_on and trace_pipe),
/// enables the events inside it and opens its trace_pipe. The top-level buffer and settings,
/// which someone else's tracing session may be using, are never written, nor its trace_pipe read.
/// stop() - also run by the destructor, and by recordTraceToFile on SIGINT/SIGTERM and on
/// errors - closes trace_pipe, disables the events and removes the instance (rmdir(2) tears it
/// down), then unmounts what it mounted.
///
/// An instance left behind by an earlier run that was killed (`throttlelab-<pid>` or
/// `throttlelab-<pid>-<n>` whose process no longer exists) is removed by start(); one whose
/// process is alive is left alone (the kernel also refuses to remove an instance whose
/// trace_pipe is open). A second recorder in the same process uses `throttlelab-<pid>-2`, ...
///
/// Only when instances are unavailable (no `instances` directory, or its mkdir fails with
/// EACCES, ENOENT or EOPNOTSUPP) does it fall back to the top-level buffer: it remembers the
/// state it changes (each event's enable file, tracing_on), enables the events and opens the
/// top-level trace_pipe, and stop() puts every file back exactly as found. An event (or
/// tracing_on) that was already on is left alone and stays on. In that mode reading trace_pipe
/// consumes the top-level ring buffer, so events that other users enabled there are read (and
/// recorded) too. mode() and modeDescription() say which mode a recording uses.
///
/// It never changes anything it did not save (or create) first, so an error half-way still
/// restores.
#include <chrono>
#include <functional>
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
    std::vector<std::string> events{"writeback/global_dirty_state", "writeback/bdi_dirty_ratelimit",
                                    "writeback/balance_dirty_pages"};
    /// How an instance directory is created and removed: 0 or an errno value. Empty means
    /// mkdir(2) and rmdir(2), with which the kernel builds and tears down the instance's whole
    /// tree. Tests with a fake tracefs substitute functions that do what the kernel would.
    std::function<int(const std::string& path)> makeInstanceDir;
    std::function<int(const std::string& path)> removeInstanceDir;
  };

  enum class Mode {
    None,      ///< never started successfully
    Instance,  ///< a private ftrace instance; the top-level state is not touched
    TopLevel,  ///< the fallback: the top-level buffer, its settings saved and restored
  };

  TraceRecorder();
  explicit TraceRecorder(Options options);
  ~TraceRecorder();
  TraceRecorder(const TraceRecorder&) = delete;
  TraceRecorder& operator=(const TraceRecorder&) = delete;

  /// Empty on success; otherwise why not ("recording needs root: run as root or use live
  /// host mode without tracepoints", "cannot mount tracefs at …: …", "this kernel has no
  /// writeback:balance_dirty_pages event (no …/enable)", "cannot create the ftrace instance
  /// …: …"). On failure nothing is left changed: an instance it made is removed again.
  /// Root means geteuid() == 0, or a writable tracefsRoot (how the tests use a fake tracefs).
  /// Every event's enable file and tracing_on are read before anything is written.
  std::string start();
  /// The mode of the current or last successful start(); None before one.
  Mode mode() const;
  /// For a start message: "the private ftrace instance /sys/kernel/tracing/instances/
  /// throttlelab-1234 (the top-level trace buffer and settings are not touched)", or "the
  /// top-level trace buffer of /sys/kernel/tracing (no ftrace instances: …); …". Mentions a
  /// stale instance start() removed. Empty before a successful start().
  const std::string& modeDescription() const;
  bool isRecording() const;
  /// Appends the complete lines available within `timeout` (each ending in '\n') to `out`.
  /// Returns the bytes appended; 0 on timeout. Partial lines are kept for the next call.
  /// Returns at once when lines are already there; otherwise waits up to `timeout` (since 6.1
  /// trace_pipe's poll() wakes only at buffer_percent, so expect the full wait) and returns
  /// what arrived. A signal ends the wait early. 0 when not recording.
  std::size_t read(std::string& out, std::chrono::milliseconds timeout);
  /// Undoes everything start() did: closes trace_pipe, then in an instance disables the events
  /// and removes the instance; at the top level restores tracing_on first, then the events.
  /// Then unmounts what start() mounted. Idempotent. Empty, or what could not be undone; that
  /// part is kept and tried again by the next stop(), start() or the destructor. A partial
  /// last line is dropped.
  std::string stop();

 private:
  struct Saved;
  Options m_options;
  std::unique_ptr<Saved> m_saved;
  Mode m_mode = Mode::None;
  std::string m_modeDescription;
};

/// `throttlelab --record-trace FILE --duration S`: prints to `out` which mode it records in
/// ("recording writeback:… in the private ftrace instance …"), then records until S seconds
/// pass or a SIGINT/SIGTERM arrives (both end it like the duration does, so the instance is
/// removed, or the top-level state restored, before it returns), writing the ftrace text
/// (with the `# tracer: nop` header block of /sys/kernel/tracing/trace, its entries count
/// being the lines recorded) to FILE atomically:
/// through a temporary file in FILE's directory and rename(2), so an existing FILE is replaced
/// only by a complete recording and is untouched on any failure. `durationS` may be infinity
/// (until a signal). SIGINT/SIGTERM handlers are installed for the call and the previous ones
/// put back. On success also prints "recorded N events (B bytes) in T s to FILE" to `out`.
/// Returns a process exit code: 0 ok; 1 failure (cannot record, cannot write FILE, tracing
/// not fully restored) with a message on `err`; 2 for a duration that is not > 0.
int recordTraceToFile(const std::string& path, double durationS, std::ostream& out,
                      std::ostream& err, TraceRecorder::Options options = {});

}  // namespace throttlelab::host
