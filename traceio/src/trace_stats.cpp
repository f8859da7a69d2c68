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

#include "throttlelab/engine/number_text.h"
#include "throttlelab/engine/statistics.h"

namespace throttlelab::traceio {

namespace te = throttlelab::engine;
using te::fixed;

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

/// The disk's stalls as the trace shows them (docs/model.md, A device that stalls, Eq. 66–67).
/// Completions come in bursts: the `pages` of a run's end complete somewhere between its last
/// record and the next one. The device writes at the rate that fits every burst into those
/// gaps on average (Eq. 67), and stalls from a run's first record (of a run that had pages in
/// flight) until its burst has just the time it needs before the next value's first record
/// (Eq. 66), so that each burst writes what the real one did and no more. Spells shorter than one
/// largest request at the rate the disk wrote while it had writes are the model's own service, not
/// stalls. The timeline repeats with the trace's span.
void deriveStalls(const TraceStats::Result& measured, double warmupS, te::DeviceConfig& device,
                  std::vector<std::string>& notes) {
  if (measured.writtenSpells.empty() || measured.spanS <= 0) return;
  double gapsS = 0;
  for (const auto& spell : measured.writtenSpells)
    if (spell.nextS >= 0 && spell.pages > 0) gapsS += spell.nextS - spell.lastS;
  const double burstRate = measured.writtenPages > 0 && gapsS > 0
                               ? static_cast<double>(measured.writtenPages) / gapsS
                               : 0;
  const double busyRate = measured.writebackBusyS > 0 && measured.writtenPages > 0
                              ? static_cast<double>(measured.writtenPages) / measured.writebackBusyS
                              : 0;
  const double requestPages = static_cast<double>(device.maxRequestKiB) / 4.0;
  const double minS = busyRate > 0 ? std::max(kMinNoCompletionS, requestPages / busyRate) : 0;
  const auto round6 = [](double x) { return std::round(x * 1e6) / 1e6; };
  const double period = std::max(1e-6, round6(measured.spanS));
  std::vector<std::pair<double, double>> stalls;  // on the simulation's clock, within a period
  double stalledS = 0;
  for (const auto& spell : measured.writtenSpells) {
    if (spell.inFlightFromS < 0) continue;  // nothing in flight: idle, not stalled
    // From the run's first record nothing completed, pages in flight or not (a completion
    // can empty the device; the model's may still hold pages then). Its burst gets the time
    // it needs at the one rate before the next value's first record, even where that begins
    // before the run's last record, so that each burst writes what the real one did.
    const double from = spell.firstS;
    double to = spell.lastS;
    if (spell.nextS >= 0 && burstRate > 0)
      to = std::max(from, spell.nextS - static_cast<double>(spell.pages) / burstRate);
    else if (spell.nextS < 0 && burstRate == 0)
      to = period;  // nothing completed in the whole trace
    if (to - from < std::max(minS, kMinNoCompletionS)) continue;
    stalledS += to - from;
    // The simulation's clock starts warmupS before the compared span: the timeline turns by it.
    double turn = std::fmod(warmupS, period);
    if (period - turn < 1e-9) turn = 0;  // a whole number of periods, less rounding
    double turnedFrom = from + turn, turnedTo = to + turn;
    if (turnedFrom >= period) {
      turnedFrom -= period;
      turnedTo -= period;
    }
    if (turnedTo > period) {
      stalls.emplace_back(0, turnedTo - period);
      turnedTo = period;
    }
    stalls.emplace_back(turnedFrom, turnedTo);
  }
  std::sort(stalls.begin(), stalls.end());
  // Pieces that touch (a spell split where the turned timeline wraps) are one stall.
  std::vector<std::pair<double, double>> merged;
  for (const auto& [from, to] : stalls) {
    const double start = round6(from), end = round6(std::min(to, period));
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
  device.stalls = std::move(text);
  device.stallPeriodS = period;
  notes.push_back("device " + device.name + ": stalls " + std::to_string(merged.size()) +
                  " times, " + fixed(100.0 * stalledS / measured.spanS, 0) +
                  " % of the trace: the spells in which no write completed (from the first "
                  "global_dirty_state of a `written` value, of the values seen with pages under "
                  "writeback" +
                  (minS > 0 ? ", at least " + fixed(minS * 1e3, 2) +
                                  " ms: one largest request at the rate it wrote while it had "
                                  "writes), each up to its burst's time at that rate before the "
                                  "next value's first record"
                            : std::string(", the whole trace)")) +
                  "; repeating every " + fixed(period, 3) + " s");
  if (burstRate > 0) {
    device.writeMBps = std::min(1e6, burstRate * static_cast<double>(te::kPageBytes) / 1e6);
    notes.push_back("device " + device.name + ": " + fixed(device.writeMBps, 2) +
                    " MB/s between the stalls: the " + std::to_string(measured.writtenPages) +
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
  /// One record of each kind, at `t` seconds.
  void add(const te::GlobalDirtyState& r, double t);
  void add(const te::BdiDirtyRatelimit& r, double t);
  void add(const te::BalanceDirtyPages& r, double t);
  /// A pause, period or paused value in ms, for telling HZ (bounded).
  void noteJiffies(std::int64_t ms) {
    if (ms > 0 && ms < 100'000 && jiffyValues.size() < 4096) jiffyValues.insert(ms);
  }
  /// A bdi's first record gives its dirty_ratelimit at the trace's start (records arrive in
  /// time order; the bounded map keeps the first 64 bdis).
  TraceStats::Result::WbStart* wbStartOf(std::string_view bdi, std::int64_t ratelimitKBps) {
    auto it = wbStart.find(bdi);
    if (it == wbStart.end()) {
      if (wbStart.size() >= 64) return nullptr;
      it = wbStart.emplace(std::string(bdi), TraceStats::Result::WbStart{}).first;
      it->second.dirtyRatelimitKBps = static_cast<double>(ratelimitKBps);
    }
    return &it->second;
  }
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
  std::visit([&st, t](const auto& r) { st.add(r, t); }, record);
}

namespace {
Reservoir& perBdi(std::map<std::string, Reservoir, std::less<>>& map, std::string_view bdi) {
  auto it = map.find(bdi);
  if (it == map.end()) it = map.emplace(std::string(bdi), Reservoir{}).first;
  return it->second;
}
}  // namespace

void TraceStats::State::add(const te::GlobalDirtyState& r, double t) {
  // domain_dirty_limits() traces this at the start of every pass of
  // balance_dirty_pages(), and for the flusher (whose pid never has a
  // balance_dirty_pages record, so its entry is never read).
  constexpr std::size_t kMaxCallers = 100'000;
  if (auto it = calls.find(r.header.pid); it != calls.end() || calls.size() < kMaxCallers) {
    Calls& c = it != calls.end() ? it->second : calls[r.header.pid];
    c.previousS = c.currentS;
    c.previousSlept = c.currentSlept;
    c.currentS = t;
    c.currentSlept = false;
  }
  if (startsBusy < 0) startsBusy = r.dirty + r.writeback > r.bgThresh ? 1 : 0;
  const auto written = std::make_pair(t, static_cast<std::int64_t>(r.written));
  if (!firstWritten || t < firstWritten->first) {
    firstWritten = written;
    startDirty = static_cast<te::Pages>(r.dirty);
    startWriteback = static_cast<te::Pages>(r.writeback);
  }
  if (!lastWritten || t >= lastWritten->first) lastWritten = written;
  // The completion timeline: `written` only grows, and a record of an older value
  // (per-CPU buffers merged slightly out of order) belongs to a run already closed.
  const auto w = static_cast<std::int64_t>(r.written);
  if (w > run.written) {
    closeRun(t, w);
    run = WrittenRun{t, t, w, r.writeback > 0 ? t : -1};
  } else if (w == run.written) {
    run.lastS = std::max(run.lastS, t);
    if (r.writeback > 0 && (run.inFlightFromS < 0 || t < run.inFlightFromS)) run.inFlightFromS = t;
  }
  if (previousGds && t >= previousGds->first) {
    if (previousGds->second) writebackBusyS += t - previousGds->first;
  }
  if (!previousGds || t >= previousGds->first) previousGds = std::make_pair(t, r.writeback > 0);
  dirty.add(static_cast<double>(r.dirty + r.writeback));
  thresh.add(static_cast<double>(r.thresh));
  bgThresh.add(static_cast<double>(r.bgThresh));
  limit.add(static_cast<double>(r.limit));
}

void TraceStats::State::add(const te::BdiDirtyRatelimit& r, double /*t*/) {
  perBdi(writeBw, r.bdi).add(static_cast<double>(r.awriteBw));
  TraceStats::Result::WbStart* start = wbStartOf(r.bdi, r.dirtyRatelimit);
  if (start && start->avgWriteBwKBps == 0) {
    start->writeBwKBps = static_cast<double>(r.writeBw);
    start->avgWriteBwKBps = static_cast<double>(r.awriteBw);
  }
  perBdi(dirtyRatelimit, r.bdi).add(static_cast<double>(r.dirtyRatelimit));
}

void TraceStats::State::add(const te::BalanceDirtyPages& r, double t) {
  if (r.setpoint > 0)
    dirtyOverSetpoint.add(static_cast<double>(r.dirty) / static_cast<double>(r.setpoint));
  if (r.pause > 0) pause.add(static_cast<double>(r.pause));
  taskRatelimit.add(static_cast<double>(r.taskRatelimit));
  wbStartOf(r.bdi, r.dirtyRatelimit);
  ++balanceRecords;
  dirtied.add(static_cast<double>(r.dirtied));
  // The writer dirtied `dirtied` pages since its previous call returned (nr_dirtied is
  // reset on every way out of balance_dirty_pages()); if that call did not sleep (a
  // traced pause above 0 is the sleep; one below min_pause is traced as 0 or less),
  // the time between the two calls' global_dirty_state is all copying, plus whatever
  // else held the writer up (a CPU, the allocator, a lock).
  if (const auto c = calls.find(r.header.pid); c != calls.end()) {
    if (r.dirtied > 0 && c->second.previousS >= 0 && !c->second.previousSlept &&
        c->second.currentS > c->second.previousS)
      dirtyingPageS.add((c->second.currentS - c->second.previousS) /
                        static_cast<double>(r.dirtied));
    c->second.currentSlept = r.pause > 0;
  }
  dirtiedPause.add(static_cast<double>(r.dirtiedPause));
  for (std::size_t k = 0; k < dirtiedDivisibleBy.size(); ++k)
    if (r.dirtied % (1u << k) == 0) ++dirtiedDivisibleBy[k];
  if (r.dirtied > r.dirtiedPause) {
    ++overshootRecords;
    overshootDirtied.add(static_cast<double>(r.dirtied));
  }
  noteJiffies(r.pause);
  noteJiffies(r.period);
  noteJiffies(r.paused);
  auto [it, added] = tasks.try_emplace(r.header.pid);
  TaskAcc& a = it->second;
  if (added) {
    const auto end = std::find(r.header.comm.begin(), r.header.comm.end(), '\0');
    a.comm.assign(r.header.comm.begin(), end);
    a.bdi = std::string(r.bdi);
    a.firstS = t;
    a.cgroupIno = r.cgroupIno;
  }
  constexpr std::size_t kMaxCgroups = 64;
  auto cg = cgroups.find(r.cgroupIno);
  if (cg == cgroups.end() && cgroups.size() < kMaxCgroups)
    cg = cgroups.emplace(r.cgroupIno, CgroupAcc{}).first;
  if (cg != cgroups.end()) {
    ++cg->second.records;
    cg->second.dirty.add(static_cast<double>(r.dirty));
    cg->second.freerun.add(2.0 * static_cast<double>(r.setpoint) - static_cast<double>(r.limit));
  }
  a.firstS = std::min(a.firstS, t);
  a.lastS = std::max(a.lastS, t);
  a.dirtied += r.dirtied;
  if (r.pause > 0) ++a.pauses;
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

namespace {

using Notes = std::vector<std::string>;

/// The run: the IO-less controller that wrote the records, for the trace's span, within the
/// bounds that keep the comparison to seconds.
void deriveRun(const TraceStats::Result& measured, te::Scenario& scenario, Notes& notes) {
  scenario.name = "trace";
  scenario.description = "Derived from a kernel trace by ThrottleLab's trace import";
  scenario.policy = "ioless";
  notes.push_back(
      "policy ioless: the IO-less controller of 3.2+ kernels, which wrote the trace's "
      "balance_dirty_pages records");
  scenario.durationS = std::max(1.0, std::round(measured.spanS));
  // The work grows with simulated time and writers; a trace of a few events hours apart, or of
  // a hundred thousand pids, would otherwise keep the comparison busy for hours. Its
  // statistics settle within seconds of simulated time.
  const double writers = static_cast<double>(std::max<std::size_t>(measured.tasks.size(), 1));
  const double longestS = std::max(
      kMinSimulatedS, std::min(kMaxSimulatedS, std::floor(kMaxSimulatedWriterSeconds / writers)));
  if (scenario.durationS > longestS) {
    scenario.durationS = longestS;
    notes.push_back(
        "duration " + fixed(scenario.durationS, 0) + " s of the trace's " +
        fixed(measured.spanS, 3) + " s: simulating at most " + fixed(kMaxSimulatedS, 0) +
        " s, and at most " + fixed(kMaxSimulatedWriterSeconds, 0) + " writer-seconds (" +
        std::to_string(measured.tasks.size()) + " writers here), keeps the run to seconds");
  } else {
    notes.push_back("duration " + fixed(scenario.durationS, 0) + " s: the trace's span (" +
                    fixed(measured.spanS, 3) + " s)");
  }
}

/// HZ, CPUs and memory: this host's where the trace was taken here, else what the trace shows
/// (HZ) or the defaults.
void deriveMachine(const TraceStats::Result& measured, const HostFacts& host,
                   te::MachineConfig& machine, Notes& notes) {
  if (host.hz > 0) {
    machine.hz = host.hz;
    notes.push_back("HZ " + std::to_string(host.hz) + ": this host");
  } else if (measured.hz > 0) {
    machine.hz = measured.hz;
    notes.push_back("HZ " + std::to_string(measured.hz) +
                    ": the coarsest tick that explains every traced pause, period and paused "
                    "value");
  } else {
    notes.push_back("HZ " + std::to_string(machine.hz) +
                    " (default): too few distinct pause values to tell");
  }
  if (host.cpus > 0) {
    machine.cpus = host.cpus;
    notes.push_back("CPUs " + std::to_string(host.cpus) + ": this host");
  } else {
    notes.push_back("CPUs " + std::to_string(machine.cpus) + " (default): a trace does not say");
  }
  if (host.memoryMiB > 0) {
    machine.memoryMiB = host.memoryMiB;
    notes.push_back("memory " + std::to_string(host.memoryMiB) + " MiB: this host's MemTotal");
  } else {
    notes.push_back("memory " + std::to_string(machine.memoryMiB) +
                    " MiB (default): a trace does not say");
  }
}

/// vm.dirty_bytes and vm.dirty_background_bytes from the traced thresholds, and memory enough
/// for them.
void deriveDirtyLimits(const TraceStats::Result& measured, te::Scenario& scenario, Notes& notes) {
  te::VmConfig& vm = scenario.vm;
  if (measured.threshPages <= 0) {
    notes.push_back("vm.dirty_ratio " + std::to_string(vm.dirtyRatio) +
                    " (default): the trace has no global_dirty_state records");
    return;
  }
  vm.dirtyBytes = std::max<std::int64_t>(measured.threshPages * te::kPageBytes, 2 * te::kPageBytes);
  notes.push_back("vm.dirty_bytes " + std::to_string(vm.dirtyBytes) + ": median traced thresh " +
                  std::to_string(measured.threshPages) + " pages x 4096");
  if (measured.bgThreshPages > 0 && measured.bgThreshPages < measured.threshPages) {
    vm.dirtyBackgroundBytes = measured.bgThreshPages * te::kPageBytes;
    notes.push_back("vm.dirty_background_bytes " + std::to_string(vm.dirtyBackgroundBytes) +
                    ": median traced bg_thresh " + std::to_string(measured.bgThreshPages) +
                    " pages x 4096");
  } else {
    notes.push_back(
        "vm.dirty_background_bytes 0: no usable traced bg_thresh; the kernel then uses "
        "dirty_background_ratio");
  }
  // Below about four times the threshold, the simulated machine would be starved of memory
  // for everything else; the trace's machine evidently was not.
  const std::int64_t neededMiB =
      (measured.threshPages * 4 + te::kPagesPerMiB - 1) / te::kPagesPerMiB;
  if (scenario.machine.memoryMiB < neededMiB) {
    scenario.machine.memoryMiB = neededMiB;
    notes.push_back("memory raised to " + std::to_string(neededMiB) +
                    " MiB: four times the traced threshold");
  }
}

/// The page cache when the trace begins (docs/model.md, The page cache at the start): the
/// writers were already running, so the run starts with their dirty and writeback pages
/// rather than an empty cache. An initial condition, like the bdi's bandwidth state.
void derivePageCacheAtStart(const TraceStats::Result& measured, te::MachineConfig& machine,
                            Notes& notes) {
  if (measured.startDirtyPages + measured.startWritebackPages <= 0) return;
  machine.initialDirtyPages = measured.startDirtyPages;
  machine.initialWritebackPages = measured.startWritebackPages;
  notes.push_back("page cache at the start: " + std::to_string(measured.startDirtyPages) +
                  " dirty and " + std::to_string(measured.startWritebackPages) +
                  " writeback pages, the first global_dirty_state's, shared among the writers");
}

/// A comm or bdi in a trace may hold any byte but NUL; a scenario's names must be UTF-8
/// without control characters (validateScenario). Printable ASCII is kept, anything else
/// is replaced.
bool hasUnprintable(const std::string& name) {
  return std::any_of(name.begin(), name.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20 || u >= 0x7f;
  });
}

/// The bdis the trace names (with a bandwidth record or a writer on them), sorted: one device
/// each.
std::vector<std::string> tracedBdis(const TraceStats::Result& measured, Notes& notes) {
  std::vector<std::string> bdis;
  for (const auto& [bdi, bw] : measured.writeBwKBps) bdis.push_back(bdi);
  for (const auto& task : measured.tasks)
    if (!task.bdi.empty() && std::find(bdis.begin(), bdis.end(), task.bdi) == bdis.end())
      bdis.push_back(task.bdi);
  std::sort(bdis.begin(), bdis.end());
  if (bdis.size() > engine::kMaxDevices) {
    notes.push_back("only the first " + std::to_string(engine::kMaxDevices) + " of " +
                    std::to_string(bdis.size()) + " devices are simulated");
    bdis.resize(engine::kMaxDevices);
  }
  return bdis;
}

/// The device's name: the bdi's as the trace names it where a scenario can hold it, unique
/// among `named`.
std::string deviceName(const std::string& bdi, const std::vector<te::DeviceConfig>& named) {
  std::string name =
      bdi.find(' ') == std::string::npos && bdi.size() <= 32 && !hasUnprintable(bdi) ? bdi : "dev";
  if (std::any_of(named.begin(), named.end(),
                  [&](const te::DeviceConfig& other) { return other.name == name; }))
    name += std::to_string(named.size());
  return name;
}

/// The device's write speed: what it wrote back while the writers kept it busy, else the
/// kernel's estimate (awrite_bw), else the default.
void deriveWriteSpeed(const TraceStats::Result& measured, const std::string& bdi, bool onlyDevice,
                      te::DeviceConfig& device, Notes& notes) {
  const auto awriteBw = measured.writeBwKBps.find(bdi);
  const bool tracedAwriteBw = awriteBw != measured.writeBwKBps.end() && awriteBw->second > 0;
  if (onlyDevice && measured.startsBusy && measured.writtenPagesPerS > 0) {
    // What the disk took while the writers kept it busy: awrite_bw is the kernel's
    // estimate of it, smoothed over seconds, and lags behind when the disk's speed
    // changes (as a virtual disk's does).
    device.writeMBps = measured.writtenPagesPerS * te::kPageBytes / 1e6;
    notes.push_back("device " + device.name + ": " + fixed(device.writeMBps, 2) +
                    " MB/s, what it wrote back during the trace (global_dirty_state `written`, " +
                    fixed(measured.writtenPagesPerS, 0) +
                    " pages/s; the trace begins above bg_thresh, "
                    "so the flusher kept it busy)" +
                    (tracedAwriteBw
                         ? "; the traced awrite_bw, the kernel's smoothed estimate, was " +
                               fixed(awriteBw->second * 1.024 / 1000.0, 2) + " MB/s (median)"
                         : std::string()));
  } else if (tracedAwriteBw) {
    device.writeMBps = awriteBw->second * 1.024 / 1000.0;
    notes.push_back("device " + device.name + ": " + fixed(device.writeMBps, 2) +
                    " MB/s, the median traced awrite_bw " + fixed(awriteBw->second, 0) +
                    " KB/s x 1.024 / 1000" +
                    (onlyDevice && measured.startsBusy
                         ? std::string(" (the disk wrote nothing back during the trace: it "
                                       "stalled)")
                         : std::string()));
  } else {
    notes.push_back("device " + device.name + ": " + fixed(device.writeMBps, 2) +
                    " MB/s (default): no bdi_dirty_ratelimit record for it");
  }
}

/// The queue's limits shape how many positioning operations the disk pays for per MB; a trace
/// does not show them, this host's sysfs does.
void deriveQueue(const HostFacts& host, const std::string& bdi, te::DeviceConfig& device,
                 Notes& notes) {
  const auto queue = host.queues.find(bdi);
  if (queue == host.queues.end()) return;
  if (queue->second.maxRequestKiB >= 4) {
    device.maxRequestKiB = queue->second.maxRequestKiB;
    notes.push_back("device " + device.name + ": requests up to " +
                    std::to_string(device.maxRequestKiB) + " KiB, this host's max_sectors_kb");
  }
  if (queue->second.nrRequests >= 4) {
    device.nrRequests = queue->second.nrRequests;
    notes.push_back("device " + device.name + ": queue depth " + std::to_string(device.nrRequests) +
                    ", this host's nr_requests");
  }
}

/// Where the trace shows it, the bdi starts from the state it had (the kernel keeps its
/// estimates for the bdi's lifetime): initial conditions, not a fit.
void deriveBandwidthState(const TraceStats::Result& measured, const std::string& bdi,
                          te::DeviceConfig& device, Notes& notes) {
  const auto start = measured.wbStart.find(bdi);
  if (start == measured.wbStart.end() || start->second.avgWriteBwKBps <= 0) return;
  device.initialWriteBwKBps = std::max(4.0, start->second.writeBwKBps);
  device.initialAvgWriteBwKBps = std::max(4.0, start->second.avgWriteBwKBps);
  device.initialDirtyRatelimitKBps = std::max(4.0, start->second.dirtyRatelimitKBps);
  notes.push_back("device " + device.name + ": starts with write_bw " +
                  fixed(device.initialWriteBwKBps, 0) + ", awrite_bw " +
                  fixed(device.initialAvgWriteBwKBps, 0) + " and dirty_ratelimit " +
                  fixed(device.initialDirtyRatelimitKBps, 0) +
                  " KB/s, its state when the trace begins (its first records)");
}

/// awrite_bw is what the disk delivered for this very workload, positioning included; a seek
/// cost on top of it would count the positioning twice.
void derivePositioning(const TraceStats::Result& measured, const std::string& bdi,
                       te::DeviceConfig& device, Notes& notes) {
  const auto awriteBw = measured.writeBwKBps.find(bdi);
  if (awriteBw != measured.writeBwKBps.end() && awriteBw->second > 0) {
    device.seekMs = 0;
    notes.push_back("device " + device.name +
                    ": no separate positioning cost, since the traced bandwidth already "
                    "includes it");
  } else {
    notes.push_back("device " + device.name + ": positioning " + fixed(device.seekMs, 1) +
                    " ms per stream switch (default): neither a trace nor sysfs gives it");
  }
}

/// One device per traced bdi, named as the trace names it; `bdis[i]` becomes
/// `scenario.devices[i]`.
void deriveDevices(const TraceStats::Result& measured, const HostFacts& host,
                   const std::vector<std::string>& bdis, te::Scenario& scenario, Notes& notes) {
  if (bdis.empty()) {
    notes.push_back("device " + scenario.devices.front().name +
                    " (default): the trace names no bdi");
    return;
  }
  scenario.devices.clear();
  const bool onlyDevice = bdis.size() == 1;
  for (const auto& bdi : bdis) {
    te::DeviceConfig device;
    device.name = deviceName(bdi, scenario.devices);
    deriveWriteSpeed(measured, bdi, onlyDevice, device, notes);
    deriveQueue(host, bdi, device, notes);
    if (onlyDevice) deriveStalls(measured, simulationWarmupS(measured), device, notes);
    deriveBandwidthState(measured, bdi, device, notes);
    derivePositioning(measured, bdi, device, notes);
    scenario.devices.push_back(device);
  }
}

/// A memory cgroup per traced cgroup_ino other than the root's (1): only cgroup writeback
/// (4.2+, cgroup v2) traces another one. Returns the cgroups' names by ino.
std::map<std::uint64_t, std::string> deriveCgroups(const TraceStats::Result& measured,
                                                   te::Scenario& scenario, Notes& notes) {
  std::map<std::uint64_t, std::string> names;
  const double globalFreerun =
      (static_cast<double>(measured.threshPages) + static_cast<double>(measured.bgThreshPages)) / 2;
  for (const auto& task : measured.tasks) {
    if (task.cgroupIno == 1 || names.count(task.cgroupIno) || names.size() >= 64) continue;
    te::CgroupSpec cgroup;
    cgroup.name = "ino" + std::to_string(task.cgroupIno);
    names[task.cgroupIno] = cgroup.name;
    const auto traced = measured.cgroups.find(task.cgroupIno);
    const double freerun = traced == measured.cgroups.end() ? 0 : traced->second.freerunPages;
    if (freerun > 0 && globalFreerun > 0 && freerun < 0.95 * globalFreerun) {
      // The cgroup's domain set the pauses. Under byte thresholds its domain gets the share
      // of them its dirtyable memory is of the machine's, so that share is freerun ratio;
      // its dirtyable memory is taken as its memory.max, the machine's as its memory.
      const double share = freerun / globalFreerun;
      cgroup.memoryMaxMiB = std::max<std::int64_t>(
          1, std::llround(share * static_cast<double>(scenario.machine.memoryMiB)));
      notes.push_back("cgroup " + cgroup.name + ": memory.max " +
                      std::to_string(cgroup.memoryMaxMiB) +
                      " MiB, assumed: its traced freerun (2·setpoint − limit, median " +
                      fixed(freerun, 0) + " pages) is " + fixed(share * 100, 1) +
                      " % of the global one, taken as its share of dirtyable memory, with its "
                      "dirtyable memory equal to memory.max and the machine's to its memory");
    } else {
      notes.push_back("cgroup " + cgroup.name +
                      ": no memory.max (the trace gives none: its records show the global "
                      "domain setting the pauses)");
    }
    scenario.cgroups.push_back(cgroup);
  }
  return names;
}

/// A writer setting the trace gives, and how it was found (for the writers' note).
template <class T>
struct WriterSetting {
  T value;
  std::string why;
};

/// The size of a write(): 6.x dirties a write in folios of up to its size and checks in once
/// per folio (docs/model.md, Large folios in the write path), so writers whose `dirtied`
/// passes `dirtied_pause` show the folio they dirty at a time; writers that stop at
/// `dirtied_pause` dirty single pages. Without balance_dirty_pages records, dd's default.
WriterSetting<std::int64_t> deriveBlockKiB(const TraceStats::Result& measured) {
  if (measured.balanceRecords <= 0) return {te::TaskSpec{}.blockKiB, "the default"};
  const double share =
      static_cast<double>(measured.overshootRecords) / static_cast<double>(measured.balanceRecords);
  if (share < 0.1)
    return {4, "dirtied stops at dirtied_pause in " + fixed(100.0 * (1.0 - share), 0) +
                   " % of the balance_dirty_pages records: single pages"};
  // The folio: the largest power of two (at most 512 pages, order 9) that divides the
  // `dirtied` of nine in ten records.
  std::int64_t folioPages = 1;
  for (std::size_t order = measured.dirtiedDivisibleBy.size(); order-- > 0;)
    if (10 * measured.dirtiedDivisibleBy[order] >= 9 * measured.balanceRecords) {
      folioPages = std::int64_t{1} << order;
      break;
    }
  return {folioPages * 4, "dirtied passes dirtied_pause in " + fixed(100.0 * share, 0) +
                              " % of the balance_dirty_pages records, in steps of " +
                              std::to_string(folioPages) +
                              " pages: one check-in per folio of that size"};
}

/// How fast a writer dirties (docs/model.md, The writers' copy speed from a trace): every
/// interval between two check-ins without a sleep is an upper bound on the writer's own cost
/// per page, since anything else that held it up only adds time; the lower tenth of them,
/// where nothing did, is the cost of a writer with a whole CPU, which the simulation's CPUs
/// then share out as the real ones did.
WriterSetting<double> deriveCopyMBps(const TraceStats::Result& measured) {
  const Distribution& perPageS = measured.dirtyingPageS;
  if (perPageS.count < kMinDirtyingIntervals || perPageS.p10 <= 0)
    return {te::TaskSpec{}.copyMBps, "the default: fewer than " +
                                         std::to_string(kMinDirtyingIntervals) +
                                         " check-ins followed one without a sleep"};
  return {std::clamp(static_cast<double>(te::kPageBytes) / (perPageS.p10 * 1e6), 0.001, 1e6),
          fixed(perPageS.p10 * 1e6, 2) + " us per page dirtied, the p10 of the " +
              std::to_string(perPageS.count) +
              " intervals between a writer's check-ins without a sleep (median " +
              fixed(perPageS.p50 * 1e6, 2) + " us)"};
}

/// As many looping dd writers as pids that went through balance_dirty_pages, each on its
/// bdi, grouped by device, name and cgroup.
void deriveWriters(const TraceStats::Result& measured, const std::vector<std::string>& bdis,
                   const std::map<std::uint64_t, std::string>& cgroupNames, te::Scenario& scenario,
                   Notes& notes) {
  std::map<std::tuple<std::string, std::string, std::string>, int> groups;
  for (const auto& task : measured.tasks) {
    std::string device = scenario.devices.front().name;
    for (std::size_t i = 0; i < bdis.size(); ++i)
      if (bdis[i] == task.bdi) device = scenario.devices[i].name;
    std::string name = task.comm.empty() ? std::string("dd") : task.comm;
    if (name.size() > 64 || hasUnprintable(name)) name = "dd";
    const auto cgroup = cgroupNames.find(task.cgroupIno);
    ++groups[{device, name, cgroup == cgroupNames.end() ? std::string() : cgroup->second}];
  }
  const WriterSetting<std::int64_t> blockKiB = deriveBlockKiB(measured);
  const WriterSetting<double> copyMBps = deriveCopyMBps(measured);
  for (const auto& [key, count] : groups) {
    te::TaskSpec writers;
    writers.blockKiB = blockKiB.value;
    writers.copyMBps = copyMBps.value;
    writers.name = std::get<1>(key);
    writers.count = count;
    writers.kind = te::TaskKind::Writer;
    writers.loop = true;
    writers.device = std::get<0>(key);
    writers.cgroup = std::get<2>(key);
    scenario.tasks.push_back(writers);
    notes.push_back(std::to_string(count) + " x " + writers.name + " on " + writers.device +
                    (writers.cgroup.empty() ? std::string() : " in cgroup " + writers.cgroup) +
                    ": looping dd writers, one per traced pid: bs " +
                    std::to_string(writers.blockKiB) + " KiB (" + blockKiB.why + "), " +
                    std::to_string(writers.fileMiB) + " MiB per run (the default), copying " +
                    fixed(writers.copyMBps, 0) + " MB/s (" + copyMBps.why + ")");
  }
  if (groups.empty()) notes.push_back("no writers: no pid called balance_dirty_pages in the trace");
}

}  // namespace

engine::Scenario deriveScenario(const TraceStats::Result& measured, const HostFacts& host,
                                std::vector<std::string>* notes) {
  Notes discarded;
  Notes& derivation = notes ? *notes : discarded;
  te::Scenario scenario;
  deriveRun(measured, scenario, derivation);
  deriveMachine(measured, host, scenario.machine, derivation);
  deriveDirtyLimits(measured, scenario, derivation);
  derivePageCacheAtStart(measured, scenario.machine, derivation);
  const std::vector<std::string> bdis = tracedBdis(measured, derivation);
  deriveDevices(measured, host, bdis, scenario, derivation);
  const auto cgroupNames = deriveCgroups(measured, scenario, derivation);
  deriveWriters(measured, bdis, cgroupNames, scenario, derivation);
  te::validateScenario(scenario);
  return scenario;
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
