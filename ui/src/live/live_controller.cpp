// SPDX-License-Identifier: GPL-3.0-or-later
#include "live_controller.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <future>

#include "dashboard.h"
#include "live_sink.h"
#include "task_table_model.h"

namespace throttlelab::ui {

namespace {
SimulationWorker::Options workerOptions(const LiveController::Options& o) {
  SimulationWorker::Options w;
  w.startPaused = !o.startRunning;
  w.publishSummary = o.publishSummary;
  w.keepSnapshots = o.keepSnapshots;
  w.snapshotBudgetBytes = o.snapshotBudgetBytes;
  return w;
}
}  // namespace

LiveController::LiveController(QObject* parent) : LiveController(Options{}, parent) {}

LiveController::LiveController(Options options, QObject* parent)
    : QObject(parent),
      m_options(options),
      m_worker(workerOptions(options)),
      m_history(options.historyCap),
      m_taskHistory(options.historyCap),
      m_running(options.startRunning) {
  m_timer.setTimerType(Qt::PreciseTimer);
  m_timer.setInterval(options.frameIntervalMs);
  connect(&m_timer, &QTimer::timeout, this, [this] { frame(); });
  if (!options.decimate) post(command::SetDecimation{false});
}

LiveController::~LiveController() = default;

void LiveController::setDashboard(Dashboard* dashboard) {
  m_dashboard = dashboard;
  if (m_dashboard) m_dashboard->setSources(&m_history, &m_taskHistory);
}

void LiveController::setTaskModel(TaskTableModel* model) {
  m_taskModel = model;
}

std::uint64_t LiveController::post(WorkerCommand command) {
  m_lastSeq = m_worker.post(std::move(command));
  return m_lastSeq;
}

void LiveController::load(const engine::Scenario& scenario) {
  m_scenario = scenario;
  m_pendingReconfigure.reset();
  clearSelection();
  post(command::Reset{scenario});
  Q_EMIT scenarioLoaded();
}

void LiveController::reset() {
  m_pendingReconfigure.reset();
  clearSelection();
  // The run starts again at 0: the last reset is an event of it; the notes stay.
  std::erase_if(m_userEvents,
                [](const engine::RunEvent& e) { return e.kind == engine::RunEvent::Kind::Reset; });
  m_userEvents.push_back(engine::RunEvent{0, engine::RunEvent::Kind::Reset,
                                          "reset (seed " + std::to_string(m_scenario.seed) + ")"});
  Q_EMIT timelineChanged();
  post(command::Reset{m_scenario});
  if (m_runForSeq == 0) post(command::SetRunning{m_running});
}

QString LiveController::reconfigure(const engine::Scenario& scenario) {
  try {
    // Validated once, here, for the message; the worker applies it without validating again.
    engine::CheckedScenario checked(scenario);
    m_scenario = scenario;
    // Sent on the next frame, so a dragged slider costs one reconfiguration per frame at most.
    m_pendingReconfigure = std::move(checked);
  } catch (const engine::ScenarioError& e) {
    return e.key().empty() ? QString::fromUtf8(e.what())
                           : QStringLiteral("%1: %2").arg(QString::fromStdString(e.key()),
                                                          QString::fromUtf8(e.what()));
  }
  return {};
}

void LiveController::setSeed(std::uint64_t seed) {
  m_scenario.seed = seed;
}

command::BranchResult LiveController::branchAt(double atS,
                                               const std::vector<engine::Override>& changes,
                                               bool withOriginal) {
  // A pending edit is part of the run being branched from.
  if (m_pendingReconfigure) {
    post(command::Reconfigure{std::move(*m_pendingReconfigure)});
    m_pendingReconfigure.reset();
  }
  auto promise = std::make_shared<std::promise<command::BranchResult>>();
  auto answer = promise->get_future();
  std::shared_ptr<std::promise<engine::SimulatorSnapshot>> original;
  if (withOriginal) original = std::make_shared<std::promise<engine::SimulatorSnapshot>>();
  std::shared_future<engine::SimulatorSnapshot> originalLater;
  if (original) originalLater = original->get_future().share();
  post(command::Branch{atS, changes, std::move(promise), std::move(original)});
  // The worker answers between two slices of a few milliseconds; the limit only keeps a
  // stuck worker from freezing the window.
  if (answer.wait_for(std::chrono::seconds(30)) != std::future_status::ready)
    return {.error = "the simulation did not answer"};
  command::BranchResult r = answer.get();
  r.original = std::move(originalLater);
  return r;
}

void LiveController::adopt(const engine::SimulatorSnapshot& from, const engine::Scenario& scenario,
                           std::vector<engine::Sample> before) {
  m_scenario = scenario;
  m_pendingReconfigure.reset();
  clearSelection();
  m_adoptedHistory = std::move(before);
  post(command::Adopt{from});
  Q_EMIT scenarioLoaded();
}

void LiveController::setDecimation(bool on) {
  post(command::SetDecimation{on});
}

void LiveController::setRunning(bool running) {
  if (m_runForSeq != 0 && !running) m_runForSeq = 0;
  m_running = running;
  post(command::SetRunning{running});
  Q_EMIT runningChanged(running);
}

void LiveController::step() {
  m_running = false;
  post(command::Step{});
  Q_EMIT runningChanged(false);
}

void LiveController::setSpeed(double factor) {
  m_speed = factor;
  post(command::SetSpeed{factor});
}

void LiveController::runFor(double simS) {
  // An edit made just before must apply from where the run stands, not a frame later.
  if (m_pendingReconfigure) {
    post(command::Reconfigure{std::move(*m_pendingReconfigure)});
    m_pendingReconfigure.reset();
  }
  m_running = true;
  m_runForSeq = post(command::RunUntil{simS});
  Q_EMIT runningChanged(true);
}

void LiveController::clearSelection() {
  // A new run has new tasks: the worker forgets the old selection on reset, and so do we.
  m_selected = -1;
  if (m_dashboard) m_dashboard->setSelectedTask(-1);
}

void LiveController::setSelectedTask(int task) {
  if (task == m_selected) return;
  m_selected = task;
  std::vector<int> extra;
  if (task >= LiveSink::kDrawnTasks) extra.push_back(task);
  post(command::SampleTasks{extra});
  if (m_dashboard) m_dashboard->setSelectedTask(task);
}

void LiveController::setHistoryWindow(HistoryWindow window) {
  m_history.setWindow(window);
  if (!m_history.empty()) m_taskHistory.trimBefore(m_history.firstTimeS());
  if (m_dashboard) {
    m_dashboard->historyUpdated(false);
    m_dashboard->refresh(false, true);
  }
}

void LiveController::start() {
  m_timer.start();
}
void LiveController::stop() {
  m_timer.stop();
}

std::vector<engine::RunEvent> LiveController::timeline() const {
  std::vector<engine::RunEvent> all;
  const auto entries = timelineEntries();
  all.reserve(entries.size());
  for (const auto& e : entries) all.push_back(*e.event);
  return all;
}

std::vector<LiveController::TimelineEntry> LiveController::timelineEntries() const {
  std::vector<TimelineEntry> all;
  all.reserve(m_engineEvents.size() + m_userEvents.size());
  for (const auto& e : m_engineEvents) all.push_back({&e, -1});
  for (std::size_t i = 0; i < m_userEvents.size(); ++i)
    all.push_back({&m_userEvents[i], static_cast<int>(i)});
  // Stable: at one time, the engine's events come first, then the user's in the order added.
  std::stable_sort(all.begin(), all.end(), [](const TimelineEntry& a, const TimelineEntry& b) {
    return a.event->timeS < b.event->timeS;
  });
  return all;
}

std::size_t LiveController::addNote(double timeS, const std::string& text) {
  m_userEvents.push_back(
      engine::RunEvent{std::max(timeS, 0.0), engine::RunEvent::Kind::Note, text});
  Q_EMIT timelineChanged();
  return m_userEvents.size() - 1;
}

bool LiveController::editNote(std::size_t index, double timeS, const std::string& text) {
  if (index >= m_userEvents.size()) return false;
  m_userEvents[index].timeS = std::max(timeS, 0.0);
  m_userEvents[index].text = text;
  Q_EMIT timelineChanged();
  return true;
}

bool LiveController::removeNote(std::size_t index) {
  if (index >= m_userEvents.size()) return false;
  m_userEvents.erase(m_userEvents.begin() + static_cast<std::ptrdiff_t>(index));
  Q_EMIT timelineChanged();
  return true;
}

void LiveController::setNotes(const std::vector<engine::RunEvent>& events) {
  m_userEvents.clear();
  for (const auto& e : events)
    if (e.kind == engine::RunEvent::Kind::Note) m_userEvents.push_back(e);
  Q_EMIT timelineChanged();
}

std::optional<engine::ThrottleExplain> LiveController::explainAt(int task, double timeS) const {
  for (auto it = m_explains.rbegin(); it != m_explains.rend(); ++it)
    if (it->task == task && engine::toSeconds(it->time) <= timeS + 1e-9) return *it;
  return std::nullopt;
}

double LiveController::oldestExplainS() const {
  return m_explains.empty() ? std::nan("") : engine::toSeconds(m_explains.front().time);
}

void LiveController::takeSnapshot(std::shared_ptr<const WorkerSnapshot> snapshot) {
  m_snapshot = std::move(snapshot);
  if (m_snapshot->events != m_engineEvents) {
    m_engineEvents = m_snapshot->events;
    Q_EMIT timelineChanged();
  }
  if (!m_snapshot->explains.empty()) {
    for (const auto& e : m_snapshot->explains) m_explains.push_back(e);
    Q_EMIT explainsArrived();
  }
  bool namesChanged = false;
  for (const auto& t : m_snapshot->tasks) {
    auto [it, inserted] = m_taskInfos.try_emplace(t.info.index, t.info);
    namesChanged |= inserted;
  }
  if (namesChanged && m_dashboard) m_dashboard->setTaskInfos(m_taskInfos);
  if (m_taskModel) m_taskModel->setSnapshot(m_snapshot);
  if (m_dashboard) m_dashboard->setThrottleCurve(m_snapshot->curve);
  Q_EMIT snapshotArrived();
}

FrameStats LiveController::frame(bool immediateReplot, bool forceReplot) {
  if (m_pendingReconfigure) {
    post(command::Reconfigure{std::move(*m_pendingReconfigure)});
    m_pendingReconfigure.reset();
  }
  m_worker.drainInto(m_batch);
  FrameStats stats;
  if (m_batch.generation != m_generation) {
    m_generation = m_batch.generation;
    m_history.clear();
    m_taskHistory.clear();
    m_taskInfos.clear();
    m_snapshot.reset();
    m_explains.clear();
    if (!m_engineEvents.empty()) {
      m_engineEvents.clear();
      Q_EMIT timelineChanged();
    }
    if (m_dashboard) m_dashboard->clearData();
    if (m_taskModel) m_taskModel->clear();
    stats.reset = true;
    Q_EMIT dataReset();
    if (!m_adoptedHistory.empty()) {
      for (auto& s : m_adoptedHistory) m_history.append(std::move(s));
      m_adoptedHistory.clear();
      if (m_dashboard) m_dashboard->historyUpdated(true);
      Q_EMIT historyRebuilt();
    }
  }
  stats.samples = m_batch.samples.size();
  stats.taskSamples = m_batch.taskSamples.size();
  if (!m_batch.newTasks.empty()) {
    for (const auto& info : m_batch.newTasks) m_taskInfos[info.index] = info;
    if (m_dashboard) m_dashboard->setTaskInfos(m_taskInfos);
  }
  if (m_dashboard) m_dashboard->appendBatch(m_batch.samples, m_batch.taskSamples);
  if (!m_batch.samples.empty()) Q_EMIT samplesArrived(m_batch.samples);
  bool rebuilt = false;
  for (auto& s : m_batch.samples) rebuilt |= m_history.append(std::move(s));
  for (const auto& t : m_batch.taskSamples) rebuilt |= m_taskHistory.append(t);
  if (stats.samples > 0 && !m_history.empty()) m_taskHistory.trimBefore(m_history.firstTimeS());
  if (m_dashboard && (stats.samples > 0 || stats.taskSamples > 0 || rebuilt))
    m_dashboard->historyUpdated(rebuilt);
  if (rebuilt) Q_EMIT historyRebuilt();
  if (m_batch.snapshot && m_batch.snapshot->generation == m_generation)
    takeSnapshot(std::move(m_batch.snapshot));

  if (!(m_batch.status == m_status)) {
    m_status = m_batch.status;
    Q_EMIT statusChanged();
  }
  if (m_status.errorSeq > m_lastErrorSeq) {
    m_lastErrorSeq = m_status.errorSeq;
    if (m_snapshot) {
      m_scenario = m_snapshot->scenario;
      Q_EMIT scenarioReverted();
    }
    Q_EMIT engineError(QString::fromStdString(m_status.error));
  }
  if (m_runForSeq != 0 && m_status.runUntilDoneSeq >= m_runForSeq) {
    m_runForSeq = 0;
    m_running = false;
    Q_EMIT runningChanged(false);
    if (m_dashboard) stats.replotted = m_dashboard->refresh(immediateReplot, true);
    Q_EMIT runForFinished();
    return stats;
  }
  if (m_dashboard) stats.replotted = m_dashboard->refresh(immediateReplot, forceReplot);
  return stats;
}

void LiveController::captureSession(SessionState& session) const {
  session.scenario = scenario();
  session.historyWindow = historyWindow();
  session.speed = speed();
  session.running = isRunning();
  session.events = timeline();
}

void LiveController::applySession(const SessionState& session, bool keepPaused) {
  load(session.scenario);
  // The run starts again and makes its own events; the user's notes come back.
  setNotes(session.events);
  setHistoryWindow(session.historyWindow);
  setSpeed(session.speed);
  setRunning(session.running && !keepPaused);
}

}  // namespace throttlelab::ui
