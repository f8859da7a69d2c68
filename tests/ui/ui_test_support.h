// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Helpers shared by the ui tests.
#include <QCoreApplication>
#include <QTemporaryDir>
#include <QThread>
#include <chrono>
#include <functional>

#include "live_controller.h"
#include "throttlelab/engine/scenario.h"
#include "user_notifier.h"

namespace throttlelab::ui::test {

/// Processes events until `done` holds. The generous limit only keeps a broken build from
/// hanging; no test asserts on how long anything takes.
inline bool waitFor(const std::function<bool()>& done,
                    std::chrono::seconds limit = std::chrono::seconds(60)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    QThread::msleep(2);
  }
  return true;
}

/// Drives frames until the worker has applied every command sent so far.
inline bool settle(LiveController& c) {
  c.frame();  // sends a pending reconfiguration
  const std::uint64_t seq = c.lastPostedSeq();
  return waitFor([&] {
    c.frame();
    return c.status().appliedSeq >= seq && c.snapshot() && c.snapshot()->appliedSeq >= seq;
  });
}

/// Runs the paused simulation for `seconds` more simulated time, frame by frame.
inline bool advance(LiveController& c, double seconds) {
  settle(c);
  const double target = c.status().simTimeS + seconds;
  c.runFor(target);
  bool finished = false;
  QObject guard;
  QObject::connect(&c, &LiveController::runForFinished, &guard, [&] { finished = true; });
  return waitFor([&] {
    c.frame();
    return finished;
  });
}

inline engine::Scenario builtin(const char* name, std::vector<engine::Override> overrides = {}) {
  return engine::loadScenario(name, overrides);
}

/// Captures messages instead of showing dialogs.
class RecordingNotifier final : public UserNotifier {
 public:
  void error(const QString& title, const QString& text) override {
    messages << title + QStringLiteral(": ") + text;
  }
  void warning(const QString& title, const QString& text) override {
    messages << title + QStringLiteral(": ") + text;
  }
  QStringList messages;
};

}  // namespace throttlelab::ui::test
