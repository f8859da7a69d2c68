// SPDX-License-Identifier: GPL-3.0-or-later
#include "stall_timeline.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

namespace throttlelab::engine {

namespace {

// At most this many stalls per device: a 30 s trace of this machine's disk shows about 3,000
// spells; the bound keeps a hostile scenario's timeline to a few MiB.
constexpr std::size_t kMaxStalls = 1'000'000;
constexpr double kMaxSeconds = 1e7;  // the scenario's kSeconds

bool number(std::string_view s, double* v) {
  if (s.empty()) return false;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), *v);
  return r.ec == std::errc{} && r.ptr == s.data() + s.size() && std::isfinite(*v);
}

std::string shortest(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

}  // namespace

bool parseStalls(std::string_view text, double periodS, std::vector<Stall>* out,
                 std::string* error) {
  out->clear();
  double lastEnd = -1;
  std::size_t pos = 0;
  const auto fail = [&](std::string message) {
    if (error) *error = std::move(message);
    out->clear();
    return false;
  };
  while (pos < text.size()) {
    if (text[pos] == ' ' || text[pos] == ',') {
      ++pos;
      continue;
    }
    std::size_t end = pos;
    while (end < text.size() && text[end] != ' ' && text[end] != ',') ++end;
    const std::string_view item = text.substr(pos, end - pos);
    const std::string shown(item.substr(0, 40));
    const std::size_t plus = item.find('+');
    double start = 0, length = 0;
    if (plus == std::string_view::npos || !number(item.substr(0, plus), &start) ||
        !number(item.substr(plus + 1), &length))
      return fail("stall " + std::to_string(out->size() + 1) + " '" + shown +
                  "': must be START+LENGTH in seconds, e.g. 0.25+0.04");
    if (start < 0 || start > kMaxSeconds || length <= 0 || length > kMaxSeconds)
      return fail("stall " + std::to_string(out->size() + 1) + " '" + shown +
                  "': START must be 0 … 1e7 s and LENGTH above 0 and at most 1e7 s");
    if (start < lastEnd - 1e-9)  // printed with a few decimals: rounding is not an overlap
      return fail("stall " + std::to_string(out->size() + 1) + " '" + shown +
                  "': starts before the previous one ends (stalls go in order, not overlapping)");
    if (periodS > 0 && start + length > periodS + 1e-9)
      return fail("stall " + std::to_string(out->size() + 1) + " '" + shown +
                  "': ends after stallPeriodS (" + shortest(periodS) + " s)");
    if (out->size() >= kMaxStalls)
      return fail("more than " + std::to_string(kMaxStalls) + " stalls");
    lastEnd = start + length;
    out->push_back(Stall{atSeconds(start), atSeconds(start + length)});
    pos = end;
  }
  return true;
}

StallTimeline::StallTimeline(std::vector<Stall> stalls, SimDuration period)
    : m_stalls(std::move(stalls)), m_period(period) {
  for (const Stall& s : m_stalls) m_stalledPerPeriod += s.end - s.start;
}

bool StallTimeline::nextStall(SimTime t, Stall* stall) const {
  if (m_stalls.empty()) return false;
  SimDuration base{};
  if (m_period > SimDuration{} && t.time_since_epoch() >= m_period)
    base = m_period * (t.time_since_epoch() / m_period);
  for (int cycle = 0; cycle < 2; ++cycle) {
    const SimTime local = t - base;
    const auto it = std::upper_bound(m_stalls.begin(), m_stalls.end(), local,
                                     [](SimTime x, const Stall& s) { return x < s.end; });
    if (it != m_stalls.end()) {
      *stall = Stall{it->start + base, it->end + base};
      return true;
    }
    if (m_period <= SimDuration{}) return false;
    base += m_period;  // past the last stall of this cycle: the first of the next one
  }
  return false;
}

bool StallTimeline::stalledAt(SimTime t) const {
  Stall s;
  return nextStall(t, &s) && s.start <= t;
}

SimTime StallTimeline::finishAfter(SimTime start, SimDuration work) const {
  if (m_stalls.empty()) return start + work;
  if (m_period > SimDuration{} && m_stalledPerPeriod >= m_period)
    return SimTime::max();  // stalled all the time
  SimTime t = start;
  if (m_period > SimDuration{}) {
    // Any window of one period holds the same free time: skip whole periods arithmetically, so
    // that a long request over a timeline of many short stalls walks at most two periods.
    const SimDuration free = m_period - m_stalledPerPeriod;
    if (const std::int64_t cycles = work / free - 1; cycles > 0) {
      t += m_period * cycles;
      work -= free * cycles;
    }
  }
  Stall s;
  while (nextStall(t, &s)) {
    if (s.start > t) {
      const SimDuration free = s.start - t;
      if (work <= free) return t + work;
      work -= free;
    }
    t = s.end;
  }
  return t + work;
}

}  // namespace throttlelab::engine
