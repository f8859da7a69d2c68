// SPDX-License-Identifier: GPL-3.0-or-later
// morton2003: Andrew Morton's test of the 2003 real-time changes — a 16 MiB dd while an
// endless dd loop holds the machine at the dirty limit, as SCHED_OTHER and SCHED_FIFO, and
// "allocate 4 megs while there is a huge amount of swapout" (docs/model.md, The seed experiments).
#include <cmath>

#include "metrics.h"
#include "report_format.h"

namespace throttlelab::engine {

namespace {

using namespace experiments;

constexpr std::string_view kPlain = "legacy-2.6.0";
constexpr std::string_view kBreak = "legacy-2.6.0-rt-break";
constexpr std::string_view kBonus = "legacy-2.6.0-rt-bonus";

constexpr std::int64_t kMemoryMiB = 512;
constexpr double kDiskMBps = 30;
constexpr double kCopyMBps = 140;
constexpr int kDirtyRatio = 40;
constexpr int kDirtyBackgroundRatio = 10;
constexpr std::int64_t kDd16MiB = 16;
constexpr double kDd16StartS = 20;

// Where the RT headroom of the mainline rule (+1/4 of thresh) stops covering the 16 MiB
// write. In 2.6.0 every page counts as dirtyable (docs/model.md, Eq. 1), so thresh = 40 % of memory
// and the headroom is memory/10: 16 MiB fits from 160 MiB up. The small machine sits well below
// that boundary (0.6 ×), the 512 MiB one well above (3.2 ×).
constexpr double kBonusBoundaryMiB =
    static_cast<double>(kDd16MiB) * 4 / (static_cast<double>(kDirtyRatio) / 100);
constexpr std::int64_t kSmallMemoryMiB = static_cast<std::int64_t>(0.6 * kBonusBoundaryMiB);

// The allocation part.
constexpr std::int64_t kSwapMiB = 1024;
constexpr double kHogMiB = 700;
constexpr double kAlloc4mStartS = 3;

Scenario machine(std::int64_t memoryMiB) {
  Scenario s;
  s.name = "morton2003";
  s.durationS = 60;
  s.machine = MachineConfig{
      .memoryMiB = memoryMiB, .cpus = 1, .hz = 1000, .swapDevice = {}, .allocator = "2.6.0"};
  s.devices = {DeviceConfig{
      .name = "hda", .writeMBps = kDiskMBps, .seekMs = 8, .maxRequestKiB = 128, .nrRequests = 128}};
  s.vm.dirtyRatio = kDirtyRatio;
  s.vm.dirtyBackgroundRatio = kDirtyBackgroundRatio;
  return s;
}

TaskSpec ddLoop(double copyMBps) {
  return TaskSpec{.name = "dd-loop",
                  .count = 1,
                  .kind = TaskKind::Writer,
                  .blockKiB = 1024,
                  .fileMiB = 512,
                  .loop = true,
                  .copyMBps = copyMBps,
                  .device = {}};
}

TaskSpec dd16(SchedClass sched, double copyMBps) {
  return TaskSpec{.name = "dd16",
                  .count = 1,
                  .kind = TaskKind::Writer,
                  .blockKiB = kDd16MiB * 1024,
                  .fileMiB = kDd16MiB,
                  .loop = false,
                  .copyMBps = copyMBps,
                  .startS = kDd16StartS,
                  .sched = sched,
                  .rtPriority = sched == SchedClass::Other ? 0 : 50,
                  .device = {}};
}

std::string schedName(SchedClass c) {
  return c == SchedClass::Other ? "SCHED_OTHER" : "SCHED_FIFO";
}

std::string policyRow(std::string_view policy, std::int64_t memoryMiB) {
  return std::string(policy) + ", " + std::to_string(memoryMiB) + " MiB";
}

std::string dd16Case(std::string_view policy, std::int64_t memoryMiB, SchedClass sched) {
  return policyRow(policy, memoryMiB) + ", " + schedName(sched);
}

const std::string kCopyCase = "legacy-2.6.0-rt-break, 512 MiB, SCHED_OTHER, copy 70 MB/s";
const std::string kDiskCase = "legacy-2.6.0-rt-break, 512 MiB, SCHED_OTHER, disk 15 MB/s";

std::string allocCase(std::string_view allocator, SchedClass sched) {
  return "allocator " + std::string(allocator) + ", " + schedName(sched);
}

MetricSpec dd16Seconds() {
  return metric("dd16_s", "16 MiB dd", "s",
                [](const CaseRun& r) { return groupLastRunS(r, "dd16"); });
}

ExperimentCase dd16Experiment(std::string_view policy, std::int64_t memoryMiB, SchedClass sched,
                              bool quick) {
  ExperimentCase c;
  c.name = dd16Case(policy, memoryMiB, sched);
  c.row = policyRow(policy, memoryMiB);
  c.column = schedName(sched);
  c.scenario = machine(memoryMiB);
  c.scenario.policy = std::string(policy);
  c.scenario.tasks = {ddLoop(kCopyMBps), dd16(sched, kCopyMBps)};
  c.stopWhenExited = "dd16";
  // "rm 1; sleep 3; time dd": the write starts at an arbitrary phase of the background loop's
  // writeback rounds; each seed takes another phase within 3 s.
  c.startSpreadGroup = "dd16";
  c.startSpreadS = 3;
  // Its time ranges over 0.4-1.8 s with the phase: 8 phases per seed (4 in the quick form),
  // so that three seeds average 24 of them.
  c.phasesPerSeed = quick ? 4 : 8;
  MetricSpec m = dd16Seconds();
  const bool normal = sched == SchedClass::Other;
  if (memoryMiB == kMemoryMiB && policy == kBreak)
    m = withSeed(m, normal ? 1.5 : 0.12,
                 normal ? "the mail: 'normally takes 1.5 seconds'"
                        : "the mail: 'with SCHED_FIFO it takes a repeatable 0.12 seconds'");
  else if (memoryMiB == kMemoryMiB && normal)
    m = withSeed(m, 1.5,
                 "the mail measured the normal dd on the rt-break kernel; every variant treats "
                 "a SCHED_OTHER task alike");
  else if (policy == kBonus && !normal)
    m = withNote(m, static_cast<double>(memoryMiB) >= kBonusBoundaryMiB
                        ? "no figure in the mail; the mechanism (docs/model.md, The seed "
                          "experiments) gives ≈ the copy time "
                          "(≈ 0.12 s) while 16 MiB < thresh/4"
                        : "no figure in the mail; the mechanism (docs/model.md, The seed "
                          "experiments) makes the write fall back "
                          "towards the normal time once thresh/4 < 16 MiB");
  else
    m = withNote(m, "no figure in the mail");
  c.metrics = {std::move(m)};
  return c;
}

ExperimentCase allocExperiment(std::string_view allocator, SchedClass sched) {
  ExperimentCase c;
  c.name = allocCase(allocator, sched);
  c.row = "allocator " + std::string(allocator);
  c.column = schedName(sched);
  c.scenario = machine(kMemoryMiB);
  c.scenario.durationS = 30;
  c.scenario.machine.swapMiB = kSwapMiB;
  c.scenario.machine.allocator = std::string(allocator);
  c.scenario.policy = std::string(kBonus);
  c.scenario.tasks = {
      TaskSpec{.name = "hog",
               .count = 1,
               .kind = TaskKind::Allocator,
               .fileMiB = 0,
               .loop = false,
               .device = {},
               .anonMiB = kHogMiB,
               .holdS = 5},
      TaskSpec{.name = "alloc4m",
               .count = 1,
               .kind = TaskKind::Allocator,
               .fileMiB = 0,
               .loop = false,
               .startS = kAlloc4mStartS,
               .sched = sched,
               .rtPriority = sched == SchedClass::Other ? 0 : 50,
               .device = {},
               .anonMiB = 4},
  };
  c.stopWhenExited = "alloc4m";
  c.metrics = {
      withNote(metric("alloc4m_s", "4 MiB allocation", "s",
                      [](const CaseRun& r) { return groupLastRunS(r, "alloc4m"); }),
               "no figure in the mail ('much quicker and repeatable')"),
      withNote(metric("alloc4m_stall_ms_max", "longest stall of the 4 MiB allocation", "ms",
                      [](const CaseRun& r) { return groupAllocMsMax(r, "alloc4m"); }),
               "no figure in the mail"),
  };
  return c;
}

// Morton's aside: the real-time task's time under heavy writeback on ext3, atime against
// noatime, with a read from disk in its loop.
constexpr std::int64_t kAsideReadKiB = 256;  // a program's pages read in per loop [D]

std::string asideCase(std::string_view atime) {
  return "aside: ext3 " + std::string(atime) + ", SCHED_FIFO loop with a read";
}

/// Per finished run of group `group`: a cumulative task field divided by its runs.
template <class Field>
double perRun(const CaseRun& r, std::string_view group, Field field) {
  double sum = 0;
  std::int64_t runs = 0;
  for (const TaskStats* t : r.group(group)) {
    sum += field(*t);
    runs += t->runsCompleted;
  }
  return runs > 0 ? sum / static_cast<double>(runs) : std::nan("");
}

ExperimentCase asideExperiment(std::string_view atime) {
  ExperimentCase c;
  c.name = asideCase(atime);
  c.row = "ext3 " + std::string(atime);
  c.column = "SCHED_FIFO";
  c.scenario = machine(kMemoryMiB);
  c.scenario.durationS = 60;
  c.scenario.policy = std::string(kBreak);
  DeviceConfig& d = c.scenario.devices.front();
  d.fileSystem = "ext3";
  d.mountOptions = std::string(atime) + ",data=ordered";
  // 2.6.0-test's default elevator was the anticipatory one; the model has deadline, which
  // shares its preference for reads (docs/model.md, The file system).
  d.elevator = "deadline";
  TaskSpec rt = dd16(SchedClass::Fifo, kCopyMBps);
  rt.name = "rt";
  rt.loop = true;
  rt.startS = 5;
  rt.thinkMs = 0;
  rt.readKiB = kAsideReadKiB;
  c.scenario.tasks = {ddLoop(kCopyMBps), rt};
  c.metrics = {
      withNote(metric("aside_run_s", "one loop (read, atime, 16 MiB write)", "s",
                      [](const CaseRun& r) {
                        return perRun(r, "rt", [](const TaskStats& t) {
                          return t.lastRunS * static_cast<double>(t.runsCompleted);
                        });
                      }),
               "no figure in the mail ('great big stalls')"),
      withNote(metric("aside_throttle_s", "of which throttled (balance_dirty_pages)", "s",
                      [](const CaseRun& r) {
                        return perRun(r, "rt", [](const TaskStats& t) { return t.pausedS; });
                      }),
               "no figure in the mail"),
      withNote(metric("aside_journal_s", "of which in the journal (atime update)", "s",
                      [](const CaseRun& r) {
                        return perRun(r, "rt", [](const TaskStats& t) {
                          return t.journalWaitS - t.writeHandleWaitS;
                        });
                      }),
               "no figure in the mail"),
      withNote(metric("aside_write_handle_s",
                      "of which in the journal (write()'s handles, a commit's lock-down)", "s",
                      [](const CaseRun& r) {
                        return perRun(r, "rt",
                                      [](const TaskStats& t) { return t.writeHandleWaitS; });
                      }),
               "no figure in the mail"),
      withNote(metric("aside_journal_wait_ms", "one journal wait, mean", "ms",
                      [](const CaseRun& r) {
                        double s = 0;
                        std::int64_t n = 0;
                        for (const TaskStats* t : r.group("rt")) {
                          s += t->journalWaitS;
                          n += t->journalWaits;
                        }
                        return n > 0 ? s * 1e3 / static_cast<double>(n) : 0.0;
                      }),
               "no figure in the mail"),
      withNote(metric("aside_read_s", "of which reading from disk", "s",
                      [](const CaseRun& r) {
                        return perRun(r, "rt", [](const TaskStats& t) {
                          return t.readMsP50 * 1e-3 * static_cast<double>(t.reads);
                        });
                      }),
               "no figure in the mail"),
      withNote(metric("aside_read_ms_max", "longest read", "ms",
                      [](const CaseRun& r) {
                        double m = 0;
                        for (const TaskStats* t : r.group("rt")) m = std::max(m, t->readMsMax);
                        return m;
                      }),
               "no figure in the mail"),
  };
  return c;
}

std::string secs(double v) {
  return report::number(v) + " s";
}

/// Who wrote what, when, and what it said.
void describeMail(Experiment& e) {
  e.name = "morton2003";
  e.title =
      "A real-time writer and allocator under dirty throttling and swap-out (Andrew "
      "Morton, 2003)";
  e.mail =
      "linux-mm, Andrew Morton, 2003-08-06, \"Re: [patch] real-time enhanced page allocator and "
      "throttling\"";
  e.messageId = "<20030806014148.5408cfbd.akpm@osdl.org>";
  e.mailSummary =
      "Andrew Morton tested Robert Love's real-time page allocator and throttling patch on "
      "2.6.0-test2-mm4: while `dd bs=1M count=512 conv=notrunc` loops, `dd bs=16M count=1` "
      "takes 1.5 s normally and 0.12 s as SCHED_FIFO (with his -2 variant: RT tasks leave the "
      "throttle loop at once). Allocating 4 MB during heavy swap-out was 'much quicker and "
      "repeatable' for a real-time task; no figure.";
}

/// The machine, the policies and the allocators, each with where it comes from.
void describeMachine(Experiment& e) {
  e.machine = {
      {"512 MiB RAM, 1 CPU",
       "[D] docs/model.md, The seed experiments: the mail does not describe Morton's machine"},
      {"HZ 1000", "the 2.6.0 x86 default (docs/model.md, Kernel defaults by era)"},
      {"IDE disk, 30 MB/s sequential write, seek 8 ms", "[D] docs/model.md, The seed experiments"},
      {"max_sectors_kb 128, nr_requests 128",
       "old IDE requests of 128 KiB [U]; nr_requests 128 [V] (docs/model.md, Kernel defaults by "
       "era)"},
      {"dd copy speed 140 MB/s with a whole CPU",
       "docs/model.md, The seed experiments: memcpy ≈ 130–150 MB/s, so that 16 MiB of copy takes "
       "0.11–0.12 s [D]; "
       "the middle of that range"},
      {"vm.dirty_ratio 40, dirty_background_ratio 10",
       "2.6.0 defaults [V] (docs/model.md, Kernel defaults by era)"},
      {"page allocator 2.6.0 (RT tasks may go below the watermarks)",
       "the mail's kernel carried Love's allocator change (docs/model.md, The page allocator, Eq. "
       "43); the allocation "
       "part also runs 2.6.0-no-rt, the allocator before it"},
      {"1 GiB of swap on the same disk (allocation part only)",
       "[D] the mail says only 'a huge amount of swapout'"},
      {"policies legacy-2.6.0 (no RT rule), legacy-2.6.0-rt-break (the mail's -2 kernel), "
       "legacy-2.6.0-rt-bonus (mainline: +1/4 on the limits)",
       "the mail's three kernels (docs/model.md, legacy-2.6.0 and the 2003 real-time variants)"},
  };
}

/// How each part is run and measured.
void describeMethod(Experiment& e) {
  e.method = {
      "Background: `while true; do dd if=/dev/zero of=foo bs=1M count=512 conv=notrunc; done`, "
      "a writer looping over one 512 MiB file. Foreground: at 20 s, `dd bs=16M count=1` to a "
      "new file, one 16 MiB write(), as SCHED_OTHER or SCHED_FIFO priority 50. thresh ≈ 40 % "
      "of 512 MiB ≈ 205 MiB fills at 140 − 30 MB/s in about 2 s, so at 20 s the loop has held "
      "the machine at the limit for many seconds: the mail's 'rm 1; sleep 3' in the model. The "
      "metric is the 16 MiB dd's run time (what `time` printed); a run ends when it exits.",
      "RT headroom of the mainline rule: thresh/4 = (40 % × memory)/4 = memory/10 (Eq. 1: all "
      "pages dirtyable in 2.6.0), which covers 16 MiB from " +
          report::number(kBonusBoundaryMiB) + " MiB up. rt-bonus also runs at " +
          std::to_string(kSmallMemoryMiB) + " MiB (0.6 × that boundary; headroom ≈ " +
          report::number(static_cast<double>(kSmallMemoryMiB) / 10) + " MiB).",
      "Sensitivity of the normal write (rt-break, SCHED_OTHER): the same run with the copy "
      "speed halved (70 MB/s, both dd) and with the disk halved (15 MB/s).",
      "The 16 MiB dd starts 20 s in plus an offset of up to 3 s ('rm 1; sleep 3'): its time "
      "depends on where in the background loop's writeback rounds it lands (0.4 to 1.8 s), so "
      "each seed averages 8 offsets, spread over all seeds.",
      "Allocation under swap-out: a 'hog' allocates and touches 700 MiB of anonymous memory on "
      "the 512 MiB machine, forcing swap-out; at 3 s, while it is still being swapped out, "
      "'alloc4m' allocates and touches 4 MiB as SCHED_OTHER or SCHED_FIFO 50 (Morton's "
      "'allocate 4 megs'). Metric: that allocation's duration and its longest stall; the run "
      "ends when it is done.",
      "Morton's aside ('stuck in ext3's journal_start, waiting for kjournald to finish a "
      "commit, due to an atime update ... And then it gets stuck in a disk read'): the "
      "SCHED_FIFO writer loops (16 MiB per run) beside the dd loop on ext3 (data=ordered, "
      "commits every 5 s, deadline elevator), and before each run reads " +
          std::to_string(kAsideReadKiB) +
          " KiB that are not cached (a program paged in from disk); once with `atime`, once "
          "with `noatime`. The time of a loop is split into throttle pauses, journal waits (the "
          "atime update's get_write_access on the inode's block while a commit writes it to "
          "the journal) and the read (docs/model.md, The file system).",
  };
}

/// Part 1: the 16 MiB dd under each policy, normal and SCHED_FIFO, and at the small memory
/// where the mainline bonus no longer covers it.
void addDd16Cases(Experiment& e, bool quick) {
  std::vector<std::string_view> policies = {kBreak, kBonus};
  if (!quick) policies.push_back(kPlain);
  for (const auto policy : policies)
    for (const auto sched : {SchedClass::Other, SchedClass::Fifo})
      e.cases.push_back(dd16Experiment(policy, kMemoryMiB, sched, quick));
  for (const auto sched : {SchedClass::Other, SchedClass::Fifo})
    e.cases.push_back(dd16Experiment(kBonus, kSmallMemoryMiB, sched, quick));
}

/// Part 1's sensitivity run with both dd copying at half speed.
ExperimentCase halfCopySpeedCase(bool quick) {
  ExperimentCase copy = dd16Experiment(kBreak, kMemoryMiB, SchedClass::Other, quick);
  copy.name = kCopyCase;
  copy.row = "legacy-2.6.0-rt-break, 512 MiB, copy 70 MB/s";
  copy.scenario.tasks = {ddLoop(kCopyMBps / 2), dd16(SchedClass::Other, kCopyMBps / 2)};
  copy.metrics = {withNote(dd16Seconds(), "sensitivity run; no figure in the mail")};
  return copy;
}

/// Part 1's sensitivity run with the disk at half its bandwidth.
ExperimentCase halfDiskCase(bool quick) {
  ExperimentCase disk = dd16Experiment(kBreak, kMemoryMiB, SchedClass::Other, quick);
  disk.name = kDiskCase;
  disk.row = "legacy-2.6.0-rt-break, 512 MiB, disk 15 MB/s";
  disk.scenario.devices.front().writeMBps = kDiskMBps / 2;
  disk.metrics = {withNote(dd16Seconds(), "sensitivity run; no figure in the mail")};
  return disk;
}

/// Part 2: the 4 MiB allocation under each allocator, normal and SCHED_FIFO.
void addAllocCases(Experiment& e, bool quick) {
  // Oldest first; the quick run leaves out the allocator before Robert Love's change.
  const auto allocators = quick ? std::vector<std::string_view>{"2.6.0"}
                                : std::vector<std::string_view>{"2.6.0-no-rt", "2.6.0"};
  for (const auto allocator : allocators)
    for (const auto sched : {SchedClass::Other, SchedClass::Fifo})
      e.cases.push_back(allocExperiment(allocator, sched));
}

/// One table per part, each case in the table of its part.
void addTables(Experiment& e) {
  ReportTable dd16Table{.title = "The 16 MiB dd (s) while the dd loop holds the limit",
                        .metrics = {"dd16_s"},
                        .caseNames = {}};
  ReportTable allocTable{.title = "Allocating 4 MiB during heavy swap-out",
                         .metrics = {"alloc4m_s", "alloc4m_stall_ms_max"},
                         .caseNames = {}};
  ReportTable asideTable{
      .title =
          "Morton's aside: where the real-time loop's time went (s per "
          "loop)",
      .metrics = {"aside_run_s", "aside_throttle_s", "aside_journal_s", "aside_write_handle_s",
                  "aside_journal_wait_ms", "aside_read_s", "aside_read_ms_max"},
      .caseNames = {}};
  for (const auto& c : e.cases) {
    if (c.name.rfind("aside: ", 0) == 0)
      asideTable.caseNames.push_back(c.name);
    else
      (c.name.rfind("allocator ", 0) == 0 ? allocTable : dd16Table).caseNames.push_back(c.name);
  }
  e.tables = {dd16Table, allocTable, asideTable};
}

/// The mail's kernel: SCHED_FIFO many times faster.
Claim rtBreakClaim() {
  return Claim{
      "rt-break (the mail's kernel): the SCHED_FIFO 16 MiB dd is many times (≥ 5 ×) faster "
      "than the normal one",
      [](const ExperimentResult& r) {
        const double normal = r.value(dd16Case(kBreak, kMemoryMiB, SchedClass::Other), "dd16_s");
        const double fifo = r.value(dd16Case(kBreak, kMemoryMiB, SchedClass::Fifo), "dd16_s");
        if (!allKnown({normal, fifo})) return notJudged("", "the rt-break 16 MiB dd");
        return Verdict{.claim = "",
                       .holds = normal >= 5 * fifo,
                       .detail = "SCHED_OTHER " + secs(normal) + ", SCHED_FIFO " + secs(fifo) +
                                 ": " + fixed(normal / fifo, 1) +
                                 " × (mail: 1.5 s and 0.12 s, 12.5 ×)"};
      }};
}

/// Mainline's bonus: fast while 16 MiB fits in the extra quarter.
Claim rtBonusClaim() {
  return Claim{
      "rt-bonus (mainline): SCHED_FIFO is fast (≥ 5 × the normal dd) while 16 MiB fits in the "
      "extra quarter (512 MiB: thresh/4 ≈ 51 MiB) and not once memory is so small that it "
      "does not (" +
          std::to_string(kSmallMemoryMiB) + " MiB: thresh/4 ≈ " +
          report::number(static_cast<double>(kSmallMemoryMiB) / 10) +
          " MiB), where it also takes at least twice as long as at 512 MiB",
      [](const ExperimentResult& r) {
        const double bigOther = r.value(dd16Case(kBonus, kMemoryMiB, SchedClass::Other), "dd16_s");
        const double bigFifo = r.value(dd16Case(kBonus, kMemoryMiB, SchedClass::Fifo), "dd16_s");
        const double smallOther =
            r.value(dd16Case(kBonus, kSmallMemoryMiB, SchedClass::Other), "dd16_s");
        const double smallFifo =
            r.value(dd16Case(kBonus, kSmallMemoryMiB, SchedClass::Fifo), "dd16_s");
        if (!allKnown({bigOther, bigFifo, smallOther, smallFifo}))
          return notJudged("", "an rt-bonus 16 MiB dd");
        const bool holds =
            bigOther >= 5 * bigFifo && smallOther < 5 * smallFifo && smallFifo >= 2 * bigFifo;
        return Verdict{.claim = "",
                       .holds = holds,
                       .detail = "512 MiB: SCHED_OTHER " + secs(bigOther) + ", SCHED_FIFO " +
                                 secs(bigFifo) + " (" + fixed(bigOther / bigFifo, 1) + " ×); " +
                                 std::to_string(kSmallMemoryMiB) + " MiB: SCHED_OTHER " +
                                 secs(smallOther) + ", SCHED_FIFO " + secs(smallFifo) + " (" +
                                 fixed(smallOther / smallFifo, 1) + " ×)"};
      }};
}

/// The normal write is bound by the disk, not the copy.
Claim diskBoundClaim() {
  return Claim{
      "The normal write's time is governed by disk bandwidth, not by copy speed: halving the "
      "copy speed lengthens it by < 25 %, halving the disk bandwidth by > 40 %",
      [](const ExperimentResult& r) {
        const double base = r.value(dd16Case(kBreak, kMemoryMiB, SchedClass::Other), "dd16_s");
        const double copy = r.value(kCopyCase, "dd16_s");
        const double disk = r.value(kDiskCase, "dd16_s");
        if (!allKnown({base, copy, disk})) return notJudged("", "a sensitivity run");
        const double copyChange = (copy - base) / base;
        const double diskChange = (disk - base) / base;
        return Verdict{.claim = "",
                       .holds = copyChange < 0.25 && diskChange > 0.4,
                       .detail = "base " + secs(base) + "; copy ÷ 2: " + secs(copy) + " (" +
                                 report::percentChange(copyChange * 100) + "); disk ÷ 2: " +
                                 secs(disk) + " (" + report::percentChange(diskChange * 100) + ")"};
      }};
}

/// The 2003 allocator change: a SCHED_FIFO allocation is quicker.
Claim allocClaim(bool quick) {
  return Claim{
      "With the 2003 allocator change (2.6.0), a SCHED_FIFO 4 MiB allocation during heavy "
      "swap-out is quicker than a SCHED_OTHER one",
      [quick](const ExperimentResult& r) {
        const double normal = r.value(allocCase("2.6.0", SchedClass::Other), "alloc4m_s");
        const double fifo = r.value(allocCase("2.6.0", SchedClass::Fifo), "alloc4m_s");
        if (!allKnown({normal, fifo})) return notJudged("", "the 4 MiB allocation");
        std::string detail =
            "allocator 2.6.0: SCHED_OTHER " + secs(normal) + ", SCHED_FIFO " + secs(fifo);
        if (!quick) {
          const double oldNormal =
              r.value(allocCase("2.6.0-no-rt", SchedClass::Other), "alloc4m_s");
          const double oldFifo = r.value(allocCase("2.6.0-no-rt", SchedClass::Fifo), "alloc4m_s");
          detail += "; before the change (2.6.0-no-rt): SCHED_OTHER " + secs(oldNormal) +
                    ", SCHED_FIFO " + secs(oldFifo);
        }
        return Verdict{
            .claim = "", .holds = fifo < normal, .detail = detail + " (mail: no figure)"};
      }};
}

/// Morton's aside: the atime update's journal wait.
Claim asideClaim() {
  return Claim{
      "Morton's aside: on ext3 with atime, the real-time task waits in the journal for a "
      "commit because of the atime update of its read, and noatime removes that wait; the "
      "disk read remains",
      [](const ExperimentResult& r) {
        const double atimeJ = r.value(asideCase("atime"), "aside_journal_s");
        const double noatimeJ = r.value(asideCase("noatime"), "aside_journal_s");
        const double atimeR = r.value(asideCase("atime"), "aside_read_s");
        const double noatimeR = r.value(asideCase("noatime"), "aside_read_s");
        const double atimeT = r.value(asideCase("atime"), "aside_throttle_s");
        const double atimeW = r.value(asideCase("atime"), "aside_write_handle_s");
        const double noatimeW = r.value(asideCase("noatime"), "aside_write_handle_s");
        if (!allKnown({atimeJ, noatimeJ, atimeR, noatimeR, atimeT, atimeW, noatimeW}))
          return notJudged("", "the aside");
        return Verdict{
            .claim = "",
            .holds = atimeJ > 0 && noatimeJ == 0 && noatimeR > 0,
            .detail = "per loop with atime: journal " + secs(atimeJ) + ", read " + secs(atimeR) +
                      ", throttle " + secs(atimeT) + ", write()'s handles " + secs(atimeW) +
                      "; with noatime: journal " + secs(noatimeJ) + ", read " + secs(noatimeR) +
                      ", write()'s handles " + secs(noatimeW) + " (mail: no figures)"};
      }};
}

}  // namespace

Experiment makeMorton2003(bool quick) {
  Experiment e;
  describeMail(e);
  e.quick = quick;
  e.liveCase = dd16Case(kBreak, kMemoryMiB, SchedClass::Fifo);
  describeMachine(e);
  describeMethod(e);

  // Part 1: the 16 MiB dd.
  addDd16Cases(e, quick);
  e.cases.push_back(halfCopySpeedCase(quick));
  e.cases.push_back(halfDiskCase(quick));
  // Part 3 (listed after part 1): Morton's aside.
  for (const auto atime : {"atime", "noatime"}) e.cases.push_back(asideExperiment(atime));
  // Part 2: the 4 MiB allocation.
  addAllocCases(e, quick);

  addTables(e);

  e.claims = {rtBreakClaim(), rtBonusClaim(), diskBoundClaim(), allocClaim(quick), asideClaim()};
  return e;
}

}  // namespace throttlelab::engine
