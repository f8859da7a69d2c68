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
    const te::TraceHeader h{te::SimTime{te::SimDuration{i * 10'000'000}}, te::makeComm("dd"), pid,
                            static_cast<int>(i % 4)};
    const std::string_view bdi = (i % 2) ? "8:0" : "8:16";
    // Members in records.h order.
    te::TraceRecord r;
    switch (i % 3) {
      case 0:
        r = te::GlobalDirtyState{h, 1000 + i % 97, 50, 500, 1000, 1000, i, i};
        break;
      case 1:
        r = te::BdiDirtyRatelimit{h, bdi, 100000, 99000, 98000, 500, 510, 490, 1};
        break;
      default:
        r = te::BalanceDirtyPages{h,   bdi, 1000, 875, 900,        400, 410, 500,
                                  480, 32,  32,   0,   4 + i % 20, 8,   0,   1};
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
