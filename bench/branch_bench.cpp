// SPDX-License-Identifier: GPL-3.0-or-later
// "Branch here" in the window, to the branch's first drawn frame: prints figures (not a test).
// A live run of 1,000 writers goes to minute 11 (its worker keeping snapshots as the window's
// does); then, for moments around minute 10, the time from the action (BranchController::
// branchHere: rewind on the worker, replay, the change, both futures adopted by the compare
// view's workers) until the branch's first sample after the moment is drawn in every compare
// plot (replotted immediately, so the time is real). Per moment, then medians and the worst.
//
//   branch_bench
//
// Runs offscreen unless DISPLAY is set. Use the Release build: build/release/bench/branch_bench
#include <QApplication>
#include <QThread>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "branch_controller.h"
#include "compare_plot.h"
#include "compare_view.h"
#include "live_controller.h"
#include "qcp.h"
#include "throttlelab/engine/scenario.h"

namespace {

using namespace throttlelab;
using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
    qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);

  ui::LiveController::Options options;
  options.startRunning = false;
  ui::LiveController live(options);
  engine::Scenario scenario = engine::loadScenario("thousand-dd");
  scenario.durationS = 1e6;
  live.load(scenario);
  bool done = false;
  QObject::connect(&live, &ui::LiveController::runForFinished, [&] { done = true; });
  const auto prefill = Clock::now();
  live.runFor(660);
  while (!done) {
    QCoreApplication::processEvents();
    live.frame();
    QThread::msleep(16);
  }
  std::printf("branch_bench: Qt %s, platform %s; 1,000 writers run to 660 s in %.1f s wall\n",
              qVersion(), qPrintable(QGuiApplication::platformName()), msSince(prefill) / 1000);

  ui::CompareView compare;
  compare.resize(1600, 1000);
  compare.show();
  ui::BranchController branch(live, compare);
  const std::vector<engine::Override> change{{"vm.dirty_ratio", "10"}};
  std::vector<double> toFirstFrame;
  std::vector<double> toAnswer;
  for (const double at : {600.0, 602.5, 605.0, 607.5, 609.95}) {
    ui::LiveController& run = compare.run(1);
    const int generation = run.status().generation;
    const auto start = Clock::now();
    const QString error = branch.branchHere(at, change, true);
    toAnswer.push_back(msSince(start));
    if (!error.isEmpty()) {
      std::fprintf(stderr, "branch_bench: Branch here at %g s: %s\n", at, qPrintable(error));
      return 1;
    }
    // Frames as the window's timer would run them, until the branch has a sample past `at`
    // (in the history of the branch, not of the previous one: its worker's generation).
    for (;;) {
      QCoreApplication::processEvents();
      run.frame();
      if (run.status().generation != generation && !run.history().empty() &&
          engine::toSeconds(run.history().back().time) > at + 1e-9)
        break;
      QThread::usleep(200);
    }
    const double toSample = msSince(start);
    compare.refresh();
    for (ui::ComparePlot* p : compare.plots()) p->widget()->replot(QCustomPlot::rpImmediateRefresh);
    toFirstFrame.push_back(msSince(start));
    std::printf("  at %6.2f s: answer %5.1f ms, first sample taken in %5.1f ms, drawn %5.1f ms\n",
                at, toAnswer.back(), toSample, toFirstFrame.back());
    compare.setRunning(false);
  }
  std::printf(
      "Branch here at minute 10 (1,000 writers, run at minute 11), vm.dirty_ratio=10:\n"
      "  Branch here returns (the live worker's answer: rewind, replay, change; the original "
      "copied meanwhile; both adopted): median %.1f ms, "
      "max %.1f ms\n"
      "  to the branch's first frame drawn in the compare view: median %.1f ms, max %.1f ms "
      "(aim: under 100 ms), over %zu moments\n",
      median(toAnswer), *std::max_element(toAnswer.begin(), toAnswer.end()), median(toFirstFrame),
      *std::max_element(toFirstFrame.begin(), toFirstFrame.end()), toFirstFrame.size());
  compare.stop();
  live.stop();
  return 0;
}
