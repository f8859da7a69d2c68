// SPDX-License-Identifier: GPL-3.0-or-later
// The importer's memory must not depend on the file's size: importing 100 MB may not cost
// more resident memory than importing 10 MB, give or take a little. Peak RSS (VmHWM) is
// reset through /proc/self/clear_refs before each import. Not a timing test.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "proc_status.h"
#include "test_support.h"

namespace {

// te, ti, the sinks and the file helpers.
using namespace throttlelab::test;

long statusKiB(const char* field) {
  return throttlelab::test::procStatusKiB(field, -1);
}

bool resetPeakRss() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  out.flush();
  return static_cast<bool>(out);
}

/// Writes `bytes` of trace: 200 dd pids on two devices taking turns, 10 ms apart, through a
/// small buffer (the test itself must not hold the file in memory).
void writeTrace(const std::string& path, std::int64_t bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::int64_t written = 0;
  for (std::int64_t i = 0; written < bytes; ++i) {
    const int pid = 1000 + static_cast<int>(i % 200);
    const te::TraceHeader h{.time = te::SimTime{te::SimDuration{i * 10'000'000}},
                            .comm = te::makeComm("dd"),
                            .pid = pid,
                            .cpu = static_cast<int>(i % 4)};
    te::TraceRecord r;
    switch (i % 3) {
      case 0:
        r = te::GlobalDirtyState{.header = h,
                                 .dirty = 1000 + i % 97,
                                 .writeback = 50,
                                 .bgThresh = 500,
                                 .thresh = 1000,
                                 .limit = 1000,
                                 .dirtied = i,
                                 .written = i};
        break;
      case 1:
        r = te::BdiDirtyRatelimit{.header = h,
                                  .bdi = (i % 2) ? "8:0" : "8:16",
                                  .writeBw = 100000,
                                  .awriteBw = 99000,
                                  .dirtyRate = 98000,
                                  .dirtyRatelimit = 500,
                                  .taskRatelimit = 510,
                                  .balancedDirtyRatelimit = 490};
        break;
      default:
        r = te::BalanceDirtyPages{.header = h,
                                  .bdi = (i % 2) ? "8:0" : "8:16",
                                  .limit = 1000,
                                  .setpoint = 875,
                                  .dirty = 900,
                                  .wbSetpoint = 400,
                                  .wbDirty = 410,
                                  .dirtyRatelimit = 500,
                                  .taskRatelimit = 480,
                                  .dirtied = 32,
                                  .dirtiedPause = 32,
                                  .pause = 4 + i % 20,
                                  .period = 8};
        break;
    }
    std::string line = te::formatTraceLine(r);
    line += '\n';
    std::fwrite(line.data(), 1, line.size(), f);
    written += static_cast<std::int64_t>(line.size());
  }
  std::fclose(f);
}

/// Keeps nothing, like the command line streaming to files.
struct CountingSink final : ti::ImportSink {
  void onSample(const te::Sample&) override { ++samples; }
  void onTaskSample(const te::TaskSample&) override { ++taskSamples; }
  std::int64_t samples = 0;
  std::int64_t taskSamples = 0;
};

/// Peak RSS growth (KiB) while importing `path`.
long importPeakGrowth(const std::string& path, ti::ImportStats* stats) {
  if (!resetPeakRss()) return -1;
  const long before = statusKiB("VmRSS");
  CountingSink sink;
  const auto r = ti::importTrace(path, sink);
  EXPECT_TRUE(r.ok()) << r.error;
  *stats = r.stats;
  return statusKiB("VmHWM") - before;
}

TEST(TraceImportMemory, PeakRssDoesNotGrowWithTheFileSize) {
  TempDir dir;
  const std::string small = (dir / "10mb.txt").string();
  const std::string large = (dir / "100mb.txt").string();
  writeTrace(small, 10'000'000);
  writeTrace(large, 100'000'000);
  if (!resetPeakRss()) GTEST_SKIP() << "/proc/self/clear_refs cannot reset the peak RSS here";

  ti::ImportStats smallStats, largeStats;
  const long smallGrowth = importPeakGrowth(small, &smallStats);
  const long largeGrowth = importPeakGrowth(large, &largeStats);
  ASSERT_GE(smallGrowth, 0);
  ASSERT_GE(largeGrowth, 0);
  // The files really differ tenfold and were read to the end.
  EXPECT_GT(largeStats.events, 9 * smallStats.events);
  EXPECT_EQ(largeStats.bytes, static_cast<std::int64_t>(std::filesystem::file_size(large)));
  RecordProperty("peak_rss_growth_10MB_KiB", std::to_string(smallGrowth));
  RecordProperty("peak_rss_growth_100MB_KiB", std::to_string(largeGrowth));
  std::cout << "peak RSS growth: 10 MB file " << smallGrowth << " KiB, 100 MB file " << largeGrowth
            << " KiB\n";
  // A 1 MiB read buffer, the converter's per-pid and per-device numbers and one interval's
  // pauses: a few MiB at most, and the same for both files.
  EXPECT_LT(largeGrowth, 16 * 1024);
  EXPECT_LT(largeGrowth, smallGrowth + 4 * 1024);
}

}  // namespace
