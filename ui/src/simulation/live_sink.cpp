// SPDX-License-Identifier: GPL-3.0-or-later
#include "live_sink.h"

#include <algorithm>

#include "sample_exchange.h"

namespace throttlelab::ui {

void LiveSink::onSample(const engine::Sample& s) {
  m_decimator.add(s, m_samples, m_taskSamples);
}

void LiveSink::onTaskSample(const engine::TaskSample& s) {
  if (wanted(s.task)) m_decimator.addTask(s, m_taskSamples);
}

void LiveSink::onTaskCreated(const engine::TaskInfo& info) {
  m_tasks.push_back(info);
}

void LiveSink::onTaskExplain(const engine::ThrottleExplain& e) {
  if (wanted(e.task)) m_explains.push_back(e);
}

std::vector<engine::ThrottleExplain> LiveSink::takeExplains() {
  std::vector<engine::ThrottleExplain> out(m_explains.begin(), m_explains.end());
  m_explains.clear();
  return out;
}

void LiveSink::setExtraTasks(std::vector<int> extra) {
  std::sort(extra.begin(), extra.end());
  extra.erase(std::unique(extra.begin(), extra.end()), extra.end());
  std::erase_if(extra, [](int i) { return i < kDrawnTasks; });
  m_extra = std::move(extra);
}

engine::OutputOptions LiveSink::outputOptions() const {
  // The engine can only limit task samples by index; selected tasks further down the table
  // raise the limit and the sink filters out the ones in between.
  const int limit = m_extra.empty() ? kDrawnTasks : std::max(kDrawnTasks, m_extra.back() + 1);
  return engine::OutputOptions{
      .taskSamples = true, .taskSampleLimit = limit, .traces = false, .explains = true};
}

bool LiveSink::wanted(int task) const {
  return task < kDrawnTasks || std::binary_search(m_extra.begin(), m_extra.end(), task);
}

void LiveSink::setDecimation(int factor) {
  m_decimator.setFactor(factor, m_samples, m_taskSamples);
}

void LiveSink::closeBucket() {
  m_decimator.flush(m_samples, m_taskSamples);
}

void LiveSink::flushTo(SampleExchange& exchange, const WorkerStatus& status) {
  exchange.publish(m_samples, m_taskSamples, m_tasks, status);
}

void LiveSink::clear() {
  m_decimator.clear();
  m_samples.clear();
  m_taskSamples.clear();
  m_tasks.clear();
  m_explains.clear();
}

}  // namespace throttlelab::ui
