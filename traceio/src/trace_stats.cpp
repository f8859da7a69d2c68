// SPDX-License-Identifier: GPL-3.0-or-later
// What a trace says about its machine, the scenario that reproduces it, and the
// measured-versus-simulated table. Measured and simulated records go through the same
// accumulator, so both columns are computed the same way.
#include "throttlelab/traceio/trace_stats.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

#include "throttlelab/engine/statistics.h"

namespace throttlelab::traceio {

namespace te = throttlelab::engine;

namespace {

/// A bounded, deterministic sample of a stream of values: every value while there is room,
/// then every second one, every fourth, ... Count, mean and maximum stay exact.
class Reservoir {
 public:
  void add(double x) {
    ++m_count;
    m_sum += x;
    m_max = m_count == 1 ? x : std::max(m_max, x);
    if (m_count % m_stride != 0) return;
    m_values.push_back(x);
    if (m_values.size() >= kCapacity) {
      for (std::size_t i = 0; i < m_values.size() / 2; ++i) m_values[i] = m_values[2 * i + 1];
      m_values.resize(m_values.size() / 2);
      m_stride *= 2;
    }
  }

  Distribution distribution() const {
    Distribution d;
    d.count = m_count;
    if (m_count == 0) return d;
    std::vector<double> v = m_values;
    std::sort(v.begin(), v.end());
    const auto at = [&](double q) {
      // Nearest rank: the smallest value with at least q of the sample at or below it.
      const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
      return v[std::min(v.size() - 1, rank == 0 ? 0 : rank - 1)];
    };
    d.p10 = at(0.10);
    d.p50 = at(0.50);
    d.p90 = at(0.90);
    d.p99 = at(0.99);
    d.max = m_max;
    d.mean = m_sum / static_cast<double>(m_count);
    return d;
  }

  double median() const { return distribution().p50; }
  bool empty() const { return m_count == 0; }

 private:
  static constexpr std::size_t kCapacity = 1 << 15;
  std::vector<double> m_values;
  std::int64_t m_count = 0;
  std::int64_t m_stride = 1;
  double m_sum = 0;
  double m_max = 0;
};

struct TaskAcc {
  std::string comm;
  std::string bdi;
  std::int64_t dirtied = 0;
  double firstS = 0;
  double lastS = 0;
  std::int64_t pauses = 0;
  std::uint64_t cgroupIno = 1;
};

struct CgroupAcc {
  std::int64_t records = 0;
  Reservoir dirty, freerun;
};

/// Pause, period and paused values are jiffies·1000/HZ truncated to ms; the set of values
/// that occur tells HZ apart.
bool consistentWithHz(std::int64_t ms, int hz) {
  // Is there a whole number of jiffies j with floor(j·1000/hz) == ms?
  const std::int64_t j = (ms * hz + 999) / 1000;  // smallest j with j·1000/hz >= ms
  return j * 1000 / hz == ms;
}

std::string fixed(double v, int decimals) {
  std::array<char, 64> buf{};
  const auto r =
      std::to_chars(buf.data(), buf.data() + buf.size(), v, std::chars_format::fixed, decimals);
  return std::string(buf.data(), r.ptr);
}

/// The disk's stalls as the trace shows them (docs/model.md, A device that stalls, Eq. 66–67).
/// Completions come in bursts: the `pages` of a run's end complete somewhere between its last
/// record and the next one. The device writes at the rate that fits every burst into those
/// gaps on average (Eq. 67), and stalls from a run's first record (of a run that had pages in
/// flight) until its burst has just the time it needs before the next value's first record
/// (Eq. 66), so that each burst writes what the real one did and no more. Spells shorter than one
/// largest request at the rate the disk wrote while it had writes are the model's own service, not
/// stalls. The timeline repeats with the trace's span.
void deriveStalls(const TraceStats::Result& m, double warmupS, te::DeviceConfig& d,
                  std::vector<std::string>& n) {
  if (m.writtenSpells.empty() || m.spanS <= 0) return;
  double gapsS = 0;
  for (const auto& sp : m.writtenSpells)
    if (sp.nextS >= 0 && sp.pages > 0) gapsS += sp.nextS - sp.lastS;
  const double burstRate =
      m.writtenPages > 0 && gapsS > 0 ? static_cast<double>(m.writtenPages) / gapsS : 0;
  const double busyRate = m.writebackBusyS > 0 && m.writtenPages > 0
                              ? static_cast<double>(m.writtenPages) / m.writebackBusyS
                              : 0;
  const double requestPages = static_cast<double>(d.maxRequestKiB) / 4.0;
  const double minS = busyRate > 0 ? std::max(kMinNoCompletionS, requestPages / busyRate) : 0;
  const auto round6 = [](double x) { return std::round(x * 1e6) / 1e6; };
  const double period = std::max(1e-6, round6(m.spanS));
  std::vector<std::pair<double, double>> spells;
  double stalledS = 0;
  for (const auto& sp : m.writtenSpells) {
    if (sp.inFlightFromS < 0) continue;  // nothing in flight: idle, not stalled
    // From the run's first record nothing completed, pages in flight or not (a completion
    // can empty the device; the model's may still hold pages then). Its burst gets the time
    // it needs at the one rate before the next value's first record, even where that begins
    // before the run's last record, so that each burst writes what the real one did.
    const double a = sp.firstS;
    double end = sp.lastS;
    if (sp.nextS >= 0 && burstRate > 0)
      end = std::max(a, sp.nextS - static_cast<double>(sp.pages) / burstRate);
    else if (sp.nextS < 0 && burstRate == 0)
      end = period;  // nothing completed in the whole trace
    if (end - a < std::max(minS, kMinNoCompletionS)) continue;
    stalledS += end - a;
    // The simulation's clock starts warmupS before the compared span: the timeline turns by it.
    double o = std::fmod(warmupS, period);
    if (period - o < 1e-9) o = 0;  // a whole number of periods, less rounding
    double s0 = a + o, s1 = end + o;
    if (s0 >= period) {
      s0 -= period;
      s1 -= period;
    }
    if (s1 > period) {
      spells.emplace_back(0, s1 - period);
      s1 = period;
    }
    spells.emplace_back(s0, s1);
  }
  std::sort(spells.begin(), spells.end());
  // Pieces that touch (a spell split where the turned timeline wraps) are one stall.
  std::vector<std::pair<double, double>> merged;
  for (const auto& [a, b] : spells) {
    const double start = round6(a), end = round6(std::min(b, period));
    if (end <= start) continue;
    if (!merged.empty() && start <= merged.back().second)
      merged.back().second = std::max(merged.back().second, end);
    else
      merged.emplace_back(start, end);
  }
  if (merged.empty()) return;
  std::string text;
  for (const auto& [start, end] : merged) {
    if (!text.empty()) text += ' ';
    text += fixed(start, 6) + '+' + fixed(end - start, 6);
  }
  d.stalls = std::move(text);
  d.stallPeriodS = period;
  n.push_back("device " + d.name + ": stalls " + std::to_string(merged.size()) + " times, " +
              fixed(100.0 * stalledS / m.spanS, 0) +
              " % of the trace: the spells in which no write completed (from the first "
              "global_dirty_state of a `written` value, of the values seen with pages under "
              "writeback" +
              (minS > 0 ? ", at least " + fixed(minS * 1e3, 2) +
                              " ms: one largest request at the rate it wrote while it had "
                              "writes), each up to its burst's time at that rate before the next "
                              "value's first record"
                        : std::string(", the whole trace)")) +
              "; repeating every " + fixed(period, 3) + " s");
  if (burstRate > 0) {
    d.writeMBps = std::min(1e6, burstRate * static_cast<double>(te::kPageBytes) / 1e6);
    n.push_back("device " + d.name + ": " + fixed(d.writeMBps, 2) +
                " MB/s between the stalls: the " + std::to_string(m.writtenPages) +
                " pages it wrote back, in the " + fixed(gapsS, 3) +
                " s between a `written` value's last record and the next value's first");
  }
}

}  // namespace

struct TraceStats::State {
  double fromS = 0;
  bool any = false;
  double firstS = 0;
  double lastS = 0;
  std::int64_t records = 0;
  Reservoir dirty, dirtyOverSetpoint, pause, taskRatelimit, thresh, bgThresh, limit;
  Reservoir dirtied, dirtiedPause, overshootDirtied, dirtyingPageS;
  /// Per pid: when its last two balance_dirty_pages() calls began (their global_dirty_state)
  /// and whether the earlier one slept. Bounded like the simulator's writers.
  struct Calls {
    double previousS = -1;
    bool previousSlept = true;
    double currentS = -1;
    bool currentSlept = false;
  };
  std::unordered_map<int, Calls> calls;
  std::int64_t balanceRecords = 0;
  std::int64_t overshootRecords = 0;
  std::array<std::int64_t, 10> dirtiedDivisibleBy{};
  std::map<std::string, Reservoir, std::less<>> writeBw, dirtyRatelimit;
  std::unordered_map<int, TaskAcc> tasks;
  std::map<std::uint64_t, CgroupAcc> cgroups;  ///< bounded: at most kMaxCgroups inos
  std::set<std::int64_t> jiffyValues;          ///< distinct positive ms values, bounded
  int startsBusy = -1;  ///< the first global_dirty_state: above bg_thresh (1) or not (0)
  std::map<std::string, TraceStats::Result::WbStart, std::less<>> wbStart;
  /// The first and the last global_dirty_state: (time, written).
  std::optional<std::pair<double, std::int64_t>> firstWritten, lastWritten;
  /// The earliest global_dirty_state's `dirty` and `writeback`.
  engine::Pages startDirty = 0, startWriteback = 0;
  /// The current run of global_dirty_state records with one `written` value.
  struct WrittenRun {
    double firstS = 0;
    double lastS = 0;
    std::int64_t written = -1;
    /// The first record of the run with pages under writeback: a completion empties the
    /// device, the flusher then submits again, and until the next completion `writeback`
    /// only grows. Negative: none so far (the device had nothing to complete).
    double inFlightFromS = -1;
  } run;
  std::vector<TraceStats::Result::WrittenSpell> spells;  ///< absolute times
  double writebackBusyS = 0;
  std::optional<std::pair<double, bool>> previousGds;  ///< time, writeback > 0
  /// Ends the current run at a record of time `t` whose `written` is `w` (-1: the trace ended).
  void closeRun(double t, std::int64_t w) {
    if (run.written < 0 || spells.size() >= kMaxNoCompletionSpells) return;
    spells.push_back(TraceStats::Result::WrittenSpell{.firstS = run.firstS,
                                                      .inFlightFromS = run.inFlightFromS,
                                                      .lastS = run.lastS,
                                                      .nextS = w < 0 ? -1 : t,
                                                      .pages = w < 0 ? 0 : w - run.written});
  }
};

TraceStats::TraceStats(double fromS) : m_state(std::make_shared<State>()) {
  m_state->fromS = fromS;
}

void TraceStats::add(const te::TraceRecord& record) {
  State& st = *m_state;
  const double t = te::toSeconds(std::visit([](const auto& r) { return r.header.time; }, record));
  if (t < st.fromS) return;
  if (!st.any) {
    st.any = true;
    st.firstS = t;
  }
  st.firstS = std::min(st.firstS, t);
  st.lastS = std::max(st.lastS, t);
  ++st.records;
  const auto noteJiffies = [&](std::int64_t ms) {
    if (ms > 0 && ms < 100'000 && st.jiffyValues.size() < 4096) st.jiffyValues.insert(ms);
  };
  const auto perBdi = [](auto& map, std::string_view bdi) -> Reservoir& {
    auto it = map.find(bdi);
    if (it == map.end()) it = map.emplace(std::string(bdi), Reservoir{}).first;
    return it->second;
  };
  // A bdi's first record gives its dirty_ratelimit at the trace's start (records arrive in
  // time order; the bounded map keeps the first 64 bdis).
  const auto wbStartOf = [&](std::string_view bdi,
                             std::int64_t dirtyRatelimit) -> TraceStats::Result::WbStart* {
    auto it = st.wbStart.find(bdi);
    if (it == st.wbStart.end()) {
      if (st.wbStart.size() >= 64) return nullptr;
      it = st.wbStart.emplace(std::string(bdi), TraceStats::Result::WbStart{}).first;
      it->second.dirtyRatelimitKBps = static_cast<double>(dirtyRatelimit);
    }
    return &it->second;
  };
  std::visit(
      [&](const auto& r) {
        using T = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<T, te::GlobalDirtyState>) {
          // domain_dirty_limits() traces this at the start of every pass of
          // balance_dirty_pages(), and for the flusher (whose pid never has a
          // balance_dirty_pages record, so its entry is never read).
          constexpr std::size_t kMaxCallers = 100'000;
          if (auto it = st.calls.find(r.header.pid);
              it != st.calls.end() || st.calls.size() < kMaxCallers) {
            State::Calls& c = it != st.calls.end() ? it->second : st.calls[r.header.pid];
            c.previousS = c.currentS;
            c.previousSlept = c.currentSlept;
            c.currentS = t;
            c.currentSlept = false;
          }
          if (st.startsBusy < 0) st.startsBusy = r.dirty + r.writeback > r.bgThresh ? 1 : 0;
          const auto written = std::make_pair(t, static_cast<std::int64_t>(r.written));
          if (!st.firstWritten || t < st.firstWritten->first) {
            st.firstWritten = written;
            st.startDirty = static_cast<te::Pages>(r.dirty);
            st.startWriteback = static_cast<te::Pages>(r.writeback);
          }
          if (!st.lastWritten || t >= st.lastWritten->first) st.lastWritten = written;
          // The completion timeline: `written` only grows, and a record of an older value
          // (per-CPU buffers merged slightly out of order) belongs to a run already closed.
          const auto w = static_cast<std::int64_t>(r.written);
          if (w > st.run.written) {
            st.closeRun(t, w);
            st.run = State::WrittenRun{t, t, w, r.writeback > 0 ? t : -1};
          } else if (w == st.run.written) {
            st.run.lastS = std::max(st.run.lastS, t);
            if (r.writeback > 0 && (st.run.inFlightFromS < 0 || t < st.run.inFlightFromS))
              st.run.inFlightFromS = t;
          }
          if (st.previousGds && t >= st.previousGds->first) {
            if (st.previousGds->second) st.writebackBusyS += t - st.previousGds->first;
          }
          if (!st.previousGds || t >= st.previousGds->first)
            st.previousGds = std::make_pair(t, r.writeback > 0);
          st.dirty.add(static_cast<double>(r.dirty + r.writeback));
          st.thresh.add(static_cast<double>(r.thresh));
          st.bgThresh.add(static_cast<double>(r.bgThresh));
          st.limit.add(static_cast<double>(r.limit));
        } else if constexpr (std::is_same_v<T, te::BdiDirtyRatelimit>) {
          perBdi(st.writeBw, r.bdi).add(static_cast<double>(r.awriteBw));
          TraceStats::Result::WbStart* start = wbStartOf(r.bdi, r.dirtyRatelimit);
          if (start && start->avgWriteBwKBps == 0) {
            start->writeBwKBps = static_cast<double>(r.writeBw);
            start->avgWriteBwKBps = static_cast<double>(r.awriteBw);
          }
          perBdi(st.dirtyRatelimit, r.bdi).add(static_cast<double>(r.dirtyRatelimit));
        } else {
          if (r.setpoint > 0)
            st.dirtyOverSetpoint.add(static_cast<double>(r.dirty) /
                                     static_cast<double>(r.setpoint));
          if (r.pause > 0) st.pause.add(static_cast<double>(r.pause));
          st.taskRatelimit.add(static_cast<double>(r.taskRatelimit));
          wbStartOf(r.bdi, r.dirtyRatelimit);
          ++st.balanceRecords;
          st.dirtied.add(static_cast<double>(r.dirtied));
          // The writer dirtied `dirtied` pages since its previous call returned (nr_dirtied is
          // reset on every way out of balance_dirty_pages()); if that call did not sleep (a
          // traced pause above 0 is the sleep; one below min_pause is traced as 0 or less),
          // the time between the two calls' global_dirty_state is all copying, plus whatever
          // else held the writer up (a CPU, the allocator, a lock).
          if (const auto c = st.calls.find(r.header.pid); c != st.calls.end()) {
            if (r.dirtied > 0 && c->second.previousS >= 0 && !c->second.previousSlept &&
                c->second.currentS > c->second.previousS)
              st.dirtyingPageS.add((c->second.currentS - c->second.previousS) /
                                   static_cast<double>(r.dirtied));
            c->second.currentSlept = r.pause > 0;
          }
          st.dirtiedPause.add(static_cast<double>(r.dirtiedPause));
          for (std::size_t k = 0; k < st.dirtiedDivisibleBy.size(); ++k)
            if (r.dirtied % (1u << k) == 0) ++st.dirtiedDivisibleBy[k];
          if (r.dirtied > r.dirtiedPause) {
            ++st.overshootRecords;
            st.overshootDirtied.add(static_cast<double>(r.dirtied));
          }
          noteJiffies(r.pause);
          noteJiffies(r.period);
          noteJiffies(r.paused);
          auto [it, added] = st.tasks.try_emplace(r.header.pid);
          TaskAcc& a = it->second;
          if (added) {
            const auto end = std::find(r.header.comm.begin(), r.header.comm.end(), '\0');
            a.comm.assign(r.header.comm.begin(), end);
            a.bdi = std::string(r.bdi);
            a.firstS = t;
            a.cgroupIno = r.cgroupIno;
          }
          constexpr std::size_t kMaxCgroups = 64;
          auto cg = st.cgroups.find(r.cgroupIno);
          if (cg == st.cgroups.end() && st.cgroups.size() < kMaxCgroups)
            cg = st.cgroups.emplace(r.cgroupIno, CgroupAcc{}).first;
          if (cg != st.cgroups.end()) {
            ++cg->second.records;
            cg->second.dirty.add(static_cast<double>(r.dirty));
            cg->second.freerun.add(2.0 * static_cast<double>(r.setpoint) -
                                   static_cast<double>(r.limit));
          }
          a.firstS = std::min(a.firstS, t);
          a.lastS = std::max(a.lastS, t);
          a.dirtied += r.dirtied;
          if (r.pause > 0) ++a.pauses;
        }
      },
      record);
}

TraceStats::Result TraceStats::result() const {
  const State& st = *m_state;
  Result r;
  r.records = st.records;
  r.startsBusy = st.startsBusy == 1;
  r.spanS = st.any ? st.lastS - st.firstS : 0;
  r.dirtyPages = st.dirty.distribution();
  r.dirtyOverSetpoint = st.dirtyOverSetpoint.distribution();
  r.pauseMs = st.pause.distribution();
  r.taskRatelimitKBps = st.taskRatelimit.distribution();
  r.dirtied = st.dirtied.distribution();
  r.dirtiedPause = st.dirtiedPause.distribution();
  r.dirtyingPageS = st.dirtyingPageS.distribution();
  r.overshootDirtied = st.overshootDirtied.distribution();
  r.balanceRecords = st.balanceRecords;
  r.overshootRecords = st.overshootRecords;
  r.dirtiedDivisibleBy = st.dirtiedDivisibleBy;
  r.threshPages = static_cast<te::Pages>(std::llround(st.thresh.median()));
  r.bgThreshPages = static_cast<te::Pages>(std::llround(st.bgThresh.median()));
  r.limitPages = static_cast<te::Pages>(std::llround(st.limit.median()));
  for (const auto& [bdi, res] : st.writeBw) r.writeBwKBps[bdi] = res.median();
  for (const auto& [bdi, res] : st.dirtyRatelimit) r.dirtyRatelimitKBps[bdi] = res.median();
  for (const auto& [bdi, start] : st.wbStart) r.wbStart[bdi] = start;
  r.startDirtyPages = st.startDirty;
  r.startWritebackPages = st.startWriteback;
  if (st.firstWritten && st.lastWritten && st.lastWritten->first > st.firstWritten->first)
    r.writtenPagesPerS = static_cast<double>(std::max<std::int64_t>(
                             0, st.lastWritten->second - st.firstWritten->second)) /
                         (st.lastWritten->first - st.firstWritten->first);
  if (st.firstWritten && st.lastWritten)
    r.writtenPages = std::max<std::int64_t>(0, st.lastWritten->second - st.firstWritten->second);
  r.writebackBusyS = st.writebackBusyS;
  r.writtenSpells = st.spells;
  if (st.run.written >= 0 && r.writtenSpells.size() < kMaxNoCompletionSpells)
    r.writtenSpells.push_back(
        Result::WrittenSpell{st.run.firstS, st.run.inFlightFromS, st.run.lastS, -1, 0});
  for (auto& sp : r.writtenSpells) {
    sp.firstS -= st.firstS;
    if (sp.inFlightFromS >= 0) sp.inFlightFromS -= st.firstS;
    sp.lastS -= st.firstS;
    if (sp.nextS >= 0) sp.nextS -= st.firstS;
  }
  for (const auto& [pid, a] : st.tasks) {
    TaskRate t;
    t.pid = pid;
    t.comm = a.comm;
    t.bdi = a.bdi;
    t.dirtiedPages = a.dirtied;
    t.activeS = a.lastS - a.firstS;
    t.rateKBps = t.activeS > 0 ? te::pagesToKBps(static_cast<double>(a.dirtied)) / t.activeS : 0;
    t.pauses = a.pauses;
    t.cgroupIno = a.cgroupIno;
    r.tasks.push_back(std::move(t));
  }
  std::sort(r.tasks.begin(), r.tasks.end(),
            [](const TaskRate& a, const TaskRate& b) { return a.pid < b.pid; });
  r.writers = static_cast<int>(r.tasks.size());
  for (const auto& [ino, a] : st.cgroups)
    r.cgroups[ino] = CgroupTrace{a.records, a.dirty.median(), a.freerun.median()};
  // The coarsest HZ that explains every value; a handful of values prove nothing.
  if (st.jiffyValues.size() >= 3) {
    for (const int hz : {100, 250, 300, 1000}) {
      if (std::all_of(st.jiffyValues.begin(), st.jiffyValues.end(),
                      [&](std::int64_t ms) { return consistentWithHz(ms, hz); })) {
        r.hz = hz;
        break;
      }
    }
  }
  return r;
}

// ---------------------------------------------------------------------------------------------

bool startsFromTracedState(const TraceStats::Result& measured) {
  return !measured.wbStart.empty() &&
         std::all_of(measured.wbStart.begin(), measured.wbStart.end(),
                     [](const auto& s) { return s.second.avgWriteBwKBps > 0; });
}

double simulationWarmupS(const TraceStats::Result& measured) {
  return measured.startsBusy && !startsFromTracedState(measured) ? kBusyTraceWarmupS : 0.0;
}

engine::Scenario deriveScenario(const TraceStats::Result& m, const HostFacts& host,
                                std::vector<std::string>* notes) {
  std::vector<std::string> local;
  std::vector<std::string>& n = notes ? *notes : local;
  te::Scenario s;
  s.name = "trace";
  s.description = "Derived from a kernel trace by ThrottleLab's trace import";
  s.policy = "ioless";
  n.push_back(
      "policy ioless: the IO-less controller of 3.2+ kernels, which wrote the trace's "
      "balance_dirty_pages records");
  s.durationS = std::max(1.0, std::round(m.spanS));
  // The work grows with simulated time and writers; a trace of a few events hours apart, or of
  // a hundred thousand pids, would otherwise keep the comparison busy for hours. Its
  // statistics settle within seconds of simulated time.
  const double writers = static_cast<double>(std::max<std::size_t>(m.tasks.size(), 1));
  const double maxS = std::max(
      kMinSimulatedS, std::min(kMaxSimulatedS, std::floor(kMaxSimulatedWriterSeconds / writers)));
  if (s.durationS > maxS) {
    s.durationS = maxS;
    n.push_back("duration " + fixed(s.durationS, 0) + " s of the trace's " + fixed(m.spanS, 3) +
                " s: simulating at most " + fixed(kMaxSimulatedS, 0) + " s, and at most " +
                fixed(kMaxSimulatedWriterSeconds, 0) + " writer-seconds (" +
                std::to_string(m.tasks.size()) + " writers here), keeps the run to seconds");
  } else {
    n.push_back("duration " + fixed(s.durationS, 0) + " s: the trace's span (" + fixed(m.spanS, 3) +
                " s)");
  }

  if (host.hz > 0) {
    s.machine.hz = host.hz;
    n.push_back("HZ " + std::to_string(host.hz) + ": this host");
  } else if (m.hz > 0) {
    s.machine.hz = m.hz;
    n.push_back("HZ " + std::to_string(m.hz) +
                ": the coarsest tick that explains every traced pause, period and paused value");
  } else {
    n.push_back("HZ " + std::to_string(s.machine.hz) +
                " (default): too few distinct pause values to tell");
  }
  if (host.cpus > 0) {
    s.machine.cpus = host.cpus;
    n.push_back("CPUs " + std::to_string(host.cpus) + ": this host");
  } else {
    n.push_back("CPUs " + std::to_string(s.machine.cpus) + " (default): a trace does not say");
  }
  if (host.memoryMiB > 0) {
    s.machine.memoryMiB = host.memoryMiB;
    n.push_back("memory " + std::to_string(host.memoryMiB) + " MiB: this host's MemTotal");
  } else {
    n.push_back("memory " + std::to_string(s.machine.memoryMiB) +
                " MiB (default): a trace does not say");
  }

  if (m.threshPages > 0) {
    s.vm.dirtyBytes = std::max<std::int64_t>(m.threshPages * te::kPageBytes, 2 * te::kPageBytes);
    n.push_back("vm.dirty_bytes " + std::to_string(s.vm.dirtyBytes) + ": median traced thresh " +
                std::to_string(m.threshPages) + " pages x 4096");
    if (m.bgThreshPages > 0 && m.bgThreshPages < m.threshPages) {
      s.vm.dirtyBackgroundBytes = m.bgThreshPages * te::kPageBytes;
      n.push_back("vm.dirty_background_bytes " + std::to_string(s.vm.dirtyBackgroundBytes) +
                  ": median traced bg_thresh " + std::to_string(m.bgThreshPages) + " pages x 4096");
    } else {
      n.push_back(
          "vm.dirty_background_bytes 0: no usable traced bg_thresh; the kernel then uses "
          "dirty_background_ratio");
    }
    // Below about four times the threshold, the simulated machine would be starved of memory
    // for everything else; the trace's machine evidently was not.
    const std::int64_t needMiB = (m.threshPages * 4 + te::kPagesPerMiB - 1) / te::kPagesPerMiB;
    if (s.machine.memoryMiB < needMiB) {
      s.machine.memoryMiB = needMiB;
      n.push_back("memory raised to " + std::to_string(needMiB) +
                  " MiB: four times the traced threshold");
    }
  } else {
    n.push_back("vm.dirty_ratio " + std::to_string(s.vm.dirtyRatio) +
                " (default): the trace has no global_dirty_state records");
  }

  // The page cache when the trace begins (docs/model.md, The page cache at the start): the
  // writers were already running, so the run starts with their dirty and writeback pages
  // rather than an empty cache. An initial condition, like the bdi's bandwidth state below.
  if (m.startDirtyPages + m.startWritebackPages > 0) {
    s.machine.initialDirtyPages = m.startDirtyPages;
    s.machine.initialWritebackPages = m.startWritebackPages;
    n.push_back("page cache at the start: " + std::to_string(m.startDirtyPages) + " dirty and " +
                std::to_string(m.startWritebackPages) +
                " writeback pages, the first global_dirty_state's, shared among the writers");
  }

  // One device per bdi, named as the trace names it.
  std::vector<std::string> bdis;
  for (const auto& [bdi, bw] : m.writeBwKBps) bdis.push_back(bdi);
  for (const auto& t : m.tasks)
    if (!t.bdi.empty() && std::find(bdis.begin(), bdis.end(), t.bdi) == bdis.end())
      bdis.push_back(t.bdi);
  std::sort(bdis.begin(), bdis.end());
  if (bdis.size() > engine::kMaxDevices) {
    n.push_back("only the first " + std::to_string(engine::kMaxDevices) + " of " +
                std::to_string(bdis.size()) + " devices are simulated");
    bdis.resize(engine::kMaxDevices);
  }
  // A comm or bdi in a trace may hold any byte but NUL; a scenario's names must be UTF-8
  // without control characters (validateScenario). Printable ASCII is kept, anything else
  // is replaced.
  const auto hasControl = [](const std::string& name) {
    return std::any_of(name.begin(), name.end(), [](char c) {
      const auto u = static_cast<unsigned char>(c);
      return u < 0x20 || u >= 0x7f;
    });
  };
  if (!bdis.empty()) {
    s.devices.clear();
    for (const auto& bdi : bdis) {
      te::DeviceConfig d;
      d.name =
          bdi.find(' ') == std::string::npos && bdi.size() <= 32 && !hasControl(bdi) ? bdi : "dev";
      if (std::any_of(s.devices.begin(), s.devices.end(),
                      [&](const te::DeviceConfig& o) { return o.name == d.name; }))
        d.name += std::to_string(s.devices.size());
      const auto it = m.writeBwKBps.find(bdi);
      const bool measuredWrites = bdis.size() == 1 && m.startsBusy && m.writtenPagesPerS > 0;
      if (measuredWrites) {
        // What the disk took while the writers kept it busy: awrite_bw is the kernel's
        // estimate of it, smoothed over seconds, and lags behind when the disk's speed
        // changes (as a virtual disk's does).
        d.writeMBps = m.writtenPagesPerS * te::kPageBytes / 1e6;
        n.push_back("device " + d.name + ": " + fixed(d.writeMBps, 2) +
                    " MB/s, what it wrote back during the trace (global_dirty_state `written`, " +
                    fixed(m.writtenPagesPerS, 0) +
                    " pages/s; the trace begins above bg_thresh, "
                    "so the flusher kept it busy)" +
                    (it != m.writeBwKBps.end() && it->second > 0
                         ? "; the traced awrite_bw, the kernel's smoothed estimate, was " +
                               fixed(it->second * 1.024 / 1000.0, 2) + " MB/s (median)"
                         : std::string()));
      } else if (it != m.writeBwKBps.end() && it->second > 0) {
        d.writeMBps = it->second * 1.024 / 1000.0;
        n.push_back("device " + d.name + ": " + fixed(d.writeMBps, 2) +
                    " MB/s, the median traced awrite_bw " + fixed(it->second, 0) +
                    " KB/s x 1.024 / 1000" +
                    (bdis.size() == 1 && m.startsBusy
                         ? std::string(" (the disk wrote nothing back during the trace: it "
                                       "stalled)")
                         : std::string()));
      } else {
        n.push_back("device " + d.name + ": " + fixed(d.writeMBps, 2) +
                    " MB/s (default): no bdi_dirty_ratelimit record for it");
      }
      // The queue's limits shape how many positioning operations the disk pays for per MB;
      // a trace does not show them, this host's sysfs does.
      if (const auto q = host.queues.find(bdi); q != host.queues.end()) {
        if (q->second.maxRequestKiB >= 4) {
          d.maxRequestKiB = q->second.maxRequestKiB;
          n.push_back("device " + d.name + ": requests up to " + std::to_string(d.maxRequestKiB) +
                      " KiB, this host's max_sectors_kb");
        }
        if (q->second.nrRequests >= 4) {
          d.nrRequests = q->second.nrRequests;
          n.push_back("device " + d.name + ": queue depth " + std::to_string(d.nrRequests) +
                      ", this host's nr_requests");
        }
      }
      if (bdis.size() == 1) deriveStalls(m, simulationWarmupS(m), d, n);
      // Where the trace shows it, the bdi starts from the state it had (the kernel keeps its
      // estimates for the bdi's lifetime): initial conditions, not a fit.
      if (const auto st = m.wbStart.find(bdi);
          st != m.wbStart.end() && st->second.avgWriteBwKBps > 0) {
        d.initialWriteBwKBps = std::max(4.0, st->second.writeBwKBps);
        d.initialAvgWriteBwKBps = std::max(4.0, st->second.avgWriteBwKBps);
        d.initialDirtyRatelimitKBps = std::max(4.0, st->second.dirtyRatelimitKBps);
        n.push_back("device " + d.name + ": starts with write_bw " +
                    fixed(d.initialWriteBwKBps, 0) + ", awrite_bw " +
                    fixed(d.initialAvgWriteBwKBps, 0) + " and dirty_ratelimit " +
                    fixed(d.initialDirtyRatelimitKBps, 0) +
                    " KB/s, its state when the trace begins (its first records)");
      }
      if (it != m.writeBwKBps.end() && it->second > 0) {
        // awrite_bw is what the disk delivered for this very workload, positioning included;
        // a seek cost on top of it would count the positioning twice.
        d.seekMs = 0;
        n.push_back("device " + d.name +
                    ": no separate positioning cost, since the traced bandwidth already "
                    "includes it");
      } else {
        n.push_back("device " + d.name + ": positioning " + fixed(d.seekMs, 1) +
                    " ms per stream switch (default): neither a trace nor sysfs gives it");
      }
      s.devices.push_back(d);
    }
  } else {
    n.push_back("device " + s.devices.front().name + " (default): the trace names no bdi");
  }

  // A memory cgroup per traced cgroup_ino other than the root's (1): only cgroup writeback
  // (4.2+, cgroup v2) traces another one.
  std::map<std::uint64_t, std::string> cgroupNames;
  for (const auto& t : m.tasks) {
    if (t.cgroupIno == 1 || cgroupNames.count(t.cgroupIno) || cgroupNames.size() >= 64) continue;
    te::CgroupSpec c;
    c.name = "ino" + std::to_string(t.cgroupIno);
    cgroupNames[t.cgroupIno] = c.name;
    const auto it = m.cgroups.find(t.cgroupIno);
    const double globalFreerun =
        (static_cast<double>(m.threshPages) + static_cast<double>(m.bgThreshPages)) / 2;
    const double freerun = it == m.cgroups.end() ? 0 : it->second.freerunPages;
    if (freerun > 0 && globalFreerun > 0 && freerun < 0.95 * globalFreerun) {
      // The cgroup's domain set the pauses. Under byte thresholds its domain gets the share
      // of them its dirtyable memory is of the machine's, so that share is freerun ratio;
      // its dirtyable memory is taken as its memory.max, the machine's as its memory.
      const double share = freerun / globalFreerun;
      c.memoryMaxMiB =
          std::max<std::int64_t>(1, std::llround(share * static_cast<double>(s.machine.memoryMiB)));
      n.push_back("cgroup " + c.name + ": memory.max " + std::to_string(c.memoryMaxMiB) +
                  " MiB, assumed: its traced freerun (2·setpoint − limit, median " +
                  fixed(freerun, 0) + " pages) is " + fixed(share * 100, 1) +
                  " % of the global one, taken as its share of dirtyable memory, with its "
                  "dirtyable memory equal to memory.max and the machine's to its memory");
    } else {
      n.push_back("cgroup " + c.name +
                  ": no memory.max (the trace gives none: its records show the global "
                  "domain setting the pauses)");
    }
    s.cgroups.push_back(c);
  }

  // As many looping dd writers as pids that went through balance_dirty_pages, each on its
  // bdi, grouped by bdi, name and cgroup.
  std::map<std::tuple<std::string, std::string, std::string>, int> groups;
  for (const auto& t : m.tasks) {
    std::string device = s.devices.front().name;
    for (std::size_t i = 0; i < bdis.size(); ++i)
      if (bdis[i] == t.bdi) device = s.devices[i].name;
    std::string name = t.comm.empty() ? std::string("dd") : t.comm;
    if (name.size() > 64 || hasControl(name)) name = "dd";
    const auto cg = cgroupNames.find(t.cgroupIno);
    ++groups[{device, name, cg == cgroupNames.end() ? std::string() : cg->second}];
  }
  // The size of a write(): 6.x dirties a write in folios of up to its size and checks in once
  // per folio (docs/model.md, Large folios in the write path), so writers whose `dirtied`
  // passes `dirtied_pause` show the folio they dirty at a time; writers that stop at
  // `dirtied_pause` dirty single pages. Without balance_dirty_pages records, dd's default.
  std::int64_t blockKiB = te::TaskSpec{}.blockKiB;
  std::string blockWhy = "the default";
  if (m.balanceRecords > 0) {
    const double share =
        static_cast<double>(m.overshootRecords) / static_cast<double>(m.balanceRecords);
    const std::string pct = fixed(100.0 * share, 0) + " % of the balance_dirty_pages records";
    if (share >= 0.1) {
      // The folio: the largest power of two (at most 512 pages, order 9) that divides the
      // `dirtied` of nine in ten records.
      std::int64_t folio = 1;
      for (std::size_t k = m.dirtiedDivisibleBy.size(); k-- > 0;)
        if (10 * m.dirtiedDivisibleBy[k] >= 9 * m.balanceRecords) {
          folio = std::int64_t{1} << k;
          break;
        }
      blockKiB = folio * 4;
      blockWhy = "dirtied passes dirtied_pause in " + pct + ", in steps of " +
                 std::to_string(folio) + " pages: one check-in per folio of that size";
    } else {
      blockKiB = 4;
      blockWhy = "dirtied stops at dirtied_pause in " + fixed(100.0 * (1.0 - share), 0) +
                 " % of the balance_dirty_pages records: single pages";
    }
  }
  // How fast a writer dirties (docs/model.md, The writers' copy speed from a trace): every
  // interval between two check-ins without a sleep is an upper bound on the writer's own cost
  // per page, since anything else that held it up only adds time; the lower tenth of them,
  // where nothing did, is the cost of a writer with a whole CPU, which the simulation's CPUs
  // then share out as the real ones did.
  double copyMBps = te::TaskSpec{}.copyMBps;
  std::string copyWhy = "the default: fewer than " + std::to_string(kMinDirtyingIntervals) +
                        " check-ins followed one without a sleep";
  if (m.dirtyingPageS.count >= kMinDirtyingIntervals && m.dirtyingPageS.p10 > 0) {
    copyMBps =
        std::clamp(static_cast<double>(te::kPageBytes) / (m.dirtyingPageS.p10 * 1e6), 0.001, 1e6);
    copyWhy = fixed(m.dirtyingPageS.p10 * 1e6, 2) + " us per page dirtied, the p10 of the " +
              std::to_string(m.dirtyingPageS.count) +
              " intervals between a writer's check-ins without a sleep (median " +
              fixed(m.dirtyingPageS.p50 * 1e6, 2) + " us)";
  }
  for (const auto& [key, count] : groups) {
    te::TaskSpec t;
    t.blockKiB = blockKiB;
    t.copyMBps = copyMBps;
    t.name = std::get<1>(key);
    t.count = count;
    t.kind = te::TaskKind::Writer;
    t.loop = true;
    t.device = std::get<0>(key);
    t.cgroup = std::get<2>(key);
    s.tasks.push_back(t);
    n.push_back(std::to_string(count) + " x " + t.name + " on " + t.device +
                (t.cgroup.empty() ? std::string() : " in cgroup " + t.cgroup) +
                ": looping dd writers, one per traced pid: bs " + std::to_string(t.blockKiB) +
                " KiB (" + blockWhy + "), " + std::to_string(t.fileMiB) +
                " MiB per run (the default), copying " + fixed(t.copyMBps, 0) + " MB/s (" +
                copyWhy + ")");
  }
  if (groups.empty()) n.push_back("no writers: no pid called balance_dirty_pages in the trace");

  te::validateScenario(s);
  return s;
}

std::vector<ComparisonRow> compare(const TraceStats::Result& measured,
                                   const TraceStats::Result& simulated) {
  std::vector<ComparisonRow> rows;
  const auto row = [&](std::string metric, double m, double s) {
    rows.push_back(ComparisonRow{.metric = std::move(metric),
                                 .measured = m,
                                 .simulated = s,
                                 .offPct = te::percentChange(s, m)});
  };
  const auto medianRate = [](const TraceStats::Result& r) {
    std::vector<double> v;
    for (const auto& t : r.tasks) v.push_back(t.rateKBps);
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    return v[(v.size() - 1) / 2];
  };
  const auto totalRate = [](const TraceStats::Result& r) {
    double pages = 0;
    for (const auto& t : r.tasks) pages += static_cast<double>(t.dirtiedPages);
    return r.spanS > 0 ? te::pagesToKBps(pages) / r.spanS : 0.0;
  };
  const auto pausesPerTaskS = [](const TraceStats::Result& r) {
    std::int64_t pauses = 0;
    for (const auto& t : r.tasks) pauses += t.pauses;
    return r.writers > 0 && r.spanS > 0 ? static_cast<double>(pauses) / r.writers / r.spanS : 0.0;
  };
  row("dirty pages p50", measured.dirtyPages.p50, simulated.dirtyPages.p50);
  row("dirty pages p90", measured.dirtyPages.p90, simulated.dirtyPages.p90);
  row("dirty / setpoint p50", measured.dirtyOverSetpoint.p50, simulated.dirtyOverSetpoint.p50);
  row("pause p50 (ms)", measured.pauseMs.p50, simulated.pauseMs.p50);
  row("pause p90 (ms)", measured.pauseMs.p90, simulated.pauseMs.p90);
  row("pause p99 (ms)", measured.pauseMs.p99, simulated.pauseMs.p99);
  row("pauses per task per s", pausesPerTaskS(measured), pausesPerTaskS(simulated));
  row("task_ratelimit p50 (KB/s)", measured.taskRatelimitKBps.p50, simulated.taskRatelimitKBps.p50);
  row("dirtied p50 (pages)", measured.dirtied.p50, simulated.dirtied.p50);
  row("dirtied_pause p50 (pages)", measured.dirtiedPause.p50, simulated.dirtiedPause.p50);
  row("dirtying a page p10 (us)", measured.dirtyingPageS.p10 * 1e6,
      simulated.dirtyingPageS.p10 * 1e6);
  row("rate per task p50 (KB/s)", medianRate(measured), medianRate(simulated));
  row("all writers (KB/s)", totalRate(measured), totalRate(simulated));
  row("thresh (pages)", static_cast<double>(measured.threshPages),
      static_cast<double>(simulated.threshPages));
  row("bg_thresh (pages)", static_cast<double>(measured.bgThreshPages),
      static_cast<double>(simulated.bgThreshPages));
  row("limit (pages)", static_cast<double>(measured.limitPages),
      static_cast<double>(simulated.limitPages));
  for (const auto& [bdi, bw] : measured.writeBwKBps) {
    const auto it = simulated.writeBwKBps.find(bdi);
    row("awrite_bw " + bdi + " (KB/s)", bw, it == simulated.writeBwKBps.end() ? 0.0 : it->second);
  }
  for (const auto& [bdi, rate] : measured.dirtyRatelimitKBps) {
    const auto it = simulated.dirtyRatelimitKBps.find(bdi);
    row("dirty_ratelimit " + bdi + " (KB/s)", rate,
        it == simulated.dirtyRatelimitKBps.end() ? 0.0 : it->second);
  }
  row("writers", measured.writers, simulated.writers);
  return rows;
}

}  // namespace throttlelab::traceio
