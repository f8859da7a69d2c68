// SPDX-License-Identifier: GPL-3.0-or-later
#include "sample_decimator.h"

#include <algorithm>
#include <array>

namespace throttlelab::ui {

namespace {
using engine::DeviceSample;
using engine::Pages;
using engine::Sample;

constexpr std::array kSamplePages = {
    &Sample::dirtyPages,     &Sample::writebackPages,  &Sample::bgThreshPages,
    &Sample::threshPages,    &Sample::freerunPages,    &Sample::setpointPages,
    &Sample::limitPages,     &Sample::dirtyLimitPages, &Sample::availPages,
    &Sample::totalPages,     &Sample::freePages,       &Sample::filePages,
    &Sample::anonPages,      &Sample::wmarkMinPages,   &Sample::wmarkLowPages,
    &Sample::wmarkHighPages, &Sample::dirtiedPages,    &Sample::writtenPages,
    &Sample::swapTotalPages, &Sample::swapUsedPages};
constexpr std::array kSampleInts = {&Sample::tasks,          &Sample::runnableTasks,
                                    &Sample::throttledTasks, &Sample::ioWaitTasks,
                                    &Sample::pauses,         &Sample::allocStalls};
constexpr std::array kSampleDoubles = {
    &Sample::pauseMsMin,       &Sample::pauseMsP50,       &Sample::pauseMsMax,
    &Sample::maxPauseMs,       &Sample::systemPct,        &Sample::userPct,
    &Sample::pgscanKswapdPerS, &Sample::pgscanDirectPerS, &Sample::pgstealPerS,
    &Sample::swapOutKBps,      &Sample::swapInKBps,       &Sample::allocStallMsMax};
constexpr std::array kDevicePages = {&DeviceSample::reclaimablePages, &DeviceSample::writebackPages,
                                     &DeviceSample::wbThreshPages, &DeviceSample::wbBgThreshPages,
                                     &DeviceSample::wbSetpointPages};
constexpr std::array kDeviceDoubles = {&DeviceSample::writeBwKBps,
                                       &DeviceSample::avgWriteBwKBps,
                                       &DeviceSample::dirtyRateKBps,
                                       &DeviceSample::dirtyRatelimitKBps,
                                       &DeviceSample::balancedDirtyRatelimitKBps,
                                       &DeviceSample::taskRatelimitKBps,
                                       &DeviceSample::posRatio,
                                       &DeviceSample::deviceWriteKBps,
                                       &DeviceSample::avgRequestKiB,
                                       &DeviceSample::seeksPerS,
                                       &DeviceSample::utilPct,
                                       &DeviceSample::readKBps,
                                       &DeviceSample::swapOutKBps};
constexpr std::array kDeviceInt64 = {&DeviceSample::bytesWritten, &DeviceSample::requests,
                                     &DeviceSample::seeks, &DeviceSample::sectorsWritten};

template <typename T>
void foldValue(T& acc, const T& v, bool maximum) {
  acc = maximum ? std::max(acc, v) : std::min(acc, v);
}

void foldDevice(DeviceSample& acc, const DeviceSample& d, bool maximum) {
  for (auto m : kDevicePages) foldValue(acc.*m, d.*m, maximum);
  for (auto m : kDeviceDoubles) foldValue(acc.*m, d.*m, maximum);
  for (auto m : kDeviceInt64) foldValue(acc.*m, d.*m, maximum);
  foldValue(acc.queueDepth, d.queueDepth, maximum);
  acc.congested = maximum ? (acc.congested || d.congested) : (acc.congested && d.congested);
  acc.dirtyExceeded =
      maximum ? (acc.dirtyExceeded || d.dirtyExceeded) : (acc.dirtyExceeded && d.dirtyExceeded);
}

void mergeTopPauses(Sample& acc, const Sample& s) {
  std::array<engine::TopPause, 8> all{};
  std::copy(acc.topPauses.begin(), acc.topPauses.end(), all.begin());
  std::copy(s.topPauses.begin(), s.topPauses.end(), all.begin() + 4);
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
    if ((a.task < 0) != (b.task < 0)) return b.task < 0;
    return a.pauseMs > b.pauseMs;
  });
  std::copy(all.begin(), all.begin() + 4, acc.topPauses.begin());
}
}  // namespace

void SampleDecimator::foldExtreme(Sample& acc, const Sample& s, bool maximum) {
  for (auto m : kSamplePages) foldValue(acc.*m, s.*m, maximum);
  for (auto m : kSampleInts) foldValue(acc.*m, s.*m, maximum);
  for (auto m : kSampleDoubles) foldValue(acc.*m, s.*m, maximum);
  foldValue(acc.oomKills, s.oomKills, maximum);
  acc.kswapdActive =
      maximum ? (acc.kswapdActive || s.kswapdActive) : (acc.kswapdActive && s.kswapdActive);
  if (maximum) mergeTopPauses(acc, s);
  if (acc.devices.size() != s.devices.size()) {
    acc.devices = s.devices;
  } else {
    for (std::size_t i = 0; i < acc.devices.size(); ++i)
      foldDevice(acc.devices[i], s.devices[i], maximum);
  }
}

void SampleDecimator::setFactor(int factor, std::vector<Sample>& out,
                                std::vector<engine::TaskSample>& outTasks) {
  factor = std::max(1, factor);
  if (factor == m_factor) return;
  flush(out, outTasks);
  m_factor = factor;
}

void SampleDecimator::add(const Sample& s, std::vector<Sample>& out,
                          std::vector<engine::TaskSample>& outTasks) {
  if (m_factor <= 1 && m_count == 0) {
    out.push_back(s);
    return;
  }
  if (m_count == 0) {
    m_min = s;
    m_max = s;
    m_times.clear();
    m_raw.clear();
  } else {
    foldExtreme(m_min, s, false);
    foldExtreme(m_max, s, true);
  }
  if (m_raw.size() < 3) m_raw.push_back(s);
  m_times.push_back(s.time);
  m_last = s;
  ++m_count;
  if (m_count >= m_factor) emitBucket(out, outTasks);
}

void SampleDecimator::addTask(const engine::TaskSample& s, std::vector<engine::TaskSample>& out) {
  if (m_factor <= 1 && m_count == 0) {
    out.push_back(s);
    return;
  }
  auto it = std::find_if(m_taskFold.begin(), m_taskFold.end(),
                         [&](const engine::TaskSample& t) { return t.task == s.task; });
  if (it == m_taskFold.end()) {
    m_taskFold.push_back(s);
    return;
  }
  const double longest = std::max(it->pauseMs, s.pauseMs);
  *it = s;
  it->pauseMs = longest;
}

void SampleDecimator::emitBucket(std::vector<Sample>& out,
                                 std::vector<engine::TaskSample>& outTasks) {
  if (m_count <= 3) {
    out.insert(out.end(), m_raw.begin(), m_raw.end());
  } else {
    // Three points per bucket, in time order: the envelope's low side, its high side, and
    // the true latest state (so a paused run ends on real values).
    m_min.time = m_times.front();
    m_max.time = m_times[m_times.size() / 2];
    out.push_back(m_min);
    out.push_back(m_max);
    out.push_back(m_last);
  }
  std::sort(m_taskFold.begin(), m_taskFold.end(),
            [](const auto& a, const auto& b) { return a.time < b.time; });
  outTasks.insert(outTasks.end(), m_taskFold.begin(), m_taskFold.end());
  m_taskFold.clear();
  m_raw.clear();
  m_times.clear();
  m_count = 0;
}

void SampleDecimator::flush(std::vector<Sample>& out, std::vector<engine::TaskSample>& outTasks) {
  if (m_count > 0 || !m_taskFold.empty()) emitBucket(out, outTasks);
}

void SampleDecimator::clear() {
  m_count = 0;
  m_times.clear();
  m_raw.clear();
  m_taskFold.clear();
}

}  // namespace throttlelab::ui
