// SPDX-License-Identifier: GPL-3.0-or-later
#include "throttlelab/engine/progress.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "throttlelab/engine/simulator.h"

namespace throttlelab::engine {

namespace {

std::string format(const char* pattern, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, pattern, a);
  return buf;
}

/// Simulated seconds of a whole of `totalS`: whole seconds from 100 on, one decimal below.
std::string simulatedSeconds(double s, double totalS) {
  return format(totalS >= 100 ? "%.0f" : "%.1f", s);
}

}  // namespace

void runInSlices(Simulator& sim, SimTime until, const std::function<void()>& afterSlice,
                 double sliceS) {
  const SimDuration slice = std::max(seconds(sliceS), SimDuration{1});
  while (sim.now() < until) {
    sim.runUntil(sim.now() + std::min(slice, until - sim.now()));
    if (afterSlice) afterSlice();
  }
}

std::string durationWords(double seconds) {
  const double s = std::max(0.0, std::round(seconds));
  if (s < 60) return format("%.0f s", s);
  const auto whole = static_cast<long long>(s);
  char buf[64];
  if (whole < 3600)
    std::snprintf(buf, sizeof buf, "%lld min %02lld s", whole / 60, whole % 60);
  else
    std::snprintf(buf, sizeof buf, "%lld h %02lld min", whole / 3600, whole / 60 % 60);
  return buf;
}

void ProgressMeter::update(double doneS, double wallS) {
  m_doneS = std::clamp(doneS, 0.0, m_totalS);
  m_wallS = std::max(wallS, 0.0);
}

double ProgressMeter::rate() const {
  return m_wallS > 0 ? m_doneS / m_wallS : 0;
}

std::optional<double> ProgressMeter::remainingS() const {
  const double r = rate();
  if (!(r > 0)) return std::nullopt;
  return (m_totalS - m_doneS) / r;
}

bool ProgressMeter::expectedLongerThan(double seconds, double settleS) const {
  if (m_wallS > seconds) return true;
  if (m_wallS < settleS) return false;
  const auto left = remainingS();
  // No simulated time done after settleS: nothing says it will end soon.
  return !left || m_wallS + *left > seconds;
}

std::string ProgressMeter::line() const {
  std::string text = "simulated " + simulatedSeconds(m_doneS, m_totalS) + " of " +
                     simulatedSeconds(m_totalS, m_totalS) + " s";
  if (m_totalS > 0) text += format(" (%.0f %%)", std::floor(100 * m_doneS / m_totalS));
  const double r = rate();
  if (r > 0) {
    text += format(r >= 10 ? ", %.0f" : (r >= 1 ? ", %.1f" : ", %.2f"), r) + "× real time";
    if (const auto left = remainingS()) text += ", about " + durationWords(*left) + " left";
  }
  return text;
}

}  // namespace throttlelab::engine
