// SPDX-License-Identifier: GPL-3.0-or-later
// Snapshots: the time and size of one with 100, 1,000 and 10,000 writers (the resident memory
// a copy adds, beside SimulatorSnapshot::bytes(), its estimate); the memory a SnapshotStore
// holds after a simulated hour of 1,000 writers (with --ten-thousand also of 10,000, about a
// minute more); and the time from "Branch here" at minute 10 to the branch's first new sample
// (the first frame it can draw): restoring the nearest snapshot, replaying to the moment,
// applying the change, running one sample interval.
// Prints figures (medians); run the Release build: build/release/bench/snapshot_bench
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "proc_status.h"
#include "throttlelab/engine/simulator.h"
#include "throttlelab/engine/snapshot_store.h"

namespace {

using namespace throttlelab::engine;
using Clock = std::chrono::steady_clock;

Scenario writers(int n) {
  Scenario s = parseScenario(*builtinScenarioJson("ten-dd"), "ten-dd");
  s.tasks[0].count = n;
  s.durationS = 7200;
  return s;
}

/// Resident memory now, in MiB (every page a snapshot copies is touched, so it is resident).
double rssMiB() {
  return throttlelab::test::procStatusKiB("VmRSS", 0) / 1024.0;
}

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

/// Counts the samples a branch delivers: the first one is its first frame.
class FirstSample final : public RecordSink {
 public:
  void onSample(const Sample&) override { ++samples; }
  int samples = 0;
};

void snapshotCost(int n) {
  Simulator sim(writers(n));
  sim.runUntil(atSeconds(20));
  constexpr int kCopies = 5;
  std::vector<SimulatorSnapshot> held;
  std::vector<double> ms;
  const double before = rssMiB();
  for (int i = 0; i < kCopies; ++i) {
    const auto start = Clock::now();
    held.push_back(sim.snapshot());
    ms.push_back(msSince(start));
  }
  const double perSnapshot = (rssMiB() - before) / kCopies;
  const double estimate = static_cast<double>(held.front().bytes()) / (1 << 20);
  std::vector<double> restoreMs;
  for (int i = 0; i < kCopies; ++i) {
    const auto start = Clock::now();
    Simulator copy(held[static_cast<std::size_t>(i)]);
    restoreMs.push_back(msSince(start));
  }
  std::printf(
      "%6d writers: snapshot %7.2f ms, restore %7.2f ms, size %7.2f MiB (RSS added), %7.2f MiB "
      "(bytes())\n",
      n, median(ms), median(restoreMs), perSnapshot, estimate);
}

void storeAfterAnHour(int n) {
  Simulator sim(writers(n));
  // The window's options: a snapshot every ten seconds, 64 MiB, the scenario as the origin.
  SnapshotStore store;
  store.setOrigin(writers(n));
  const auto start = Clock::now();
  double snapshotMs = 0;
  int taken = 0;
  for (int step = 1; step <= 36000; ++step) {  // 0.1 s steps, as the window runs
    sim.runUntil(atSeconds(step * 0.1));
    const auto t0 = Clock::now();
    if (store.offer(sim)) {
      ++taken;
      snapshotMs += msSince(t0);
    }
  }
  const double wallS = msSince(start) / 1000;
  const double withStore = rssMiB();
  const auto times = store.times();
  const std::size_t held = store.size();
  const double oldestGap = times.size() > 1 ? toSeconds(times[1] - times[0]) : 0;
  const double newestGap =
      times.size() > 1 ? toSeconds(times[times.size() - 1] - times[times.size() - 2]) : 0;
  const double estimate = static_cast<double>(store.bytes()) / (1 << 20);
  store.clear();
  const double without = rssMiB();
  std::printf(
      "%d writers, 3600 s simulated in %.1f s wall: %d snapshots taken (%.1f s of it), %zu "
      "held, %.1f MiB held by them (RSS %.1f MiB with, %.1f MiB without; bytes() %.1f MiB); "
      "times %.0f to %.0f s, newest gap %.1f s, oldest gap %.1f s\n",
      n, wallS, taken, snapshotMs / 1000, held, withStore - without, withStore, without, estimate,
      toSeconds(times.front()), toSeconds(times.back()), newestGap, oldestGap);
}

void branchAtMinute10() {
  Simulator sim(writers(1000));
  SnapshotStore store;
  store.setOrigin(writers(1000));
  for (int step = 1; step <= 6600; ++step) {  // the run is at minute 11
    sim.runUntil(atSeconds(step * 0.1));
    store.offer(sim);
  }
  Scenario changed = sim.scenario();
  changed.vm.dirtyRatio = 10;
  const CheckedScenario checked(changed);
  // "Branch here" at 600 s, and at moments around it (the replay from the nearest snapshot
  // depends on where the moment falls between two).
  std::vector<double> ms;
  for (const double at : {600.0, 602.5, 605.0, 607.5, 609.95}) {
    const auto start = Clock::now();
    Simulator branch = store.rewind(atSeconds(at));
    branch.reconfigure(checked);
    FirstSample sink;
    branch.setSink(&sink);
    while (sink.samples == 0) branch.runUntil(branch.now() + millis(10));
    ms.push_back(msSince(start));
  }
  std::printf(
      "1000 writers, run at 660 s: Branch here at minute 10 to the first new sample: median "
      "%.1f ms (max %.1f ms over %zu moments)\n",
      median(ms), *std::max_element(ms.begin(), ms.end()), ms.size());
}

}  // namespace

int main(int argc, char** argv) {
  const bool tenThousand = argc > 1 && std::string(argv[1]) == "--ten-thousand";
  for (const int n : {100, 1000, 10000}) snapshotCost(n);
  storeAfterAnHour(1000);
  if (tenThousand) storeAfterAnHour(10000);
  branchAtMinute10();
  return 0;
}
