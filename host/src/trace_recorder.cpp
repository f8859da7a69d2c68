// SPDX-License-Identifier: GPL-3.0-or-later
// Records writeback tracepoints through tracefs in a private ftrace instance (the top level
// only as a fallback, restoring every file it touched there).
#include "throttlelab/host/trace_recorder.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include <csignal>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <ostream>
#include <set>
#include <sstream>
#include <string_view>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

#include "file_util.h"
#include "throttlelab/engine/output.h"
#include "throttlelab/host/output_target.h"

namespace throttlelab::host {

using detail::exists;
using detail::isDirectory;

namespace {

/// "writeback/balance_dirty_pages" → "writeback:balance_dirty_pages", as perf and trace-cmd
/// name events.
std::string eventName(const std::string& event) {
  std::string name = event;
  if (const auto slash = name.find('/'); slash != std::string::npos) name[slash] = ':';
  return name;
}

/// An enable file reads "0", "1", or with a trigger's soft mode "0*"/"1*"; tracing_on "0"/"1".
bool isOn(const std::string& content) {
  return !content.empty() && content.front() == '1';
}

constexpr std::size_t kReadChunk = std::size_t{64} << 10;
constexpr std::size_t kMaxBytesPerRead = std::size_t{4} << 20;  // then give the caller a turn

}  // namespace

struct TraceRecorder::Saved {
  struct File {
    std::string path;
    std::string original;  ///< content as read before start() changed anything
    bool changed = false;  ///< start() wrote it, so stop() must write it back
  };
  std::string root;
  std::string instance;  ///< the private instance start() made; empty at the top level
  bool mounted = false;  ///< start() mounted tracefs, so stop() unmounts it
  std::vector<File> enables;
  File tracingOn;
  int pipeFd = -1;
  bool recording = false;
  std::string partial;  ///< bytes after the last '\n' read so far
  std::string chunk;    ///< read buffer, reused
  bool sawEof = false;  ///< trace_pipe never ends; a FIFO in tests does
};

namespace {

constexpr std::string_view kInstancePrefix = "throttlelab-";

/// Instance names held by this process's recorders, so two of them never share one and the
/// stale-instance sweep never takes a live one of ours.
std::mutex g_instancesMutex;
std::set<std::string> g_instancesInUse;

int makeInstanceDir(const TraceRecorder::Options& o, const std::string& path) {
  if (o.makeInstanceDir) return o.makeInstanceDir(path);
  return ::mkdir(path.c_str(), 0750) == 0 ? 0 : errno;
}

int removeInstanceDir(const TraceRecorder::Options& o, const std::string& path) {
  if (o.removeInstanceDir) return o.removeInstanceDir(path);
  return ::rmdir(path.c_str()) == 0 ? 0 : errno;
}

bool allDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// The pid in "throttlelab-<pid>" or "throttlelab-<pid>-<n>"; false for any other name.
bool instancePid(std::string_view name, pid_t& pid) {
  if (name.substr(0, kInstancePrefix.size()) != kInstancePrefix) return false;
  name.remove_prefix(kInstancePrefix.size());
  const auto dash = name.find('-');
  const std::string_view digits = name.substr(0, dash);
  if (!allDigits(digits) || digits.size() > 9) return false;
  if (dash != std::string_view::npos && !allDigits(name.substr(dash + 1))) return false;
  std::int64_t value = 0;
  if (!detail::parseInt(digits, value) || value <= 0) return false;
  pid = static_cast<pid_t>(value);
  return true;
}

bool processExists(pid_t pid) {
  return ::kill(pid, 0) == 0 || errno == EPERM;
}

/// Removes the instances of earlier runs that were killed before they could remove their own:
/// our name pattern with a pid that no longer exists, or with our own pid (an earlier process
/// that had it) but held by none of our recorders. Needs g_instancesMutex. Returns the names
/// removed.
std::vector<std::string> removeStaleInstances(const TraceRecorder::Options& o,
                                              const std::string& instancesDir) {
  std::vector<std::string> removed;
  DIR* dir = ::opendir(instancesDir.c_str());
  if (dir == nullptr) return removed;
  std::vector<std::string> stale;
  const pid_t self = ::getpid();
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    pid_t pid = 0;
    if (!instancePid(name, pid)) continue;
    if (pid == self ? g_instancesInUse.count(name) == 0 : !processExists(pid)) {
      stale.push_back(name);
    }
  }
  ::closedir(dir);
  for (const auto& name : stale) {
    // EBUSY: someone has its files open, so it is not stale after all; leave it.
    if (removeInstanceDir(o, instancesDir + "/" + name) == 0) removed.push_back(name);
  }
  return removed;
}

/// mkdir(2) errors that mean "this tracefs cannot give us an instance": fall back to the top
/// level. Anything else is a real failure.
bool instancesUnavailable(int err) {
  return err == EACCES || err == ENOENT || err == EOPNOTSUPP;
}

std::string joinNames(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& n : names) text += (text.empty() ? "" : ", ") + n;
  return text;
}

}  // namespace

TraceRecorder::TraceRecorder() : TraceRecorder(Options{}) {}
TraceRecorder::TraceRecorder(Options options) : m_options(std::move(options)) {}
TraceRecorder::~TraceRecorder() {
  (void)stop();
  if (m_saved && !m_saved->instance.empty()) {
    // It could not be removed: give up the claim on its name, so that the next start() in
    // this process (or in a later one) sweeps it away as stale.
    const std::lock_guard lock(g_instancesMutex);
    g_instancesInUse.erase(m_saved->instance.substr(m_saved->instance.rfind('/') + 1));
  }
}

bool TraceRecorder::isRecording() const {
  return m_saved && m_saved->recording;
}

TraceRecorder::Mode TraceRecorder::mode() const {
  return m_mode;
}

const std::string& TraceRecorder::modeDescription() const {
  return m_modeDescription;
}

std::string TraceRecorder::start() {
  if (isRecording()) return "already recording";
  if (m_saved) {  // a previous stop() could not undo everything: try once more
    if (auto e = stop(); !e.empty()) return "the previous recording is not fully undone: " + e;
  }
  const std::string& root = m_options.tracefsRoot;
  if (::geteuid() != 0 && ::access(root.c_str(), W_OK) != 0) {
    return "recording needs root: run as root or use live host mode without tracepoints";
  }
  if (m_options.events.empty()) return "no events to record";

  auto saved = std::make_unique<Saved>();
  saved->root = root;
  // Everything below either succeeds or is undone before returning, by stop() on what was
  // done so far, so a failed start() leaves the machine as it found it.
  const auto fail = [this, &saved](std::string why) {
    m_saved = std::move(saved);
    if (auto problem = stop(); !problem.empty()) why += "; and undoing it failed: " + problem;
    return why;
  };

  const bool mounted = exists(root + "/trace_pipe") && isDirectory(root + "/events");
  if (!mounted) {
    if (!m_options.mountIfNeeded) return "tracefs is not mounted at " + root;
    if (::mount("nodev", root.c_str(), "tracefs", 0, nullptr) != 0) {
      return "cannot mount tracefs at " + root + ": " + detail::errnoText(errno);
    }
    saved->mounted = true;
    if (!exists(root + "/trace_pipe")) {
      return fail("mounted tracefs at " + root + " but it has no trace_pipe");
    }
  }

  // A private instance if this tracefs can make one; the top level only if it cannot.
  const std::string instancesDir = root + "/instances";
  std::string fallbackWhy;
  std::vector<std::string> staleRemoved;
  if (!isDirectory(instancesDir)) {
    fallbackWhy = "no ftrace instances: " + instancesDir + " does not exist";
  } else {
    const std::lock_guard lock(g_instancesMutex);
    staleRemoved = removeStaleInstances(m_options, instancesDir);
    const std::string base = std::string(kInstancePrefix) + std::to_string(::getpid());
    int lastErr = 0;
    for (int n = 1; n <= 100 && saved->instance.empty(); ++n) {
      const std::string name = n == 1 ? base : base + "-" + std::to_string(n);
      if (g_instancesInUse.count(name) != 0) continue;
      const std::string path = instancesDir + "/" + name;
      lastErr = makeInstanceDir(m_options, path);
      if (lastErr == 0) {
        g_instancesInUse.insert(name);
        saved->instance = path;
      } else if (lastErr != EEXIST) {
        break;  // EEXIST: not ours and not removable (in use), so try the next name
      }
    }
    if (saved->instance.empty()) {
      if (!instancesUnavailable(lastErr)) {
        return fail("cannot create the ftrace instance " + instancesDir + "/" + base + ": " +
                    detail::errnoText(lastErr));
      }
      fallbackWhy =
          "cannot create an ftrace instance in " + instancesDir + ": " + detail::errnoText(lastErr);
    }
  }
  // Where events/, tracing_on and trace_pipe are.
  const std::string dir = saved->instance.empty() ? root : saved->instance;

  std::string buffer;
  for (const auto& event : m_options.events) {
    Saved::File f{.path = dir + "/events/" + event + "/enable", .original = {}};
    if (const int err = detail::readFile(f.path, buffer); err != 0 || buffer.empty()) {
      if (err == ENOENT || err == 0) {
        return fail("this kernel has no " + eventName(event) + " event (no " + f.path + ")");
      }
      return fail("cannot read " + f.path + ": " + detail::errnoText(err));
    }
    f.original = buffer;
    saved->enables.push_back(std::move(f));
  }
  saved->tracingOn.path = dir + "/tracing_on";
  if (const int err = detail::readFile(saved->tracingOn.path, buffer); err != 0 || buffer.empty()) {
    return fail("cannot read " + saved->tracingOn.path + ": " +
                (err != 0 ? detail::errnoText(err) : std::string("empty")));
  }
  saved->tracingOn.original = buffer;

  const std::string pipePath = dir + "/trace_pipe";
  saved->pipeFd = ::open(pipePath.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (saved->pipeFd < 0) {
    const int err = errno;
    return fail("cannot open " + pipePath + ": " + detail::errnoText(err));
  }

  for (auto& f : saved->enables) {
    if (isOn(f.original)) continue;  // someone else's: leave it on, and on after stop()
    if (const int err = detail::writeFile(f.path, "1\n"); err != 0) {
      return fail("cannot enable " + f.path + ": " + detail::errnoText(err));
    }
    f.changed = true;
  }
  if (!isOn(saved->tracingOn.original)) {
    if (const int err = detail::writeFile(saved->tracingOn.path, "1\n"); err != 0) {
      return fail("cannot switch on " + saved->tracingOn.path + ": " + detail::errnoText(err));
    }
    saved->tracingOn.changed = true;
  }

  if (!saved->instance.empty()) {
    m_mode = Mode::Instance;
    m_modeDescription = "the private ftrace instance " + saved->instance +
                        " (the top-level trace buffer and settings are not touched)";
  } else {
    m_mode = Mode::TopLevel;
    m_modeDescription = "the top-level trace buffer of " + root + " (" + fallbackWhy +
                        "); its event and tracing_on settings are restored afterwards, and "
                        "events others enabled there are recorded too";
  }
  if (!staleRemoved.empty()) {
    m_modeDescription += "; removed the instance" +
                         std::string(staleRemoved.size() > 1 ? "s " : " ") +
                         joinNames(staleRemoved) + " left by an earlier run";
  }
  saved->recording = true;
  m_saved = std::move(saved);
  return {};
}

std::size_t TraceRecorder::read(std::string& out, std::chrono::milliseconds timeout) {
  if (!isRecording()) return 0;
  Saved& s = *m_saved;
  if (s.chunk.size() < kReadChunk) s.chunk.resize(kReadChunk);
  const std::size_t before = out.size();

  // Drains what can be read without blocking into `partial`; moves whole lines to `out`.
  const auto drain = [&] {
    std::size_t got = 0;
    while (got < kMaxBytesPerRead) {
      const ssize_t n = ::read(s.pipeFd, s.chunk.data(), s.chunk.size());
      if (n < 0 && errno == EINTR) continue;
      if (n == 0) s.sawEof = true;
      if (n <= 0) break;
      s.partial.append(s.chunk.data(), static_cast<std::size_t>(n));
      got += static_cast<std::size_t>(n);
    }
    if (const auto nl = s.partial.rfind('\n'); nl != std::string::npos) {
      out.append(s.partial, 0, nl + 1);
      s.partial.erase(0, nl + 1);
    }
  };

  drain();
  if (out.size() > before) return out.size() - before;
  if (timeout.count() <= 0) return 0;
  // trace_pipe's poll() wakes only once the ring buffer is buffer_percent full (6.1+), so the
  // timeout, not the wake-up, usually ends this wait; the non-blocking read after it collects
  // whatever arrived meanwhile.
  if (s.sawEof) {
    // A FIFO whose writer left reports POLLHUP at once: sleep instead of spinning.
    s.sawEof = false;
    std::this_thread::sleep_for(timeout);
  } else {
    pollfd pfd{.fd = s.pipeFd, .events = POLLIN, .revents = 0};
    const int ms = static_cast<int>(std::min<std::chrono::milliseconds::rep>(
        timeout.count(), std::chrono::milliseconds::rep{86400000}));
    if (::poll(&pfd, 1, ms) < 0) return 0;  // EINTR: a signal; the caller decides
  }
  drain();
  return out.size() - before;
}

std::string TraceRecorder::stop() {
  if (!m_saved) return {};
  Saved& s = *m_saved;
  std::string problems;
  const auto note = [&problems](const std::string& what) {
    if (!problems.empty()) problems += "; ";
    problems += what;
  };
  // First, so the kernel lets the instance go (an open trace_pipe makes rmdir EBUSY).
  if (s.pipeFd >= 0) {
    ::close(s.pipeFd);
    s.pipeFd = -1;
  }
  s.recording = false;
  s.partial.clear();
  // tracing_on first, so nothing more is recorded while the events are put back.
  const auto restore = [&note](Saved::File& f) {
    if (!f.changed) return;
    if (const int err = detail::writeFile(f.path, std::string(1, f.original.front()) + "\n");
        err != 0) {
      note("cannot restore " + f.path + ": " + detail::errnoText(err));
    } else {
      f.changed = false;
    }
  };
  restore(s.tracingOn);
  for (auto& f : s.enables) restore(f);
  if (!s.instance.empty()) {
    // Removing the instance takes its settings with it, so a setting that could not be put
    // back matters only if the instance stays.
    const int err = removeInstanceDir(m_options, s.instance);
    if (err == 0 || err == ENOENT) {
      problems.clear();
      s.tracingOn.changed = false;
      for (auto& f : s.enables) f.changed = false;
      const std::lock_guard lock(g_instancesMutex);
      g_instancesInUse.erase(s.instance.substr(s.instance.rfind('/') + 1));
      s.instance.clear();
    } else {
      note("cannot remove the ftrace instance " + s.instance + ": " + detail::errnoText(err));
    }
  }
  if (s.mounted && problems.empty()) {
    if (::umount2(s.root.c_str(), 0) != 0) {
      note("cannot unmount tracefs at " + s.root + ": " + detail::errnoText(errno));
    } else {
      s.mounted = false;
    }
  }
  // Keep what could not be undone, so a later stop() (or the destructor) tries again.
  if (problems.empty()) m_saved.reset();
  return problems;
}

// ---------------------------------------------------------------------------------------------

namespace {

std::atomic<int> g_stopSignal{0};
static_assert(std::atomic<int>::is_always_lock_free, "used from a signal handler");

extern "C" void onStopSignal(int sig) {
  g_stopSignal.store(sig, std::memory_order_relaxed);
}

/// Installs the SIGINT/SIGTERM handlers for its lifetime and puts the previous ones back.
class StopSignals {
 public:
  StopSignals() {
    g_stopSignal.store(0);
    struct sigaction sa {};
    sa.sa_handler = onStopSignal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;  // no SA_RESTART: poll() returns at once with EINTR
    m_intOk = ::sigaction(SIGINT, &sa, &m_oldInt) == 0;
    m_termOk = ::sigaction(SIGTERM, &sa, &m_oldTerm) == 0;
  }
  ~StopSignals() {
    if (m_intOk) ::sigaction(SIGINT, &m_oldInt, nullptr);
    if (m_termOk) ::sigaction(SIGTERM, &m_oldTerm, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  static int caught() { return g_stopSignal.load(std::memory_order_relaxed); }

 private:
  struct sigaction m_oldInt {};
  struct sigaction m_oldTerm {};
  bool m_intOk = false, m_termOk = false;
};

/// An O_EXCL file next to `path` (same directory, so rename() is atomic). -1 and errno on error.
int createTempNextTo(const std::string& path, const char* tag, std::string& tmpPath) {
  const auto slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  for (int attempt = 0; attempt < 100; ++attempt) {
    tmpPath = dir + "." + base + "." + tag + "." + std::to_string(::getpid()) + "." +
              std::to_string(attempt);
    const int fd = ::open(tmpPath.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

int writeAll(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return 0;
}

/// The header `cat /sys/kernel/tracing/trace` prints for the nop tracer.
std::string traceHeader(std::int64_t entries, long cpus) {
  std::ostringstream out;
  engine::writeTraceHeader(out, entries, cpus);
  return out.str();
}

/// Removes its files unless dismissed; closes its descriptors.
struct TempFiles {
  std::vector<std::pair<int, std::string>> files;
  ~TempFiles() {
    for (auto& [fd, path] : files) {
      if (fd >= 0) ::close(fd);
      if (!path.empty()) ::unlink(path.c_str());
    }
  }
};

}  // namespace

int recordTraceToFile(const std::string& path, double durationS, std::ostream& out,
                      std::ostream& err, TraceRecorder::Options options) {
  if (!(durationS > 0)) {
    err << "--duration must be a positive number of seconds\n";
    return 2;
  }
  // The body is streamed to one temporary file while recording; at the end the header (which
  // needs the count) and the body are written through an OutputWriter: a temporary file
  // renamed over `path` (a symbolic link's target), or a device or FIFO written in place.
  auto resolved = resolveOutput(path);
  if (const auto* reason = std::get_if<std::string>(&resolved)) {
    err << "cannot write " << path << ": " << *reason << "\n";
    return 1;
  }
  const OutputTarget target = std::get<OutputTarget>(resolved);
  TempFiles temps;
  std::string bodyPath;
  // Never beside a device node (/dev is no place for it): in the temporary directory then.
  const int bodyFd = createTempNextTo(
      target.inPlace ? (std::filesystem::temp_directory_path() / "throttlelab-record").string()
                     : target.path,
      "body", bodyPath);
  if (bodyFd < 0) {
    err << "cannot write " << path << ": " << detail::errnoText(errno) << "\n";
    return 1;
  }
  temps.files.emplace_back(bodyFd, bodyPath);

  StopSignals signals;
  const std::vector<std::string> recordedEvents = options.events;
  TraceRecorder recorder(std::move(options));
  if (auto e = recorder.start(); !e.empty()) {
    err << "cannot record: " << e << "\n";
    return 1;
  }
  {
    std::string names;
    for (const auto& event : recordedEvents) {
      names += (names.empty() ? "" : ", ") + eventName(event);
    }
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%g", durationS);
    out << "recording " << names << " in " << recorder.modeDescription() << ", "
        << (std::isfinite(durationS) ? std::string("for ") + seconds + " s (Ctrl-C ends it early)"
                                     : std::string("until Ctrl-C"))
        << std::endl;
  }

  std::int64_t lines = 0, lost = 0, bytes = 0;
  std::string chunk;
  std::string failure;
  const auto started = std::chrono::steady_clock::now();
  const auto deadline =
      std::isfinite(durationS)
          ? started + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                          std::chrono::duration<double>(durationS))
          : std::chrono::steady_clock::time_point::max();
  // Counts a chunk's events and appends it to the body; false (with `failure`) if it could
  // not be written.
  const auto keep = [&](const std::string& data) {
    detail::forEachLine(data, [&](std::string_view line) {
      if (line.empty()) return;
      // trace_pipe reports overruns as "CPU:1 [LOST 123 EVENTS]"
      if (line.find(" [LOST ") != std::string_view::npos)
        ++lost;
      else
        ++lines;
    });
    if (const int e = writeAll(bodyFd, data.data(), data.size()); e != 0) {
      failure = "cannot write " + bodyPath + ": " + detail::errnoText(e);
      return false;
    }
    bytes += static_cast<std::int64_t>(data.size());
    return true;
  };
  for (;;) {
    const auto now = std::chrono::steady_clock::now();
    if (StopSignals::caught() != 0 || now >= deadline) break;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
    chunk.clear();
    recorder.read(chunk,
                  std::min(left + std::chrono::milliseconds(1), std::chrono::milliseconds(200)));
    if (chunk.empty()) continue;
    if (!keep(chunk)) break;
  }
  // One last non-blocking read for what the kernel emitted up to the end.
  if (failure.empty()) {
    chunk.clear();
    recorder.read(chunk, std::chrono::milliseconds(0));
    if (!chunk.empty()) keep(chunk);
  }
  const double elapsedS =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const std::string restoreProblem = recorder.stop();

  if (failure.empty()) {
    OutputWriter writer(target);
    if (const auto reason = writer.open()) {
      failure = "cannot write " + path + ": " + *reason;
    } else {
      const int fd = writer.fd();
      const std::string header = traceHeader(lines, ::sysconf(_SC_NPROCESSORS_ONLN));
      int e = writeAll(fd, header.data(), header.size());
      std::string copy(1 << 16, '\0');
      const int bodyIn = e == 0 ? ::open(bodyPath.c_str(), O_RDONLY | O_CLOEXEC) : -1;
      if (e == 0 && bodyIn < 0) e = errno;
      while (e == 0) {
        const ssize_t n = ::read(bodyIn, copy.data(), copy.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) e = errno;
        if (n <= 0) break;
        e = writeAll(fd, copy.data(), static_cast<std::size_t>(n));
      }
      if (bodyIn >= 0) ::close(bodyIn);
      if (e != 0) {
        failure = "cannot write " + path + ": " + detail::errnoText(e);
      } else if (const auto committed = writer.commit()) {
        failure = "cannot write " + path + ": " + *committed;
      }
    }
  }

  if (!failure.empty()) err << failure << " (" << path << " left as it was)\n";
  if (!restoreProblem.empty()) err << "tracing not fully restored: " << restoreProblem << "\n";
  if (!failure.empty() || !restoreProblem.empty()) return 1;
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.1f", elapsedS);
  out << "recorded " << lines << " events (" << bytes << " bytes) in " << seconds << " s to "
      << path;
  if (lost > 0) out << "; the kernel reported " << lost << " overruns (LOST EVENTS lines)";
  if (const int sig = StopSignals::caught(); sig != 0) {
    out << " (stopped by " << (sig == SIGINT ? "SIGINT" : "SIGTERM") << ")";
  }
  out << "\n";
  return 0;
}

}  // namespace throttlelab::host
