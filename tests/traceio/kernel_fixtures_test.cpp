// SPDX-License-Identifier: GPL-3.0-or-later
// Real 6.18 captures (tests/data/kernel-6.18/, see its README): ftrace with 1, 10 and 100 dd,
// `trace-cmd report` and `perf script` of the same events. Every line must be understood, and
// what the importer counts must match what a plain scan of the file finds.
#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <set>

#include "test_support.h"

namespace {

namespace fs = std::filesystem;
// te, ti, the sinks and the file helpers.
using namespace throttlelab::test;

struct Expected {
  std::int64_t gds = 0, bdr = 0, bdp = 0, comments = 0;
  std::set<int> pids;  ///< of the lines that name a bdi
};

/// Counts with regular expressions, independently of the parser: the event name preceded by
/// ": " (perf adds `writeback:`), the pid as the number before `[cpu]`.
Expected scan(const std::string& text) {
  Expected e;
  const std::regex pidRe("[- ]([0-9]+) +\\[[0-9]{3}\\]");
  const std::regex bdrRe("bdi_dirty_ratelimit: +bdi ");
  const std::regex bdpRe("balance_dirty_pages: +bdi ");
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#' || line.rfind("cpus=", 0) == 0) {
      ++e.comments;
      continue;
    }
    const bool gds = line.find(" global_dirty_state: ") != std::string::npos ||
                     line.find(":global_dirty_state: ") != std::string::npos;

    // trace-cmd pads the event name: `balance_dirty_pages:  bdi 254:0:`.
    const bool bdr = std::regex_search(line, bdrRe);
    const bool bdp = std::regex_search(line, bdpRe);
    e.gds += gds;
    e.bdr += bdr;
    e.bdp += bdp;
    if (bdr || bdp) {
      std::smatch m;
      if (std::regex_search(line, m, pidRe)) e.pids.insert(std::stoi(m[1]));
    }
  }
  return e;
}

std::vector<fs::path> fixtures() {
  std::vector<fs::path> files;
  const fs::path dir = dataDir() / "kernel-6.18";
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.path().extension() == ".txt") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

ti::TraceFormat formatOf(const fs::path& p) {
  const std::string name = p.filename().string();
  if (name.rfind("perf", 0) == 0) return ti::TraceFormat::PerfScript;
  if (name.rfind("trace-cmd", 0) == 0) return ti::TraceFormat::TraceCmd;
  return ti::TraceFormat::Ftrace;
}

TEST(KernelFixtures, EveryLineIsUnderstoodAndTheCountsMatchTheFile) {
  const auto files = fixtures();
  if (files.empty()) GTEST_SKIP() << "no captures in tests/data/kernel-6.18";
  for (const auto& path : files) {
    SCOPED_TRACE(path.filename().string());
    const std::string text = readFile(path);
    const Expected want = scan(text);
    CollectSink sink;
    const auto r = ti::importTrace(path.string(), sink);
    ASSERT_TRUE(r.ok()) << r.error;
    const auto& s = r.stats;
    EXPECT_EQ(s.malformed, 0) << ti::describe(s);
    EXPECT_EQ(s.garbage, 0) << ti::describe(s);
    EXPECT_EQ(s.lines, s.events + s.other + s.comments);
    EXPECT_FALSE(s.truncatedLastLine);
    EXPECT_EQ(s.format, formatOf(path));
    EXPECT_EQ(s.globalDirtyState, want.gds);
    EXPECT_EQ(s.bdiDirtyRatelimit, want.bdr);
    EXPECT_EQ(s.balanceDirtyPages, want.bdp);
    EXPECT_EQ(s.comments, want.comments);
    // 6.18 prints every field of today's events.
    EXPECT_EQ(s.balanceDirtyPagesMissing, 0u);
    EXPECT_EQ(s.bdiDirtyRatelimitMissing, 0u);
    EXPECT_EQ(s.globalDirtyStateMissing, 0u);
    EXPECT_EQ(s.devices, std::vector<std::string>{"254:0"});
    std::set<int> announced;
    for (const auto& t : sink.tasks) announced.insert(t.pid);
    EXPECT_EQ(announced, want.pids);
    EXPECT_EQ(s.tasks, static_cast<int>(want.pids.size()));
    // The rows cover the span, one per 0.1 s.
    const double span = s.lastTimeS - s.firstTimeS;
    EXPECT_EQ(static_cast<double>(sink.samples.size()), std::floor(span / 0.1) + 1);
  }
}

TEST(KernelFixtures, TheHundredWriterCaptureHasAHundredThrottledDd) {
  const fs::path path = dataDir() / "kernel-6.18" / "ftrace-100-dd.txt";
  if (!fs::exists(path)) GTEST_SKIP() << "no 100-dd capture";
  CollectSink sink;
  const auto r = ti::importTrace(path.string(), sink);
  ASSERT_TRUE(r.ok()) << r.error;
  std::set<int> dd;
  for (const auto& t : sink.tasks)
    if (t.name == "dd") dd.insert(t.pid);
  EXPECT_EQ(dd.size(), 100u);  // the capture's README: all 100 writers throttled
}

TEST(KernelFixtures, TheSameRunReadsTheSameInEveryLayoutsFieldSet) {
  // The 10-dd captures of the three tools are different runs, but their settings were the
  // same: vm.dirty_bytes 64 MiB (thresh 16384) and dirty_background_bytes 32 MiB.
  for (const auto& path : fixtures()) {
    SCOPED_TRACE(path.filename().string());
    CollectSink sink;
    const auto r = ti::importTrace(path.string(), sink);
    ASSERT_TRUE(r.ok()) << r.error;
    ASSERT_FALSE(sink.samples.empty());
    EXPECT_EQ(sink.samples.back().threshPages, 16384);
    EXPECT_EQ(sink.samples.back().bgThreshPages, 8192);
  }
}

}  // namespace
