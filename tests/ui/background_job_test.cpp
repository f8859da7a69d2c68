// SPDX-License-Identifier: GPL-3.0-or-later
// BackgroundJob: the one way the window's jobs run off the GUI thread.
#include <gtest/gtest.h>

#include <QObject>
#include <QThread>
#include <atomic>
#include <stdexcept>

#include "background_job.h"
#include "ui_test_support.h"

namespace throttlelab::ui {
namespace {

TEST(BackgroundJob, DeliversTheResultOnTheGuiThreadAfterTheRunEnded) {
  QObject owner;
  BackgroundJob job(&owner);
  QThread* workThread = nullptr;
  QThread* doneThread = nullptr;
  bool runningWhenDone = true;
  int reports = 0;
  ASSERT_TRUE(job.start([&](std::stop_token, const BackgroundJob::Gui& gui) {
    workThread = QThread::currentThread();
    gui.report([&] { ++reports; });
    return std::function<void()>([&] {
      doneThread = QThread::currentThread();
      runningWhenDone = job.isRunning();
    });
  }));
  EXPECT_TRUE(job.isRunning());
  ASSERT_TRUE(test::waitFor([&] { return doneThread != nullptr; }));
  EXPECT_NE(workThread, QThread::currentThread());
  EXPECT_EQ(doneThread, QThread::currentThread());
  EXPECT_FALSE(runningWhenDone);
  EXPECT_FALSE(job.isRunning());
  EXPECT_EQ(reports, 1);
}

TEST(BackgroundJob, OneRunAtATimeAndAStopRequestReachesTheWork) {
  QObject owner;
  BackgroundJob job(&owner);
  std::atomic<bool> sawStop{false};
  bool ended = false;
  auto untilStopped = [&](std::stop_token stop, const BackgroundJob::Gui&) {
    while (!stop.stop_requested()) QThread::msleep(1);
    sawStop = true;
    return std::function<void()>([&] { ended = true; });
  };
  ASSERT_TRUE(job.start(untilStopped));
  EXPECT_FALSE(job.start(untilStopped));
  job.requestStop();
  ASSERT_TRUE(test::waitFor([&] { return ended; }));
  EXPECT_TRUE(sawStop);
  EXPECT_FALSE(job.isRunning());
  EXPECT_TRUE(job.start(untilStopped));  // and again once the run is over
  job.stopAndWait();
  EXPECT_FALSE(job.isRunning());
}

TEST(BackgroundJob, ReportsOfAStoppedRunAreDroppedButItsEndingArrives) {
  QObject owner;
  BackgroundJob job(&owner);
  int reports = 0;
  bool ended = false;
  ASSERT_TRUE(job.start([&](std::stop_token stop, const BackgroundJob::Gui& gui) {
    while (!stop.stop_requested()) QThread::msleep(1);
    gui.report([&] { ++reports; });  // queued after stopAndWait() ended the run
    return std::function<void()>([&] { ended = true; });
  }));
  job.stopAndWait();
  EXPECT_FALSE(job.isRunning());
  ASSERT_TRUE(test::waitFor([&] { return ended; }));
  EXPECT_EQ(reports, 0);
}

TEST(BackgroundJob, AnEscapedExceptionEndsTheRunThroughTheFailureHandler) {
  QObject owner;
  QString failure;
  BackgroundJob job(&owner, [&](const QString& message) { failure = message; });
  ASSERT_TRUE(job.start([](std::stop_token, const BackgroundJob::Gui&) -> std::function<void()> {
    throw std::runtime_error("disk on fire");
  }));
  ASSERT_TRUE(test::waitFor([&] { return !failure.isEmpty(); }));
  EXPECT_EQ(failure, QStringLiteral("disk on fire"));
  EXPECT_FALSE(job.isRunning());
}

}  // namespace
}  // namespace throttlelab::ui
