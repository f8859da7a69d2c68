// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The scenario's key table (docs/scenario-format.md): one row per key and one table per object.
/// A row names the key, the member it lands in (which gives its JSON type and its default), its
/// allowed range, its unit and its meaning. The rows drive the JSON reader (unknown keys, through
/// throttlelab/engine/json_input.h), `--set` (valid paths), the reading of values (types), the
/// validator (ranges, checked there once), the writer (key order) and the tables of
/// docs/scenario-format.md (engine/src/format/scenario_*.cpp). A control that edits a key (the
/// window's Parameters panel) takes its range, unit and meaning from here, so the two cannot
/// disagree. Rules that involve more than one key's range are the validator's. Key names are
/// fixed by the file format; never rename one. Qt-free, nlohmann-free: constant data only.
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "throttlelab/engine/json_input.h"
#include "throttlelab/engine/scenario.h"
#include "throttlelab/engine/units.h"

namespace throttlelab::engine::schema {

// ---------------------------------------------------------------------------------------------
// Limits that are not one key's range. Ranges of single keys are in the key tables below.

inline constexpr std::int64_t kTiB = std::int64_t{1} << 40;
inline constexpr std::array<int, 4> kValidHz{100, 250, 300, 1000};
inline constexpr std::int64_t kMaxTotalTasks = 100'000;
inline constexpr std::size_t kMaxTaskGroups = 100'000;
inline constexpr std::size_t kMaxCgroups = 64;
inline constexpr std::int64_t kMaxFileMiB = std::int64_t{1} << 30;  // 1 PiB
// Page-allocator generations (MachineConfig::allocator), oldest first.
inline constexpr std::array<std::string_view, 4> kAllocators{"2.6.0-no-rt", "2.6.0", "2.6.9",
                                                             "6.x"};
inline constexpr std::size_t kMaxNameLength = 64;

// ---------------------------------------------------------------------------------------------
// The rows.

template <class T>
using MemberOf =
    std::variant<std::monostate, int T::*, std::int64_t T::*, std::uint64_t T::*, double T::*,
                 bool T::*, std::string T::*, TaskKind T::*, SchedClass T::*>;

// Integers and numbers: lo .. hi (lo itself excluded when loOpen). Strings: a name of lo .. hi
// characters without control characters; {} = any text.
struct Range {
  double lo = 0;
  double hi = 0;
  bool loOpen = false;
};

inline constexpr Range kAnyInt{std::numeric_limits<int>::min(), std::numeric_limits<int>::max()};
inline constexpr Range kPercent{0, 100};
// Speeds (device, copy, page touching) in decimal MB/s. Below a page (4 KiB) per second the
// kernel's own bandwidth estimate (pages per second, at least 1) cannot express a device, and
// a smaller figure only makes one request outlast any run; 0.001 MB/s (1 kB/s) keeps every
// speed a trace can show. Tiny values such as 1e-320 (denormals) are refused with the range.
inline constexpr Range kSpeedMBps{0.001, 1e6};
inline constexpr Range kSeconds{0, 1e7};  // ~115 days of simulated time
// A bdi's bandwidth state in KB/s: at least the one page per second the kernel keeps it at.
inline constexpr Range kInitialRateKBps{4, 1e9};
inline constexpr Range kInitialPages{0, 4e12};  // 16 PiB of 4 KiB pages

template <class T>
struct Key {
  std::string_view name;
  MemberOf<T> member{};
  Range range{};
  std::string_view unit{};
  std::string_view meaning{};
  // 0 is allowed besides the range, and the message says what it means: "0 (the boot
  // default) or ".
  std::string_view zeroOr{};
  std::string_view allowed{};      // the doc's Allowed column, when a rule says more than range
  std::string_view defaultText{};  // the doc's Default column, when the value says too little
  bool omitWhenEmpty = false;      // left out of the written JSON when empty: "" or, integers, -1
  // left out of the written JSON while it has its default value (keys added after files
  // without them were written: those files and every output that quotes them stay as they were)
  bool omitWhenDefault = false;
  JsonKind kind = JsonKind::Value;
  std::span<const JsonField> children{};
};

inline constexpr Key<MachineConfig> kMachineKeys[] = {
    {.name = "memoryMiB",
     .member = &MachineConfig::memoryMiB,
     .range = {16, 16 * 1024 * 1024},
     .unit = "MiB",
     .meaning = "RAM",
     .allowed = "16 … 16 777 216 (16 TiB)"},
    {.name = "cpus",
     .member = &MachineConfig::cpus,
     .range = {1, 4096},
     .meaning = "CPUs that runnable tasks share"},
    {.name = "hz",
     .member = &MachineConfig::hz,
     .range = kAnyInt,
     .unit = "1/s",
     .meaning = "`CONFIG_HZ`: the jiffy, which rounds pauses and sets `MAX_PAUSE`",
     .allowed = "100, 250, 300 or 1000"},
    {.name = "swapMiB",
     .member = &MachineConfig::swapMiB,
     .range = {0, 16 * 1024 * 1024},
     .unit = "MiB",
     .meaning = "swap space; `0` = no swap (anonymous memory cannot be reclaimed)",
     .allowed = "0 … 16 777 216 (16 TiB)"},
    {.name = "swapDevice",
     .member = &MachineConfig::swapDevice,
     .meaning = "the disk that holds the swap area; swap-out and swap-in compete with file "
                "writeback there",
     .allowed = "the `name` of a device of this scenario",
     .defaultText = "`\"\"` (the first device)",
     .omitWhenEmpty = true},
    {.name = "allocator",
     .member = &MachineConfig::allocator,
     .meaning = "page-allocator generation ([model.md, The page allocator]"
                "(model.md#the-page-allocator), Eq. 42–43): watermark spacing and the "
                "real-time reserve. `2.6.0-no-rt`: before Robert Love's Aug-2003 change, RT "
                "tasks get nothing extra; `2.6.0`: incremental min, an RT task halves the "
                "marks; `2.6.9`: `ALLOC_HARDER`, an RT task may go to ¾ of min; `6.x`: "
                "`ALLOC_MIN_RESERVE`, ½ of min, 4.6+ spacing with `watermark_scale_factor`",
     .allowed = "`\"2.6.0-no-rt\"`, `\"2.6.0\"`, `\"2.6.9\"`, `\"6.x\"`"},
    {.name = "maxFolioOrder",
     .member = &MachineConfig::maxFolioOrder,
     .range = {-1, 9},
     .meaning = "the largest page-cache folio a buffered `write()` gets, as a page order "
                "(`mapping_max_folio_order()`; [model.md, Large folios in the write path]"
                "(model.md#large-folios-in-the-write-path), Eq. 51): a write of *n* pages gets "
                "folios of up to 2^⌊log₂ n⌋ pages, aligned in the file, and checks in with the "
                "throttle once per folio. `-1`: the policy's kernel (9, i.e. 2 MiB, for "
                "`ioless` and `none`, as ext4 since 6.16 and XFS since 6.6 on x86-64; 0 for "
                "`ioless-3.2` and the 2.6.x policies); `0`: 4 KiB pages only. The ≤ 3.1 "
                "per-CPU entry check (`perbdi-2.6.24`) always counts 4 KiB pages",
     .allowed = "-1 … 9",
     .defaultText = "`-1` (the policy's kernel)",
     .omitWhenEmpty = true},
    {.name = "initialDirtyPages",
     .member = &MachineConfig::initialDirtyPages,
     .range = kInitialPages,
     .unit = "pages",
     .meaning = "dirty page-cache pages (`NR_FILE_DIRTY`, a `global_dirty_state` record's "
                "`nr_dirty`) when the run starts ([model.md, The page cache at the start]"
                "(model.md#the-page-cache-at-the-start), Eq. 68): pages of the writers' files, "
                "shared equally among the writers that start at 0 s outside a memory cgroup, "
                "each as if it had written its share of its first run already",
     .defaultText = "0 (an empty page cache, as after boot)",
     .omitWhenDefault = true},
    {.name = "initialWritebackPages",
     .member = &MachineConfig::initialWritebackPages,
     .range = kInitialPages,
     .unit = "pages",
     .meaning = "of the writers' pages at the start, this many more under writeback "
                "(`NR_WRITEBACK`, `nr_writeback`): submitted to their device at 0 s, as far as "
                "its request queue takes them (the rest start dirty)",
     .omitWhenDefault = true},
    {.name = "writebackUsPerPage",
     .member = &MachineConfig::writebackUsPerPage,
     .range = {0.01, 1000},
     .unit = "µs",
     .meaning = "CPU time to build, submit and complete a page of writeback IO ([model.md, The "
                "CPU-cost model](model.md#the-cpu-cost-model)), charged to whoever submits it "
                "(0.1 µs of it to the completion); this project's 6.18 machine measured 0.41",
     .allowed = "0.01 … 1000",
     .defaultText = "1.29",
     .omitWhenDefault = true},
};

inline constexpr Key<DeviceConfig> kDeviceKeys[] = {
    {.name = "name",
     .member = &DeviceConfig::name,
     .range = {1, 32},
     .meaning = "the bdi name printed in traces (where a real kernel prints `8:0`)",
     .allowed = "1–32 characters, no spaces or control characters; unique"},
    {.name = "writeMBps",
     .member = &DeviceConfig::writeMBps,
     .range = kSpeedMBps,
     .unit = "MB/s",
     .meaning = "sequential write bandwidth (the lower bound is below the one page per second "
                "the kernel's bandwidth estimate can express)"},
    {.name = "readMBps",
     .member = &DeviceConfig::readMBps,
     .range = kSpeedMBps,
     .unit = "MB/s",
     .meaning = "sequential read bandwidth (swap-in reads); 0 = same as `writeMBps`",
     .zeroOr = "0 (the write speed) or "},
    {.name = "seekMs",
     .member = &DeviceConfig::seekMs,
     .range = {0, 1e5},
     .unit = "ms",
     .meaning = "mean positioning time when the write stream changes"},
    {.name = "maxRequestKiB",
     .member = &DeviceConfig::maxRequestKiB,
     .range = {4, 1 << 20},
     .unit = "KiB",
     .meaning = "`/sys/block/<dev>/queue/max_sectors_kb`: largest merged request"},
    {.name = "nrRequests",
     .member = &DeviceConfig::nrRequests,
     .range = {4, 1 << 20},
     .meaning = "`/sys/block/<dev>/queue/nr_requests`: request-queue depth"},
    {.name = "minRatio",
     .member = &DeviceConfig::minRatio,
     .range = kPercent,
     .unit = "%",
     .meaning = "`/sys/class/bdi/<bdi>/min_ratio`",
     .allowed = "0 … 100, ≤ `maxRatio`"},
    {.name = "maxRatio",
     .member = &DeviceConfig::maxRatio,
     .range = kPercent,
     .unit = "%",
     .meaning = "`/sys/class/bdi/<bdi>/max_ratio`"},
    {.name = "strictLimit",
     .member = &DeviceConfig::strictLimit,
     .meaning = "`BDI_CAP_STRICTLIMIT` (as FUSE sets it)"},
    {.name = "fileSystem",
     .member = &DeviceConfig::fileSystem,
     .meaning = "the file system on the device ([model.md, The file system]"
                "(model.md#the-file-system)): `ext3` (blocks allocated at write time, the jbd "
                "journal), `ext4` (delayed allocation, mballoc's 8 MiB mappings, jbd2), `xfs` "
                "(delayed allocation of the whole dirty range, the XFS log); `none` or `\"\"`: "
                "every file one preallocated region, no metadata, no journal",
     .allowed = "`\"\"`, `\"none\"`, `\"ext3\"`, `\"ext4\"`, `\"xfs\"`",
     .defaultText = "`\"\"` (none)",
     .omitWhenEmpty = true},
    {.name = "mountOptions",
     .member = &DeviceConfig::mountOptions,
     .meaning = "comma-separated mount options: `atime` (strictatime), `relatime`, `noatime`; "
                "`data=ordered`, `data=writeback`; `commit=SECONDS` (journal commit interval)",
     .allowed = "those options, each at most once per kind",
     .defaultText = "`\"\"` (the file system's defaults)",
     .omitWhenEmpty = true},
    {.name = "elevator",
     .member = &DeviceConfig::elevator,
     .meaning = "the I/O scheduler: `fifo` (noop: one queue in arrival order) or `deadline` "
                "(reads before writes, `write_expire` 5 s, `writes_starved` 2, `fifo_batch` 16)",
     .allowed = "`\"\"`, `\"fifo\"`, `\"deadline\"`",
     .defaultText = "`\"\"` (fifo)",
     .omitWhenEmpty = true},
    {.name = "initialWriteBwKBps",
     .member = &DeviceConfig::initialWriteBwKBps,
     .range = kInitialRateKBps,
     .unit = "KB/s",
     .meaning = "the bdi's `write_bandwidth` when the run starts (the `write_bw` of a "
                "`bdi_dirty_ratelimit` record): the kernel keeps the estimate for the bdi's "
                "lifetime, so a run after earlier writes starts from it",
     .zeroOr = "0 (`INIT_BW`, 100 MB/s, as after boot) or ",
     .omitWhenDefault = true},
    {.name = "initialAvgWriteBwKBps",
     .member = &DeviceConfig::initialAvgWriteBwKBps,
     .range = kInitialRateKBps,
     .unit = "KB/s",
     .meaning = "the bdi's `avg_write_bandwidth` when the run starts (`awrite_bw`)",
     .zeroOr = "0 (`INIT_BW`, 100 MB/s, as after boot) or ",
     .omitWhenDefault = true},
    {.name = "initialDirtyRatelimitKBps",
     .member = &DeviceConfig::initialDirtyRatelimitKBps,
     .range = kInitialRateKBps,
     .unit = "KB/s",
     .meaning = "the bdi's base rate `dirty_ratelimit` (and `balanced_dirty_ratelimit`) when "
                "the run starts",
     .zeroOr = "0 (`INIT_BW`, 100 MB/s, as after boot) or ",
     .omitWhenDefault = true},
    {.name = "stalls",
     .member = &DeviceConfig::stalls,
     .meaning = "spells in which the device completes nothing ([model.md, A device that "
                "stalls](model.md#a-device-that-stalls), Eq. 65), as measured on a virtual "
                "disk: `START+LENGTH` pairs in simulated seconds, separated by spaces or commas, "
                "in order and not overlapping; the request in service makes no progress during "
                "one. `--import-trace … --simulate` derives them from the trace",
     .allowed = "`\"\"` or pairs `S+L` (S ≥ 0, L > 0, each ≤ 1e7 s), at most 1,000,000",
     .defaultText = "`\"\"` (never stalls)",
     .omitWhenEmpty = true},
    {.name = "stallPeriodS",
     .member = &DeviceConfig::stallPeriodS,
     .range = kSeconds,
     .unit = "s",
     .meaning = "the `stalls` timeline repeats every this many seconds, and every stall must "
                "end within it; 0: the stalls happen once",
     .omitWhenDefault = true},
};

inline constexpr Key<VmConfig> kVmKeys[] = {
    {.name = "dirty_ratio",
     .member = &VmConfig::dirtyRatio,
     .range = kPercent,
     .unit = "%",
     .meaning = "`vm.dirty_ratio`: % of dirtyable memory at which writers are throttled"},
    {.name = "dirty_background_ratio",
     .member = &VmConfig::dirtyBackgroundRatio,
     .range = kPercent,
     .unit = "%",
     .meaning = "`vm.dirty_background_ratio`: % at which background writeback starts"},
    // The kernel's dirty_bytes_min: two pages.
    {.name = "dirty_bytes",
     .member = &VmConfig::dirtyBytes,
     .range = {2 * kPageBytes, 16 * kTiB},
     .unit = "bytes",
     .meaning = "`vm.dirty_bytes`; when non-zero it **overrides** `dirty_ratio`",
     .zeroOr = "0 (use dirty_ratio) or ",
     .allowed = "0, or 8192 (two pages) … 16 TiB"},
    {.name = "dirty_background_bytes",
     .member = &VmConfig::dirtyBackgroundBytes,
     .range = {0, 16 * kTiB},
     .unit = "bytes",
     .meaning = "`vm.dirty_background_bytes`; when non-zero it overrides "
                "`dirty_background_ratio`",
     .allowed = "0 … 16 TiB"},
    // 100,000,000 centiseconds are ~11.5 days.
    {.name = "dirty_expire_centisecs",
     .member = &VmConfig::dirtyExpireCentisecs,
     .range = {0, 100'000'000},
     .unit = "1/100 s",
     .meaning = "`vm.dirty_expire_centisecs`: age at which dirty data is written back"},
    {.name = "dirty_writeback_centisecs",
     .member = &VmConfig::dirtyWritebackCentisecs,
     .range = {0, 100'000'000},
     .unit = "1/100 s",
     .meaning = "`vm.dirty_writeback_centisecs`: flusher wake-up period; `0` disables "
                "periodic writeback"},
    // 200 since 5.8.
    {.name = "swappiness",
     .member = &VmConfig::swappiness,
     .range = {0, 200},
     .meaning = "`vm.swappiness`: how reclaim balances anonymous (swap) against file pages, "
                "`swappiness : 200 − swappiness`"},
    // 128 is the kernel's lower clamp (docs/model.md, Eq. 41).
    {.name = "min_free_kbytes",
     .member = &VmConfig::minFreeKbytes,
     .range = {128, 4'194'304},
     .unit = "KiB",
     .meaning = "`vm.min_free_kbytes`; `0` means the kernel's boot default for this much "
                "memory ([model.md](model.md#the-page-allocator), Eq. 41)",
     .zeroOr = "0 (the boot default) or "},
    // 3000 since 5.x; 1000 before.
    {.name = "watermark_scale_factor",
     .member = &VmConfig::watermarkScaleFactor,
     .range = {1, 3000},
     .unit = "1/10 000",
     .meaning = "`vm.watermark_scale_factor` (4.6+), of memory: the gap between the min, low "
                "and high watermarks. Only the `6.x` allocator uses it"},
};

inline constexpr Key<TaskSpec> kTaskKeys[] = {
    {.name = "name",
     .member = &TaskSpec::name,
     .range = {1, kMaxNameLength},
     .meaning = "the task's comm; traces and CSVs show its first 15 characters, as the kernel "
                "does"},
    {.name = "count",
     .member = &TaskSpec::count,
     .range = {0, 100'000},
     .meaning = "how many identical tasks",
     .allowed = "0 … 100 000; all groups together ≤ 100 000"},
    {.name = "kind", .member = &TaskSpec::kind, .meaning = "what the task does (see above)"},
    {.name = "blockKiB",
     .member = &TaskSpec::blockKiB,
     .range = {4, 1 << 20},
     .unit = "KiB",
     .meaning = "size of one `write()` (dd `bs=`); at least one page"},
    // A compiler may write no object file (0); an allocator writes nothing at all.
    {.name = "fileMiB",
     .member = &TaskSpec::fileMiB,
     .range = {0, kMaxFileMiB},
     .unit = "MiB",
     .meaning = "bytes written per run (dd `bs` × `count`); a compiler's object file",
     .allowed = "writer: 1 … 1 073 741 824; compiler, allocator: 0 … 1 073 741 824"},
    {.name = "loop",
     .member = &TaskSpec::loop,
     .meaning = "`true`: start the next run when one ends (`while true; do dd ...; done`); "
                "`false`: one run, then exit"},
    {.name = "copyMBps",
     .member = &TaskSpec::copyMBps,
     .range = kSpeedMBps,
     .unit = "MB/s",
     .meaning = "user-space copy speed with a whole CPU"},
    {.name = "thinkMs",
     .member = &TaskSpec::thinkMs,
     .range = {0, 1e9},
     .unit = "ms",
     .meaning = "pause between two blocks that uses no CPU"},
    {.name = "startS",
     .member = &TaskSpec::startS,
     .range = kSeconds,
     .unit = "s",
     .meaning = "simulated time at which the first run starts"},
    {.name = "sched",
     .member = &TaskSpec::sched,
     .meaning = "scheduling class: `SCHED_OTHER`, `SCHED_FIFO`, `SCHED_RR`"},
    {.name = "rtPriority",
     .member = &TaskSpec::rtPriority,
     .range = kAnyInt,
     .meaning = "real-time priority (`chrt -f 50`)",
     .allowed = "`0` for `other`; 1 … 99 for `fifo` and `rr`"},
    {.name = "nice",
     .member = &TaskSpec::nice,
     .range = {-20, 19},
     .meaning = "nice value; sets the CPU share of `other` tasks"},
    {.name = "device",
     .member = &TaskSpec::device,
     .meaning = "the disk the task's file lives on",
     .allowed = "the `name` of a device of this scenario",
     .defaultText = "`\"\"` (the first device)",
     .omitWhenEmpty = true},
    {.name = "runs",
     .member = &TaskSpec::runs,
     .range = {0, 1'000'000'000},
     .meaning = "with `loop`: exit after this many runs; `0` = never (a compiler slot of "
                "`make -jN` that builds `runs` units)"},
    {.name = "anonMiB",
     .member = &TaskSpec::anonMiB,
     .range = {0, 16.0 * 1024 * 1024},
     .unit = "MiB",
     .meaning = "compiler, allocator: anonymous memory allocated per run, in whole pages "
                "(rounded up: any amount touches at least one page)",
     .allowed = "0 … 16 777 216; > 0 for an allocator; a compiler needs `anonMiB` > 0 or "
                "`cpuS` > 0"},
    {.name = "allocMBps",
     .member = &TaskSpec::allocMBps,
     .range = kSpeedMBps,
     .unit = "MB/s",
     .meaning = "compiler, allocator: page-touching speed with a whole CPU"},
    // A compiler's CPU work per run, when it has any: less than a microsecond is no process at
    // all, and a run of nothing loops without simulated time passing.
    {.name = "cpuS",
     .member = &TaskSpec::cpuS,
     .range = {1e-6, 1e7},
     .unit = "s",
     .meaning = "compiler: CPU seconds of computation per run (user time)",
     .zeroOr = "0 or "},
    {.name = "holdS",
     .member = &TaskSpec::holdS,
     .range = kSeconds,
     .unit = "s",
     .meaning = "allocator: how long the memory is held before it is freed"},
    {.name = "readKiB",
     .member = &TaskSpec::readKiB,
     .range = {0, 1 << 30},
     .unit = "KiB",
     .meaning = "writer: read this much from a file of its device before each run, never "
                "cached (a program paged in from disk); reported as read latency, and its "
                "atime update joins the journal unless `noatime`",
     .omitWhenDefault = true},
    {.name = "fsync",
     .member = &TaskSpec::fsync,
     .meaning = "writer: `fsync()` the file at the end of each run (forces a journal commit)",
     .omitWhenDefault = true},
    {.name = "lessThrottle",
     .member = &TaskSpec::lessThrottle,
     .meaning = "`PF_LESS_THROTTLE` (nfsd-like): the task gets the +¼ bonus on the dirty "
                "limits (kernels ≤ 5.8)"},
    {.name = "oomScoreAdj",
     .member = &TaskSpec::oomScoreAdj,
     .range = {-1000, 1000},
     .meaning = "`/proc/<pid>/oom_score_adj`: biases the OOM killer's choice; -1000 exempts "
                "the task"},
    {.name = "cgroup",
     .member = &TaskSpec::cgroup,
     .meaning = "the memory cgroup the tasks run in (their `cgroup.procs`); its page cache is "
                "charged to it and, under `ioless` (4.2+), throttled against its own dirty "
                "limits too",
     .allowed = "the `name` of an entry of `cgroups`",
     .defaultText = "`\"\"` (the root cgroup)",
     .omitWhenEmpty = true},
};

inline constexpr Key<CgroupSpec> kCgroupKeys[] = {
    {.name = "name",
     .member = &CgroupSpec::name,
     .range = {1, 32},
     .meaning = "the cgroup's directory name, referred to by a task group's `cgroup`; CSV "
                "columns carry it (`cgroup_NAME_dirty_pages`)",
     .allowed = "1–32 letters, digits, `_`, `-` or `.`; unique"},
    {.name = "memoryMaxMiB",
     .member = &CgroupSpec::memoryMaxMiB,
     .range = {1, 16 * 1024 * 1024},
     .unit = "MiB",
     .meaning = "`memory.max`: at it, reclaim runs inside the cgroup (and its OOM killer when "
                "nothing can be reclaimed); with `memoryHighMiB` it bounds the cgroup's "
                "dirtyable memory",
     .zeroOr = "0 (`max`, no limit) or "},
    {.name = "memoryHighMiB",
     .member = &CgroupSpec::memoryHighMiB,
     .range = {1, 16 * 1024 * 1024},
     .unit = "MiB",
     .meaning = "`memory.high`: reclaim keeps the cgroup below it (no OOM kill); it bounds the "
                "dirtyable memory as `memory.max` does",
     .zeroOr = "0 (`max`, no limit) or "},
    {.name = "version",
     .member = &CgroupSpec::version,
     .range = {1, 2},
     .meaning = "`2`: the unified hierarchy, with cgroup writeback (its own dirty domain); `1`: "
                "the v1 memory controller, which limits memory but leaves dirty throttling "
                "global",
     .allowed = "1 or 2"},
};

/// The row of `keys` named `name`, or nullptr: what a control that edits one key looks up
/// (`findKey(schema::kVmKeys, "dirty_ratio")->range`).
template <class T, std::size_t N>
constexpr const Key<T>* findKey(const Key<T> (&keys)[N], std::string_view name) {
  for (const Key<T>& k : keys)
    if (k.name == name) return &k;
  return nullptr;
}

// ---------------------------------------------------------------------------------------------
// The window's Parameters panel. Each control takes its range, unit and meaning from the row of
// the key it edits; a row here says how the control shows that key (in MiB rather than bytes,
// the step of a spin box) and, where the window deliberately offers less than the format
// allows, how much less and why, in this one place. The rest of a scenario's range is reached
// through a scenario file or --set. tests/engine/control_span_test.cpp holds every span inside
// its key's range.
struct ControlSpan {
  std::string_view control;  // the panel's control (its accessor: ParameterPanel::writers())
  std::string_view table;    // the key's table and name, as --set spells them: "vm", "dirty_bytes"
  std::string_view key;
  Range range{};            // what the control offers, in its unit; {0, 0}: the key's whole range
  bool zeroToo = false;     // exactly 0 besides `range` (a log slider's far left)
  std::string_view unit{};  // the control's unit when it is not the key's
  double keyPerUnit = 1;    // the key's units in one of the control's
  double step = 1;          // a spin box's step, in the control's unit
  std::string_view why{};   // why the window offers less than the format; empty: it does not
};

inline constexpr std::string_view kSliderWhy =
    "a slider's travel is a few hundred pixels, so it spans what a hand sets in a lecture";
inline constexpr double kMiBBytes = 1024.0 * 1024.0;

inline constexpr ControlSpan kControlSpans[] = {
    {.control = "writers",
     .table = "tasks",
     .key = "count",
     .range = {1, 10'000},
     .zeroToo = true,
     .why = kSliderWhy},
    {.control = "blockSize",
     .table = "tasks",
     .key = "blockKiB",
     .range = {4, 65'536},
     .why = kSliderWhy},
    {.control = "thinkTime",
     .table = "tasks",
     .key = "thinkMs",
     .range = {0.1, 10'000},
     .zeroToo = true,
     .why = kSliderWhy},
    {.control = "rtWriters", .table = "tasks", .key = "count"},
    {.control = "rtPriority",
     .table = "tasks",
     .key = "rtPriority",
     .range = {1, 99},
     .why = "the group is SCHED_FIFO or SCHED_RR, whose priorities are 1 to 99"},
    {.control = "dirtyRatio", .table = "vm", .key = "dirty_ratio"},
    {.control = "dirtyBytesMiB",
     .table = "vm",
     .key = "dirty_bytes",
     .unit = "MiB",
     .keyPerUnit = kMiBBytes},
    {.control = "backgroundRatio", .table = "vm", .key = "dirty_background_ratio"},
    // 0 means "use the ratio": the panel's mode box chooses that.
    {.control = "backgroundBytesMiB",
     .table = "vm",
     .key = "dirty_background_bytes",
     .range = {1, 16 * 1024 * 1024},
     .unit = "MiB",
     .keyPerUnit = kMiBBytes,
     .why = "0 is the mode box's other choice, dirty_background_ratio"},
    {.control = "expireCentisecs",
     .table = "vm",
     .key = "dirty_expire_centisecs",
     .unit = "cs",
     .step = 100},
    {.control = "writebackCentisecs",
     .table = "vm",
     .key = "dirty_writeback_centisecs",
     .unit = "cs",
     .step = 100},
    {.control = "memoryMiB",
     .table = "machine",
     .key = "memoryMiB",
     .range = {256, 262'144},
     .why = kSliderWhy},
    {.control = "cpus", .table = "machine", .key = "cpus"},
    {.control = "deviceMBps",
     .table = "devices",
     .key = "writeMBps",
     .range = {1, 10'000},
     .why = kSliderWhy},
    {.control = "seekMs", .table = "devices", .key = "seekMs", .step = 0.5},
};

/// What a row of a key table says, whatever the table's type: for a control that edits the key.
struct KeyFacts {
  Range range{};
  std::string_view unit{};
  std::string_view meaning{};
  std::string_view allowed{};
};

/// The facts of `key` in the table --set calls `table` ("machine", "devices", "vm", "tasks",
/// "cgroups"), or nothing.
constexpr std::optional<KeyFacts> keyFacts(std::string_view table, std::string_view key) {
  const auto from = [key](const auto& keys) -> std::optional<KeyFacts> {
    for (const auto& k : keys)
      if (k.name == key)
        return KeyFacts{
            .range = k.range, .unit = k.unit, .meaning = k.meaning, .allowed = k.allowed};
    return std::nullopt;
  };
  if (table == "machine") return from(kMachineKeys);
  if (table == "devices") return from(kDeviceKeys);
  if (table == "vm") return from(kVmKeys);
  if (table == "tasks") return from(kTaskKeys);
  if (table == "cgroups") return from(kCgroupKeys);
  return std::nullopt;
}

/// The row of the control named `control`, or nullptr.
constexpr const ControlSpan* findControl(std::string_view control) {
  for (const ControlSpan& c : kControlSpans)
    if (c.control == control) return &c;
  return nullptr;
}

template <class T, std::size_t N>
constexpr std::array<JsonField, N> fieldsOf(const Key<T> (&keys)[N]) {
  std::array<JsonField, N> fields{};
  for (std::size_t i = 0; i < N; ++i) fields[i] = {keys[i].name, keys[i].kind, keys[i].children};
  return fields;
}

inline constexpr auto kMachineFields = fieldsOf(kMachineKeys);
inline constexpr auto kDeviceFields = fieldsOf(kDeviceKeys);
inline constexpr auto kVmFields = fieldsOf(kVmKeys);
inline constexpr auto kTaskFields = fieldsOf(kTaskKeys);
inline constexpr auto kCgroupFields = fieldsOf(kCgroupKeys);

// In the order the writer writes them.
inline constexpr Key<Scenario> kRootKeys[] = {
    {.name = "schemaVersion",
     .member = &Scenario::schemaVersion,
     .range = kAnyInt,
     .meaning = "version of this format",
     .allowed = "`1`",
     .defaultText = "required"},
    {.name = "name",
     .member = &Scenario::name,
     .range = {1, kMaxNameLength * 4},
     .meaning = "shown in the window, the CSV header and the summary"},
    {.name = "description",
     .member = &Scenario::description,
     .meaning = "shown by `--list-scenarios`"},
    {.name = "seed",
     .member = &Scenario::seed,
     .meaning = "random seed; the same scenario and seed give identical output",
     .allowed = "0 … 18 446 744 073 709 551 615"},
    {.name = "durationS",
     .member = &Scenario::durationS,
     .range = {0, 1e7, true},
     .unit = "s",
     .meaning = "simulated seconds a headless run lasts"},
    {.name = "sampleIntervalS",
     .member = &Scenario::sampleIntervalS,
     .range = {0.001, 60},
     .unit = "s",
     .meaning = "one CSV row (sample) per this many simulated seconds"},
    {.name = "machine",
     .meaning = "the computer",
     .defaultText = "see below",
     .kind = JsonKind::Object,
     .children = kMachineFields},
    {.name = "device",
     .meaning = "the disk, when there is one",
     .defaultText = "one default device",
     .kind = JsonKind::Object,
     .children = kDeviceFields},
    {.name = "devices",
     .meaning = "the disks, when there are several; give `device` or `devices`, not both",
     .allowed = "1–64 devices, unique names",
     .kind = JsonKind::ObjectArray,
     .children = kDeviceFields},
    {.name = "vm",
     .meaning = "the `vm.*` sysctls",
     .defaultText = "see below",
     .kind = JsonKind::Object,
     .children = kVmFields},
    {.name = "policy",
     .member = &Scenario::policy,
     .meaning = "the throttling algorithm (below)",
     .allowed = "a known policy name (an unknown one is rejected with the list of known ones)"},
    {.name = "tasks",
     .meaning = "groups of identical tasks",
     .allowed = "at most 100 000 entries",
     .defaultText = "`[]`",
     .kind = JsonKind::ObjectArray,
     .children = kTaskFields},
    {.name = "cgroups",
     .meaning = "memory cgroups (one level below the root) that task groups may run in; left "
                "out of a written scenario when empty",
     .allowed = "at most 64 entries",
     .defaultText = "`[]`",
     .kind = JsonKind::ObjectArray,
     .children = kCgroupFields},
};

inline constexpr auto kRootFields = fieldsOf(kRootKeys);

// The enumerations a key can hold, with the word a message uses for them.
template <class E>
struct EnumInfo;
template <>
struct EnumInfo<TaskKind> {
  static constexpr std::string_view kWhat = "task kind";
  static constexpr std::array kAll{TaskKind::Writer, TaskKind::Compiler, TaskKind::Allocator};
};
template <>
struct EnumInfo<SchedClass> {
  static constexpr std::string_view kWhat = "scheduling class";
  static constexpr std::array kAll{SchedClass::Other, SchedClass::Fifo, SchedClass::RoundRobin};
};

}  // namespace throttlelab::engine::schema
