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
#include <unordered_set>
#include <utility>

#include "throttlelab/engine/number_text.h"
#include "throttlelab/engine/statistics.h"
#include "throttlelab/engine/tracepoints.h"

namespace throttlelab::traceio {

namespace te = throttlelab::engine;

// ---------------------------------------------------------------------------------------------
// TraceConverter

namespace {

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
  /// The interval's pauses for their median: all of them, unless an interval holds more than
  /// kMaxIntervalPauses (no real trace does; a trace whose lines all carry one timestamp
  /// could), then every pauseStride-th. Count, minimum and maximum stay exact.
  std::vector<double> pauses;
  std::int64_t pauseCount = 0;
  std::int64_t pauseStride = 1;
  double pauseMin = 0;
  double pauseMax = 0;
  std::array<te::TopPause, 4> top{};
  int pausedTasks = 0;
  /// Bit i: task i appeared in this interval. Its TaskSamples go out in index order, which a
  /// walk over these bits gives without sorting a list of indices every interval. Only the
  /// words from touchedLow to touchedHigh hold bits: a trace of many pids, each seen once,
  /// does not walk all of them every interval.
  std::vector<std::uint64_t> touched;
  std::size_t touchedLow = 0;
  std::size_t touchedHigh = 0;  ///< one past the last word with a bit

  PidIndex pidIndex;
  std::vector<TaskSlot> tasks;
  std::vector<std::string> deviceNames;
  std::vector<te::DeviceSample> devices;
  int lastDevice = -1;
  /// Names beyond te::kMaxDevices (up to a bound, to count each once), and how many there were.
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_set<std::string, NameHash, std::equal_to<>> extraDevices;
  std::int64_t extraDeviceCount = 0;

  std::int64_t gapsSkipped = 0;
  std::int64_t gapsSkippedNs = 0;

  te::Sample sample;  ///< reused, so its device vector is not reallocated per row
  te::TaskSample taskSample;
};

void ImportStats::countEventKind(const te::TraceRecord& record, std::uint32_t missingFields) {
  std::visit(
      [&](const auto& r) {
        using T = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<T, te::GlobalDirtyState>) {
          ++globalDirtyState;
          globalDirtyStateMissing |= missingFields;
        } else if constexpr (std::is_same_v<T, te::BdiDirtyRatelimit>) {
          ++bdiDirtyRatelimit;
          bdiDirtyRatelimitMissing |= missingFields;
        } else {
          ++balanceDirtyPages;
          balanceDirtyPagesMissing |= missingFields;
        }
      },
      record);
}

TraceConverter::TraceConverter(ImportSink& sink, double intervalS)
    : m_sink(sink),
      m_intervalS(intervalS > 0 ? intervalS : 0.1),
      m_state(std::make_unique<State>()) {
  m_state->intervalNs =
      std::max<std::int64_t>(1, static_cast<std::int64_t>(m_intervalS * 1e9 + 0.5));
}

TraceConverter::~TraceConverter() = default;
TraceConverter::TraceConverter(TraceConverter&&) noexcept = default;

int TraceConverter::taskCount() const {
  return static_cast<int>(m_state->tasks.size());
}

const std::vector<std::string>& TraceConverter::deviceNames() const {
  return m_state->deviceNames;
}

std::int64_t TraceConverter::gapsSkipped() const {
  return m_state->gapsSkipped;
}

double TraceConverter::gapsSkippedS() const {
  return static_cast<double>(m_state->gapsSkippedNs) * 1e-9;
}

std::int64_t TraceConverter::devicesWithoutColumns() const {
  return m_state->extraDeviceCount;
}

namespace {

/// Names are a few characters: a loop beats a call to memcmp, once per record.
bool sameName(const std::string& a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < b.size(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}

/// The device's index, or -1 for one beyond te::kMaxDevices.
int deviceIndex(auto& st, ImportSink& sink, std::string_view bdi) {
  if (st.lastDevice >= 0 && sameName(st.deviceNames[static_cast<std::size_t>(st.lastDevice)], bdi))
    return st.lastDevice;
  for (std::size_t i = 0; i < st.deviceNames.size(); ++i)
    if (sameName(st.deviceNames[i], bdi)) return st.lastDevice = static_cast<int>(i);
  if (st.deviceNames.size() >= te::kMaxDevices) {
    // Counted once per name while the list of them is short; past that, a trace naming ever
    // new devices is counted by record, which still says there were more.
    constexpr std::size_t kRemembered = 4096;
    if (st.extraDevices.find(bdi) == st.extraDevices.end()) {
      if (st.extraDevices.size() < kRemembered) st.extraDevices.emplace(bdi);
      ++st.extraDeviceCount;
    }
    return -1;
  }
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
    if (st.touchedLow == st.touchedHigh) {
      st.touchedLow = word;
      st.touchedHigh = word + 1;
    } else {
      st.touchedLow = std::min(st.touchedLow, word);
      st.touchedHigh = std::max(st.touchedHigh, word + 1);
    }
    st.touched[word] |= std::uint64_t{1} << (index % 64);
  }
  return index;
}

constexpr std::size_t kMaxIntervalPauses = std::size_t{1} << 16;

void addPause(auto& st, double ms) {
  st.pauseMin = st.pauseCount == 0 ? ms : std::min(st.pauseMin, ms);
  st.pauseMax = st.pauseCount == 0 ? ms : std::max(st.pauseMax, ms);
  if (st.pauseCount++ % st.pauseStride != 0) return;
  st.pauses.push_back(ms);
  if (st.pauses.size() == kMaxIntervalPauses) {
    for (std::size_t i = 0; i < st.pauses.size() / 2; ++i) st.pauses[i] = st.pauses[2 * i + 1];
    st.pauses.resize(st.pauses.size() / 2);
    st.pauseStride *= 2;
  }
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
  s.pauses =
      static_cast<int>(std::min<std::int64_t>(st.pauseCount, std::numeric_limits<int>::max()));
  // The median as the simulation computes it, over the kept pauses (a busy interval keeps
  // every second, fourth... one); the extremes are exact.
  s.pauseMsMin = s.pauseMsP50 = s.pauseMsMax = 0;
  if (!st.pauses.empty()) {
    s.pauseMsP50 = te::intervalPauses(st.pauses).p50Ms;
    s.pauseMsMin = st.pauseMin;
    s.pauseMsMax = st.pauseMax;
  }
  s.topPauses = st.top;
  s.devices.assign(st.devices.begin(), st.devices.end());
  sink.onSample(s);

  te::TaskSample& ts = st.taskSample;
  for (std::size_t word = st.touchedLow; word < st.touchedHigh; ++word) {
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
  st.touchedLow = st.touchedHigh = 0;
  st.pauses.clear();
  st.pauseCount = 0;
  st.pauseStride = 1;
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
    // The empty intervals before `at`: filled while they are few, skipped otherwise.
    const std::int64_t maxFill =
        static_cast<std::int64_t>(kMaxFillS * 1e9) / st.intervalNs;  // 10 at 0.1 s
    if (at - st.interval > maxFill) {
      ++st.gapsSkipped;
      st.gapsSkippedNs += (at - st.interval) * st.intervalNs;
      st.interval = at;
    }
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
          if (dev < 0) return;
          te::DeviceSample& d = st.devices[static_cast<std::size_t>(dev)];
          d.writeBwKBps = static_cast<double>(r.writeBw);
          d.avgWriteBwKBps = static_cast<double>(r.awriteBw);
          d.dirtyRateKBps = static_cast<double>(r.dirtyRate);
          d.dirtyRatelimitKBps = static_cast<double>(r.dirtyRatelimit);
          d.balancedDirtyRatelimitKBps = static_cast<double>(r.balancedDirtyRatelimit);
        } else {
          const int dev = deviceIndex(st, m_sink, r.bdi);
          const int index = taskIndex(st, m_sink, r.header, dev);
          if (dev >= 0) {
            te::DeviceSample& d = st.devices[static_cast<std::size_t>(dev)];
            d.wbSetpointPages = r.wbSetpoint;
            d.reclaimablePages = r.wbDirty;
            d.dirtyRatelimitKBps = static_cast<double>(r.dirtyRatelimit);
            d.taskRatelimitKBps = static_cast<double>(r.taskRatelimit);
            d.posRatio = r.dirtyRatelimit > 0 ? static_cast<double>(r.taskRatelimit) /
                                                    static_cast<double>(r.dirtyRatelimit)
                                              : 0.0;
          }
          st.dirtyLimit = r.limit;
          st.setpoint = r.setpoint;
          st.haveSetpoint = true;
          TaskSlot& t = st.tasks[static_cast<std::size_t>(index)];
          t.dirtiedTotal += r.dirtied;
          t.dirtiedInterval += r.dirtied;
          t.taskRatelimitKBps = static_cast<double>(r.taskRatelimit);
          if (r.pause > 0) {
            const auto ms = static_cast<double>(r.pause);
            addPause(st, ms);
            t.maxPauseMs = std::max(t.maxPauseMs, ms);
            if (t.pausedStamp != st.interval) {
              t.pausedStamp = st.interval;
              ++st.pausedTasks;
            }
            te::addTopPause(st.top, index, ms);
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

std::int64_t timeOf(const te::TraceRecord& r) {
  return std::visit([](const auto& rec) { return rec.header.time; }, r).time_since_epoch().count();
}

/// The continuous time axis ends here (146 years): a trace that joins segments beyond it is
/// made up, and the sums of its times would overflow.
constexpr std::int64_t kMaxAxisNs = std::int64_t{1} << 62;

/// An event copied while it waits for its place in time order, with its own copy of the bdi
/// name (the line it came from is overwritten by the next block).
struct HeldEvent {
  te::TraceRecord record;
  std::array<char, kMaxBdiNameBytes> bdi{};
};

/// An event in the window: its time on the continuous axis, and the record, either where the
/// parser left it (until Importer::spill) or copied into the pool.
struct Held {
  std::int64_t ns = 0;
  const te::TraceRecord* record = nullptr;
  std::uint32_t slot = 0;  ///< in the pool, or kNotCopied
};
constexpr std::uint32_t kNotCopied = ~std::uint32_t{0};

class Importer {
 public:
  Importer(ImportSink& sink, const ImportOptions& options)
      : m_sink(sink),
        m_options(options),
        m_converter(sink, options.sampleIntervalS),
        m_windowNs(static_cast<std::int64_t>(ImportStats::kReorderWindowS * 1e9)),
        m_segmentGapNs(static_cast<std::int64_t>(m_converter.intervalS() * 1e9) + m_windowNs) {}

  /// Returns false once reading should stop (not a trace).
  bool line(std::string_view text) { return accept(text, parseTraceLine(text)); }

  /// A line parsed elsewhere (another thread), taken in file order. `stays` says that `p`
  /// and the line stay where they are until spill(): the window then need not copy them.
  bool accept(std::string_view text, const ParsedLine& p, bool stays = false) {
    ImportStats& s = m_result.stats;
    ++s.lines;
    switch (p.kind) {
      case LineKind::Event:
        if (!event(p, stays)) {
          ++s.malformed;
          ++s.outOfRange;
          problem(
              "its timestamp is out of range: the joined segments would end more than "
              "146 years after the first");
        }
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
        if (text.size() > kMaxLineBytes) ++s.overlong;
        if (!p.problemField.empty()) ++s.outOfRange;
        problem(p);
        break;
      case LineKind::Garbage:
        ++s.garbage;
        problem(p);
        break;
    }
    if (m_firstContent.empty() && p.kind != LineKind::Comment) {
      m_firstContent = excerpt(text);
      m_firstContentLine = s.lines;
    }
    const std::int64_t junk = s.garbage + s.overlong;
    return !(s.events == 0 && s.other == 0 &&
             (junk >= kGiveUpGarbageLines || s.bytes >= kGiveUpBytes) && junk > 0);
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

  /// Reading stops early, for `why` ("line 3 is longer than 16 MiB …").
  void stopEarly(std::string why) { m_result.stats.stoppedEarly = std::move(why); }

  bool cancelled() const { return m_options.stop.stop_requested(); }

  void progress(std::int64_t total) {
    if (m_options.progress && m_result.stats.bytes - m_lastProgress >= kProgressBytes) {
      m_lastProgress = m_result.stats.bytes;
      m_options.progress(m_result.stats.bytes, total);
    }
  }

  ImportResult finish(const std::string& name, bool stoppedEarly, bool cancelled) {
    ImportStats& s = m_result.stats;
    releaseAll();
    m_converter.finish();
    s.tasks = m_converter.taskCount();
    s.devices = m_converter.deviceNames();
    s.gapsSkipped = m_converter.gapsSkipped();
    s.gapsSkippedS = m_converter.gapsSkippedS();
    s.devicesWithoutColumns = m_converter.devicesWithoutColumns();
    if (s.format == TraceFormat::Unknown) s.format = m_preamble;
    m_result.cancelled = cancelled;
    s.cgroupFilter = m_options.cgroupIno;
    if (!cancelled && s.events > 0 && m_options.cgroupIno && m_cgroupKept == 0) {
      std::string inos;
      for (const auto& [ino, n] : s.cgroupRecords)
        inos += (inos.empty() ? "" : ", ") + std::to_string(ino) + " (" + number(n) + ")";
      m_result.error = name +
                       ": no balance_dirty_pages or bdi_dirty_ratelimit record carries "
                       "cgroup_ino=" +
                       std::to_string(*m_options.cgroupIno) +
                       (inos.empty() ? std::string(" (it has no balance_dirty_pages record)")
                                     : "; its balance_dirty_pages records carry " + inos);
    }
    if (cancelled || s.events > 0) return std::move(m_result);

    const std::string lines = number(s.lines) + (s.lines == 1 ? " line" : " lines");
    const std::int64_t unreadable = s.malformed - s.overlong;
    if (s.lines == 0 && !s.truncatedLastLine) {
      m_result.error = name +
                       " is empty: a kernel trace has lines like `dd-4288 [000] ..... "
                       "294.213189: balance_dirty_pages: bdi 8:0: limit=...`";
    } else if (!s.stoppedEarly.empty() && unreadable == 0 && s.other == 0) {
      m_result.error = name + " is not a kernel trace: " + s.stoppedEarly +
                       " (a trace is text of writeback:balance_dirty_pages, bdi_dirty_ratelimit "
                       "and global_dirty_state events)";
    } else if (m_truncatedWasEvent && s.malformed == 0 && s.garbage == 0 && s.other == 0) {
      m_result.error = name +
                       ": its only writeback event is on a last line cut off without a "
                       "newline, which is left out";
    } else if (unreadable > 0 && s.garbage + s.overlong < unreadable) {
      m_result.error = name + ": none of its " + number(unreadable) +
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
    } else if (s.garbage == 0 && s.overlong == 0 && !m_truncatedWasGarbage) {
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

  /// Copies the events the window still holds in place (see accept) into its pool: their
  /// lines are about to be overwritten. A block leaves the last few milliseconds' worth.
  void spill() {
    for (std::size_t i = 0; i < m_held; ++i) {
      Held& h = ringAt(i);
      if (h.slot == kNotCopied) copyIntoPool(h, *h.record);
    }
  }

 private:
  /// Counts the event and puts it in time order; false (nothing counted) when its time does
  /// not fit on the continuous axis.
  bool event(const ParsedLine& p, bool stays) {
    ImportStats& s = m_result.stats;
    const std::int64_t raw = timeOf(p.record);
    std::int64_t ns = 0;
    if (__builtin_add_overflow(raw, m_offsetNs, &ns) || ns > kMaxAxisNs) return false;
    if (s.events > 0 && ns < m_newestNs - m_windowNs) {
      // Further back than any interleaving of CPUs: the trace starts again here. What was
      // held is all earlier on the axis; the new segment follows it.
      if (m_newestNs + m_segmentGapNs > kMaxAxisNs) return false;
      releaseAll();
      m_offsetNs = m_newestNs + m_segmentGapNs - raw;
      ns = m_newestNs + m_segmentGapNs;
      ++s.segments;
      if (s.segmentLines.size() < ImportStats::kMaxProblems) s.segmentLines.push_back(s.lines);
    }
    if (m_held == ImportStats::kReorderCapacity) releaseFront();  // room, before the check
    if (m_anyReleased && ns < m_lastReleasedNs) {
      // Within the window, but what it belongs before has gone out already (the window was
      // full): it counts at the time of the last one out.
      ++s.lateEvents;
      ns = m_lastReleasedNs;
    }
    ++s.events;
    if (s.events == 1) s.segments = 1;
    noteFormat(p.format);
    s.countEventKind(p.record, p.missingFields);
    m_newestNs = std::max(m_newestNs, ns);
    hold(p.record, ns, stays && ns == raw);
    return true;
  }

  // The window: a ring of up to kReorderCapacity events in time order. Arriving in order
  // (nearly always) an event goes to its back; an early one moves the entries of those it
  // belongs before. The records stay where the parser put them while their block is being
  // taken (no copy for all but the last few milliseconds of each block), otherwise they are
  // copied into a pool of as many slots.

  Held& ringAt(std::size_t i) { return m_ring[(m_ringHead + i) & (m_ring.size() - 1)]; }

  void copyIntoPool(Held& h, const te::TraceRecord& record) {
    const std::uint32_t slot = m_free.back();
    m_free.pop_back();
    HeldEvent& e = m_pool[slot];
    e.record = record;
    std::visit(
        [&](auto& r) {
          r.header.time = te::SimTime{te::SimDuration{h.ns}};
          if constexpr (!std::is_same_v<std::decay_t<decltype(r)>, te::GlobalDirtyState>) {
            // The parser takes no longer name.
            const std::size_t n = std::min(r.bdi.size(), e.bdi.size());
            std::memcpy(e.bdi.data(), r.bdi.data(), n);
            r.bdi = std::string_view(e.bdi.data(), n);
          }
        },
        e.record);
    h.record = &e.record;
    h.slot = slot;
  }

  /// `inPlace`: `record` stays until spill() and its time is `ns` already.
  void hold(const te::TraceRecord& record, std::int64_t ns, bool inPlace) {
    static_assert((ImportStats::kReorderCapacity & (ImportStats::kReorderCapacity - 1)) == 0);
    if (m_pool.empty()) {
      m_pool.resize(ImportStats::kReorderCapacity);
      m_ring.resize(ImportStats::kReorderCapacity);  // a power of two
      m_free.reserve(ImportStats::kReorderCapacity);
      for (std::size_t i = ImportStats::kReorderCapacity; i-- > 0;)
        m_free.push_back(static_cast<std::uint32_t>(i));
    }
    Held h{.ns = ns, .record = &record, .slot = kNotCopied};
    if (!inPlace) copyIntoPool(h, record);
    std::size_t at = m_held;
    while (at > 0 && ns < ringAt(at - 1).ns) {
      ringAt(at) = ringAt(at - 1);
      --at;
    }
    ringAt(at) = h;
    if (at != m_held) ++m_result.stats.reordered;
    ++m_held;
    while (m_held > 0 && ringAt(0).ns < m_newestNs - m_windowNs) releaseFront();
  }

  void releaseFront() {
    const Held h = ringAt(0);
    m_ringHead = (m_ringHead + 1) & (m_ring.size() - 1);
    --m_held;
    if (h.slot != kNotCopied) m_free.push_back(h.slot);
    ImportStats& s = m_result.stats;
    const double t = engine::toSeconds(te::SimTime{te::SimDuration{h.ns}});
    if (!m_anyReleased) s.firstTimeS = t;
    s.lastTimeS = t;
    m_anyReleased = true;
    m_lastReleasedNs = h.ns;
    if (!keep(*h.record)) return;
    m_sink.onRecord(*h.record);
    m_converter.add(*h.record);
  }

  /// Counts a balance_dirty_pages record's cgroup, and whether the cgroup filter lets it
  /// through.
  bool keep(const te::TraceRecord& record) {
    ImportStats& s = m_result.stats;
    const std::uint64_t* ino = nullptr;
    if (const auto* b = std::get_if<te::BalanceDirtyPages>(&record)) {
      ino = &b->cgroupIno;
      const auto it = s.cgroupRecords.find(*ino);
      if (it != s.cgroupRecords.end())
        ++it->second;
      else if (s.cgroupRecords.size() < ImportStats::kMaxCgroups)
        s.cgroupRecords.emplace(*ino, 1);
    } else if (const auto* r = std::get_if<te::BdiDirtyRatelimit>(&record)) {
      ino = &r->cgroupIno;
    }
    if (!m_options.cgroupIno || ino == nullptr) return true;
    if (*ino == *m_options.cgroupIno) {
      ++m_cgroupKept;
      return true;
    }
    ++s.otherCgroupRecords;
    return false;
  }

  void releaseAll() {
    while (m_held > 0) releaseFront();
  }

  void noteFormat(TraceFormat f) {
    ImportStats& s = m_result.stats;
    if (s.format != TraceFormat::Unknown) return;
    // Without a flags column, old ftrace and trace-cmd print the same line; the preamble
    // (`# tracer:` or `cpus=`) tells them apart.
    s.format =
        (f != TraceFormat::PerfScript && m_preamble != TraceFormat::Unknown) ? m_preamble : f;
  }

  void problem(const ParsedLine& p) {
    if (m_result.stats.problems.size() < ImportStats::kMaxProblems) problem(problemText(p));
  }
  void problem(std::string reason) {
    ImportStats& s = m_result.stats;
    if (s.problems.size() < ImportStats::kMaxProblems)
      s.problems.push_back({s.lines, std::move(reason)});
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
  std::int64_t m_cgroupKept = 0;  ///< records of the filtered cgroup (ImportOptions::cgroupIno)

  // Time order (see ImportStats::segments).
  std::int64_t m_windowNs;
  std::int64_t m_segmentGapNs;  ///< from the newest of a segment to the first of the next
  std::int64_t m_offsetNs = 0;  ///< added to this segment's timestamps
  std::int64_t m_newestNs = 0;  ///< the latest time on the axis so far
  std::int64_t m_lastReleasedNs = 0;
  bool m_anyReleased = false;
  std::vector<HeldEvent> m_pool;
  std::vector<std::uint32_t> m_free;
  std::vector<Held> m_ring;
  std::size_t m_ringHead = 0;
  std::size_t m_held = 0;
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

namespace {

/// What the start of the input says before it is read as text: whether it is binary (a NUL
/// byte in the first kSniffBytes, or the magic number of a format people mistake for a
/// trace), and whether its lines end in '\r' alone.
class InputSniffer {
 public:
  explicit InputSniffer(std::string name, bool isStdin)
      : m_name(std::move(name)), m_stdin(isStdin) {}

  /// Looks at the next `n` bytes of the input. Returns why it is refused, or empty.
  std::string look(const char* data, std::size_t n) {
    if (m_seen == 0)
      if (std::string why = magic(data, n); !why.empty()) return why;
    if (m_seen >= kSniffBytes) return {};
    const auto k = static_cast<std::size_t>(
        std::min<std::int64_t>(static_cast<std::int64_t>(n), kSniffBytes - m_seen));
    if (const auto* nul = static_cast<const char*>(std::memchr(data, '\0', k))) {
      const std::int64_t at = m_seen + (nul - data);
      const std::int64_t line = m_newlines + std::count(data, nul, '\n') + 1;
      std::string why = m_name +
                        " is not a kernel trace: it holds binary data (a NUL byte at offset " +
                        number(at) + ", line " + number(line) +
                        "), where a trace is text of writeback:balance_dirty_pages, "
                        "bdi_dirty_ratelimit and global_dirty_state events";
      // A trace whose end was overwritten with zeros (a crash while it was written) keeps its
      // text before them; a few hundred bytes before a NUL are a binary format's header.
      if (at >= kTextBeforeNul && !m_stdin)
        why += "; if the text before it is a trace, `head -c " + std::to_string(at) + " " + m_name +
               "` keeps just that";
      return why;
    }
    for (std::size_t i = 0; i < k && m_ends == Ends::Undecided; ++i) {
      if (m_pendingCr) {
        m_ends = data[i] == '\n' ? Ends::Lf : Ends::Cr;
      } else if (data[i] == '\n') {
        m_ends = Ends::Lf;
      } else if (data[i] == '\r') {
        m_pendingCr = true;
      }
    }
    m_newlines += std::count(data, data + k, '\n');
    m_seen += static_cast<std::int64_t>(k);
    if (m_seen >= kSniffBytes && m_ends == Ends::Undecided) m_ends = Ends::Lf;
    return {};
  }

  /// The input ended: a '\r' that was its last byte ended a line.
  void atEnd() {
    if (m_ends == Ends::Undecided) m_ends = m_pendingCr ? Ends::Cr : Ends::Lf;
  }

  bool carriageReturns() const { return m_ends == Ends::Cr; }

 private:
  enum class Ends { Undecided, Lf, Cr };
  static constexpr std::int64_t kTextBeforeNul = 1024;

  std::string magic(const char* data, std::size_t n) const {
    const std::string_view head(data, n);
    struct Known {
      std::string_view bytes;
      std::string_view what;
      std::string_view how;  ///< "%" stands for the file's name
    };
    static constexpr std::array<Known, 7> kKnown{{
        {std::string_view("\x17\x08\x44tracing", 10), "trace-cmd's binary trace.dat",
         "`trace-cmd report -i % > trace.txt` writes the text to import"},
        {"PERFILE2", "perf's binary perf.data",
         "`perf script -i % > trace.txt` writes the text to import"},
        {"PERFFILE", "perf's binary perf.data",
         "`perf script -i % > trace.txt` writes the text to import"},
        {"\x1f\x8b", "gzip-compressed", "`zcat % | throttlelab --import-trace -` reads it"},
        {std::string_view("\xfd"
                          "7zXZ\0",
                          6),
         "xz-compressed", "`xzcat % | throttlelab --import-trace -` reads it"},
        {"\x28\xb5\x2f\xfd", "zstd-compressed",
         "`zstdcat % | throttlelab --import-trace -` reads it"},
        {"BZh", "bzip2-compressed", "`bzcat % | throttlelab --import-trace -` reads it"},
    }};
    for (const Known& k : kKnown) {
      if (!head.starts_with(k.bytes)) continue;
      // bzip2's "BZh" is followed by the block size and the block magic.
      if (k.bytes == "BZh" &&
          !(n >= 10 && data[3] >= '1' && data[3] <= '9' && head.substr(4, 6) == "1AY&SY"))
        continue;
      std::string how(k.how);
      const std::string file = m_stdin ? std::string("FILE") : m_name;
      how.replace(how.find('%'), 1, file);
      return m_name + " is not a kernel trace but " + std::string(k.what) + ": " + how;
    }
    return {};
  }

  std::string m_name;
  bool m_stdin;
  std::int64_t m_seen = 0;
  std::int64_t m_newlines = 0;
  bool m_pendingCr = false;
  Ends m_ends = Ends::Undecided;
};

void carriageReturnsToNewlines(char* p, std::size_t n) {
  for (char* const end = p + n; (p = static_cast<char*>(std::memchr(p, '\r', end - p))); ++p)
    *p = '\n';
}

std::string stopMessage(std::int64_t line) {
  return "line " + std::to_string(line) +
         " is longer than 16 MiB: the input has no line ends there (binary data?), so the rest "
         "of it was not read";
}

/// Closes the input file, when it was opened (not standard input), on every way out.
struct FdCloser {
  int fd;
  bool close;
  ~FdCloser() {
    if (close) ::close(fd);
  }
};

/// An import that ends before converting anything: only the error.
ImportResult importError(std::string error) {
  ImportResult r;
  r.error = std::move(error);
  return r;
}

/// The size of the input when it is a regular file (0 when it is not or fstat fails, so that
/// progress is not shown); an error when it is a directory, else empty.
std::string checkInput(int fd, const std::string& name, std::int64_t& total) {
  total = 0;
  struct stat st {};
  if (::fstat(fd, &st) == 0) {
    if (S_ISDIR(st.st_mode)) return "cannot read " + name + ": it is a directory";
    if (S_ISREG(st.st_mode)) total = st.st_size;
  }
  return {};
}

/// Takes lines [from, to) of `buf` through the importer, one at a time; false once the
/// importer says stop.
bool takeLines(Importer& importer, const char* buf, std::size_t from, std::size_t to) {
  while (from < to) {
    const auto* nl = static_cast<const char*>(std::memchr(buf + from, '\n', to - from));
    const auto end = static_cast<std::size_t>(nl - buf);
    if (!importer.line(std::string_view(buf + from, end - from))) return false;
    from = end + 1;
  }
  return true;
}

/// Takes a parsed job's lines through the importer, in file order; false once the importer
/// says stop. Its bytes are counted first, as if it had just been read: the importer's
/// give-up rule looks at them.
/// Its lines and records stay put until the next read: the importer copies only what it
/// still holds then.
bool takeJob(Importer& importer, const ParseJob& job, std::int64_t total) {
  importer.stats().bytes += job.bytes;
  bool go = true;
  for (const ParsedAt& p : job.lines)
    if (!importer.accept(std::string_view(job.buf + p.offset, p.length), p.line, true)) {
      go = false;
      break;
    }
  importer.spill();
  if (go && !takeLines(importer, job.buf, job.parsedTo, job.to)) go = false;
  if (go) importer.progress(total);
  return go;
}

/// Sets up a job for the complete lines buf[from, to) of a block that read `n` bytes.
void setUpJob(ParseJob& job, const char* buf, std::size_t from, std::size_t to, ssize_t n) {
  if (job.lines.capacity() == 0) job.lines.reserve(kMaxParsedAhead);  // no growth later
  job.buf = buf;
  job.from = from;
  job.to = to;
  job.bytes = n;
}

/// Inside a line longer than a block: skips the block's bytes up to that line's end, setting
/// `pos` past it (or to `filled`). False, with the reason given to the importer, once the line
/// is too long to wait for its end.
bool skipOverlongLine(Importer& importer, const char* buf, std::size_t filled, ssize_t n,
                      bool& overlong, std::int64_t& overlongBytes, std::size_t& pos) {
  const auto* nl = static_cast<const char*>(std::memchr(buf, '\n', filled));
  if (nl) {
    overlong = false;
    pos = static_cast<std::size_t>(nl - buf) + 1;
    return true;
  }
  pos = filled;
  overlongBytes += n;
  if (overlongBytes > kMaxStoppingLineBytes) {
    importer.stats().bytes += n;
    importer.stopEarly(stopMessage(importer.stats().lines));
    return false;
  }
  return true;
}

/// The `have` bytes left after the last line end: lines, when only their final '\r' says
/// that lines end in carriage returns, and then the unterminated last line. False once the
/// importer says stop.
bool takeRest(Importer& importer, InputSniffer& sniffer, char* buf, std::size_t have) {
  std::size_t from = 0;
  if (!sniffer.carriageReturns()) {
    // Only the last byte, a '\r', can still say that lines end in carriage returns.
    sniffer.atEnd();
    if (sniffer.carriageReturns()) {
      importer.stats().crLineEnds = true;
      carriageReturnsToNewlines(buf, have);
      const auto* lastNl = static_cast<const char*>(::memrchr(buf, '\n', have));
      from = lastNl ? static_cast<std::size_t>(lastNl - buf) + 1 : 0;
      if (!takeLines(importer, buf, 0, from)) return false;
    }
  }
  if (from < have) importer.unterminated(std::string_view(buf + from, have - from));
  return true;
}

}  // namespace

ImportResult importTraceText(std::string_view text, ImportSink& sink,
                             const ImportOptions& options) {
  Importer importer(sink, options);
  InputSniffer sniffer("the text", false);
  if (std::string why = sniffer.look(text.data(), text.size()); !why.empty()) {
    ImportResult r;
    r.error = std::move(why);
    return r;
  }
  sniffer.atEnd();
  importer.stats().crLineEnds = sniffer.carriageReturns();
  const char lineEnd = sniffer.carriageReturns() ? '\r' : '\n';
  bool stopped = false;
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (importer.cancelled()) return importer.finish("the text", false, true);
    const void* nl = std::memchr(text.data() + pos, lineEnd, text.size() - pos);
    const std::size_t end =
        nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - text.data()) : text.size();
    if (static_cast<std::int64_t>(end - pos) > kMaxStoppingLineBytes) {
      importer.stats().bytes += kMaxStoppingLineBytes;
      importer.line(text.substr(pos, kMaxLineBytes + 1));
      importer.stopEarly(stopMessage(importer.stats().lines));
      stopped = true;
      break;
    }
    if (!nl) {
      importer.stats().bytes += static_cast<std::int64_t>(text.size() - pos);
      importer.unterminated(text.substr(pos));
      break;
    }
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
    if (fd < 0) return importError("cannot open " + path + ": " + std::strerror(errno));
  }
  const FdCloser closer{fd, !useStdin};

  std::int64_t total = 0;
  if (std::string why = checkInput(fd, name, total); !why.empty()) return importError(why);
  if (total > 0) ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);

  Importer importer(sink, options);
  InputSniffer sniffer(name, useStdin);
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
  std::int64_t overlongBytes = 0;
  bool stopped = false;

  const auto takePending = [&] {
    worker.wait();
    return !pending || takeJob(importer, *std::exchange(pending, nullptr), total);
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
    const bool wasCr = sniffer.carriageReturns();
    if (std::string why = sniffer.look(buf + have, static_cast<std::size_t>(n)); !why.empty())
      return importError(std::move(why));
    const std::size_t filled = have + static_cast<std::size_t>(n);
    if (sniffer.carriageReturns()) {
      // Old Mac line ends: made '\n' here, so that nothing after this needs to know. The
      // bytes carried over were made so already, unless this block decided it.
      importer.stats().crLineEnds = true;
      const std::size_t from = wasCr ? have : 0;
      carriageReturnsToNewlines(buf + from, filled - from);
    }
    std::size_t pos = 0;
    if (overlong && !skipOverlongLine(importer, buf, filled, n, overlong, overlongBytes, pos)) {
      stopped = true;
      break;
    }
    // Complete lines end at the last '\n' of the block.
    const auto* lastNl =
        pos < filled ? static_cast<const char*>(::memrchr(buf + pos, '\n', filled - pos)) : nullptr;
    if (lastNl) {
      ParseJob& job = jobs[static_cast<std::size_t>(cur)];
      setUpJob(job, buf, pos, static_cast<std::size_t>(lastNl - buf) + 1, n);
      worker.wait();  // the block before is parsed
      ParseJob* const before = std::exchange(pending, &job);
      worker.submit(job);
      pos = job.to;
      // While the worker parses this block, convert the one before: it used the other
      // buffer, which is then free to be refilled.
      if (before && !takeJob(importer, *before, total)) {
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
      // No line end in a whole block: far over kMaxLineBytes. Counted once as the parser
      // counts a long line, then skipped to its end, if it has one soon enough.
      static_assert(kBlockBytes > kMaxLineBytes);
      if (!overlong && !importer.line(std::string_view(buf, kMaxLineBytes + 1))) {
        stopped = true;
        break;
      }
      overlong = true;
      overlongBytes = static_cast<std::int64_t>(have);
      have = 0;
    } else if (pos > 0) {
      // On to the other buffer (this one may be being parsed), the unfinished line first.
      if (have > 0) std::memcpy(buffers[static_cast<std::size_t>(1 - cur)].get(), buf + pos, have);
      cur = 1 - cur;
    }
  }
  if (!stopped && !takePending()) stopped = true;
  if (!stopped && have > 0 && !overlong &&
      !takeRest(importer, sniffer, buffers[static_cast<std::size_t>(cur)].get(), have))
    stopped = true;
  return importer.finish(name, stopped, false);
}

// ---------------------------------------------------------------------------------------------

namespace {

/// What was done about time order and gaps, in sentences (empty when there was nothing).
std::string describeTimeline(const ImportStats& s) {
  std::string out;
  if (s.segments > 1) {
    const std::int64_t back = s.segments - 1;
    out += " Time went back by more than " + te::fixed(ImportStats::kReorderWindowS * 1000, 0) +
           " ms " + number(back) + (back == 1 ? " time" : " times") + " (at line" +
           (back == 1 ? " " : "s ");
    for (std::size_t i = 0; i < s.segmentLines.size() && i < 3; ++i)
      out += (i ? ", " : "") + std::to_string(s.segmentLines[i]);
    if (back > 3) out += ", ...";
    out += "): the trace was read as " + number(s.segments) +
           " segments (it restarted, or files were joined), each placed on the time axis just "
           "after the one before.";
    if (s.segments > 16 && s.segments * 8 > s.events)
      out +=
          " So many segments mean the lines are not in time order: sort them by timestamp "
          "first.";
  }
  if (s.reordered > 0)
    out += " " + number(s.reordered) + (s.reordered == 1 ? " event" : " events") +
           " out of time order by less than " + te::fixed(ImportStats::kReorderWindowS * 1000, 0) +
           " ms (CPUs' buffers interleaving) were put in order.";
  if (s.lateEvents > 0)
    out += " " + number(s.lateEvents) + (s.lateEvents == 1 ? " event" : " events") +
           " came after " + std::to_string(ImportStats::kReorderCapacity) +
           " later ones and were counted at the time of the one before.";
  if (s.gapsSkipped > 0)
    out += " " + number(s.gapsSkipped) + (s.gapsSkipped == 1 ? " gap" : " gaps") +
           " without events longer than " + te::fixed(TraceConverter::kMaxFillS, 0) + " s (" +
           te::fixed(s.gapsSkippedS, 1) + " s in all) " + (s.gapsSkipped == 1 ? "has" : "have") +
           " no rows; shorter ones repeat the last values.";
  return out;
}

}  // namespace

std::string describe(const ImportStats& s) {
  std::string out = std::string(toString(s.format)) + " text, " + number(s.lines) +
                    (s.lines == 1 ? " line" : " lines") + ": " + number(s.events) +
                    " writeback events (" + number(s.balanceDirtyPages) + " balance_dirty_pages, " +
                    number(s.bdiDirtyRatelimit) + " bdi_dirty_ratelimit, " +
                    number(s.globalDirtyState) + " global_dirty_state)";
  if (s.events > 0) {
    out += " over " + te::fixed(s.lastTimeS - s.firstTimeS, 3) + " s";
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
    std::string malformed = number(s.malformed) + " malformed";
    if (s.outOfRange > 0 || s.overlong > 0) {
      std::string parts;
      if (s.outOfRange > 0) parts = number(s.outOfRange) + " with a value out of range";
      if (s.overlong > 0)
        parts += (parts.empty() ? "" : ", ") + number(s.overlong) + " longer than 64 KiB";
      malformed += " (" + parts + ")";
    }
    out += "Skipped " + number(s.skipped()) + ": " + number(s.comments) + " headers or blank, " +
           number(s.other) + " other events, " + malformed + ", " + number(s.garbage) +
           " not trace lines.";
  }
  if (!s.problems.empty()) {
    out += " First problems:";
    for (std::size_t i = 0; i < s.problems.size() && i < 3; ++i)
      out += std::string(i ? ";" : "") + " line " + std::to_string(s.problems[i].line) + ": " +
             s.problems[i].reason;
    out += ".";
  }
  // The missing-field bits are the rows of the tracepoint tables.
  // The missing-field bits are the rows of the tracepoint's table.
  const auto absent = [&]<class Record>(std::uint32_t bits, te::Tracepoint<Record>) {
    const auto& fields = te::Tracepoint<Record>::kFields;
    std::string list;
    for (std::size_t i = 0; i < std::size(fields); ++i)
      if (bits & (1u << i)) list += (list.empty() ? "" : ", ") + std::string(fields[i].name);
    if (!list.empty())
      out += " Some " + std::string(te::Tracepoint<Record>::kInfo.event) + " lines have no " +
             list + " (an older kernel; read as 0).";
  };
  absent(s.balanceDirtyPagesMissing, te::Tracepoint<te::BalanceDirtyPages>{});
  absent(s.bdiDirtyRatelimitMissing, te::Tracepoint<te::BdiDirtyRatelimit>{});
  absent(s.globalDirtyStateMissing, te::Tracepoint<te::GlobalDirtyState>{});
  if (s.truncatedLastLine)
    out += " The last line had no newline (cut off while the trace was written?) and was left out.";
  out += describeTimeline(s);
  if (s.devicesWithoutColumns > 0)
    out += " " + number(s.devicesWithoutColumns) + " more devices beyond the first " +
           std::to_string(te::kMaxDevices) +
           " have no columns of their own; their events count for the totals and the tasks.";
  if (s.crLineEnds)
    out += " Lines end in a carriage return alone (classic Mac OS) and were read so.";
  if (!s.stoppedEarly.empty()) out += " Reading stopped: " + s.stoppedEarly + ".";
  if (s.cgroupFilter)
    out += " Only cgroup_ino " + std::to_string(*s.cgroupFilter) + ": " +
           number(s.otherCgroupRecords) +
           " balance_dirty_pages and bdi_dirty_ratelimit records of other cgroups left out.";
  return out;
}

}  // namespace throttlelab::traceio
