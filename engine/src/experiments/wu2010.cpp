// SPDX-License-Identifier: GPL-3.0-or-later
// wu2010: Wu Fengguang's table of 18 Nov 2010 — N concurrent dd on one SATA disk, 2.6.37-rc2
// (IO-ful per-bdi throttling) against his IO-less series: %system, wkB/s and avgrq-sz
// (docs/model.md, The seed experiments).
#include <cmath>

#include "metrics.h"
#include "report_format.h"

namespace throttlelab::engine {

namespace {

using namespace experiments;

constexpr std::string_view kBaseline = "perbdi-2.6.24";
constexpr std::string_view kIoless = "ioless";

// The mail's 1dd wkB/s with 2.6.37-rc2, run 1: iostat's kB are KiB.
constexpr double kMail1ddKiBps = 57357.468;
constexpr double kDiskMBps = kMail1ddKiBps * 1024 / 1e6;  // 58.73 MB/s decimal

// The light real-time writer of the remark: 1 MiB, then 100 ms of think time.
constexpr std::int64_t kRtBlockKiB = 1024;
constexpr double kRtThinkMs = 100;
constexpr double kCopyMBps = 2000;  // TaskSpec's default, cost_model.h [M]

/// One line of the mail's table: run 1 and run 2, baseline and patched.
struct MailLine {
  int dd;
  double base[3];   // %system, wkB/s, avgrq-sz with 2.6.37-rc2, run 1
  double patch[3];  // with the series, run 1
  double base2[3];  // run 2
  double patch2[3];
};
constexpr MailLine kMail[] = {
    {1,
     {13.046, 57357.468, 910.659},
     {13.060, 57632.715, 909.212},
     {12.896, 56433.152, 909.861},
     {12.467, 56294.440, 909.644}},
    {10,
     {39.442, 47745.021, 900.935},
     {20.756, 47951.702, 901.006},
     {39.204, 47484.616, 899.330},
     {20.550, 47970.093, 900.247}},
    {100,
     {30.916, 37843.000, 748.670},
     {3.079, 41654.853, 822.322},
     {30.501, 37227.521, 735.754},
     {3.744, 41531.725, 820.360}},
};

Scenario machine(bool quick) {
  Scenario s;
  s.name = "wu2010";
  s.durationS = quick ? 40 : 60;
  s.machine =
      MachineConfig{.memoryMiB = 4096, .cpus = 4, .hz = 250, .swapDevice = {}, .allocator = "6.x"};
  // The mail's kernels (2.6.37-rc with and without the IO-less series) had 4 KiB page-cache
  // pages only (docs/model.md, Large folios in the write path).
  s.machine.maxFolioOrder = 0;
  s.devices = {DeviceConfig{
      .name = "sda", .writeMBps = kDiskMBps, .seekMs = 8, .maxRequestKiB = 512, .nrRequests = 128}};
  // The mail's disk was XFS: delayed allocation, the files' extents interleaved on the disk,
  // the log (docs/model.md, The file system). Default mount options.
  s.devices.front().fileSystem = "xfs";
  s.vm.dirtyRatio = 20;
  s.vm.dirtyBackgroundRatio = 10;
  return s;
}

TaskSpec dd(int count) {
  return TaskSpec{.name = "dd",
                  .count = count,
                  .kind = TaskKind::Writer,
                  .blockKiB = 1024,
                  .fileMiB = std::int64_t{1} << 20,  // 1 TiB: never finishes in the run
                  .loop = false,
                  .copyMBps = kCopyMBps,
                  .device = {}};
}

std::string caseName(int n, std::string_view policy) {
  return std::to_string(n) + "dd " + std::string(policy);
}

std::string run2Note(double base2, double patch2, bool patched) {
  return "mail run 2: " + report::number(patched ? patch2 : base2);
}

double ratio(double a, double b) {
  return b != 0 ? a / b : std::nan("");
}

// The mail's three columns.
constexpr const char* kLabels[3] = {"%system", "wkB/s", "avgrq-sz"};
constexpr const char* kKeys[3] = {"system_pct", "write_kbps", "avgrq_sz_sectors"};
constexpr const char* kUnits[3] = {"%", "KiB/s", "sectors"};

/// (baseline, ioless) means of a metric for N dd.
std::pair<double, double> pairOf(const ExperimentResult& r, int n, const char* key) {
  return {r.value(caseName(n, kBaseline), key), r.value(caseName(n, kIoless), key)};
}

/// "%system 30.9 → 3.1 (-90.0 %)".
std::string describe(const ExperimentResult& r, int n, int k) {
  const auto [b, p] = pairOf(r, n, kKeys[k]);
  return std::string(kLabels[k]) + " " + report::number(b) + " → " + report::number(p) + " (" +
         report::percentChange(b != 0 ? (p - b) / b * 100 : std::nan("")) + ")";
}

/// Who wrote what, when, and what it said.
void describeMail(Experiment& e) {
  e.name = "wu2010";
  e.title = "IO-less dirty throttling: 1, 10 and 100 dd on one SATA disk (Wu Fengguang, 2010)";
  e.mail = "linux-kernel, Wu Fengguang, 2010-11-18, \"Re: [PATCH 00/13] IO-less dirty throttling\"";
  e.messageId = "<20101118025039.GA15479@localhost>";
  e.mailSummary =
      "Wu Fengguang answered Andrew Morton with iostat figures of N concurrent dd on a 4-core, "
      "4 GB box with one SATA disk (XFS): 2.6.37-rc2 against his IO-less series. One dirtier: "
      "the same; ten: CPU system time halved; a hundred: system time to ~10 %, IO size and "
      "throughput up ~10 %. In the same reply: real-time and interactive tasks get a 1/4 bonus "
      "on the limits, so they are only lightly throttled beside heavy dirtiers.";
}

/// The machine and workload, each with where it comes from.
void describeMachine(Experiment& e) {
  e.machine = {
      {"4 CPUs (4-core 3.2 GHz), 4 GiB RAM", "Wu's test box, as the mail states it [V text]"},
      {"HZ 250",
       "[D] not stated in the mail; 250 was the usual distribution setting in 2010, and Wu's "
       "related ext4 cp test of the series states HZ=250 (docs/model.md, The seed experiments)"},
      {"one SATA disk, " + report::number(kDiskMBps) + " MB/s sequential write",
       "the mail's 1dd wkB/s under 2.6.37-rc2 (run 1), 57357.468 KiB/s × 1024 = 58.73 MB/s: a "
       "single dd streams at the disk's rate (docs/model.md, The seed experiments)"},
      {"seek 8 ms", "[D] docs/model.md, The seed experiments"},
      {"max_sectors_kb 512 (1024 sectors)",
       "docs/model.md, The block device; the mail's single dd reaches ~910"},
      {"nr_requests 128",
       "the kernel default since 2.6.10 [V] (docs/model.md, Kernel defaults by era)"},
      {"vm.dirty_ratio 20, dirty_background_ratio 10",
       "2.6.37 defaults [V] (docs/model.md, Kernel defaults by era)"},
      {"dd bs=1M of unlimited size, each to its own file",
       "the mail's workload (docs/model.md, The seed mails)"},
      {"dd copy speed 2000 MB/s with a whole CPU",
       "the engine's default, measured on the development machine (engine/src/cost_model.h "
       "[M]); not fitted to the mail"},
      {"page allocator 6.x, no swap", "no memory pressure here; the choice does not matter"},
      {"baseline perbdi-2.6.24, patched ioless",
       "docs/model.md, The seed experiments: 2.6.37-rc2 is perbdi-2.6.24 (per-bdi IO-ful), the "
       "series ioless. The "
       "mail's figures come from the Nov-2010 v2 design, not the merged controller the model "
       "implements"},
      {"XFS with its default mount options",
       "the mail; delayed allocation, extents and the log as docs/model.md, The file system "
       "describes them"},
  };
}

/// How the cases are run and measured, and why the real-time writer fares as it does.
void describeMethod(Experiment& e, bool quick, double warmup) {
  e.method = {
      "Each case runs " + report::number(quick ? 40 : 60) +
          " s of simulated time; the figures are taken over the last " +
          report::number(quick ? 20 : 30) +
          " s, after the dirty level and the bandwidth estimate have settled. Counters are "
          "differenced between the run's summary at " +
          report::number(warmup) +
          " s and at the end; pauses are those of the balance_dirty_pages records that start "
          "inside the window.",
      "%system is the model's kernel CPU time (the dd copy from /dev/zero, throttle calls, "
      "writeback submission and the contention on the device's submission lock) as a share "
      "of 4 CPUs. Its per-page costs are measured or estimated in engine/src/cost_model.h, not "
      "fitted to this mail, so absolute %system differs from it; the claims compare the two "
      "policies with each other.",
      "Per-writer rate: each dd's pages dirtied in the window against write_bw / N, where "
      "write_bw is the disk's wkB/s in the window; the figure is the largest relative "
      "deviation.",
      "Why the real-time writer is throttled more than 'lightly' here: its quarter bonus raises "
      "its thresh, and in the merged controller a real-time caller's thresh also lifts the "
      "global dirty_limit (docs/model.md, Eq. 8), which raises the setpoint of every normal "
      "writer; dirty then "
      "settles above the real-time writer's own freerun. Wu's remark was about his November "
      "2010 design (a per-task soft band), not the controller that was merged.",
      "Real-time remark: beside 10 heavy dd, one SCHED_FIFO writer writes 1 MiB every 100 ms "
      "(≈ 10 MB/s, well below the disk), the light 'interactive/rtprio' task of Morton's "
      "question; we compare the share of its time it spends paused, and its rate, with the "
      "normal writers'.",
  };
}

/// One line of the mail's table under one policy: its three columns with the mail's figures,
/// the pause (ioless) and the per-writer rate.
ExperimentCase mailCase(const MailLine& line, std::string_view policy, bool quick, double warmup) {
  const std::function<double(const CaseRun&)> reads[3] = {
      [](const CaseRun& r) { return r.window.systemPct; },
      [](const CaseRun& r) { return r.window.writeKBps; },
      [](const CaseRun& r) { return r.window.avgrqSzSectors; },
  };

  const bool patched = policy == kIoless;
  ExperimentCase c;
  c.name = caseName(line.dd, policy);
  c.row = std::to_string(line.dd) + "dd";
  c.column = std::string(policy);
  c.scenario = machine(quick);
  c.scenario.policy = std::string(policy);
  c.scenario.tasks = {dd(line.dd)};
  c.measureFromS = warmup;
  c.collectPauses = patched;
  for (int k = 0; k < 3; ++k) {
    const double mail = patched ? line.patch[k] : line.base[k];
    c.metrics.push_back(withSeed(metric(kKeys[k], kLabels[k], kUnits[k], reads[k]), mail,
                                 run2Note(line.base2[k], line.patch2[k], patched)));
  }
  if (patched) {
    MetricSpec pause = metric("pause_ms_p50", "pause p50", "ms",
                              [](const CaseRun& r) { return r.window.pauseMsP50; });
    if (line.dd == 1)
      pause = withSeed(
          pause, 10,
          "the series changelog: pauses of ~10 ms for 1 dd (docs/model.md, Pause control)");
    else
      pause = withNote(pause,
                       "no figure in the mail; the changelog gives ~100 ms for 1000 dd, and "
                       "max_pause bounds every pause at 200 ms");
    c.metrics.push_back(std::move(pause));
  }
  c.metrics.push_back(withNote(
      metric("rate_max_dev_pct", "per-writer rate vs write_bw/N, max deviation", "%",
             [](const CaseRun& r) { return groupWindowRateMaxDeviationPct(r, "dd"); }),
      patched ? "no figure in the mail; rate control (docs/model.md, Eq. 24) drives each dd to "
                "write_bw/N under ioless"
              : "no figure in the mail; under the IO-ful baseline a dd's rate depends on "
                "which dirtier happens to do the writeback"));
  return c;
}

/// The real-time remark: one SCHED_FIFO writer beside 10 heavy dd.
ExperimentCase rtWriterCase(bool quick, double warmup) {
  ExperimentCase c;
  c.name = "10dd + 1 RT writer ioless";
  c.row = "10dd + 1 RT writer";
  c.column = std::string(kIoless);
  c.scenario = machine(quick);
  c.scenario.policy = std::string(kIoless);
  TaskSpec rt = dd(1);
  rt.name = "rt-writer";
  rt.blockKiB = kRtBlockKiB;
  rt.thinkMs = kRtThinkMs;
  rt.sched = SchedClass::Fifo;
  rt.rtPriority = 50;
  c.scenario.tasks = {dd(10), rt};
  c.measureFromS = warmup;
  c.metrics = {
      withNote(
          metric("rt_paused_pct", "RT writer: time paused", "%",
                 [](const CaseRun& r) { return groupWindowPausedShare(r, "rt-writer") * 100; }),
          "no figure in the mail: 'only lightly throttled'"),
      withNote(metric("dd_paused_pct", "normal dd: time paused (mean)", "%",
                      [](const CaseRun& r) { return groupWindowPausedShare(r, "dd") * 100; }),
               "no figure in the mail"),
      withNote(metric("rt_write_kbps", "RT writer: rate", "KiB/s",
                      [](const CaseRun& r) { return groupWindowWriteKBps(r, "rt-writer"); }),
               "no figure in the mail; it asks for 1 MiB per 100 ms"),
      withNote(metric("dd_write_kbps", "normal dd: rate (mean)", "KiB/s",
                      [](const CaseRun& r) { return groupWindowWriteKBps(r, "dd"); }),
               "no figure in the mail"),
  };
  return c;
}

/// The mail's table, pauses and fairness, and the real-time writer.
void addTables(Experiment& e) {
  e.tables = {
      ReportTable{.title = "The mail's table: %system, wkB/s and avgrq-sz per N dd",
                  .metrics = {"system_pct", "write_kbps", "avgrq_sz_sectors"},
                  .caseNames = {}},
      ReportTable{.title = "Pauses and fairness under ioless",
                  .metrics = {"pause_ms_p50", "rate_max_dev_pct"},
                  .caseNames = {}},
      ReportTable{.title = "A real-time writer beside 10 heavy dd (ioless)",
                  .metrics = {"rt_paused_pct", "dd_paused_pct", "rt_write_kbps", "dd_write_kbps"},
                  .caseNames = {"10dd + 1 RT writer ioless"}}};
  for (const MailLine& line : kMail)
    for (const std::string_view policy : {kBaseline, kIoless}) {
      e.tables[0].caseNames.push_back(caseName(line.dd, policy));
      if (policy == kIoless) e.tables[1].caseNames.push_back(caseName(line.dd, policy));
    }
}

/// One writer: the two policies alike.
Claim oneWriterClaim() {
  return Claim{
      "One writer: perbdi-2.6.24 and ioless are within 5 % of each other on %system, wkB/s and "
      "avgrq-sz",
      [](const ExperimentResult& r) {
        Verdict v;
        v.holds = true;
        for (int k = 0; k < 3; ++k) {
          const auto [b, p] = pairOf(r, 1, kKeys[k]);
          if (!allKnown({b, p})) return notJudged("", std::string("1dd ") + kLabels[k]);
          v.holds = v.holds && std::fabs(ratio(p, b) - 1) <= 0.05;
          v.detail += (k ? "; " : "") + describe(r, 1, k);
        }
        v.detail += " (mail: 13.046 → 13.060, 57357 → 57633, 910.7 → 909.2)";
        return v;
      }};
}

/// Ten writers: %system roughly halved.
Claim tenWritersClaim() {
  return Claim{"Ten writers: ioless roughly halves %system (ioless/perbdi ≤ 0.65)",
               [](const ExperimentResult& r) {
                 const auto [b, p] = pairOf(r, 10, "system_pct");
                 if (!allKnown({b, p})) return notJudged("", "10dd %system");
                 return Verdict{.claim = "",
                                .holds = ratio(p, b) <= 0.65,
                                .detail = "ratio " + fixed(ratio(p, b), 2) + ": " +
                                          describe(r, 10, 0) + "; " + describe(r, 10, 1) +
                                          " (mail: 39.442 → 20.756, ratio 0.53)"};
               }};
}

/// A hundred writers: %system cut, throughput and request size up.
Claim hundredWritersClaim() {
  return Claim{
      "A hundred writers: ioless cuts %system to a small fraction (≤ 0.3 ×) and raises "
      "throughput and request size by several percent (≥ +3 %)",
      [](const ExperimentResult& r) {
        const auto [bs, ps] = pairOf(r, 100, "system_pct");
        const auto [bw, pw] = pairOf(r, 100, "write_kbps");
        const auto [ba, pa] = pairOf(r, 100, "avgrq_sz_sectors");
        if (!allKnown({bs, ps, bw, pw, ba, pa})) return notJudged("", "a 100dd figure");
        const bool holds = ratio(ps, bs) <= 0.3 && ratio(pw, bw) >= 1.03 && ratio(pa, ba) >= 1.03;
        return Verdict{.claim = "",
                       .holds = holds,
                       .detail = describe(r, 100, 0) + "; " + describe(r, 100, 1) + "; " +
                                 describe(r, 100, 2) +
                                 " (mail: 30.916 → 3.079, 37843 → 41655 (+10.1 %), 748.7 → "
                                 "822.3 (+9.8 %))"};
      }};
}

/// The real-time writer only lightly throttled.
Claim rtWriterClaim() {
  return Claim{
      "A SCHED_FIFO writer beside 10 heavy dd is only lightly throttled under ioless: it spends "
      "at most a quarter of the normal writers' share of time paused and gets at least 90 % of "
      "the rate it asks for",
      [](const ExperimentResult& r) {
        const std::string c = "10dd + 1 RT writer ioless";
        const double rtPaused = r.value(c, "rt_paused_pct");
        const double ddPaused = r.value(c, "dd_paused_pct");
        const double rtRate = r.value(c, "rt_write_kbps");
        const double ddRate = r.value(c, "dd_write_kbps");
        if (!allKnown({rtPaused, ddPaused, rtRate, ddRate})) return notJudged("", c);
        // What it asks for: one block, copied at its speed, then the think time.
        const double asked =
            static_cast<double>(kRtBlockKiB) /
            (kRtThinkMs / 1000 + static_cast<double>(kRtBlockKiB) * 1024 / (kCopyMBps * 1e6));
        const bool holds = rtPaused <= ddPaused / 4 && rtRate >= 0.9 * asked;
        return Verdict{.claim = "",
                       .holds = holds,
                       .detail = "paused: RT " + fixed(rtPaused, 1) + " % of the time, normal dd " +
                                 fixed(ddPaused, 1) + " %; rate: RT " + report::number(rtRate) +
                                 " KiB/s of " + report::number(asked) + " asked, each normal dd " +
                                 report::number(ddRate) + " KiB/s"};
      }};
}

}  // namespace

Experiment makeWu2010(bool quick) {
  Experiment e;
  describeMail(e);
  e.quick = quick;
  e.liveCase = caseName(10, kIoless);
  describeMachine(e);
  const double warmup = quick ? 20 : 30;
  describeMethod(e, quick, warmup);

  for (const MailLine& line : kMail)
    for (const std::string_view policy : {kBaseline, kIoless})
      e.cases.push_back(mailCase(line, policy, quick, warmup));
  e.cases.push_back(rtWriterCase(quick, warmup));

  addTables(e);

  e.claims = {oneWriterClaim(), tenWritersClaim(), hundredWritersClaim(), rtWriterClaim()};
  return e;
}

}  // namespace throttlelab::engine
