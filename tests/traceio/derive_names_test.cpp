// SPDX-License-Identifier: GPL-3.0-or-later
// "Simulate this trace" on traces the kernel can write but a scenario cannot say as they are:
// task or bdi names with control characters or bytes that are not UTF-8 (a comm may be any
// bytes but NUL, prctl(PR_SET_NAME)), and a span longer than a scenario may last. The derived
// scenario must still be valid. Both found by fuzz/fuzz_trace: the derivation threw ScenarioError,
// and
// `--import-trace --simulate` ended as an internal error.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "throttlelab/traceio/trace_import.h"
#include "throttlelab/traceio/trace_stats.h"

namespace {

namespace te = throttlelab::engine;
namespace ti = throttlelab::traceio;

struct Stats final : ti::ImportSink {
  ti::TraceStats stats;
  void onRecord(const te::TraceRecord& r) override { stats.add(r); }
};

std::string bdpLine(const std::string& comm, int pid, double t, const std::string& bdi) {
  return "  " + comm + "-" + std::to_string(pid) + "  [000] .....  " + std::to_string(t) +
         ": balance_dirty_pages: bdi " + bdi +
         ": limit=16384 setpoint=14336 dirty=13080 wb_setpoint=14335 wb_dirty=13080 "
         "dirty_ratelimit=141948 task_ratelimit=174520 dirtied=256 dirtied_pause=256 paused=0 "
         "pause=8 period=4 think=0 cgroup_ino=1\n";
}

TEST(DeriveScenario, ReplacesTaskAndDeviceNamesThatHoldControlCharacters) {
  const std::string trace = bdpLine(
                                "d\x01"
                                "d",
                                101, 10.0, "254:0") +
                            bdpLine("rm\x7f", 102, 10.1, "254:0") +
                            bdpLine("dd", 103, 10.2,
                                    "sd\x1b"
                                    "b") +
                            bdpLine(
                                "\xff\xfe"
                                "dd",
                                104, 10.25, "254:0") +
                            bdpLine("dd", 101, 10.3, "254:0");
  Stats sink;
  const ti::ImportResult imported = ti::importTraceText(trace, sink);
  ASSERT_TRUE(imported.ok()) << imported.error;
  ASSERT_EQ(imported.stats.balanceDirtyPages, 5);
  const ti::TraceStats::Result measured = sink.stats.result();
  ASSERT_EQ(measured.writers, 4);

  te::Scenario s;
  ASSERT_NO_THROW(s = ti::deriveScenario(measured, ti::HostFacts{}));
  EXPECT_NO_THROW(te::validateScenario(s));
  // Every pid is still a writer, on a device of its own bdi.
  ASSERT_EQ(s.devices.size(), 2u);
  int writers = 0;
  for (const auto& t : s.tasks) {
    writers += t.count;
    for (const char c : t.name) {
      EXPECT_GE(static_cast<unsigned char>(c), 0x20) << t.name;
      EXPECT_LT(static_cast<unsigned char>(c), 0x7f) << t.name;
    }
  }
  EXPECT_EQ(writers, 4);
  EXPECT_EQ(s.devices[0].name, "254:0");
  EXPECT_EQ(s.devices[1].name.find('\x1b'), std::string::npos) << s.devices[1].name;
}

TEST(DeriveScenario, CutsASpanLongerThanItSimulates) {
  // The second record's timestamp jumped by 10^8 s (a corrupt or concatenated trace).
  const std::string trace = bdpLine("dd", 101, 10.0, "254:0") + bdpLine("dd", 101, 1e8, "254:0");
  Stats sink;
  ASSERT_TRUE(ti::importTraceText(trace, sink).ok());
  const ti::TraceStats::Result measured = sink.stats.result();
  ASSERT_GT(measured.spanS, 1e7);
  std::vector<std::string> notes;
  te::Scenario s;
  ASSERT_NO_THROW(s = ti::deriveScenario(measured, ti::HostFacts{}, &notes));
  EXPECT_NO_THROW(te::validateScenario(s));
  // The derivation simulates at most an hour of a trace, whatever its span.
  EXPECT_LE(s.durationS, 3600.0);
  EXPECT_GE(s.durationS, 1.0);
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
    return n.find("simulating at most") != std::string::npos;
  }));
}

}  // namespace
