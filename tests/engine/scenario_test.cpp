// SPDX-License-Identifier: GPL-3.0-or-later
// Scenario JSON: every key read, every impossible value rejected with one message naming the
// key, overrides, the round trip through scenarioToJson, built-ins, and never crashing.
#include <gtest/gtest.h>

#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>

#include "throttlelab/engine/scenario.h"
#include "throttlelab/engine/simulator.h"

namespace te = throttlelab::engine;

namespace {

constexpr const char* kIssueExample = R"({
  "schemaVersion": 1, "name": "ten-dd", "seed": 7, "durationS": 42.5, "description": "ten writers",
  "sampleIntervalS": 0.25,
  "machine": { "memoryMiB": 8192, "cpus": 8, "hz": 1000 },
  "device":  { "name": "sdb", "writeMBps": 57.5, "seekMs": 4, "maxRequestKiB": 256,
               "nrRequests": 64, "minRatio": 5, "maxRatio": 50, "strictLimit": true },
  "vm": { "dirty_ratio": 30, "dirty_background_ratio": 15, "dirty_bytes": 0,
          "dirty_background_bytes": 1048576, "dirty_expire_centisecs": 1500,
          "dirty_writeback_centisecs": 0 },
  "policy": "ioless",
  "tasks": [ { "name": "dd", "count": 10, "kind": "writer", "blockKiB": 64, "fileMiB": 256,
               "loop": false, "copyMBps": 1500, "thinkMs": 2.5, "startS": 3, "sched": "fifo",
               "rtPriority": 50, "nice": -5, "device": "sdb" } ] })";

/// Parses `json` and returns the error; fails the test if it parses.
te::ScenarioError parseError(const std::string& json, const std::vector<te::Override>& o = {}) {
  try {
    te::parseScenario(json, "t.json", o);
  } catch (const te::ScenarioError& e) {
    return e;
  }
  ADD_FAILURE() << "accepted: " << json;
  return te::ScenarioError("<accepted>", "<accepted>");
}

std::string withBody(const std::string& body) {
  return std::string(R"({"schemaVersion": 1)") + (body.empty() ? "" : ", " + body) + "}";
}

bool oneLine(const std::string& s) {
  return s.find('\n') == std::string::npos;
}

}  // namespace

TEST(ScenarioParse, ReadsEveryKeyOfTheIssueExample) {
  const te::Scenario s = te::parseScenario(kIssueExample, "ten-dd.json");
  EXPECT_EQ(s.name, "ten-dd");
  EXPECT_EQ(s.seed, 7u);
  EXPECT_DOUBLE_EQ(s.durationS, 42.5);
  EXPECT_EQ(s.description, "ten writers");
  EXPECT_DOUBLE_EQ(s.sampleIntervalS, 0.25);
  EXPECT_EQ(s.machine.memoryMiB, 8192);
  EXPECT_EQ(s.machine.cpus, 8);
  EXPECT_EQ(s.machine.hz, 1000);
  ASSERT_EQ(s.devices.size(), 1u);
  const te::DeviceConfig& d = s.devices[0];
  EXPECT_EQ(d.name, "sdb");
  EXPECT_DOUBLE_EQ(d.writeMBps, 57.5);
  EXPECT_DOUBLE_EQ(d.seekMs, 4);
  EXPECT_EQ(d.maxRequestKiB, 256);
  EXPECT_EQ(d.nrRequests, 64);
  EXPECT_EQ(d.minRatio, 5);
  EXPECT_EQ(d.maxRatio, 50);
  EXPECT_TRUE(d.strictLimit);
  EXPECT_EQ(s.vm.dirtyRatio, 30);
  EXPECT_EQ(s.vm.dirtyBackgroundRatio, 15);
  EXPECT_EQ(s.vm.dirtyBytes, 0);
  EXPECT_EQ(s.vm.dirtyBackgroundBytes, 1048576);
  EXPECT_EQ(s.vm.dirtyExpireCentisecs, 1500);
  EXPECT_EQ(s.vm.dirtyWritebackCentisecs, 0);
  EXPECT_EQ(s.policy, "ioless");
  ASSERT_EQ(s.tasks.size(), 1u);
  const te::TaskSpec& t = s.tasks[0];
  EXPECT_EQ(t.name, "dd");
  EXPECT_EQ(t.count, 10);
  EXPECT_EQ(t.kind, te::TaskKind::Writer);
  EXPECT_EQ(t.blockKiB, 64);
  EXPECT_EQ(t.fileMiB, 256);
  EXPECT_FALSE(t.loop);
  EXPECT_DOUBLE_EQ(t.copyMBps, 1500);
  EXPECT_DOUBLE_EQ(t.thinkMs, 2.5);
  EXPECT_DOUBLE_EQ(t.startS, 3);
  EXPECT_EQ(t.sched, te::SchedClass::Fifo);
  EXPECT_EQ(t.rtPriority, 50);
  EXPECT_EQ(t.nice, -5);
  EXPECT_EQ(t.device, "sdb");
}

TEST(ScenarioParse, ReadsTheMemoryKeysAndTheOtherTaskKinds) {
  const te::Scenario s = te::parseScenario(withBody(R"(
      "devices": [{"name": "sda"}, {"name": "sdb"}],
      "machine": {"memoryMiB": 512, "swapMiB": 1024, "swapDevice": "sdb", "allocator": "2.6.0"},
      "vm": {"swappiness": 200, "min_free_kbytes": 128, "watermark_scale_factor": 3000},
      "tasks": [
        {"name": "cc1", "kind": "compiler", "count": 4, "loop": true, "runs": 75, "anonMiB": 16,
         "allocMBps": 500, "cpuS": 1.5, "fileMiB": 0, "oomScoreAdj": -1000},
        {"name": "alloc4m", "kind": "allocator", "anonMiB": 4, "holdS": 0.5,
         "lessThrottle": true, "oomScoreAdj": 1000}])"),
                                           "t");
  EXPECT_EQ(s.machine.swapMiB, 1024);
  EXPECT_EQ(s.machine.swapDevice, "sdb");
  EXPECT_EQ(s.machine.allocator, "2.6.0");
  EXPECT_EQ(s.vm.swappiness, 200);
  EXPECT_EQ(s.vm.minFreeKbytes, 128);
  EXPECT_EQ(s.vm.watermarkScaleFactor, 3000);
  ASSERT_EQ(s.tasks.size(), 2u);
  const te::TaskSpec& cc = s.tasks[0];
  EXPECT_EQ(cc.kind, te::TaskKind::Compiler);
  EXPECT_EQ(cc.runs, 75);
  EXPECT_DOUBLE_EQ(cc.anonMiB, 16);
  EXPECT_DOUBLE_EQ(cc.allocMBps, 500);
  EXPECT_DOUBLE_EQ(cc.cpuS, 1.5);
  EXPECT_EQ(cc.fileMiB, 0);
  EXPECT_EQ(cc.oomScoreAdj, -1000);
  EXPECT_FALSE(cc.lessThrottle);
  const te::TaskSpec& a = s.tasks[1];
  EXPECT_EQ(a.kind, te::TaskKind::Allocator);
  EXPECT_DOUBLE_EQ(a.anonMiB, 4);
  EXPECT_DOUBLE_EQ(a.holdS, 0.5);
  EXPECT_TRUE(a.lessThrottle);
  EXPECT_EQ(a.oomScoreAdj, 1000);
  EXPECT_EQ(te::parseScenario(te::scenarioToJson(s), "round-trip"), s);
}

TEST(ScenarioParse, AcceptsTheEdgesOfTheMemoryRanges) {
  for (const char* body :
       {R"("vm": {"min_free_kbytes": 0})", R"("vm": {"min_free_kbytes": 4194304})",
        R"("vm": {"swappiness": 0, "watermark_scale_factor": 1})",
        R"("machine": {"swapMiB": 16777216})", R"("machine": {"swapDevice": ""})",
        R"("machine": {"allocator": "2.6.0-no-rt"})", R"("machine": {"allocator": "2.6.9"})",
        R"("tasks": [{"kind": "compiler", "anonMiB": 10}])",
        R"("tasks": [{"kind": "compiler", "cpuS": 0.5, "fileMiB": 0}])",
        R"("tasks": [{"kind": "allocator", "anonMiB": 0.25, "fileMiB": 0}])"})
    EXPECT_NO_THROW(te::parseScenario(withBody(body), "t")) << body;
}

TEST(ScenarioParse, ExplainsWhatACompilerAndAnAllocatorNeed) {
  EXPECT_STREQ(parseError(withBody(R"("tasks": [{"kind": "compiler"}])")).what(),
               "t.json: tasks[0].cpuS: a compiler needs cpuS > 0 or anonMiB > 0 (it would do "
               "nothing), got cpuS 0 and anonMiB 0");
  EXPECT_STREQ(parseError(withBody(R"("tasks": [{"kind": "allocator"}])")).what(),
               "t.json: tasks[0].anonMiB: an allocator needs anonMiB > 0 (the memory it "
               "allocates), got 0");
  EXPECT_STREQ(parseError(withBody(R"("tasks": [{"kind": "reader"}])")).what(),
               "t.json: tasks[0].kind: unknown task kind 'reader' (known: writer, compiler, "
               "allocator)");
  EXPECT_STREQ(parseError(withBody(R"("machine": {"allocator": "2.4"})")).what(),
               "t.json: machine.allocator: unknown page-allocator generation '2.4' (known: "
               "2.6.0-no-rt, 2.6.0, 2.6.9, 6.x)");
  EXPECT_STREQ(parseError(withBody(R"("vm": {"min_free_kbytes": 64})")).what(),
               "t.json: vm.min_free_kbytes: must be 0 (the boot default) or between 128 and "
               "4194304, got 64");
  EXPECT_NE(std::string(parseError(withBody(R"("machine": {"swapDevice": "sdb"})")).what())
                .find("no device named \"sdb\" (devices: sda)"),
            std::string::npos);
}

TEST(ScenarioOverride, SetsTheTaskKindAsABareWord) {
  const te::Scenario s = te::parseScenario(
      kIssueExample, "t",
      {{"tasks[0].kind", "compiler"}, {"tasks[0].cpuS", "2"}, {"machine.swapMiB", "512"}});
  EXPECT_EQ(s.tasks.at(0).kind, te::TaskKind::Compiler);
  EXPECT_EQ(s.machine.swapMiB, 512);
  // The key at fault is the one the file left out; the message names it.
  const auto e = parseError(kIssueExample, {{"tasks[0].kind", "allocator"}});
  EXPECT_EQ(e.key(), "tasks[0].anonMiB");
}

TEST(ScenarioParse, MissingKeysTakeTheDefaults) {
  EXPECT_EQ(te::parseScenario(withBody(""), "t.json"), te::Scenario{});
  const te::Scenario s =
      te::parseScenario(withBody(R"("tasks": [{}], "vm": {}, "device": {})"), "t");
  EXPECT_EQ(s.tasks.at(0), te::TaskSpec{});
  EXPECT_EQ(s.vm, te::VmConfig{});
  EXPECT_EQ(s.devices, std::vector<te::DeviceConfig>{te::DeviceConfig{}});
}

TEST(ScenarioParse, ReadsADeviceList) {
  const te::Scenario s =
      te::parseScenario(withBody(R"("devices": [{"name": "sda"}, {"name": "sdb", "writeMBps": 120}],
                  "tasks": [{"device": "sdb"}])"),
                        "t");
  ASSERT_EQ(s.devices.size(), 2u);
  EXPECT_EQ(s.devices[1].name, "sdb");
  EXPECT_DOUBLE_EQ(s.devices[1].writeMBps, 120);
  EXPECT_EQ(te::deviceIndexOf(s, s.tasks[0]), 1u);
}

TEST(ScenarioParse, RejectsDirtyRatioOver100) {
  const auto e = parseError(withBody(R"("vm": {"dirty_ratio": 120})"));
  EXPECT_EQ(e.key(), "vm.dirty_ratio");
  EXPECT_STREQ(e.what(), "t.json: vm.dirty_ratio: must be between 0 and 100, got 120");
}

TEST(ScenarioParse, SyntaxErrorGivesLineAndColumnAndNoKey) {
  const auto e = parseError("{\n  \"schemaVersion\": 1,\n  \"name\": oops\n}");
  EXPECT_EQ(e.key(), "");
  const std::string what = e.what();
  EXPECT_EQ(what.rfind("t.json: JSON syntax error at line 3, column ", 0), 0u) << what;
  EXPECT_TRUE(oneLine(what));
}

TEST(ScenarioParse, EmptyInputIsASyntaxError) {
  const auto e = parseError("");
  EXPECT_EQ(e.key(), "");
  EXPECT_NE(std::string(e.what()).find("syntax error"), std::string::npos);
}

TEST(ScenarioParse, UnknownKeySuggestsTheClosestKnownKey) {
  const auto e = parseError(withBody(R"("machine": {"memoryMB": 4096})"));
  EXPECT_EQ(e.key(), "machine.memoryMB");
  EXPECT_STREQ(e.what(),
               "t.json: machine.memoryMB: unknown key 'memoryMB' (did you mean 'memoryMiB'?)");
}

TEST(ScenarioParse, UnknownKeyFarFromEveryKeyHasNoSuggestion) {
  const auto e = parseError(withBody(R"("tasks": [{"count": 1}, {"bandwidth": 3}])"));
  EXPECT_EQ(e.key(), "tasks[1].bandwidth");
  EXPECT_EQ(std::string(e.what()).find("did you mean"), std::string::npos) << e.what();
}

TEST(ScenarioParse, UnknownTopLevelKeyIsNamed) {
  const auto e = parseError(withBody(R"("dirty_ratio": 20)"));
  EXPECT_EQ(e.key(), "dirty_ratio");
}

TEST(ScenarioParse, RejectsDuplicateKeys) {
  const auto e = parseError(withBody(R"("vm": {"dirty_ratio": 20, "dirty_ratio": 30})"));
  EXPECT_EQ(e.key(), "vm.dirty_ratio");
  EXPECT_NE(std::string(e.what()).find("duplicate"), std::string::npos);
}

TEST(ScenarioParse, RejectsWrongTypes) {
  struct Case {
    const char* body;
    const char* key;
  };
  const Case cases[] = {
      {R"("machine": {"cpus": "4"})", "machine.cpus"},
      {R"("durationS": "60")", "durationS"},
      {R"("device": {"strictLimit": 1})", "device.strictLimit"},
      {R"("name": 5)", "name"},
      {R"("vm": [])", "vm"},
      {R"("tasks": {})", "tasks"},
      {R"("tasks": [5])", "tasks[0]"},
      {R"("machine": {"cpus": 2.5})", "machine.cpus"},
      {R"("vm": {"dirty_bytes": null})", "vm.dirty_bytes"},
      {R"("tasks": [{"sched": 1}])", "tasks[0].sched"},
      {R"("tasks": [{"kind": 1}])", "tasks[0].kind"},
      {R"("tasks": [{"lessThrottle": "yes"}])", "tasks[0].lessThrottle"},
      {R"("tasks": [{"anonMiB": "4"}])", "tasks[0].anonMiB"},
      {R"("tasks": [{"runs": 1.5}])", "tasks[0].runs"},
      {R"("machine": {"allocator": 6})", "machine.allocator"},
      {R"("machine": {"swapDevice": null})", "machine.swapDevice"},
      {R"("vm": {"swappiness": "60"})", "vm.swappiness"},
  };
  for (const Case& c : cases) {
    const auto e = parseError(withBody(c.body));
    EXPECT_EQ(e.key(), c.key) << c.body << " -> " << e.what();
    EXPECT_EQ(std::string(e.what()).rfind(std::string("t.json: ") + c.key + ": ", 0), 0u)
        << e.what();
  }
}

TEST(ScenarioParse, AcceptsAnIntegralNumberWrittenWithAnExponent) {
  EXPECT_EQ(te::parseScenario(withBody(R"("machine": {"memoryMiB": 8e3})"), "t").machine.memoryMiB,
            8000);
}

TEST(ScenarioParse, RejectsImpossibleValues) {
  struct Case {
    const char* body;
    const char* key;
  };
  const Case cases[] = {
      {R"("vm": {"dirty_ratio": -1})", "vm.dirty_ratio"},
      {R"("vm": {"dirty_background_ratio": 101})", "vm.dirty_background_ratio"},
      {R"("vm": {"dirty_bytes": -4096})", "vm.dirty_bytes"},
      {R"("vm": {"dirty_bytes": 4096})", "vm.dirty_bytes"},
      {R"("vm": {"dirty_background_bytes": -1})", "vm.dirty_background_bytes"},
      {R"("vm": {"dirty_expire_centisecs": -1})", "vm.dirty_expire_centisecs"},
      {R"("vm": {"dirty_writeback_centisecs": -5})", "vm.dirty_writeback_centisecs"},
      {R"("machine": {"memoryMiB": 15})", "machine.memoryMiB"},
      {R"("machine": {"memoryMiB": 16777217})", "machine.memoryMiB"},
      {R"("machine": {"cpus": 0})", "machine.cpus"},
      {R"("machine": {"cpus": 4097})", "machine.cpus"},
      {R"("machine": {"hz": 200})", "machine.hz"},
      {R"("device": {"writeMBps": 0})", "device.writeMBps"},
      {R"("device": {"writeMBps": 1e-320})", "device.writeMBps"},
      {R"("device": {"writeMBps": 1e-11})", "device.writeMBps"},
      {R"("device": {"writeMBps": 0.0009})", "device.writeMBps"},
      {R"("device": {"readMBps": 1e-11})", "device.readMBps"},
      {R"("device": {"seekMs": -1})", "device.seekMs"},
      {R"("device": {"maxRequestKiB": 2})", "device.maxRequestKiB"},
      {R"("device": {"nrRequests": 3})", "device.nrRequests"},
      {R"("device": {"minRatio": 101})", "device.minRatio"},
      {R"("device": {"minRatio": 60, "maxRatio": 50})", "device.minRatio"},
      {R"("device": {"name": ""})", "device.name"},
      {R"("devices": [])", "devices"},
      {R"("devices": [{"name": "sda"}, {"name": "sda"}])", "devices[1].name"},
      {R"("device": {}, "devices": [{}])", "devices"},
      {R"("tasks": [{"count": -1}])", "tasks[0].count"},
      {R"("tasks": [{"count": 100001}])", "tasks[0].count"},
      {R"("tasks": [{"count": 60000}, {"count": 50000}])", "tasks"},
      {R"("tasks": [{"blockKiB": 2}])", "tasks[0].blockKiB"},
      {R"("tasks": [{"fileMiB": 0}])", "tasks[0].fileMiB"},
      {R"("tasks": [{"copyMBps": 0}])", "tasks[0].copyMBps"},
      {R"("tasks": [{"copyMBps": 1e-300}])", "tasks[0].copyMBps"},
      {R"("tasks": [{"thinkMs": -1}])", "tasks[0].thinkMs"},
      {R"("tasks": [{"startS": -1}])", "tasks[0].startS"},
      {R"("tasks": [{"sched": "fifo", "rtPriority": 0}])", "tasks[0].rtPriority"},
      {R"("tasks": [{"sched": "rr", "rtPriority": 100}])", "tasks[0].rtPriority"},
      {R"("tasks": [{"sched": "other", "rtPriority": 10}])", "tasks[0].rtPriority"},
      {R"("tasks": [{"sched": "batch"}])", "tasks[0].sched"},
      {R"("tasks": [{"nice": 20}])", "tasks[0].nice"},
      {R"("tasks": [{"nice": -21}])", "tasks[0].nice"},
      {R"("tasks": [{"kind": "reader"}])", "tasks[0].kind"},
      {R"("tasks": [{"name": ""}])", "tasks[0].name"},
      {R"("tasks": [{}, {"device": "sdz"}])", "tasks[1].device"},
      {R"("durationS": 0)", "durationS"},
      {R"("durationS": 1e8)", "durationS"},
      {R"("sampleIntervalS": 0.0001)", "sampleIntervalS"},
      {R"("sampleIntervalS": 61)", "sampleIntervalS"},
      {R"("policy": "nope")", "policy"},
      {R"("seed": -1)", "seed"},
      {R"("seed": 1.5)", "seed"},
      {R"("name": "two\nlines")", "name"},
      {R"("machine": {"swapMiB": -1})", "machine.swapMiB"},
      {R"("machine": {"swapMiB": 16777217})", "machine.swapMiB"},
      {R"("machine": {"swapDevice": "sdz"})", "machine.swapDevice"},
      {R"("machine": {"allocator": "2.4"})", "machine.allocator"},
      {R"("machine": {"allocator": ""})", "machine.allocator"},
      {R"("vm": {"swappiness": -1})", "vm.swappiness"},
      {R"("vm": {"swappiness": 201})", "vm.swappiness"},
      {R"("vm": {"min_free_kbytes": 127})", "vm.min_free_kbytes"},
      {R"("vm": {"min_free_kbytes": 4194305})", "vm.min_free_kbytes"},
      {R"("vm": {"min_free_kbytes": -1})", "vm.min_free_kbytes"},
      {R"("vm": {"watermark_scale_factor": 0})", "vm.watermark_scale_factor"},
      {R"("vm": {"watermark_scale_factor": 3001})", "vm.watermark_scale_factor"},
      {R"("tasks": [{"runs": -1}])", "tasks[0].runs"},
      {R"("tasks": [{"anonMiB": -0.5}])", "tasks[0].anonMiB"},
      {R"("tasks": [{"allocMBps": 0}])", "tasks[0].allocMBps"},
      {R"("tasks": [{"allocMBps": 5e-324}])", "tasks[0].allocMBps"},
      {R"("tasks": [{"cpuS": -1}])", "tasks[0].cpuS"},
      {R"("tasks": [{"kind": "compiler", "cpuS": 1e-13}])", "tasks[0].cpuS"},
      {R"("tasks": [{"holdS": -1}])", "tasks[0].holdS"},
      {R"("tasks": [{"oomScoreAdj": 1001}])", "tasks[0].oomScoreAdj"},
      {R"("tasks": [{"oomScoreAdj": -1001}])", "tasks[0].oomScoreAdj"},
      {R"("tasks": [{"kind": "compiler"}])", "tasks[0].cpuS"},
      {R"("tasks": [{"kind": "allocator", "cpuS": 5}])", "tasks[0].anonMiB"},
      {R"("tasks": [{"kind": "writer", "fileMiB": 0}])", "tasks[0].fileMiB"},
      {R"("tasks": [{"kind": "Writer"}])", "tasks[0].kind"},
  };
  for (const Case& c : cases) {
    const auto e = parseError(withBody(c.body));
    EXPECT_EQ(e.key(), c.key) << c.body << " -> " << e.what();
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(std::string("t.json: ") + c.key + ": ", 0), 0u) << what;
    EXPECT_TRUE(oneLine(what)) << what;
  }
}

// A speed so small it is a denormal (1e-320) made a request outlast the 64-bit nanosecond
// clock and complete at once: the disk wrote 7,348 MB/s. Speeds now have a lower bound, named
// with the key in the message.
TEST(ScenarioParse, SpeedsHaveALowerBoundThatTheMessageNames) {
  EXPECT_STREQ(parseError(withBody(R"("device": {"writeMBps": 1e-11})")).what(),
               "t.json: device.writeMBps: must be between 0.001 and 1e+06, got 1e-11");
  EXPECT_STREQ(parseError(withBody(R"("device": {"readMBps": 1e-320})")).what(),
               "t.json: device.readMBps: must be 0 (the write speed) or between 0.001 and 1e+06, "
               "got 1e-320");
  EXPECT_STREQ(parseError(withBody(R"("tasks": [{"kind": "compiler", "cpuS": 1e-9}])")).what(),
               "t.json: tasks[0].cpuS: must be 0 or between 1e-06 and 1e+07, got 1e-09");
  // The bounds themselves are accepted.
  const te::Scenario s = te::parseScenario(
      withBody(R"("device": {"writeMBps": 0.001, "readMBps": 0.001}, "tasks": [{"copyMBps": 0.001},
                  {"kind": "compiler", "cpuS": 1e-6, "allocMBps": 0.001}])"),
      "t.json");
  EXPECT_DOUBLE_EQ(s.devices[0].writeMBps, 0.001);
  EXPECT_DOUBLE_EQ(s.tasks[1].cpuS, 1e-6);
}

TEST(ScenarioParse, RejectsUnsupportedOrMissingSchemaVersion) {
  EXPECT_EQ(parseError(R"({"schemaVersion": 2})").key(), "schemaVersion");
  EXPECT_EQ(parseError(R"({"name": "x"})").key(), "schemaVersion");
  EXPECT_EQ(parseError("[1, 2]").key(), "");
}

TEST(ScenarioParse, NamesTheMissingDeviceAndTheDevicesThatExist) {
  const auto e = parseError(withBody(R"("tasks": [{"device": "sdb"}])"));
  EXPECT_NE(std::string(e.what()).find("no device named \"sdb\" (devices: sda)"), std::string::npos)
      << e.what();
}

TEST(ScenarioParse, ListsTheKnownPoliciesForAnUnknownOne) {
  const auto e = parseError(withBody(R"("policy": "fair")"));
  for (const auto& name : te::Simulator::policyNames())
    EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
}

TEST(ScenarioParse, AllowsDirtyBytesAndDirtyRatioTogether) {
  const te::Scenario s =
      te::parseScenario(withBody(R"("vm": {"dirty_ratio": 20, "dirty_bytes": 104857600})"), "t");
  EXPECT_EQ(s.vm.dirtyRatio, 20);
  EXPECT_EQ(s.vm.dirtyBytes, 104857600);
}

TEST(ScenarioParse, AcceptsTheWholeUnsigned64BitSeedRange) {
  EXPECT_EQ(te::parseScenario(withBody(R"("seed": 18446744073709551615)"), "t").seed,
            std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(te::parseScenario(withBody(R"("seed": 0)"), "t").seed, 0u);
}

TEST(ScenarioParse, RejectsDeepNestingWithoutRecursing) {
  const std::string deep = std::string(200000, '[') + std::string(200000, ']');
  EXPECT_EQ(parseError(deep).key(), "");
  const std::string deepInName =
      withBody("\"name\": " + std::string(100000, '{') + std::string(100000, '}'));
  EXPECT_EQ(parseError(deepInName).key(), "");
}

TEST(ScenarioParse, RejectsTrailingGarbage) {
  EXPECT_EQ(parseError(withBody("") + " {}").key(), "");
}

// ---------------------------------------------------------------------------------------------

TEST(ScenarioOverride, SetsAKeyTheFileLeftOut) {
  const te::Scenario s =
      te::parseScenario(withBody(""), "t", {{"vm.dirty_bytes", "10485760"}, {"machine.cpus", "2"}});
  EXPECT_EQ(s.vm.dirtyBytes, 10485760);
  EXPECT_EQ(s.machine.cpus, 2);
}

TEST(ScenarioOverride, SetsATaskFieldByIndex) {
  const te::Scenario s = te::parseScenario(kIssueExample, "t", {{"tasks[0].count", "3"}});
  EXPECT_EQ(s.tasks.at(0).count, 3);
}

TEST(ScenarioOverride, TakesAValueThatIsNotJsonAsAString) {
  EXPECT_EQ(te::parseScenario(withBody(""), "t", {{"policy", "ioless"}}).policy, "ioless");
  EXPECT_EQ(te::parseScenario(withBody(""), "t", {{"name", "my run"}}).name, "my run");
  EXPECT_EQ(te::parseScenario(withBody(""), "t", {{"name", "\"42\""}}).name, "42");
}

TEST(ScenarioOverride, DeviceMeansTheFirstDeviceOfADeviceList) {
  const te::Scenario s =
      te::parseScenario(withBody(R"("devices": [{"name": "sda"}, {"name": "sdb"}])"), "t",
                        {{"device.writeMBps", "99"}, {"devices[1].seekMs", "0"}});
  EXPECT_DOUBLE_EQ(s.devices.at(0).writeMBps, 99);
  EXPECT_DOUBLE_EQ(s.devices.at(1).seekMs, 0);
  EXPECT_DOUBLE_EQ(s.devices.at(1).writeMBps, te::DeviceConfig{}.writeMBps);
}

TEST(ScenarioOverride, FirstEntryOfDevicesMeansTheSingleDevice) {
  const te::Scenario s = te::parseScenario(kIssueExample, "t", {{"devices[0].writeMBps", "10"}});
  EXPECT_DOUBLE_EQ(s.devices.at(0).writeMBps, 10);
  EXPECT_EQ(parseError(kIssueExample, {{"devices[1].writeMBps", "10"}}).key(), "devices[1]");
}

TEST(ScenarioOverride, IsValidatedLikeTheFileAndBlamesTheCommandLine) {
  const auto e = parseError(kIssueExample, {{"vm.dirty_ratio", "120"}});
  EXPECT_EQ(e.key(), "vm.dirty_ratio");
  EXPECT_STREQ(e.what(), "command line: vm.dirty_ratio: must be between 0 and 100, got 120");
}

TEST(ScenarioOverride, RejectsAnIndexOutOfRange) {
  const auto e = parseError(kIssueExample, {{"tasks[5].count", "1"}});
  EXPECT_EQ(e.key(), "tasks[5]");
  EXPECT_NE(std::string(e.what()).find("out of range"), std::string::npos) << e.what();
}

TEST(ScenarioOverride, RejectsAPathOutsideTheSchema) {
  const auto e = parseError(kIssueExample, {{"vm.dirty_ratoi", "10"}});
  EXPECT_EQ(e.key(), "vm.dirty_ratoi");
  EXPECT_STREQ(
      e.what(),
      "command line: vm.dirty_ratoi: unknown key 'dirty_ratoi' (did you mean 'dirty_ratio'?)");
  EXPECT_EQ(parseError(kIssueExample, {{"gpu.count", "1"}}).key(), "gpu");
  EXPECT_EQ(parseError(kIssueExample, {{"vm.dirty_ratio.x", "1"}}).key(), "vm.dirty_ratio");
  EXPECT_EQ(parseError(kIssueExample, {{"tasks.count", "1"}}).key(), "tasks");
  EXPECT_EQ(parseError(kIssueExample, {{"tasks[x].count", "1"}}).key(), "tasks[x].count");
  EXPECT_EQ(parseError(kIssueExample, {{"", "1"}}).key(), "");
}

TEST(ScenarioOverride, AppliesInOrderSoTheLastOneWins) {
  const te::Scenario s =
      te::parseScenario(kIssueExample, "t", {{"machine.cpus", "2"}, {"machine.cpus", "3"}});
  EXPECT_EQ(s.machine.cpus, 3);
}

// ---------------------------------------------------------------------------------------------

TEST(ScenarioJson, RoundTripsEveryBuiltin) {
  for (const auto& name : te::builtinScenarioNames()) {
    const te::Scenario s = te::loadScenario(name);
    EXPECT_EQ(te::parseScenario(te::scenarioToJson(s), "round-trip"), s) << name;
  }
}

TEST(ScenarioJson, RoundTripsAwkwardValues) {
  te::Scenario s;
  s.name = "awkward \"quoted\" name";
  s.description = "line one\nline two, ünïcödé";
  s.seed = std::numeric_limits<std::uint64_t>::max();
  s.durationS = 0.1 + 0.2;
  s.sampleIntervalS = 1.0 / 3.0;
  s.devices = {te::DeviceConfig{.name = "sda", .writeMBps = 57.123456789},
               te::DeviceConfig{.name = "nvme0n1", .seekMs = 0, .strictLimit = true}};
  s.vm.dirtyBytes = 123456789;
  s.tasks = {te::TaskSpec{.name = "rt",
                          .count = 2,
                          .sched = te::SchedClass::RoundRobin,
                          .rtPriority = 99,
                          .device = "nvme0n1"},
             te::TaskSpec{.count = 0, .thinkMs = 1e-3, .nice = 19, .device = ""},
             te::TaskSpec{.name = "cc1",
                          .kind = te::TaskKind::Compiler,
                          .fileMiB = 0,
                          .runs = 3,
                          .anonMiB = 1.0 / 3.0,
                          .allocMBps = 123.456,
                          .cpuS = 0.1,
                          .oomScoreAdj = -999},
             te::TaskSpec{.name = "vm",
                          .kind = te::TaskKind::Allocator,
                          .anonMiB = 700,
                          .holdS = 1e-6,
                          .lessThrottle = true}};
  s.machine.swapMiB = 1024;
  s.machine.swapDevice = "nvme0n1";
  s.machine.allocator = "2.6.0-no-rt";
  s.vm.swappiness = 0;
  s.vm.minFreeKbytes = 4194304;
  s.vm.watermarkScaleFactor = 1;
  te::validateScenario(s);
  const std::string json = te::scenarioToJson(s);
  EXPECT_NE(json.find("\"devices\""), std::string::npos);
  EXPECT_EQ(te::parseScenario(json, "round-trip"), s);
}

TEST(ScenarioJson, WritesASingleDeviceAsDevice) {
  const std::string json = te::scenarioToJson(te::Scenario{});
  EXPECT_NE(json.find("\"device\""), std::string::npos);
  EXPECT_EQ(json.find("\"devices\""), std::string::npos);
}

// ---------------------------------------------------------------------------------------------

TEST(ScenarioValidate, RejectsValuesTheWindowCouldProduce) {
  te::Scenario s;
  s.machine.cpus = 0;
  try {
    te::validateScenario(s);
    FAIL() << "accepted zero CPUs";
  } catch (const te::ScenarioError& e) {
    EXPECT_EQ(e.key(), "machine.cpus");
  }
  s = te::Scenario{};
  s.durationS = std::nan("");
  EXPECT_THROW(te::validateScenario(s), te::ScenarioError);
  s = te::Scenario{};
  s.devices.push_back(te::DeviceConfig{.name = "sdb", .writeMBps = -1});
  try {
    te::validateScenario(s);
    FAIL() << "accepted a negative write speed";
  } catch (const te::ScenarioError& e) {
    EXPECT_EQ(e.key(), "devices[1].writeMBps");
  }
}

TEST(ScenarioValidate, AcceptsTheDefaults) {
  EXPECT_NO_THROW(te::validateScenario(te::Scenario{}));
}

TEST(ScenarioDevice, IndexOfAnUnnamedDeviceIsTheFirst) {
  te::Scenario s;
  s.tasks.push_back(te::TaskSpec{});
  EXPECT_EQ(te::deviceIndexOf(s, s.tasks[0]), 0u);
  s.tasks[0].device = "missing";
  try {
    te::deviceIndexOf(s, s.tasks[0]);
    FAIL() << "found a device that does not exist";
  } catch (const te::ScenarioError& e) {
    EXPECT_EQ(e.key(), "tasks[0].device");
  }
}

TEST(ScenarioTaskKind, NamesRoundTrip) {
  for (const auto k : {te::TaskKind::Writer, te::TaskKind::Compiler, te::TaskKind::Allocator})
    EXPECT_EQ(te::taskKindFromString(te::toString(k)), k);
  EXPECT_EQ(te::toString(te::TaskKind::Allocator), "allocator");
  EXPECT_FALSE(te::taskKindFromString("Compiler").has_value());
  EXPECT_FALSE(te::taskKindFromString("").has_value());
}

TEST(ScenarioSched, NamesRoundTrip) {
  for (const auto c : {te::SchedClass::Other, te::SchedClass::Fifo, te::SchedClass::RoundRobin})
    EXPECT_EQ(te::schedClassFromString(te::toString(c)), c);
  EXPECT_EQ(te::toString(te::SchedClass::RoundRobin), "rr");
  EXPECT_FALSE(te::schedClassFromString("FIFO").has_value());
  EXPECT_FALSE(te::schedClassFromString("").has_value());
}

// ---------------------------------------------------------------------------------------------

TEST(ScenarioBuiltin, IncludesTenDdAndTheDefault) {
  const auto names = te::builtinScenarioNames();
  EXPECT_NE(std::find(names.begin(), names.end(), "ten-dd"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), te::kDefaultScenarioName), names.end());
  const te::Scenario tenDd = te::loadScenario("ten-dd");
  ASSERT_EQ(tenDd.tasks.size(), 1u);
  EXPECT_EQ(tenDd.tasks[0].count, 10);
  EXPECT_FALSE(te::builtinScenarioJson("no-such-scenario").has_value());
}

TEST(ScenarioBuiltin, EveryBuiltinNameMatchesItsFileAndParses) {
  for (const auto& name : te::builtinScenarioNames()) {
    const auto json = te::builtinScenarioJson(name);
    ASSERT_TRUE(json.has_value()) << name;
    EXPECT_EQ(te::parseScenario(*json, name).name, name);
  }
}

TEST(ScenarioLoad, UnknownNameListsTheBuiltins) {
  try {
    te::loadScenario("no-such-scenario");
    FAIL() << "loaded a scenario that does not exist";
  } catch (const te::ScenarioError& e) {
    EXPECT_EQ(e.key(), "");
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("no-such-scenario: ", 0), 0u) << what;
    for (const auto& name : te::builtinScenarioNames())
      EXPECT_NE(what.find(name), std::string::npos) << what;
  }
}

TEST(ScenarioLoad, PrefersAFileAndNamesItInMessages) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("tl-scenario-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto good = dir / "good.json";
  std::ofstream(good) << withBody(R"("name": "from-file", "machine": {"cpus": 3})");
  EXPECT_EQ(te::loadScenario(good.string()).machine.cpus, 3);
  EXPECT_EQ(te::loadScenario(good.string(), {{"machine.cpus", "5"}}).machine.cpus, 5);

  const auto bad = dir / "bad.json";
  std::ofstream(bad) << withBody(R"("vm": {"dirty_ratio": 120})");
  try {
    te::loadScenario(bad.string());
    FAIL() << "loaded an impossible scenario";
  } catch (const te::ScenarioError& e) {
    EXPECT_EQ(std::string(e.what()),
              bad.string() + ": vm.dirty_ratio: must be between 0 and 100, got 120");
  }
  EXPECT_THROW(te::loadScenario(dir.string()), te::ScenarioError);
  std::filesystem::remove_all(dir);
}

TEST(ScenarioLoad, EmptyNameMeansTheDefaultScenario) {
  EXPECT_EQ(te::loadScenario(""), te::loadScenario(te::kDefaultScenarioName));
}

// ---------------------------------------------------------------------------------------------

// Random bytes and mutations of real scenarios: parsing must end in a Scenario or in one
// ScenarioError with a one-line message; anything else (a crash, another exception) fails.
TEST(ScenarioFuzz, NeverCrashesOnMutatedInput) {
  std::mt19937_64 rng(12345);
  std::vector<std::string> seeds;
  for (const auto& name : te::builtinScenarioNames())
    seeds.push_back(*te::builtinScenarioJson(name));
  seeds.emplace_back(kIssueExample);
  const std::string alphabet = "{}[],:\"0123456789.-+eE truefalsnul\\/\x01\xff\xc3\xa9";
  int accepted = 0;
  int rejected = 0;
  for (int i = 0; i < 4000; ++i) {
    std::string input;
    if (i % 10 == 0) {
      input.resize(rng() % 200);
      for (char& c : input) c = static_cast<char>(rng() % 256);
    } else {
      input = seeds[rng() % seeds.size()];
      const int edits = 1 + static_cast<int>(rng() % 4);
      for (int k = 0; k < edits && !input.empty(); ++k) {
        const std::size_t pos = rng() % input.size();
        switch (rng() % 4) {
          case 0:
            input.erase(pos, 1 + rng() % 8);
            break;
          case 1:
            input.insert(pos, 1, alphabet[rng() % alphabet.size()]);
            break;
          case 2:
            input[pos] = alphabet[rng() % alphabet.size()];
            break;
          default:
            input.insert(pos, input.substr(rng() % input.size(), rng() % 40));
            break;
        }
      }
    }
    std::vector<te::Override> overrides;
    if (i % 7 == 0) overrides.push_back({"tasks[0].count", std::to_string(rng() % 200)});
    if (i % 11 == 0) overrides.push_back({"vm.dirty_ratio", input.substr(0, rng() % 10)});
    try {
      const te::Scenario s = te::parseScenario(input, "fuzz.json", overrides);
      EXPECT_NO_THROW(te::validateScenario(s));
      ++accepted;
    } catch (const te::ScenarioError& e) {
      const std::string what = e.what();
      EXPECT_TRUE(oneLine(what)) << what;
      EXPECT_TRUE(what.rfind("fuzz.json: ", 0) == 0 || what.rfind("command line: ", 0) == 0)
          << what;
      ++rejected;
    }
  }
  // The mutations must exercise both outcomes, or the loop tested nothing.
  EXPECT_GT(accepted, 50);
  EXPECT_GT(rejected, 1000);
}

namespace throttlelab::engine {
namespace {
TEST(ScenarioDevice, ReadBandwidthIsParsedCheckedAndRoundTrips) {
  const std::string json =
      R"({"schemaVersion": 1, "device": {"name": "sda", "writeMBps": 50, "readMBps": 80}})";
  const Scenario s = parseScenario(json, "t.json");
  EXPECT_EQ(s.devices[0].readMBps, 80);
  EXPECT_EQ(parseScenario(scenarioToJson(s), "round-trip"), s);
  try {
    parseScenario(R"({"schemaVersion": 1, "device": {"readMBps": -1}})", "t.json");
    FAIL() << "a negative read bandwidth was accepted";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.key(), "device.readMBps");
  }
}
}  // namespace
}  // namespace throttlelab::engine
