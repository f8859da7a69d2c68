// SPDX-License-Identifier: GPL-3.0-or-later
// arcangeli2002: "VM and swap — it's really unusable" (Jan 2002). A reader's kernel builds
// with make -j75 and -j100 on 2.4.17/18-pre kernels: wall time and CPU utilisation, with
// swapping and, on one kernel, the OOM killer ending cc1 jobs; Andrea Arcangeli asked for -j1
// and -j2.
#include <cmath>

#include "metrics.h"
#include "report_format.h"

namespace throttlelab::engine {

namespace {

using namespace experiments;

constexpr int kUnitsFull = 300;  // compile units of the whole build
constexpr int kUnitsQuick = 100;
constexpr double kUnitCpuS = 1.0;  // CPU seconds per unit
constexpr double kCc1MiB = 6;      // cc1 working set per unit
constexpr std::int64_t kMemoryMiB = 256;
constexpr std::int64_t kSwapMiB = 512;
constexpr std::int64_t kSmallSwapMiB = 64;

Scenario machine(bool quick) {
  Scenario s;
  s.name = "arcangeli2002";
  // Long enough for the slowest build to finish; a run ends when its last cc1 exits.
  s.durationS = quick ? 1800 : 7200;
  s.machine = MachineConfig{.memoryMiB = kMemoryMiB,
                            .cpus = 1,
                            .hz = 100,
                            .swapMiB = kSwapMiB,
                            .swapDevice = {},
                            .allocator = "2.6.0-no-rt"};
  s.devices = {DeviceConfig{
      .name = "hda", .writeMBps = 20, .seekMs = 9, .maxRequestKiB = 128, .nrRequests = 128}};
  s.vm.dirtyRatio = 40;
  s.vm.dirtyBackgroundRatio = 10;
  s.policy = "legacy-2.6.0";
  return s;
}

std::string caseName(int jobs, std::int64_t swapMiB = kSwapMiB) {
  std::string name = "-j" + std::to_string(jobs);
  if (swapMiB != kSwapMiB) name += ", " + std::to_string(swapMiB) + " MiB swap";
  return name;
}

ExperimentCase build(int jobs, int units, bool quick, std::int64_t swapMiB = kSwapMiB) {
  ExperimentCase c;
  c.name = caseName(jobs, swapMiB);
  c.row = c.name;
  c.column = "";  // one column: the mail's 2.4.18-pre3 figure beside the model's
  c.scenario = machine(quick);
  c.scenario.machine.swapMiB = swapMiB;
  // make -jN: N slots, each building its share of the units one after the other.
  c.scenario.tasks = {TaskSpec{.name = "cc1",
                               .count = jobs,
                               .kind = TaskKind::Compiler,
                               .fileMiB = 0,
                               .loop = true,
                               .device = {},
                               .runs = (units + jobs - 1) / jobs,
                               .anonMiB = kCc1MiB,
                               .cpuS = kUnitCpuS}};
  c.stopWhenAllExited = true;

  MetricSpec wall = metric("wall_s", "wall time", "s", [](const CaseRun& r) { return wallS(r); });
  MetricSpec util = metric("cpu_util_pct", "CPU utilisation", "%",
                           [](const CaseRun& r) { return cpuUtilisationPct(r); });
  const std::string absolute =
      "the mail's absolute times depend on its unknown machine and .config";
  if (jobs == 75 && swapMiB == kSwapMiB && !quick) {
    wall = withSeed(wall, 6 * 60 + 48.83,
                    "2.4.18-pre3, run 1 of 5 (6:48.83; the five runs 6:48.83–9:33.78; other "
                    "kernels 5:42–7:20); " +
                        absolute);
    util = withSeed(util, 80, "2.4.18-pre3, run 1 of 5 (runs 57–80 %; other kernels 74–93 %)");
  } else if (jobs == 100 && swapMiB == kSwapMiB) {
    wall = withNote(wall,
                    "2.4.18-pre3 has no figure: 'build incomplete (OOM killer killed several "
                    "cc1)'; other kernels 6:03–8:10; " +
                        absolute);
    util = withNote(util, "2.4.18-pre3: no figure (build incomplete); other kernels 66–87 %");
  } else if (jobs <= 2) {
    wall = withNote(wall, "Arcangeli asked for -j1 and -j2; no answer in the mail");
    util = withNote(util, "no figure in the mail");
  } else {
    wall = withNote(wall, "no figure in the mail");
    util = withNote(util, "no figure in the mail");
  }
  c.metrics = {
      wall,
      util,
      metric("swap_out_mib", "swapped out", "MiB",
             [](const CaseRun& r) { return r.atEnd.swapOutKiB / 1024; }),
      metric("swap_in_mib", "swapped in", "MiB",
             [](const CaseRun& r) { return r.atEnd.swapInKiB / 1024; }),
      metric("oom_kills", "OOM kills", "count",
             [](const CaseRun& r) { return static_cast<double>(r.atEnd.oomKills); }),
      metric("units_completed", "compile units completed", "count",
             [](const CaseRun& r) { return runsCompleted(r); }),
  };
  if (swapMiB != kSwapMiB)
    c.metrics[4] = withNote(c.metrics[4],
                            "the mail's 2.4.18-pre3 -j100: 'OOM killer killed several cc1' "
                            "(no count, and with its own, unknown swap size)");
  return c;
}

}  // namespace

Experiment makeArcangeli2002(bool quick) {
  Experiment e;
  e.name = "arcangeli2002";
  e.title =
      "make -jN on a small 2002 desktop: CPU use, swapping and the OOM killer (Andrea "
      "Arcangeli's thread, 2002)";
  e.mail =
      "linux-kernel, Andrea Arcangeli, 2002-01-12, \"Re: [2.4.17/18pre] VM and swap - it's really "
      "unusable\"";
  // The copy of this mail carries no Message-Id (docs/model.md, The seed mails).
  e.messageId = "not recorded";
  e.mailSummary =
      "A reader posted wall time and CPU utilisation of kernel builds with make -j100 and "
      "-j75 on five 2.4 kernels (e.g. 2.4.18-pre3: -j75 in 6:48–9:33 at 57–80 % CPU, -j100 "
      "incomplete because the OOM killer killed several cc1). Andrea Arcangeli answered that "
      "a compile is a user-space task, so the box must have been swapping, and asked for -j1 "
      "and -j2 ('actually real world').";
  e.quick = quick;
  e.liveCase = caseName(quick ? 100 : 75);  // the quick form has no -j75
  const int units = quick ? kUnitsQuick : kUnitsFull;
  e.machine = {
      {"1 CPU",
       "[D] the mail's `time` shows at most 93 % CPU for -j75/-j100; a parallel build on an "
       "SMP box would show more than 100 %, so we take a uniprocessor"},
      {"256 MiB RAM", "[D] a 2002 desktop; the mail does not say"},
      {"512 MiB of swap on the same disk", "[D] swap = 2 × RAM, the rule of thumb of the time"},
      {"IDE disk, 20 MB/s sequential, seek 9 ms, max_sectors_kb 128, nr_requests 128",
       "[D] a 2002 desktop IDE disk; 128 KiB requests of old IDE (docs/model.md, The block device "
       "[U])"},
      {"HZ 100", "2.4 on x86 (1000 came with 2.6.0; docs/model.md, Kernel defaults by era)"},
      {"page allocator 2.6.0-no-rt",
       "the model has no 2.4 VM; the 2.6.0 allocator without the 2003 RT reserve is its "
       "closest generation. 2.4's reclaim (Arcangeli's -aa VM, van Riel's rmap) chose what to "
       "swap differently, so swap traffic and thrashing are the model's, not 2.4's"},
      {"dirty throttling legacy-2.6.0 with dirty_ratio 40 / background 10",
       "2.4's bdflush throttled writers at nfract 30–40 % (docs/model.md, The seed experiments); "
       "the closest "
       "policy the model has is 2.6.0's IO-ful throttle with its 40/10 defaults"},
      {"vm.swappiness 60", "the model's default; 2.4 had no such setting"},
      {"the build: " + std::to_string(units) + " compile units of " + report::number(kUnitCpuS) +
           " CPU-s",
       "[D] a 2.4 kernel build; the mail's .config is unknown. Order of magnitude: its "
       "fastest -j75 run, 5:42.66 at 93 % CPU, is ≈ 320 CPU-s" +
           std::string(quick ? " (the quick form builds 100 units)" : "")},
      {"each unit: a cc1 with a 6 MiB working set, touched at 1000 MB/s",
       "[D] gcc 2.95/3.0 cc1 on a kernel .c file had a resident set of a few MiB"},
      {"no object files",
       "a kernel .o is 10–100 KiB; the schema counts whole MiB and 1 MiB per "
       "unit would overstate the writes ten-fold, so output is left out (as "
       "are the source reads)"},
  };
  e.method = {
      "make -jN is N compiler slots; each builds ceil(units/N) units one after another, so the "
      "build is " +
          std::to_string(units) +
          " units for every N. A unit allocates and touches its working set, then computes for "
          "its CPU time while sweeping the working set (pages swapped out meanwhile come back "
          "through major faults that wait for a swap-in read), then frees it.",
      "Wall time: when the last cc1 exits. CPU utilisation: user + system time of all cc1 "
      "over wall time, as `time make` reports it (kernel threads such as kswapd are not "
      "counted).",
      "The -j100 case with only 64 MiB of swap shows what happens when the working sets do "
      "not fit in memory plus swap.",
  };

  std::vector<int> jobs = {1, 2, 75, 100};
  if (quick) jobs = {1, 2, 100};
  for (const int n : jobs) e.cases.push_back(build(n, units, quick));
  e.cases.push_back(build(100, units, quick, kSmallSwapMiB));
  ReportTable table{.title = "make -jN: wall time, CPU utilisation, swapping (mail: 2.4.18-pre3)",
                    .metrics = {"wall_s", "cpu_util_pct", "swap_out_mib", "swap_in_mib",
                                "oom_kills", "units_completed"},
                    .caseNames = {}};
  for (const auto& c : e.cases) table.caseNames.push_back(c.name);
  e.tables = {table};

  e.claims.push_back(
      Claim{"-j1 and -j2 keep the CPU nearly fully used (≥ 90 %)", [](const ExperimentResult& r) {
              const double j1 = r.value(caseName(1), "cpu_util_pct");
              const double j2 = r.value(caseName(2), "cpu_util_pct");
              if (!allKnown({j1, j2})) return notJudged("", "-j1 or -j2 (did the build finish?)");
              return Verdict{.claim = "",
                             .holds = j1 >= 90 && j2 >= 90,
                             .detail = "-j1 " + fixed(j1, 1) + " %, -j2 " + fixed(j2, 1) +
                                       " % (the mail has no -j1/-j2 figure)"};
            }});
  const std::vector<int> growing = quick ? std::vector<int>{2, 100} : std::vector<int>{2, 75, 100};
  std::string steps;
  for (const int n : growing) steps += (steps.empty() ? "-j" : ", -j") + std::to_string(n);
  e.claims.push_back(
      Claim{"Past what fits in memory, CPU utilisation falls and wall time rises: every N beyond "
            "it against the first (" +
                steps + ")",
            [growing](const ExperimentResult& r) {
              std::string detail;
              bool holds = true;
              // Against the N that fits: the mail's own -j75 and -j100 times overlap, so the
              // claim is about leaving memory behind, not about every step beyond it.
              double lastUtil = 0, lastWall = 0;
              for (std::size_t i = 0; i < growing.size(); ++i) {
                const double util = r.value(caseName(growing[i]), "cpu_util_pct");
                const double wall = r.value(caseName(growing[i]), "wall_s");
                if (!allKnown({util, wall}))
                  return notJudged("", caseName(growing[i]) + " (did the build finish?)");
                if (i > 0) holds = holds && util < lastUtil && wall > lastWall;
                detail += (i ? "; " : "") + caseName(growing[i]) + ": " + report::number(wall) +
                          " s at " + fixed(util, 1) + " %";
                if (i == 0) {
                  lastUtil = util;
                  lastWall = wall;
                }
              }
              return Verdict{.claim = "",
                             .holds = holds,
                             .detail = detail +
                                       " (mail, 2.4.18-pre3: -j75 6:48.83 at 80 %; -j100 "
                                       "did not complete)"};
            }});
  e.claims.push_back(Claim{
      "At -j100 without enough swap (64 MiB) the OOM killer ends compiler jobs",
      [](const ExperimentResult& r) {
        const std::string c = caseName(100, kSmallSwapMiB);
        const double kills = r.value(c, "oom_kills");
        const double done = r.value(c, "units_completed");
        if (!allKnown({kills})) return notJudged("", c);
        return Verdict{.claim = "",
                       .holds = kills > 0,
                       .detail = report::number(kills) + " OOM kills, " + report::number(done) +
                                 " units completed (mail: 'OOM killer killed several cc1')"};
      }});
  return e;
}

}  // namespace throttlelab::engine
