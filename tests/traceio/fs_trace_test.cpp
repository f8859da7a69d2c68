// SPDX-License-Identifier: GPL-3.0-or-later
// The block layer's and jbd2's tracepoints in a simulated trace (docs/model.md, Outputs): one
// block_rq_issue and block_rq_complete per request the device serves, a jbd2_start_commit and
// jbd2_end_commit per journal commit, and the importer still reads such a trace.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "throttlelab/engine/output.h"
#include "throttlelab/engine/simulator.h"
#include "throttlelab/traceio/trace_import.h"

namespace te = throttlelab::engine;
namespace ti = throttlelab::traceio;

namespace {

struct Collect : te::RecordSink {
  std::vector<te::BlockRq> rqs;
  std::vector<te::Jbd2Commit> commits;
  std::vector<te::Sample> samples;
  std::string text;
  void onSample(const te::Sample& s) override { samples.push_back(s); }
  void onTrace(const te::TraceRecord& r) override {
    text += te::formatTraceLine(r);
    text += '\n';
  }
  void onFsTrace(const te::FsTraceRecord& r) override {
    if (const auto* b = std::get_if<te::BlockRq>(&r)) rqs.push_back(*b);
    if (const auto* j = std::get_if<te::Jbd2Commit>(&r)) commits.push_back(*j);
    text += te::formatTraceLine(r);
    text += '\n';
  }
};

te::Scenario ext4Scenario() {
  te::Scenario s;
  s.durationS = 22;
  s.devices[0].fileSystem = "ext4";
  te::TaskSpec dd;  // two dd writing on and on
  dd.count = 2;
  s.tasks = {dd};
  return s;
}

std::string rwbs(const te::BlockRq& b) {
  return std::string(b.rwbs.data());
}

TEST(FsTrace, EveryServedRequestIsIssuedThenCompletedWithItsSectors) {
  Collect sink;
  te::Simulator sim(ext4Scenario());
  sim.setSink(&sink, te::OutputOptions{.traces = true});
  sim.run();
  ASSERT_FALSE(sink.samples.empty());
  const te::Sample& last = sink.samples.back();
  ASSERT_FALSE(last.devices.empty());

  std::int64_t completes = 0, sectors = 0, journalWrites = 0;
  const te::BlockRq* issued = nullptr;
  for (const auto& b : sink.rqs) {
    EXPECT_EQ(b.major, 8u);
    EXPECT_EQ(b.minor, 0u);
    if (!b.complete) {
      // One request in service at a time: an issue only once the previous one completed.
      EXPECT_EQ(issued, nullptr) << "issue at " << te::toSeconds(b.header.time);
      issued = &b;
      continue;
    }
    ASSERT_NE(issued, nullptr) << "complete without issue at " << te::toSeconds(b.header.time);
    EXPECT_EQ(b.sector, issued->sector);
    EXPECT_EQ(b.nrSector, issued->nrSector);
    EXPECT_EQ(rwbs(b), rwbs(*issued));
    EXPECT_GT(b.header.time, issued->header.time);
    issued = nullptr;
    if (b.header.time <= last.time) {
      ++completes;
      sectors += b.nrSector;
    }
    if (rwbs(b) == "WS") ++journalWrites;
  }
  // The device's own counters at the last sample: the same requests and sectors.
  EXPECT_GT(completes, 100);
  EXPECT_EQ(completes, last.devices[0].requests);
  EXPECT_EQ(sectors, last.devices[0].sectorsWritten);
  EXPECT_GT(journalWrites, 0);  // the commits' log and commit-record writes
}

TEST(FsTrace, Jbd2CommitsEveryFiveSecondsWithConsecutiveTransactions) {
  Collect sink;
  te::Simulator sim(ext4Scenario());
  sim.setSink(&sink, te::OutputOptions{.traces = true});
  sim.run();
  std::vector<double> starts;
  std::int64_t ends = 0, lastTid = 0;
  for (const auto& j : sink.commits) {
    if (!j.end) {
      EXPECT_EQ(j.transaction, lastTid + 1);
      lastTid = j.transaction;
      starts.push_back(te::toSeconds(j.header.time));
    } else {
      EXPECT_EQ(j.transaction, lastTid);  // ends the commit that started last
      EXPECT_EQ(j.head, j.transaction);
      ++ends;
    }
    EXPECT_EQ(j.sync, 0);  // no fsync in this scenario
  }
  ASSERT_GE(starts.size(), 4u);
  for (std::size_t i = 1; i < starts.size(); ++i)
    EXPECT_NEAR(starts[i] - starts[i - 1], 5.0, 0.5) << "commit " << i;
  EXPECT_EQ(ends, sim.summary().journalCommits);
}

TEST(FsTrace, LinesAreInTheKernelsFormatAndTheImporterSkipsThem) {
  Collect sink;
  te::Simulator sim(ext4Scenario());
  sim.setSink(&sink, te::OutputOptions{.traces = true});
  sim.run();
  ASSERT_FALSE(sink.rqs.empty());
  ASSERT_FALSE(sink.commits.empty());
  const std::string issue = te::formatTraceLine(te::FsTraceRecord{sink.rqs.front()});
  const auto& r = sink.rqs.front();
  EXPECT_NE(issue.find("block_rq_issue: 8,0 " + rwbs(r) + " " + std::to_string(r.nrSector * 512) +
                       " () " + std::to_string(r.sector) + " + " + std::to_string(r.nrSector) +
                       " [<idle>]"),
            std::string::npos)
      << issue;
  const std::string complete = te::formatTraceLine(te::FsTraceRecord{sink.rqs[1]});
  EXPECT_NE(complete.find("block_rq_complete: 8,0 W () " + std::to_string(r.sector) + " + " +
                          std::to_string(r.nrSector) + " [0]"),
            std::string::npos)
      << complete;
  const std::string end = te::formatTraceLine(te::FsTraceRecord{sink.commits[1]});
  EXPECT_NE(end.find("jbd2/sda-8-0"), std::string::npos) << end;
  EXPECT_NE(end.find("jbd2_end_commit: dev 8,0 transaction 1 sync 0 head 1"), std::string::npos)
      << end;

  std::ostringstream header;
  te::writeTraceHeader(header);
  ti::ImportSink nothing;
  const auto result = ti::importTraceText(header.str() + sink.text, nothing);
  ASSERT_TRUE(result.ok()) << result.error;
  EXPECT_GT(result.stats.balanceDirtyPages, 0);
  EXPECT_EQ(result.stats.other, static_cast<std::int64_t>(sink.rqs.size() + sink.commits.size()));
}

}  // namespace
