// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: the kernel-trace reader (traceio::importTraceText over parseTraceLine and
// the converter) and what "Simulate this trace" builds from it. The importer never throws,
// accounts for every complete line (lines == events + skipped), and a trace with records
// yields a scenario (traceio::deriveScenario) that validates and saves, because both the
// window and `--import-trace --simulate` run it.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "throttlelab/traceio/trace_import.h"
#include "throttlelab/traceio/trace_stats.h"

namespace {

struct StatsSink final : throttlelab::traceio::ImportSink {
  throttlelab::traceio::TraceStats stats;
  std::size_t rows = 0;
  void onSample(const throttlelab::engine::Sample&) override { ++rows; }
  void onTaskSample(const throttlelab::engine::TaskSample&) override { ++rows; }
  void onRecord(const throttlelab::engine::TraceRecord& r) override { stats.add(r); }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace traceio = throttlelab::traceio;
  StatsSink sink;
  const traceio::ImportResult result =
      traceio::importTraceText(throttlelab::fuzz::asText(data, size), sink);
  const traceio::ImportStats& st = result.stats;
  if (st.lines != st.events + st.skipped())
    throttlelab::fuzz::fail("a line was neither an event nor skipped", traceio::describe(st));
  if (st.problems.size() > traceio::ImportStats::kMaxProblems)
    throttlelab::fuzz::fail("more problems kept than promised");
  if (!result.ok()) {
    throttlelab::fuzz::requireMessage(result.error);
    return 0;
  }
  (void)traceio::describe(st);
  const traceio::TraceStats::Result measured = sink.stats.result();
  if (measured.records == 0) return 0;
  std::vector<std::string> notes;
  try {
    // A trace may describe a machine the simulator cannot run (deriveScenario's contract):
    // the executable then exits 2 with this message, so the message is what must be right.
    const throttlelab::engine::Scenario derived =
        traceio::deriveScenario(measured, traceio::HostFacts{}, &notes);
    throttlelab::fuzz::requireRoundTrip(derived);
  } catch (const throttlelab::engine::ScenarioError& e) {
    throttlelab::fuzz::requireMessage(e.what());
  }
  (void)traceio::simulationWarmupS(measured);
  (void)traceio::compare(measured, measured);
  return 0;
}
