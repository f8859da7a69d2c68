// SPDX-License-Identifier: GPL-3.0-or-later
// Streaming import: fixed-size blocks from ::read, memchr for line ends, one parse per line,
// and a converter that keeps one interval's accumulators plus a few numbers per pid and per
// device. Nothing here grows with the size of the file.
#include "throttlelab/traceio/trace_import.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <condition_variable>
#include <cstring>
#include <limits>
#include <mutex>
#include <thread>
#include <utility>

namespace throttlelab::traceio {

namespace te = throttlelab::engine;

// ---------------------------------------------------------------------------------------------
// TraceConverter

namespace {

/// A trace with an hour without records gets its rows resumed after the gap instead of an
/// hour of identical rows.
constexpr std::int64_t kMaxGapS = 3600;

struct TaskSlot {
  te::Pages dirtiedTotal = 0;
  te::Pages dirtiedInterval = 0;
  double taskRatelimitKBps = 0;
  double maxPauseMs = 0;
  std::int64_t pauseEndNs = 0;
  std::int64_t touchedStamp = -1;  ///< interval in which the task last appeared
  std::int64_t pausedStamp = -1;   ///< interval in which it last paused
};

/// pid → task index, looked up once per record. Open addressing in a power-of-two table:
/// std::unordered_map's modulo by a prime bucket count (a 64-bit division) and its node chase
/// were a few percent of the import. Grows at half full, so memory follows the pid count.
class PidIndex {
 public:
  /// The index of `pid`, or -1.
  int find(int pid) const {
    if (m_slots.empty()) return -1;
    for (std::size_t i = slot(pid);; i = (i + 1) & m_mask) {
      if (m_slots[i].pid == pid) return m_slots[i].index;
      if (m_slots[i].pid == kEmpty) return -1;
    }
  }
  void insert(int pid, int index) {
    if (2 * (m_size + 1) > m_slots.size()) grow();
    std::size_t i = slot(pid);
    while (m_slots[i].pid != kEmpty) i = (i + 1) & m_mask;
    m_slots[i] = {pid, index};
    ++m_size;
  }

 private:
  static constexpr std::int64_t kEmpty = std::numeric_limits<std::int64_t>::min();  // no int
  struct Slot {
    std::int64_t pid = kEmpty;
    int index = 0;
  };
  std::size_t slot(int pid) const {
    // Fibonacci hashing: consecutive pids spread over the table.
    return static_cast<std::size_t>((static_cast<std::uint64_t>(static_cast<std::uint32_t>(pid)) *
                                     0x9E3779B97F4A7C15ULL) >>
                                    32) &
           m_mask;
  }
  void grow() {
    std::vector<Slot> old = std::move(m_slots);
    m_slots.assign(old.empty() ? 64 : 2 * old.size(), Slot{});
    m_mask = m_slots.size() - 1;
    m_size = 0;
    for (const Slot& s : old)
      if (s.pid != kEmpty) insert(static_cast<int>(s.pid), s.index);
  }
  std::vector<Slot> m_slots;
  std::size_t m_mask = 0;
  std::size_t m_size = 0;
};

}  // namespace

struct TraceConverter::State {
  std::int64_t intervalNs = 100'000'000;
  bool started = false;
  std::int64_t t0 = 0;
  std::int64_t interval = 0;  ///< index of the interval being accumulated

  // Global values, the last seen.
  te::GlobalDirtyState gds;
  bool haveGds = false;
  te::Pages dirtyLimit = 0;
  te::Pages setpoint = 0;
  bool haveSetpoint = false;

  // This interval.
  std::vector<double> pauses;
  std::array<te::TopPause, 4> top{};
  int pausedTasks = 0;
  /// Bit i: task i appeared in this interval. Its TaskSamples go out in index order, which a
  /// walk over these bits gives without sorting a list of indices every interval.
  std::vector<std::uint64_t> touched;

  PidIndex pidIndex;
  std::vector<TaskSlot> tasks;
  std::vector<std::string> deviceNames;
  std::vector<te::DeviceSample> devices;
  int lastDevice = -1;

  te::Sample sample;  ///< reused, so its device vector is not reallocated per row
  te::TaskSample taskSample;
};

TraceConverter::TraceConverter(ImportSink& sink, double intervalS)
    : m_sink(sink),
      m_intervalS(intervalS > 0 ? intervalS : 0.1),
      m_state(std::make_shared<State>()) {
  m_state->intervalNs =
      std::max<std::int64_t>(1, static_cast<std::int64_t>(m_intervalS * 1e9 + 0.5));
}

int TraceConverter::taskCount() const {
  return static_cast<int>(m_state->tasks.size());
}

const std::vector<std::string>& TraceConverter::deviceNames() const {
  return m_state->deviceNames;
}

namespace {

/// Names are a few characters: a loop beats a call to memcmp, once per record.
bool sameName(const std::string& a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < b.size(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}

int deviceIndex(auto& st, ImportSink& sink, std::string_view bdi) {
  if (st.lastDevice >= 0 && sameName(st.deviceNames[static_cast<std::size_t>(st.lastDevice)], bdi))
    return st.lastDevice;
  for (std::size_t i = 0; i < st.deviceNames.size(); ++i)
    if (sameName(st.deviceNames[i], bdi)) return st.lastDevice = static_cast<int>(i);
  st.deviceNames.emplace_back(bdi);
  st.devices.emplace_back();
  st.lastDevice = static_cast<int>(st.deviceNames.size() - 1);
  sink.onDevice(st.lastDevice, st.deviceNames.back());
  return st.lastDevice;
}

int taskIndex(auto& st, ImportSink& sink, const te::TraceHeader& h, int device) {
  int index = st.pidIndex.find(h.pid);
  if (index < 0) {
    index = static_cast<int>(st.tasks.size());
    st.pidIndex.insert(h.pid, index);
    st.tasks.emplace_back();
    te::TaskInfo info;
    info.index = index;
    info.kind = te::TaskKind::Writer;
    info.pid = h.pid;
    const auto end = std::find(h.comm.begin(), h.comm.end(), '\0');
    info.name.assign(h.comm.begin(), end);
    info.device = device;
    sink.onTask(info);
  }
  TaskSlot& t = st.tasks[static_cast<std::size_t>(index)];
  if (t.touchedStamp != st.interval) {
    t.touchedStamp = st.interval;
    const auto word = static_cast<std::size_t>(index) / 64;
    if (word >= st.touched.size()) st.touched.resize(word + 1);
    st.touched[word] |= std::uint64_t{1} << (index % 64);
  }
  return index;
}

void addTopPause(std::array<te::TopPause, 4>& top, int task, double ms) {
  // One slot per task: its longest pause of the interval.
  for (auto& slot : top)
    if (slot.task == task) {
      if (ms > slot.pauseMs) slot.pauseMs = ms;
      std::sort(top.begin(), top.end(), [](const te::TopPause& a, const te::TopPause& b) {
        return a.task >= 0 && (b.task < 0 || a.pauseMs > b.pauseMs);
      });
      return;
    }
  auto& weakest = top.back();
  if (weakest.task >= 0 && weakest.pauseMs >= ms) return;
  weakest = te::TopPause{.task = task, .pauseMs = ms};
  std::sort(top.begin(), top.end(), [](const te::TopPause& a, const te::TopPause& b) {
    return a.task >= 0 && (b.task < 0 || a.pauseMs > b.pauseMs);
  });
}

void emitInterval(auto& st, ImportSink& sink, double intervalS) {
  te::Sample& s = st.sample;
  const std::int64_t endNs = (st.interval + 1) * st.intervalNs;
  s.time = te::SimTime{te::SimDuration{endNs}};
  const te::GlobalDirtyState& g = st.gds;
  s.dirtyPages = g.dirty;
  s.writebackPages = g.writeback;
  s.bgThreshPages = g.bgThresh;
  s.threshPages = g.thresh;
  s.freerunPages = (g.thresh + g.bgThresh) / 2;
  s.dirtyLimitPages = st.dirtyLimit;
  s.limitPages = std::max(g.thresh, st.dirtyLimit);
  s.setpointPages = st.haveSetpoint ? st.setpoint : (st.dirtyLimit + s.freerunPages) / 2;
  s.dirtiedPages = g.dirtied;
  s.writtenPages = g.written;
  s.tasks = static_cast<int>(st.tasks.size());
  s.throttledTasks = st.pausedTasks;
  s.pauses = static_cast<int>(st.pauses.size());
  s.pauseMsMin = s.pauseMsP50 = s.pauseMsMax = 0;
  if (!st.pauses.empty()) {
    auto& p = st.pauses;
    const auto mid = p.begin() + static_cast<std::ptrdiff_t>(p.size() / 2);
    std::nth_element(p.begin(), mid, p.end());
    s.pauseMsP50 = *mid;
    const auto [mn, mx] = std::minmax_element(p.begin(), p.end());
    s.pauseMsMin = *mn;
    s.pauseMsMax = *mx;
  }
  s.topPauses = st.top;
  s.devices.assign(st.devices.begin(), st.devices.end());
  sink.onSample(s);

  te::TaskSample& ts = st.taskSample;
  for (std::size_t word = 0; word < st.touched.size(); ++word) {
    for (std::uint64_t bits = std::exchange(st.touched[word], 0); bits != 0; bits &= bits - 1) {
      const int index = static_cast<int>(word * 64) + __builtin_ctzll(bits);
      TaskSlot& t = st.tasks[static_cast<std::size_t>(index)];
      ts.time = s.time;
      ts.task = index;
      ts.dirtiedPages = t.dirtiedTotal;
      ts.writeKBps = te::pagesToKBps(static_cast<double>(t.dirtiedInterval)) / intervalS;
      ts.taskRatelimitKBps = t.taskRatelimitKBps;
      ts.pauseMs = t.maxPauseMs;
      ts.state = t.pauseEndNs > st.t0 + endNs ? te::TaskState::Paused : te::TaskState::Running;
      sink.onTaskSample(ts);
      t.dirtiedInterval = 0;
      t.maxPauseMs = 0;
    }
  }
  st.pauses.clear();
  st.top = {};
  st.pausedTasks = 0;
}

}  // namespace

void TraceConverter::add(const te::TraceRecord& record) {
  State& st = *m_state;
  const std::int64_t ns =
      std::visit([](const auto& r) { return r.header.time; }, record).time_since_epoch().count();
  if (!st.started) {
    st.started = true;
    st.t0 = ns;
  }
  const std::int64_t sinceT0 = std::max<std::int64_t>(0, ns - st.t0);
  // Nearly every record falls in the interval being accumulated: that is checked with a
  // multiplication, and the 64-bit division (tens of cycles) left to the others.
  const std::int64_t begin = st.interval * st.intervalNs;
  const std::int64_t at =
      sinceT0 >= begin && sinceT0 - begin < st.intervalNs ? st.interval : sinceT0 / st.intervalNs;
  while (st.interval < at) {
    emitInterval(st, m_sink, m_intervalS);
    ++st.interval;
    const std::int64_t maxGap = kMaxGapS * 1'000'000'000 / st.intervalNs;
    if (at - st.interval > maxGap) st.interval = at;
  }

  std::visit(
      [&](const auto& r) {
        using T = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<T, te::GlobalDirtyState>) {
          st.gds = r;
          st.haveGds = true;
          st.dirtyLimit = r.limit;
        } else if constexpr (std::is_same_v<T, te::BdiDirtyRatelimit>) {
          const int dev = deviceIndex(st, m_sink, r.bdi);
          taskIndex(st, m_sink, r.header, dev);
          te::DeviceSample& d = st.devices[static_cast<std::size_t>(dev)];
          d.writeBwKBps = static_cast<double>(r.writeBw);
          d.avgWriteBwKBps = static_cast<double>(r.awriteBw);
          d.dirtyRateKBps = static_cast<double>(r.dirtyRate);
          d.dirtyRatelimitKBps = static_cast<double>(r.dirtyRatelimit);
          d.balancedDirtyRatelimitKBps = static_cast<double>(r.balancedDirtyRatelimit);
        } else {
          const int dev = deviceIndex(st, m_sink, r.bdi);
          const int index = taskIndex(st, m_sink, r.header, dev);
          te::DeviceSample& d = st.devices[static_cast<std::size_t>(dev)];
          d.wbSetpointPages = r.wbSetpoint;
          d.reclaimablePages = r.wbDirty;
          d.dirtyRatelimitKBps = static_cast<double>(r.dirtyRatelimit);
          d.taskRatelimitKBps = static_cast<double>(r.taskRatelimit);
          d.posRatio = r.dirtyRatelimit > 0 ? static_cast<double>(r.taskRatelimit) /
                                                  static_cast<double>(r.dirtyRatelimit)
                                            : 0.0;
          st.dirtyLimit = r.limit;
          st.setpoint = r.setpoint;
          st.haveSetpoint = true;
          TaskSlot& t = st.tasks[static_cast<std::size_t>(index)];
          t.dirtiedTotal += r.dirtied;
          t.dirtiedInterval += r.dirtied;
          t.taskRatelimitKBps = static_cast<double>(r.taskRatelimit);
          if (r.pause > 0) {
            const auto ms = static_cast<double>(r.pause);
            st.pauses.push_back(ms);
            t.maxPauseMs = std::max(t.maxPauseMs, ms);
            if (t.pausedStamp != st.interval) {
              t.pausedStamp = st.interval;
              ++st.pausedTasks;
            }
            addTopPause(st.top, index, ms);
            t.pauseEndNs = ns + r.pause * 1'000'000;
          }
        }
      },
      record);
}

void TraceConverter::finish() {
  State& st = *m_state;
  if (!st.started) return;
  emitInterval(st, m_sink, m_intervalS);
  ++st.interval;
  st.started = false;  // a second finish() emits nothing
}

// ---------------------------------------------------------------------------------------------
// The importer

namespace {

constexpr std::size_t kBlockBytes = 2 << 20;
/// Lines parsed ahead per block: bounds the parsed records held at once (a block of very
/// short lines is finished line by line instead).
constexpr std::size_t kMaxParsedAhead = 16384;
constexpr std::int64_t kProgressBytes = 8 << 20;
/// A file that has shown nothing but garbage this far is not a trace; reading on (perhaps
/// gigabytes of a disk image) would only delay the message.
constexpr std::int64_t kGiveUpGarbageLines = 1000;
constexpr std::int64_t kGiveUpBytes = 16 << 20;
constexpr std::size_t kExcerptChars = 60;

std::string excerpt(std::string_view line) {
  std::string out;
  for (const char c : line.substr(0, kExcerptChars)) {
    const auto u = static_cast<unsigned char>(c);
    out += (u >= 0x20 && u < 0x7f) ? c : '?';
  }
  if (line.size() > kExcerptChars) out += "...";
  return out;
}

std::string number(std::int64_t v) {
  std::string digits = std::to_string(v < 0 ? -v : v);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return v < 0 ? "-" + out : out;
}

class Importer {
 public:
  Importer(ImportSink& sink, const ImportOptions& options)
      : m_sink(sink), m_options(options), m_converter(sink, options.sampleIntervalS) {}

  /// Returns false once reading should stop (not a trace).
  bool line(std::string_view text) { return accept(text, parseTraceLine(text)); }

  /// A line parsed elsewhere (another thread), taken in file order.
  bool accept(std::string_view text, const ParsedLine& p) {
    ImportStats& s = m_result.stats;
    ++s.lines;
    switch (p.kind) {
      case LineKind::Event:
        event(p);
        break;
      case LineKind::Other:
        ++s.other;
        noteFormat(p.format);
        if (m_firstOther == 0) m_firstOther = s.lines;
        break;
      case LineKind::Comment:
        ++s.comments;
        if (m_preamble == TraceFormat::Unknown) {
          std::string_view t = text;
          while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
          if (t.rfind("# tracer:", 0) == 0) m_preamble = TraceFormat::Ftrace;
          if (t.rfind("cpus=", 0) == 0) m_preamble = TraceFormat::TraceCmd;
        }
        break;
      case LineKind::Malformed:
        ++s.malformed;
        problem(p.problem);
        break;
      case LineKind::Garbage:
        ++s.garbage;
        problem(p.problem);
        break;
    }
    if (m_firstContent.empty() && p.kind != LineKind::Comment) {
      m_firstContent = excerpt(text);
      m_firstContentLine = s.lines;
    }
    return !(s.events == 0 && s.other == 0 &&
             (s.garbage >= kGiveUpGarbageLines || s.bytes >= kGiveUpBytes) && s.garbage > 0);
  }

  /// The file ended in a line without '\n'.
  void unterminated(std::string_view text) {
    m_result.stats.truncatedLastLine = true;
    const LineKind kind = parseTraceLine(text).kind;
    m_truncatedWasEvent = kind == LineKind::Event;
    m_truncatedWasGarbage = kind == LineKind::Garbage;
    if (m_firstContent.empty() && kind != LineKind::Comment) {
      m_firstContent = excerpt(text);
      m_firstContentLine = m_result.stats.lines + 1;
    }
  }

  bool cancelled() const {
    return m_options.cancel && m_options.cancel->load(std::memory_order_relaxed);
  }

  void progress(std::int64_t total) {
    if (m_options.progress && m_result.stats.bytes - m_lastProgress >= kProgressBytes) {
      m_lastProgress = m_result.stats.bytes;
      m_options.progress(m_result.stats.bytes, total);
    }
  }

  ImportResult finish(const std::string& name, bool stoppedEarly, bool cancelled) {
    ImportStats& s = m_result.stats;
    m_converter.finish();
    s.tasks = m_converter.taskCount();
    s.devices = m_converter.deviceNames();
    if (s.format == TraceFormat::Unknown) s.format = m_preamble;
    m_result.cancelled = cancelled;
    if (cancelled || s.events > 0) return std::move(m_result);

    const std::string lines = number(s.lines) + (s.lines == 1 ? " line" : " lines");
    if (s.lines == 0 && !s.truncatedLastLine) {
      m_result.error = name +
                       " is empty: a kernel trace has lines like `dd-4288 [000] ..... "
                       "294.213189: balance_dirty_pages: bdi 8:0: limit=...`";
    } else if (m_truncatedWasEvent && s.malformed == 0 && s.garbage == 0 && s.other == 0) {
      m_result.error = name +
                       ": its only writeback event is on a last line cut off without a "
                       "newline, which is left out";
    } else if (s.malformed > 0 && s.garbage < s.malformed) {
      m_result.error = name + ": none of its " + number(s.malformed) +
                       " writeback event lines could be read (line " +
                       std::to_string(s.problems.front().line) + ": " + s.problems.front().reason +
                       ")";
    } else if (s.other > 0) {
      m_result.error = name + " is a trace, but none of its " + lines +
                       " is a writeback:balance_dirty_pages, bdi_dirty_ratelimit or "
                       "global_dirty_state event (" +
                       number(s.other) + " other events, the first at line " +
                       std::to_string(m_firstOther) +
                       "; enable the writeback events when recording)";
    } else if (s.garbage == 0 && !m_truncatedWasGarbage) {
      m_result.error = name + " holds no events: its " + lines +
                       " are headers or blank (were the writeback events enabled?)";
    } else {
      m_result.error = name + " is not a kernel trace: none of its " +
                       (stoppedEarly ? "first " : "") + lines +
                       " is a writeback:balance_dirty_pages, bdi_dirty_ratelimit or "
                       "global_dirty_state event (line " +
                       std::to_string(m_firstContentLine) + ": " + m_firstContent + ")";
    }
    return std::move(m_result);
  }

  ImportStats& stats() { return m_result.stats; }

 private:
  void event(const ParsedLine& p) {
    ImportStats& s = m_result.stats;
    ++s.events;
    noteFormat(p.format);
    const double t =
        engine::toSeconds(std::visit([](const auto& r) { return r.header.time; }, p.record));
    if (s.events == 1) s.firstTimeS = t;
    s.lastTimeS = t;
    switch (p.record.index()) {
      case 0:
        ++s.globalDirtyState;
        s.globalDirtyStateMissing |= p.missingFields;
        break;
      case 1:
        ++s.bdiDirtyRatelimit;
        s.bdiDirtyRatelimitMissing |= p.missingFields;
        break;
      default:
        ++s.balanceDirtyPages;
        s.balanceDirtyPagesMissing |= p.missingFields;
        break;
    }
    m_sink.onRecord(p.record);
    m_converter.add(p.record);
  }

  void noteFormat(TraceFormat f) {
    ImportStats& s = m_result.stats;
    if (s.format != TraceFormat::Unknown) return;
    // Without a flags column, old ftrace and trace-cmd print the same line; the preamble
    // (`# tracer:` or `cpus=`) tells them apart.
    s.format =
        (f != TraceFormat::PerfScript && m_preamble != TraceFormat::Unknown) ? m_preamble : f;
  }

  void problem(std::string_view reason) {
    ImportStats& s = m_result.stats;
    if (s.problems.size() < ImportStats::kMaxProblems)
      s.problems.push_back({s.lines, std::string(reason)});
  }

  ImportSink& m_sink;
  const ImportOptions& m_options;
  TraceConverter m_converter;
  ImportResult m_result;
  TraceFormat m_preamble = TraceFormat::Unknown;
  std::int64_t m_firstOther = 0;
  std::string m_firstContent;
  std::int64_t m_firstContentLine = 0;
  std::int64_t m_lastProgress = 0;
  bool m_truncatedWasEvent = false;
  bool m_truncatedWasGarbage = false;
};

/// A line parsed ahead of the importer, with where it is in the block.
struct ParsedAt {
  std::size_t offset = 0;
  std::size_t length = 0;
  ParsedLine line;
};

/// Parses the lines of buf[from, to) (which ends in '\n') into `out`, at most
/// kMaxParsedAhead of them. Returns where it stopped.
std::size_t parseAhead(const char* buf, std::size_t from, std::size_t to,
                       std::vector<ParsedAt>& out) {
  // The vector keeps its elements between blocks; they are overwritten in place.
  std::size_t used = 0;
  while (from < to && used < kMaxParsedAhead) {
    const auto* nl = static_cast<const char*>(std::memchr(buf + from, '\n', to - from));
    const auto end = static_cast<std::size_t>(nl - buf);
    if (used == out.size()) out.emplace_back();
    ParsedAt& p = out[used++];
    p.offset = from;
    p.length = end - from;
    parseTraceLine(std::string_view(buf + from, end - from), p.line);
    from = end + 1;
  }
  out.resize(used);
  return from;
}

/// One block's complete lines, parsed on the worker thread and then taken through the
/// importer on this one.
struct ParseJob {
  const char* buf = nullptr;
  std::size_t from = 0;
  std::size_t to = 0;        ///< buf[from, to) ends in '\n'
  std::size_t parsedTo = 0;  ///< where parseAhead stopped; the lines after it are parsed on take
  std::int64_t bytes = 0;    ///< the bytes this block read, counted when it is taken
  std::vector<ParsedAt> lines;
  void run() { parsedTo = parseAhead(buf, from, to, lines); }
};

/// Parsing is most of the work and needs nothing from the lines before, so a second thread
/// parses block k while this one reads block k+1 and converts block k-1 (double buffering):
/// the two CPUs stay busy instead of one waiting for the other at every block, as when each
/// block was split in halves, parsed on both and then converted on one. One job at a time;
/// without a second CPU a job is parsed when it is submitted.
class ParseWorker {
 public:
  explicit ParseWorker(bool threaded) : m_threaded(threaded) {}
  ParseWorker(const ParseWorker&) = delete;
  ParseWorker& operator=(const ParseWorker&) = delete;
  /// Lets a job still running finish (its buffers outlive this object), then stops.
  ~ParseWorker() {
    if (!m_thread.joinable()) return;
    {
      const std::lock_guard lock(m_mutex);
      m_quit = true;
    }
    m_wake.notify_one();
    m_thread.join();
  }

  /// Starts parsing `job`; the previous job must have been waited for.
  void submit(ParseJob& job) {
    if (!m_threaded) {
      job.run();
      return;
    }
    if (!m_thread.joinable()) m_thread = std::thread([this] { loop(); });
    {
      const std::lock_guard lock(m_mutex);
      m_job = &job;
    }
    m_wake.notify_one();
  }

  /// Returns once the job submitted last is parsed.
  void wait() {
    std::unique_lock lock(m_mutex);
    m_done.wait(lock, [this] { return m_job == nullptr; });
  }

 private:
  void loop() {
    std::unique_lock lock(m_mutex);
    for (;;) {
      m_wake.wait(lock, [this] { return m_job != nullptr || m_quit; });
      if (m_quit) return;
      ParseJob* const job = m_job;
      lock.unlock();
      job->run();
      lock.lock();
      m_job = nullptr;
      m_done.notify_one();
    }
  }

  bool m_threaded;
  std::thread m_thread;
  std::mutex m_mutex;
  std::condition_variable m_wake;
  std::condition_variable m_done;
  ParseJob* m_job = nullptr;  ///< submitted and not yet parsed
  bool m_quit = false;
};

}  // namespace

ImportResult importTraceText(std::string_view text, ImportSink& sink,
                             const ImportOptions& options) {
  Importer importer(sink, options);
  bool stopped = false;
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (importer.cancelled()) return importer.finish("the text", false, true);
    const void* nl = std::memchr(text.data() + pos, '\n', text.size() - pos);
    if (!nl) {
      importer.stats().bytes += static_cast<std::int64_t>(text.size() - pos);
      importer.unterminated(text.substr(pos));
      break;
    }
    const auto end = static_cast<std::size_t>(static_cast<const char*>(nl) - text.data());
    importer.stats().bytes += static_cast<std::int64_t>(end + 1 - pos);
    if (!importer.line(text.substr(pos, end - pos))) {
      stopped = true;
      break;
    }
    pos = end + 1;
  }
  return importer.finish("the text", stopped, false);
}

ImportResult importTrace(const std::string& path, ImportSink& sink, const ImportOptions& options) {
  const bool useStdin = path == "-";
  const std::string name = useStdin ? std::string("standard input") : path;
  int fd = 0;
  if (!useStdin) {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      ImportResult r;
      r.error = "cannot open " + path + ": " + std::strerror(errno);
      return r;
    }
  }
  struct Closer {
    int fd;
    bool close;
    ~Closer() {
      if (close) ::close(fd);
    }
  } closer{fd, !useStdin};

  std::int64_t total = 0;
  struct stat st {};
  if (::fstat(fd, &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      ImportResult r;
      r.error = "cannot read " + name + ": it is a directory";
      return r;
    }
    if (S_ISREG(st.st_mode)) total = st.st_size;
  }
  if (total > 0) ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);

  Importer importer(sink, options);
  // Two blocks: one being parsed by the worker while the other is converted, then refilled.
  // Each starts with the unfinished last line of the one before.
  const std::array<std::unique_ptr<char[]>, 2> buffers{std::make_unique<char[]>(kBlockBytes),
                                                       std::make_unique<char[]>(kBlockBytes)};
  std::array<ParseJob, 2> jobs;
  ParseWorker worker(std::thread::hardware_concurrency() > 1);  // stops before the buffers go
  ParseJob* pending = nullptr;  // submitted to the worker, not yet taken through the importer
  int cur = 0;                  // the buffer being filled
  std::size_t have = 0;         // bytes of an unfinished line at its start
  bool overlong = false;        // inside a line longer than the buffer: skip to its end
  bool stopped = false;

  // Takes lines [from, to) of `buf` through the importer, one at a time.
  const auto sequential = [&](const char* buf, std::size_t from, std::size_t to) {
    while (from < to) {
      const auto* nl = static_cast<const char*>(std::memchr(buf + from, '\n', to - from));
      const auto end = static_cast<std::size_t>(nl - buf);
      if (!importer.line(std::string_view(buf + from, end - from))) return false;
      from = end + 1;
    }
    return true;
  };
  // Takes a parsed job's lines through the importer, in file order; false once the importer
  // says stop. Its bytes are counted first, as if it had just been read: the importer's
  // give-up rule looks at them.
  const auto take = [&](const ParseJob& job) {
    importer.stats().bytes += job.bytes;
    for (const ParsedAt& p : job.lines)
      if (!importer.accept(std::string_view(job.buf + p.offset, p.length), p.line)) return false;
    if (!sequential(job.buf, job.parsedTo, job.to)) return false;
    importer.progress(total);
    return true;
  };
  const auto takePending = [&] {
    worker.wait();
    return !pending || take(*std::exchange(pending, nullptr));
  };

  for (;;) {
    // A job still pending is dropped: as before the pipeline, a cancelled import has
    // converted exactly the blocks it reported progress for.
    if (importer.cancelled()) return importer.finish(name, false, true);
    char* const buf = buffers[static_cast<std::size_t>(cur)].get();
    const ssize_t n = ::read(fd, buf + have, kBlockBytes - have);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      if (!takePending()) {
        stopped = true;
        break;
      }
      ImportResult r = importer.finish(name, false, false);
      r.error = "cannot read " + name + ": " + std::strerror(error);
      return r;
    }
    if (n == 0) break;
    const std::size_t filled = have + static_cast<std::size_t>(n);
    std::size_t pos = 0;
    if (overlong) {
      const auto* nl = static_cast<const char*>(std::memchr(buf, '\n', filled));
      if (nl) {
        overlong = false;
        pos = static_cast<std::size_t>(nl - buf) + 1;
      } else {
        pos = filled;
      }
    }
    // Complete lines end at the last '\n' of the block.
    const auto* lastNl =
        pos < filled ? static_cast<const char*>(::memrchr(buf + pos, '\n', filled - pos)) : nullptr;
    if (lastNl) {
      ParseJob& job = jobs[static_cast<std::size_t>(cur)];
      if (job.lines.capacity() == 0) job.lines.reserve(kMaxParsedAhead);  // no growth later
      job.buf = buf;
      job.from = pos;
      job.to = static_cast<std::size_t>(lastNl - buf) + 1;
      job.bytes = n;
      worker.wait();  // the block before is parsed
      ParseJob* const before = std::exchange(pending, &job);
      worker.submit(job);
      pos = job.to;
      // While the worker parses this block, convert the one before: it used the other
      // buffer, which is then free to be refilled.
      if (before && !take(*before)) {
        stopped = true;
        break;
      }
    } else {
      // No complete line: nothing to parse ahead. What came before goes first.
      if (!takePending()) {
        stopped = true;
        break;
      }
      importer.stats().bytes += n;
      importer.progress(total);
    }
    have = filled - pos;
    if (have == kBlockBytes) {
      // No line end in a whole block: not a trace line. Count it once, skip the rest of it.
      if (!overlong && !importer.line(std::string_view(buf, std::min<std::size_t>(have, 4096)))) {
        stopped = true;
        break;
      }
      overlong = true;
      have = 0;
    } else if (pos > 0) {
      // On to the other buffer (this one may be being parsed), the unfinished line first.
      if (have > 0) std::memcpy(buffers[static_cast<std::size_t>(1 - cur)].get(), buf + pos, have);
      cur = 1 - cur;
    }
  }
  if (!stopped && !takePending()) stopped = true;
  if (!stopped && have > 0 && !overlong)
    importer.unterminated(std::string_view(buffers[static_cast<std::size_t>(cur)].get(), have));
  return importer.finish(name, stopped, false);
}

// ---------------------------------------------------------------------------------------------

std::string describe(const ImportStats& s) {
  std::string out = std::string(toString(s.format)) + " text, " + number(s.lines) +
                    (s.lines == 1 ? " line" : " lines") + ": " + number(s.events) +
                    " writeback events (" + number(s.balanceDirtyPages) + " balance_dirty_pages, " +
                    number(s.bdiDirtyRatelimit) + " bdi_dirty_ratelimit, " +
                    number(s.globalDirtyState) + " global_dirty_state)";
  if (s.events > 0) {
    std::array<char, 32> span{};
    const auto r = std::to_chars(span.data(), span.data() + span.size(), s.lastTimeS - s.firstTimeS,
                                 std::chars_format::fixed, 3);
    out += " over " + std::string(span.data(), r.ptr) + " s";
    out += ", from " + std::to_string(s.tasks) + (s.tasks == 1 ? " pid" : " pids") + " on " +
           std::to_string(s.devices.size()) + (s.devices.size() == 1 ? " device" : " devices");
    if (!s.devices.empty()) {
      out += " (";
      for (std::size_t i = 0; i < s.devices.size() && i < 8; ++i)
        out += (i ? ", " : "") + s.devices[i];
      if (s.devices.size() > 8) out += ", ...";
      out += ")";
    }
  }
  out += ". ";
  if (s.skipped() == 0) {
    out += "No line was skipped.";
  } else {
    out += "Skipped " + number(s.skipped()) + ": " + number(s.comments) + " headers or blank, " +
           number(s.other) + " other events, " + number(s.malformed) + " malformed, " +
           number(s.garbage) + " not trace lines.";
  }
  if (!s.problems.empty()) {
    out += " First problems:";
    for (std::size_t i = 0; i < s.problems.size() && i < 3; ++i)
      out += std::string(i ? ";" : "") + " line " + std::to_string(s.problems[i].line) + ": " +
             s.problems[i].reason;
    out += ".";
  }
  const auto absent = [&](std::uint32_t bits, std::initializer_list<std::string_view> names,
                          std::string_view event) {
    std::string list;
    std::uint32_t i = 0;
    for (const auto n : names) {
      if (bits & (1u << i)) list += (list.empty() ? "" : ", ") + std::string(n);
      ++i;
    }
    if (!list.empty())
      out += " Some " + std::string(event) + " lines have no " + list +
             " (an older kernel; read as 0).";
  };
  absent(
      s.balanceDirtyPagesMissing,
      {"limit", "setpoint", "dirty", "wb_setpoint", "wb_dirty", "dirty_ratelimit", "task_ratelimit",
       "dirtied", "dirtied_pause", "paused", "pause", "period", "think", "cgroup_ino"},
      "balance_dirty_pages");
  absent(s.bdiDirtyRatelimitMissing,
         {"write_bw", "awrite_bw", "dirty_rate", "dirty_ratelimit", "task_ratelimit",
          "balanced_dirty_ratelimit", "cgroup_ino"},
         "bdi_dirty_ratelimit");
  absent(s.globalDirtyStateMissing,
         {"dirty", "writeback", "bg_thresh", "thresh", "limit", "dirtied", "written"},
         "global_dirty_state");
  if (s.truncatedLastLine)
    out += " The last line had no newline (cut off while the trace was written?) and was left out.";
  return out;
}

}  // namespace throttlelab::traceio
