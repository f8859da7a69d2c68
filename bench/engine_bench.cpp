// SPDX-License-Identifier: GPL-3.0-or-later
// Engine speed: simulated seconds per wall second for N dd writers under the ioless policy,
// on one core. Run the Release build: build/release/bench/engine_bench
// Targets: 60 simulated seconds in <= 0.1 s for 100 writers, 0.5 s for 1,000,
// 3 s for 10,000; memory independent of run length (see the peak_rss counters).
#include <benchmark/benchmark.h>

#include <fstream>
#include <string>

#include "proc_status.h"
#include "throttlelab/engine/simulator.h"

namespace {

using namespace throttlelab::engine;

Scenario writers(int n, double durationS, const std::string& policy = "ioless") {
  Scenario s = parseScenario(*builtinScenarioJson("ten-dd"), "ten-dd");
  s.tasks[0].count = n;
  s.durationS = durationS;
  s.policy = policy;
  return s;
}

long statusKiB(const char* field) {
  return throttlelab::test::procStatusKiB(field, 0);
}

// N writers for 60 s under `policy`: BM_Writers60s for ioless, and the same targets for every
// other policy (registerPolicyBenchmarks): 100, 1,000 and 10,000 writers.
void BM_PolicyWriters60s(benchmark::State& state, const std::string& policy) {
  const int n = static_cast<int>(state.range(0));
  std::int64_t events = 0;
  for (auto _ : state) {
    Simulator sim(writers(n, 60, policy));
    sim.run();
    events = sim.eventsProcessed();
    benchmark::DoNotOptimize(events);
  }
  state.counters["sim_s_per_wall_s"] = benchmark::Counter(
      60.0 * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["events"] = static_cast<double>(events);
}

void BM_Writers60s(benchmark::State& state) {
  BM_PolicyWriters60s(state, "ioless");
  state.counters["peak_rss_MiB"] = static_cast<double>(statusKiB("VmHWM")) / 1024.0;
}
BENCHMARK(BM_Writers60s)
    ->Arg(1)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime()
    ->Repetitions(3)
    ->ReportAggregatesOnly(true);

// The same target with a file system under the writers (docs/model.md, The file system):
// delayed allocation (an extent list per file), the journal's commits or the XFS log.
void BM_FileSystemWriters60s(benchmark::State& state, const std::string& fs) {
  const int n = static_cast<int>(state.range(0));
  for (auto _ : state) {
    Scenario s = writers(n, 60);
    s.devices[0].fileSystem = fs;
    Simulator sim(s);
    sim.run();
    benchmark::DoNotOptimize(sim.eventsProcessed());
  }
  state.counters["sim_s_per_wall_s"] = benchmark::Counter(
      60.0 * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

// One run a repetition, three repetitions, medians and spreads only.
benchmark::internal::Benchmark* threeSingleRuns(benchmark::internal::Benchmark* b) {
  return b->Unit(benchmark::kMillisecond)
      ->UseRealTime()
      ->Iterations(1)
      ->Repetitions(3)
      ->ReportAggregatesOnly(true);
}

void registerFileSystemBenchmarks() {
  for (const std::string fs : {"xfs", "ext4"})
    threeSingleRuns(benchmark::RegisterBenchmark(("BM_FileSystemWriters60s/" + fs).c_str(),
                                                 BM_FileSystemWriters60s, fs)
                        ->Arg(10000)
                        ->MeasureProcessCPUTime());
}

void registerPolicyBenchmarks() {
  for (const auto& policy : Simulator::policyNames()) {
    if (policy == "ioless") continue;  // measured above
    threeSingleRuns(benchmark::RegisterBenchmark(("BM_PolicyWriters60s/" + policy).c_str(),
                                                 BM_PolicyWriters60s, policy)
                        ->Arg(100)
                        ->Arg(1000)
                        ->Arg(10000));
  }
}

// Memory must not grow with run length: the resident size of a live simulator with 1,000
// writers after 10 and after 600 simulated seconds (VmRSS while it exists).
void BM_MemoryVsLength(benchmark::State& state) {
  const double duration = static_cast<double>(state.range(0));
  long rss = 0;
  for (auto _ : state) {
    Simulator sim(writers(1000, duration));
    sim.run();
    rss = statusKiB("VmRSS");
    benchmark::DoNotOptimize(sim.eventsProcessed());
  }
  state.counters["rss_at_end_MiB"] = static_cast<double>(rss) / 1024.0;
}
BENCHMARK(BM_MemoryVsLength)->Arg(10)->Arg(600)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

int main(int argc, char** argv) {
  registerFileSystemBenchmarks();
  registerPolicyBenchmarks();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
