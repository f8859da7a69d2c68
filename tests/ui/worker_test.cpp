// SPDX-License-Identifier: GPL-3.0-or-later
// The simulation worker, its sink and the decimation, driven without any widget.
#include <gtest/gtest.h>

#include <algorithm>

#include "live_sink.h"
#include "sample_decimator.h"
#include "sample_exchange.h"
#include "simulation_worker.h"
#include "ui_test_support.h"

namespace throttlelab::ui {
namespace {

using test::builtin;
using test::waitFor;

SimulationWorker::Options paused() {
  return {.startPaused = true};
}

bool waitApplied(SimulationWorker& w, std::uint64_t seq) {
  return waitFor([&] {
    auto s = w.latestSnapshot();
    return w.status().appliedSeq >= seq && s && s->appliedSeq >= seq;
  });
}

TEST(SimulationWorker, StepAdvancesExactlyOneControlPeriod) {
  SimulationWorker worker(paused());
  worker.post(command::Reset{builtin("default")});
  const auto seq = worker.post(command::Step{});
  ASSERT_TRUE(waitFor([&] {
    const WorkerStatus s = worker.status();
    return s.appliedSeq >= seq && s.simTimeS >= 0.2 && !s.running;
  }));
  EXPECT_NEAR(worker.status().simTimeS, 0.2, 1e-9);
  EXPECT_FALSE(worker.status().running);
}

TEST(SimulationWorker, PausedWorkerDoesNotAdvance) {
  SimulationWorker worker(paused());
  const auto seq = worker.post(command::Reset{builtin("default")});
  ASSERT_TRUE(waitApplied(worker, seq));
  const auto step = worker.post(command::Step{engine::millis(500)});
  ASSERT_TRUE(waitApplied(worker, step));
  ASSERT_TRUE(waitFor([&] { return worker.status().simTimeS >= 0.5; }));
  // Another command round trip: the clock must still be where the step left it.
  const auto again = worker.post(command::SetSpeed{5});
  ASSERT_TRUE(waitApplied(worker, again));
  EXPECT_NEAR(worker.status().simTimeS, 0.5, 1e-9);
}

TEST(SimulationWorker, ReconfigureReachesTheEngine) {
  SimulationWorker worker(paused());
  engine::Scenario s = builtin("default");
  worker.post(command::Reset{s});
  s.tasks[0].count = 7;
  s.vm.dirtyRatio = 35;
  const auto seq = worker.post(command::Reconfigure{engine::CheckedScenario(s)});
  ASSERT_TRUE(waitApplied(worker, seq));
  const auto snap = worker.latestSnapshot();
  EXPECT_EQ(snap->scenario.tasks[0].count, 7);
  EXPECT_EQ(snap->scenario.vm.dirtyRatio, 35);
}

TEST(SimulationWorker, InvalidReconfigureReportsTheKeyAndChangesNothing) {
  SimulationWorker worker(paused());
  engine::Scenario s = builtin("default");
  worker.post(command::Reset{s});
  engine::Scenario bad = s;
  bad.vm.dirtyRatio = 500;
  // An invalid scenario never reaches the worker: the check names the key at once.
  try {
    engine::CheckedScenario{bad};
    ADD_FAILURE() << "dirty_ratio 500 accepted";
  } catch (const engine::ScenarioError& e) {
    EXPECT_NE(std::string(e.key()).find("dirty_ratio"), std::string::npos) << e.key();
  }
  // A valid one that the running kernel refuses is reported by the worker, and changes nothing.
  engine::Scenario refused = s;
  refused.vm.dirtyRatio = 35;
  refused.machine.hz = s.machine.hz == 1000 ? 250 : 1000;
  const auto seq = worker.post(command::Reconfigure{engine::CheckedScenario(refused)});
  ASSERT_TRUE(waitApplied(worker, seq));
  const WorkerStatus status = worker.status();
  EXPECT_EQ(status.errorSeq, seq);
  EXPECT_NE(status.error.find("machine.hz"), std::string::npos) << status.error;
  EXPECT_EQ(worker.latestSnapshot()->scenario.vm.dirtyRatio, s.vm.dirtyRatio);
  EXPECT_EQ(worker.latestSnapshot()->scenario.machine.hz, s.machine.hz);
}

TEST(SimulationWorker, ResetStartsANewGenerationWithoutOldSamples) {
  SimulationWorker worker(paused());
  worker.post(command::Reset{builtin("default")});
  const auto step = worker.post(command::Step{engine::seconds(2)});
  ASSERT_TRUE(
      waitFor([&] { return worker.status().appliedSeq >= step && worker.status().simTimeS >= 2; }));
  const int before = worker.status().generation;
  const auto reset = worker.post(command::Reset{builtin("one-dd")});
  ASSERT_TRUE(waitApplied(worker, reset));
  LiveBatch batch;
  worker.drainInto(batch);
  EXPECT_EQ(batch.generation, before + 1);
  EXPECT_TRUE(batch.samples.empty());  // the two seconds of the old run are gone
  EXPECT_EQ(batch.status.simTimeS, 0);
}

TEST(SimulationWorker, StreamsSamplesAndTaskSamplesWhileRunning) {
  SimulationWorker worker(paused());
  worker.post(command::Reset{builtin("default")});
  worker.post(command::RunUntil{3});
  LiveBatch batch;
  std::size_t samples = 0, taskSamples = 0;
  double lastTime = -1;
  bool ordered = true;
  ASSERT_TRUE(waitFor([&] {
    worker.drainInto(batch);
    for (const auto& s : batch.samples) {
      ordered = ordered && engine::toSeconds(s.time) > lastTime;
      lastTime = engine::toSeconds(s.time);
    }
    samples += batch.samples.size();
    taskSamples += batch.taskSamples.size();
    return worker.status().runUntilDoneSeq > 0 && batch.samples.empty();
  }));
  EXPECT_TRUE(ordered);
  EXPECT_GE(samples, 29u);  // 0.1 s sample interval over 3 s
  EXPECT_GT(taskSamples, 0u);
  EXPECT_NEAR(worker.status().simTimeS, 3, 1e-9);
}

engine::Sample sampleAt(double t, double pause) {
  engine::Sample s;
  s.time = engine::atSeconds(t);
  s.pauseMsMax = pause;
  s.pauseMsMin = pause;
  s.dirtyPages = static_cast<engine::Pages>(1000 + t * 10);
  s.devices.resize(1);
  s.pauses = 1;
  return s;
}

TEST(SampleDecimator, KeepsAShortPauseInsideABucket) {
  SampleDecimator d;
  std::vector<engine::Sample> out;
  std::vector<engine::TaskSample> tasks;
  d.setFactor(10, out, tasks);
  for (int i = 0; i < 10; ++i) d.add(sampleAt(i * 0.1, i == 4 ? 200 : 10), out, tasks);
  ASSERT_EQ(out.size(), 3u);
  double longest = 0;
  for (const auto& s : out) longest = std::max(longest, s.pauseMsMax);
  EXPECT_EQ(longest, 200);
  EXPECT_EQ(out.back().time, engine::atSeconds(0.9));  // the last sample is the real one
  EXPECT_EQ(out.back().pauseMsMax, 10);
  EXPECT_LT(out[0].time, out[1].time);
  EXPECT_LT(out[1].time, out[2].time);
  EXPECT_EQ(out[0].dirtyPages, 1000);  // envelope: the minimum ...
  EXPECT_EQ(out[1].dirtyPages, 1009);  // ... and the maximum of the bucket
}

TEST(SampleDecimator, FoldsTaskSamplesKeepingTheLongestPause) {
  SampleDecimator d;
  std::vector<engine::Sample> out;
  std::vector<engine::TaskSample> tasks;
  d.setFactor(4, out, tasks);
  for (int i = 0; i < 4; ++i) {
    d.addTask(
        engine::TaskSample{
            .time = engine::atSeconds(i * 0.1), .task = 3, .pauseMs = i == 1 ? 150.0 : 5.0},
        tasks);
    d.add(sampleAt(i * 0.1, 5), out, tasks);
  }
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].pauseMs, 150);
  EXPECT_EQ(tasks[0].time, engine::atSeconds(0.3));
}

TEST(SampleDecimator, PassesSamplesThroughAtFactorOne) {
  SampleDecimator d;
  std::vector<engine::Sample> out;
  std::vector<engine::TaskSample> tasks;
  for (int i = 0; i < 5; ++i) d.add(sampleAt(i, 1), out, tasks);
  EXPECT_EQ(out.size(), 5u);
}

TEST(LiveSink, PassesTheFirstSixteenTasksAndTheSelection) {
  LiveSink sink;
  sink.setExtraTasks({500, 3});
  EXPECT_EQ(sink.outputOptions().taskSampleLimit, 501);
  EXPECT_TRUE(sink.outputOptions().taskSamples);
  for (int task : {3, 15, 16, 200, 500})
    sink.onTaskSample(engine::TaskSample{.time = engine::atSeconds(1), .task = task});
  SampleExchange exchange(16, 16);
  sink.flushTo(exchange, WorkerStatus{});
  LiveBatch batch;
  exchange.take(batch);
  std::vector<int> seen;
  for (const auto& t : batch.taskSamples) seen.push_back(t.task);
  EXPECT_EQ(seen, (std::vector<int>{3, 15, 500}));
}

TEST(LiveSink, WithoutSelectionAsksTheEngineForSixteenTasks) {
  LiveSink sink;
  EXPECT_EQ(sink.outputOptions().taskSampleLimit, LiveSink::kDrawnTasks);
}

TEST(SampleExchange, TakeSwapsOutEverythingInOrder) {
  SampleExchange exchange(8, 8);
  std::vector<engine::Sample> samples{sampleAt(1, 0), sampleAt(2, 0)};
  std::vector<engine::TaskSample> tasks;
  std::vector<engine::TaskInfo> infos{engine::TaskInfo{.index = 4, .pid = 99}};
  exchange.publish(samples, tasks, infos, WorkerStatus{.simTimeS = 2});
  EXPECT_TRUE(samples.empty());
  LiveBatch batch;
  exchange.take(batch);
  ASSERT_EQ(batch.samples.size(), 2u);
  EXPECT_EQ(batch.samples[0].time, engine::atSeconds(1));
  EXPECT_EQ(batch.newTasks.size(), 1u);
  EXPECT_EQ(batch.status.simTimeS, 2);
  exchange.take(batch);
  EXPECT_TRUE(batch.samples.empty());
}

TEST(SampleExchange, CountsWhatItDropsWhenTheGuiFallsBehind) {
  SampleExchange exchange(4, 4);
  std::vector<engine::Sample> samples;
  for (int i = 0; i < 6; ++i) samples.push_back(sampleAt(i, 0));
  std::vector<engine::TaskSample> tasks;
  std::vector<engine::TaskInfo> infos;
  exchange.publish(samples, tasks, infos, WorkerStatus{});
  LiveBatch batch;
  exchange.take(batch);
  ASSERT_EQ(batch.samples.size(), 4u);
  EXPECT_EQ(batch.samples.front().time, engine::atSeconds(2));  // newest kept
  EXPECT_EQ(batch.status.droppedSamples, 2);
}

}  // namespace
}  // namespace throttlelab::ui

namespace throttlelab::ui {
namespace {

TEST(LiveController, FoldsSamplesWhenTheEngineOutrunsTheGui) {
  LiveController::Options o;
  o.startRunning = false;
  LiveController controller(o);
  controller.setHistoryWindow(HistoryWindow::Everything);
  controller.load(builtin("default"));
  controller.setSpeed(1000);
  controller.setRunning(true);
  // Wait until the worker has measured its speed and chosen to fold, then for more data.
  ASSERT_TRUE(waitFor([&] {
    controller.frame();
    return controller.status().decimation > 1;
  }));
  const double foldedFrom = controller.status().simTimeS;
  ASSERT_TRUE(waitFor([&] {
    controller.frame();
    return controller.status().simTimeS > foldedFrom + 60;
  }));
  controller.setRunning(false);
  test::settle(controller);
  // Sixty simulated seconds would be 600 samples unfolded; folded k:3 they are far fewer.
  const auto& h = controller.history();
  const std::size_t from = h.lowerBound(foldedFrom + 5);
  const std::size_t to = h.lowerBound(foldedFrom + 55);
  EXPECT_LT(to - from, 400u);
  EXPECT_GT(to - from, 0u);
  for (std::size_t i = 1; i < h.size(); ++i) ASSERT_LT(h[i - 1].time, h[i].time);
}

}  // namespace
}  // namespace throttlelab::ui
