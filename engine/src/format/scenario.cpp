// SPDX-License-Identifier: GPL-3.0-or-later
// Scenario JSON (schemaVersion 1): strict parsing with one path-precise message per problem,
// `--set` overrides, validation, serialisation and the built-in scenarios.
#include "throttlelab/engine/scenario.h"
#include "throttlelab/engine/scenario_doc.h"
#include "throttlelab/engine/spelling.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <span>
#include <type_traits>
#include <unordered_set>
#include <variant>

#include "file_system.h"
#include "policy.h"
#include "stall_timeline.h"
#include "throttlelab/engine/enum_names.h"

namespace throttlelab::engine {

namespace detail {
// Defined in the file that cmake/EmbedScenarios.cmake generates from resources/scenarios/.
const std::vector<std::pair<std::string_view, std::string_view>>& embeddedScenarios();
}  // namespace detail

namespace {

// std::map-backed objects: lookups and inserts stay O(log n) even for hostile inputs with
// millions of keys (ordered_json would make building such a document quadratic).
using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

// ---------------------------------------------------------------------------------------------
// Limits that are not one key's range. Ranges of single keys are in the key tables below.

constexpr std::int64_t kTiB = std::int64_t{1} << 40;
constexpr std::array<int, 4> kValidHz{100, 250, 300, 1000};
constexpr std::int64_t kMaxTotalTasks = 100'000;
constexpr std::size_t kMaxTaskGroups = 100'000;
constexpr std::size_t kMaxCgroups = 64;
constexpr std::int64_t kMaxFileMiB = std::int64_t{1} << 30;  // 1 PiB
// Page-allocator generations (MachineConfig::allocator), oldest first.
constexpr std::array<std::string_view, 4> kAllocators{"2.6.0-no-rt", "2.6.0", "2.6.9", "6.x"};
constexpr std::size_t kMaxNameLength = 64;
constexpr std::size_t kMaxInputBytes = 16 * 1024 * 1024;
constexpr int kMaxDepth = 32;  // the schema needs 3; deeper input is rejected, not walked

// ---------------------------------------------------------------------------------------------
// The schema: one row per key and one table per object. A row names the key, the member it
// lands in (which gives its JSON type and its default), its allowed range, its unit and its
// meaning. The rows drive the strict parser (unknown keys), `--set` (valid paths), the reader
// (types), the validator (ranges, checked there once), the writer (key order) and the tables
// of docs/scenario-format.md. Rules that involve more than one key's range follow the tables,
// in the validator. Key names are fixed by the file format; never rename one.

enum class FieldKind { Scalar, Object, ObjectArray };

// The shape of the key tree, without the types: what the parser and `--set` walk.
struct Field {
  std::string_view key;
  FieldKind kind = FieldKind::Scalar;
  std::span<const Field> children{};
};

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

constexpr Range kAnyInt{std::numeric_limits<int>::min(), std::numeric_limits<int>::max()};
constexpr Range kPercent{0, 100};
// Speeds (device, copy, page touching) in decimal MB/s. Below a page (4 KiB) per second the
// kernel's own bandwidth estimate (pages per second, at least 1) cannot express a device, and
// a smaller figure only makes one request outlast any run; 0.001 MB/s (1 kB/s) keeps every
// speed a trace can show. Tiny values such as 1e-320 (denormals) are refused with the range.
constexpr Range kSpeedMBps{0.001, 1e6};
constexpr Range kSeconds{0, 1e7};  // ~115 days of simulated time
// A bdi's bandwidth state in KB/s: at least the one page per second the kernel keeps it at.
constexpr Range kInitialRateKBps{4, 1e9};
constexpr Range kInitialPages{0, 4e12};  // 16 PiB of 4 KiB pages

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
  FieldKind kind = FieldKind::Scalar;
  std::span<const Field> children{};
};

constexpr Key<MachineConfig> kMachineKeys[] = {
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

constexpr Key<DeviceConfig> kDeviceKeys[] = {
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

constexpr Key<VmConfig> kVmKeys[] = {
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

constexpr Key<TaskSpec> kTaskKeys[] = {
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

constexpr Key<CgroupSpec> kCgroupKeys[] = {
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

template <class T, std::size_t N>
constexpr std::array<Field, N> fieldsOf(const Key<T> (&keys)[N]) {
  std::array<Field, N> fields{};
  for (std::size_t i = 0; i < N; ++i) fields[i] = {keys[i].name, keys[i].kind, keys[i].children};
  return fields;
}

constexpr auto kMachineFields = fieldsOf(kMachineKeys);
constexpr auto kDeviceFields = fieldsOf(kDeviceKeys);
constexpr auto kVmFields = fieldsOf(kVmKeys);
constexpr auto kTaskFields = fieldsOf(kTaskKeys);
constexpr auto kCgroupFields = fieldsOf(kCgroupKeys);

// In the order the writer writes them.
constexpr Key<Scenario> kRootKeys[] = {
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
     .kind = FieldKind::Object,
     .children = kMachineFields},
    {.name = "device",
     .meaning = "the disk, when there is one",
     .defaultText = "one default device",
     .kind = FieldKind::Object,
     .children = kDeviceFields},
    {.name = "devices",
     .meaning = "the disks, when there are several; give `device` or `devices`, not both",
     .allowed = "1–64 devices, unique names",
     .kind = FieldKind::ObjectArray,
     .children = kDeviceFields},
    {.name = "vm",
     .meaning = "the `vm.*` sysctls",
     .defaultText = "see below",
     .kind = FieldKind::Object,
     .children = kVmFields},
    {.name = "policy",
     .member = &Scenario::policy,
     .meaning = "the throttling algorithm (below)",
     .allowed = "a known policy name (an unknown one is rejected with the list of known ones)"},
    {.name = "tasks",
     .meaning = "groups of identical tasks",
     .allowed = "at most 100 000 entries",
     .defaultText = "`[]`",
     .kind = FieldKind::ObjectArray,
     .children = kTaskFields},
    {.name = "cgroups",
     .meaning = "memory cgroups (one level below the root) that task groups may run in; left "
                "out of a written scenario when empty",
     .allowed = "at most 64 entries",
     .defaultText = "`[]`",
     .kind = FieldKind::ObjectArray,
     .children = kCgroupFields},
};

constexpr auto kRootFields = fieldsOf(kRootKeys);

const Field* findField(std::span<const Field> fields, std::string_view key) {
  for (const auto& f : fields)
    if (f.key == key) return &f;
  return nullptr;
}

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

template <class E>
std::optional<E> enumFromString(std::string_view name) {
  for (const E e : EnumInfo<E>::kAll)
    if (toString(e) == name) return e;
  return std::nullopt;
}

template <class E>
std::string enumNames() {
  std::string out;
  for (const E e : EnumInfo<E>::kAll) {
    if (!out.empty()) out += ", ";
    out += toString(e);
  }
  return out;
}

std::string keyPath(const std::string& prefix, std::string_view key) {
  return prefix.empty() ? std::string(key) : prefix + "." + std::string(key);
}

// Well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
// Names are saved as JSON, whose writer replaces anything else by U+FFFD: the saved file would
// name something else, and could exceed the length limit that the name met.
bool isUtf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t more = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // the range of the second byte
    if (c < 0x80) {
      ++i;
      continue;
    } else if (c >= 0xC2 && c <= 0xDF) {
      more = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
      more = 2;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      more = 3;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return false;
    }
    if (s.size() - i <= more) return false;
    for (std::size_t k = 1; k <= more; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) return false;
    }
    i += more + 1;
  }
  return true;
}

// Keys and values from the input go into one-line messages: escape what a terminal would
// interpret and cut what would drown the message.
std::string printable(std::string_view s, std::size_t maxLength = kMaxNameLength) {
  std::string out;
  for (const char c : s.substr(0, maxLength)) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 0xf];
    } else {
      out += c;
    }
  }
  if (s.size() > maxLength) out += "...";
  return out;
}

std::string unknownKeyReason(std::string_view key, std::span<const Field> known) {
  std::string reason = "unknown key '" + printable(key) + "'";
  std::vector<std::string_view> names;
  for (const auto& f : known) names.push_back(f.key);
  if (const auto best = closestName(key, names))
    reason += " (did you mean '" + std::string(names[*best]) + "'?)";
  return reason;
}

std::string formatDouble(double v) {
  std::array<char, 64> buf{};
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  return r.ec == std::errc{} ? std::string(buf.data(), r.ptr) : std::string("?");
}

std::string describe(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::boolean:
      return v.get<bool>() ? "true" : "false";
    case Json::value_t::string:
      return "the string \"" + printable(v.get_ref<const std::string&>()) + "\"";
    case Json::value_t::number_integer:
      return std::to_string(v.get<std::int64_t>());
    case Json::value_t::number_unsigned:
      return std::to_string(v.get<std::uint64_t>());
    case Json::value_t::number_float:
      return formatDouble(v.get<double>());
    case Json::value_t::object:
      return "an object";
    case Json::value_t::array:
      return "an array";
    default:
      return "an unsupported value";
  }
}

std::string rangeReason(std::int64_t lo, std::int64_t hi, const std::string& got) {
  return "must be between " + std::to_string(lo) + " and " + std::to_string(hi) + ", got " + got;
}

template <class Names>
std::string joinNames(const Names& names) {
  std::string out;
  for (const auto& n : names) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}

std::string deviceJsonPath(std::size_t index, bool arrayForm) {
  return arrayForm ? "devices[" + std::to_string(index) + "]" : std::string("device");
}

std::string cgroupJsonPath(std::size_t index) {
  return "cgroups[" + std::to_string(index) + "]";
}

std::string taskJsonPath(std::size_t index) {
  return "tasks[" + std::to_string(index) + "]";
}

// ---------------------------------------------------------------------------------------------
// Where messages come from: "ten-dd.json: vm.dirty_ratio: ..." or, when the key at fault was
// set by an override, "command line: vm.dirty_ratio: ...", because the file is not to blame.

class Context {
 public:
  explicit Context(std::string origin) : m_origin(std::move(origin)) {}

  void addOverridden(std::string path) { m_overridden.push_back(std::move(path)); }

  [[noreturn]] void fail(const std::string& key, const std::string& reason) const {
    std::string message = fromOverride(key) ? std::string("command line") : m_origin;
    message += ": ";
    if (!key.empty()) message += key + ": ";
    message += reason;
    throw ScenarioError(key, message, reason);
  }

 private:
  bool fromOverride(const std::string& key) const {
    return std::any_of(m_overridden.begin(), m_overridden.end(), [&](const std::string& p) {
      if (key.size() < p.size() || key.compare(0, p.size(), p) != 0) return false;
      return key.size() == p.size() || key[p.size()] == '.' || key[p.size()] == '[';
    });
  }

  std::string m_origin;
  std::vector<std::string> m_overridden;
};

// ---------------------------------------------------------------------------------------------
// Parsing: a SAX handler that builds the document and, on the way, rejects what nlohmann's DOM
// parser would silently accept (duplicate keys) and what we never want to build (unknown keys,
// absurd nesting). It fails at the first problem, so hostile input costs little.

class StrictDomBuilder {
 public:
  explicit StrictDomBuilder(const Context& context) : m_context(context) {}

  Json take() { return std::move(m_root); }

  bool null() { return addScalar(Json(nullptr)); }
  bool boolean(bool v) { return addScalar(Json(v)); }
  bool number_integer(std::int64_t v) { return addScalar(Json(v)); }
  bool number_unsigned(std::uint64_t v) { return addScalar(Json(v)); }
  bool number_float(double v, const std::string&) { return addScalar(Json(v)); }
  bool string(std::string& v) { return addScalar(Json(std::move(v))); }
  bool binary(Json::binary_t&) { return addScalar(Json(nullptr)); }

  bool start_object(std::size_t) { return open(Json::object(), false); }
  bool start_array(std::size_t) { return open(Json::array(), true); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(std::string& k) {
    Frame& f = m_frames.back();
    if (f.checkKeys && !findField(f.schema, k))
      m_context.fail(pathOf(m_frames.size(), k), unknownKeyReason(k, f.schema));
    if (!f.seenKeys.insert(k).second)
      m_context.fail(pathOf(m_frames.size(), k), "duplicate key '" + printable(k) + "'");
    f.currentKey = k;
    m_objectSlot = &(*m_values.back())[k];
    return true;
  }

  template <class Exception>
  bool parse_error(std::size_t, const std::string&, const Exception& ex) {
    // nlohmann's text: "[json.exception.parse_error.101] parse error at line 3, column 5:
    // syntax error while parsing value - invalid literal; last read: '...'". Keep the position
    // and the detail, drop the library's prefixes.
    std::string text = ex.what();
    std::string position;
    if (const auto at = text.find(" at line "); at != std::string::npos) {
      const auto colon = text.find(": ", at);
      position =
          text.substr(at + 4, colon == std::string::npos ? std::string::npos : colon - at - 4);
      text = colon == std::string::npos ? std::string() : text.substr(colon + 2);
    }
    if (const auto dash = text.find(" - "); dash != std::string::npos) text = text.substr(dash + 3);
    std::string reason = "JSON syntax error";
    if (!position.empty()) reason += " at " + position;
    if (!text.empty()) reason += ": " + printable(text, 200);
    m_context.fail("", reason);
  }

 private:
  struct Frame {
    bool isArray = false;
    bool checkKeys = false;           // the schema knows this object's keys
    std::span<const Field> schema{};  // this object's fields, or an array's element fields
    std::string currentKey;
    std::size_t index = 0;  // elements completed so far (arrays)
    std::unordered_set<std::string> seenKeys;
  };

  // The JSON path of the current position: labels of the open containers plus `leaf`.
  std::string pathOf(std::size_t depth, std::string_view leaf) const {
    std::string path;
    for (std::size_t i = 0; i < depth; ++i) {
      const Frame& f = m_frames[i];
      if (i + 1 == depth) break;
      if (f.isArray) {
        path += "[" + std::to_string(f.index) + "]";
      } else {
        if (!path.empty()) path += '.';
        path += printable(f.currentKey);
      }
    }
    if (!leaf.empty()) {
      if (!path.empty()) path += '.';
      path += printable(leaf);
    }
    return path;
  }

  // Where the next value goes, and which schema a container opened there follows.
  Json* slotForNewValue(std::span<const Field>& schema, FieldKind& kind, bool& known) {
    known = false;
    if (m_values.empty()) {
      schema = kRootFields;
      kind = FieldKind::Object;
      known = true;
      return &m_root;
    }
    Frame& parent = m_frames.back();
    if (parent.isArray) {
      schema = parent.schema;
      kind = FieldKind::Object;
      known = parent.checkKeys;
      auto& array = m_values.back()->get_ref<Json::array_t&>();
      array.emplace_back();
      return &array.back();
    }
    if (parent.checkKeys) {
      if (const Field* f = findField(parent.schema, parent.currentKey)) {
        schema = f->children;
        kind = f->kind;
        known = f->kind != FieldKind::Scalar;
      }
    }
    return m_objectSlot;
  }

  bool addScalar(Json v) {
    std::span<const Field> schema;
    FieldKind kind{};
    bool known = false;
    Json* slot = slotForNewValue(schema, kind, known);
    *slot = std::move(v);
    if (!m_frames.empty() && m_frames.back().isArray) ++m_frames.back().index;
    return true;
  }

  bool open(Json container, bool isArray) {
    if (m_frames.size() >= kMaxDepth)
      m_context.fail("", "JSON nested deeper than " + std::to_string(kMaxDepth) + " levels");
    std::span<const Field> schema;
    FieldKind kind{};
    bool known = false;
    Json* slot = slotForNewValue(schema, kind, known);
    *slot = std::move(container);
    Frame f;
    f.isArray = isArray;
    // An object where the schema expects one has its keys checked; a container in the wrong
    // place is left for the reader, which reports the type mismatch with a better message.
    if (known) {
      f.checkKeys = isArray ? kind == FieldKind::ObjectArray : kind == FieldKind::Object;
      f.schema = schema;
    }
    m_frames.push_back(std::move(f));
    m_values.push_back(slot);
    return true;
  }

  bool close() {
    m_frames.pop_back();
    m_values.pop_back();
    if (!m_frames.empty() && m_frames.back().isArray) ++m_frames.back().index;
    return true;
  }

  const Context& m_context;
  Json m_root;
  std::vector<Frame> m_frames;
  std::vector<Json*> m_values;  // open containers; their addresses are stable while open
  Json* m_objectSlot = nullptr;
};

Json parseDocument(std::string_view text, const Context& context) {
  if (text.size() > kMaxInputBytes)
    context.fail("", "larger than " + std::to_string(kMaxInputBytes / (1024 * 1024)) +
                         " MiB; a scenario is a small JSON file");
  StrictDomBuilder builder(context);
  try {
    Json::sax_parse(text.begin(), text.end(), &builder);
  } catch (const Json::exception& e) {
    // Errors the library raises outside parse_error(); ScenarioError passes through.
    context.fail("", "invalid JSON: " + printable(e.what(), 200));
  }
  return builder.take();
}

// ---------------------------------------------------------------------------------------------
// Overrides: `--set KEY=VALUE` edits the document before it is read, so an override passes
// every check a file does.

using PathToken = std::variant<std::string, std::size_t>;

std::vector<PathToken> splitPath(const std::string& path, const Context& context) {
  std::vector<PathToken> tokens;
  std::size_t i = 0;
  const auto bad = [&](const std::string& why) {
    context.fail(printable(path), "not a valid key path (" + why + "); use a form like " +
                                      "vm.dirty_bytes or tasks[0].count");
  };
  if (path.empty()) bad("it is empty");
  while (i < path.size()) {
    if (path[i] == '[') {
      const auto close = path.find(']', i);
      if (close == std::string::npos) bad("'[' without ']'");
      const std::string digits = path.substr(i + 1, close - i - 1);
      std::size_t index = 0;
      const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), index);
      if (digits.empty() || r.ec != std::errc{} || r.ptr != digits.data() + digits.size())
        bad("an array index must be a non-negative integer");
      tokens.emplace_back(index);
      i = close + 1;
      if (i < path.size() && path[i] != '.' && path[i] != '[') bad("expected '.' or '[' after ']'");
      if (i < path.size() && path[i] == '.') {
        ++i;
        if (i == path.size()) bad("it ends with '.'");
      }
      continue;
    }
    const auto end = path.find_first_of(".[]", i);
    const std::string key = path.substr(i, end == std::string::npos ? std::string::npos : end - i);
    if (key.empty()) bad("an empty key");
    tokens.emplace_back(key);
    i = end == std::string::npos ? path.size() : end;
    if (i < path.size() && path[i] == ']') bad("']' without '['");
    if (i < path.size() && path[i] == '.') {
      ++i;
      if (i == path.size()) bad("it ends with '.'");
    }
  }
  return tokens;
}

Json overrideValue(const std::string& text) {
  // VALUE is JSON when it parses as JSON, else a bare string: `--set policy=ioless` works.
  Json v = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (v.is_discarded()) return Json(text);
  return v;
}

/// Applies one override; returns the path it set, spelled as the document now spells it.
std::string applyOverride(Json& doc, const Override& o, const Context& context) {
  const std::vector<PathToken> tokens = splitPath(o.path, context);
  if (!doc.is_object()) context.fail("", "the scenario must be a JSON object");

  Json* node = &doc;
  std::span<const Field> fields = kRootFields;
  std::string path;
  std::size_t t = 0;
  while (t < tokens.size()) {
    const bool last = t + 1 == tokens.size();
    if (!std::holds_alternative<std::string>(tokens[t]))
      context.fail(path.empty() ? printable(o.path) : path, "is not an array");
    std::string key = std::get<std::string>(tokens[t]);
    const Field* field = findField(fields, key);
    const std::string keyPath = path.empty() ? printable(key) : path + "." + printable(key);
    if (!field) context.fail(keyPath, unknownKeyReason(key, fields));

    // The device block may be spelled "device" (one) or "devices" (a list); an override
    // addresses whichever the document uses: device.X means devices[0].X and vice versa.
    if (path.empty() && key == "device" && !doc.contains("device") && doc.contains("devices")) {
      key = "devices";
      field = findField(kRootFields, key);
      Json& devices = doc["devices"];
      if (!devices.is_array() || devices.empty())
        context.fail("devices", "has no first device to set");
      node = &devices[0];
      path = "devices[0]";
      fields = field->children;
      if (last) {
        *node = overrideValue(o.value);
        return path;
      }
      ++t;
      continue;
    }
    if (path.empty() && key == "devices" && !doc.contains("devices") && doc.contains("device") &&
        !last && std::holds_alternative<std::size_t>(tokens[t + 1])) {
      const std::size_t index = std::get<std::size_t>(tokens[t + 1]);
      if (index != 0)
        context.fail("devices[" + std::to_string(index) + "]",
                     "index out of range (the scenario has 1 device)");
      node = &doc["device"];
      path = "device";
      fields = field->children;
      t += 2;
      if (t == tokens.size()) {
        *node = overrideValue(o.value);
        return path;
      }
      continue;
    }

    if (!node->is_object()) context.fail(path, "is not an object, so " + o.path + " cannot be set");
    if (last) {
      (*node)[key] = overrideValue(o.value);
      return keyPath;
    }
    if (field->kind == FieldKind::Scalar) context.fail(keyPath, "is not an object or an array");
    Json& child = (*node)[key];
    if (field->kind == FieldKind::Object) {
      if (child.is_null()) child = Json::object();  // a known block the file left out
      node = &child;
      fields = field->children;
      path = keyPath;
      ++t;
      continue;
    }
    // An array of objects: the next token must be an index into it.
    if (!std::holds_alternative<std::size_t>(tokens[t + 1]))
      context.fail(keyPath, "is an array; address an element like " + keyPath + "[0]");
    const std::size_t index = std::get<std::size_t>(tokens[t + 1]);
    const std::string indexPath = keyPath + "[" + std::to_string(index) + "]";
    const std::size_t size = child.is_array() ? child.size() : 0;
    if (index >= size)
      context.fail(indexPath, "index out of range (the scenario has " + std::to_string(size) +
                                  (key == "tasks" ? " task group" : " device") +
                                  (size == 1 ? "" : "s") + ")");
    node = &child[index];
    fields = field->children;
    path = indexPath;
    t += 2;
    if (t == tokens.size()) {
      *node = overrideValue(o.value);
      return path;
    }
  }
  return path;
}

// ---------------------------------------------------------------------------------------------
// Reading the document into a Scenario: each key's JSON type, and whether its value can be
// stored at all. The ranges are the validator's, which also checks scenarios built in code.

class Reader {
 public:
  explicit Reader(const Context& context) : m_context(context) {}

  Scenario read(const Json& doc) {
    if (!doc.is_object())
      m_context.fail("", "the scenario must be a JSON object, got " + describe(doc));
    Scenario s;
    // The version first: a file of another version is not read key by key.
    const Json* version = member(doc, "schemaVersion");
    if (!version)
      m_context.fail("schemaVersion", "missing; a scenario file starts with \"schemaVersion\": " +
                                          std::to_string(kScenarioSchemaVersion));
    std::int64_t v = 0;
    readValue(*version, "schemaVersion", kAnyInt, v);
    if (v != kScenarioSchemaVersion)
      m_context.fail("schemaVersion", "unsupported schema version " + std::to_string(v) +
                                          " (this build reads " +
                                          std::to_string(kScenarioSchemaVersion) + ")");
    readKeys(doc, "", kRootKeys, s);

    if (const Json* m = member(doc, "machine")) readObject(*m, "machine", kMachineKeys, s.machine);

    const Json* device = member(doc, "device");
    const Json* devices = member(doc, "devices");
    if (device && devices)
      m_context.fail("devices", "give either \"device\" (one) or \"devices\" (a list), not both");
    if (device) {
      s.devices = {DeviceConfig{}};
      readObject(*device, "device", kDeviceKeys, s.devices[0]);
    } else if (devices) {
      requireArray(*devices, "devices");
      if (devices->empty()) m_context.fail("devices", "must list at least one device");
      if (devices->size() > kMaxDevices)
        m_context.fail("devices", "lists " + std::to_string(devices->size()) +
                                      " devices; at most " + std::to_string(kMaxDevices) +
                                      " are supported");
      s.devices.assign(devices->size(), DeviceConfig{});
      for (std::size_t i = 0; i < devices->size(); ++i)
        readObject((*devices)[i], deviceJsonPath(i, true), kDeviceKeys, s.devices[i]);
    }

    if (const Json* vm = member(doc, "vm")) readObject(*vm, "vm", kVmKeys, s.vm);

    if (const Json* tasks = member(doc, "tasks")) {
      requireArray(*tasks, "tasks");
      if (tasks->size() > kMaxTaskGroups)
        m_context.fail("tasks", "lists " + std::to_string(tasks->size()) +
                                    " task groups; at most " + std::to_string(kMaxTaskGroups) +
                                    " are supported");
      s.tasks.assign(tasks->size(), TaskSpec{});
      for (std::size_t i = 0; i < tasks->size(); ++i)
        readObject((*tasks)[i], taskJsonPath(i), kTaskKeys, s.tasks[i]);
    }

    if (const Json* cgroups = member(doc, "cgroups")) {
      requireArray(*cgroups, "cgroups");
      if (cgroups->size() > kMaxCgroups)
        m_context.fail("cgroups", "lists " + std::to_string(cgroups->size()) +
                                      " cgroups; at most " + std::to_string(kMaxCgroups) +
                                      " are supported");
      s.cgroups.assign(cgroups->size(), CgroupSpec{});
      for (std::size_t i = 0; i < cgroups->size(); ++i)
        readObject((*cgroups)[i], cgroupJsonPath(i), kCgroupKeys, s.cgroups[i]);
    }
    return s;
  }

 private:
  static const Json* member(const Json& obj, std::string_view key) {
    const auto it = obj.find(std::string(key));
    return it == obj.end() ? nullptr : &*it;
  }

  void requireArray(const Json& v, const std::string& path) const {
    if (!v.is_array()) m_context.fail(path, "must be an array, got " + describe(v));
  }

  template <class T, std::size_t N>
  void readObject(const Json& v, const std::string& path, const Key<T> (&keys)[N], T& out) const {
    if (!v.is_object()) m_context.fail(path, "must be an object, got " + describe(v));
    readKeys(v, path, keys, out);
  }

  // Every scalar key of `keys` that `obj` gives; object and array keys are read by the caller.
  template <class T, std::size_t N>
  void readKeys(const Json& obj, const std::string& prefix, const Key<T> (&keys)[N], T& out) const {
    for (const Key<T>& k : keys) {
      if (k.kind != FieldKind::Scalar) continue;
      const Json* v = member(obj, k.name);
      if (!v) continue;
      std::visit(
          [&](auto m) {
            if constexpr (!std::is_same_v<decltype(m), std::monostate>)
              readValue(*v, keyPath(prefix, k.name), k.range, out.*m);
          },
          k.member);
    }
  }

  // An integer that fits `Int`. Out-of-range values that do fit are left to the validator; one
  // that cannot even be stored is reported with the key's range.
  template <class Int>
  requires std::is_integral_v<Int> && std::is_signed_v<Int>
  void readValue(const Json& v, const std::string& path, const Range& range, Int& out) const {
    const auto lo = static_cast<std::int64_t>(range.lo);
    const auto hi = static_cast<std::int64_t>(range.hi);
    constexpr auto kMin = std::numeric_limits<Int>::min();
    constexpr auto kMax = std::numeric_limits<Int>::max();
    std::int64_t value = 0;
    if (v.is_number_unsigned()) {
      const auto u = v.get<std::uint64_t>();
      if (u > static_cast<std::uint64_t>(kMax))
        m_context.fail(path, rangeReason(lo, hi, std::to_string(u)));
      value = static_cast<std::int64_t>(u);
    } else if (v.is_number_integer()) {
      value = v.get<std::int64_t>();
    } else if (v.is_number_float()) {
      // JSON has one number type; 1e3 or 20.0 are integers, 20.5 is not.
      const double d = v.get<double>();
      if (std::trunc(d) != d) m_context.fail(path, "must be an integer, got " + formatDouble(d));
      // kMax + 1 is a power of two, so a double holds it exactly.
      if (d < static_cast<double>(kMin) || d >= static_cast<double>(kMax) + 1.0)
        m_context.fail(path, rangeReason(lo, hi, formatDouble(d)));
      value = static_cast<std::int64_t>(d);
    } else {
      m_context.fail(path, "must be an integer, got " + describe(v));
    }
    if (value < kMin || value > kMax)
      m_context.fail(path, rangeReason(lo, hi, std::to_string(value)));
    out = static_cast<Int>(value);
  }

  void readValue(const Json& v, const std::string& path, const Range&, std::uint64_t& out) const {
    const std::string reason = "must be an unsigned 64-bit integer, got ";
    if (v.is_number_unsigned()) {
      out = v.get<std::uint64_t>();
      return;
    }
    if (v.is_number_integer()) {
      const auto i = v.get<std::int64_t>();
      if (i < 0) m_context.fail(path, reason + std::to_string(i));
      out = static_cast<std::uint64_t>(i);
      return;
    }
    if (v.is_number_float()) {
      // Only below 2^53 does a double name one integer exactly.
      const double d = v.get<double>();
      if (d >= 0 && d <= 9007199254740992.0 && std::trunc(d) == d) {
        out = static_cast<std::uint64_t>(d);
        return;
      }
    }
    m_context.fail(path, reason + describe(v));
  }

  void readValue(const Json& v, const std::string& path, const Range&, double& out) const {
    if (!v.is_number()) m_context.fail(path, "must be a number, got " + describe(v));
    out = v.get<double>();
  }

  void readValue(const Json& v, const std::string& path, const Range&, bool& out) const {
    if (!v.is_boolean()) m_context.fail(path, "must be true or false, got " + describe(v));
    out = v.get<bool>();
  }

  void readValue(const Json& v, const std::string& path, const Range&, std::string& out) const {
    if (!v.is_string()) m_context.fail(path, "must be a string, got " + describe(v));
    out = v.get<std::string>();
  }

  template <class E>
  requires std::is_enum_v<E>
  void readValue(const Json& v, const std::string& path, const Range&, E& out) const {
    if (!v.is_string()) m_context.fail(path, "must be a string, got " + describe(v));
    const auto& name = v.get_ref<const std::string&>();
    const auto e = enumFromString<E>(name);
    if (!e)
      m_context.fail(path, "unknown " + std::string(EnumInfo<E>::kWhat) + " '" + printable(name) +
                               "' (known: " + enumNames<E>() + ")");
    out = *e;
  }

  const Context& m_context;
};

// ---------------------------------------------------------------------------------------------
// Value rules, applied to every scenario whether it came from JSON or from the window: each
// key's range from its row, then the rules that involve more than one key.

class Validator {
 public:
  Validator(const Context& context, bool deviceArrayForm)
      : m_context(context), m_deviceArrayForm(deviceArrayForm) {}

  void validate(const Scenario& s) const {
    if (s.schemaVersion != kScenarioSchemaVersion)
      m_context.fail("schemaVersion", "unsupported schema version " +
                                          std::to_string(s.schemaVersion) + " (this build reads " +
                                          std::to_string(kScenarioSchemaVersion) + ")");
    checkKeys(s, "", kRootKeys);

    checkKeys(s.machine, "machine", kMachineKeys);
    if (std::find(kValidHz.begin(), kValidHz.end(), s.machine.hz) == kValidHz.end())
      m_context.fail("machine.hz",
                     "must be one of 100, 250, 300, 1000, got " + std::to_string(s.machine.hz));
    if (std::find(kAllocators.begin(), kAllocators.end(), s.machine.allocator) == kAllocators.end())
      m_context.fail("machine.allocator", "unknown page-allocator generation '" +
                                              printable(s.machine.allocator) +
                                              "' (known: " + joinNames(kAllocators) + ")");

    if (s.devices.empty()) m_context.fail("devices", "must list at least one device");
    if (s.devices.size() > kMaxDevices)
      m_context.fail("devices", "lists " + std::to_string(s.devices.size()) + " devices; at most " +
                                    std::to_string(kMaxDevices) + " are supported");
    for (std::size_t i = 0; i < s.devices.size(); ++i) validateDevice(s, i);
    if (!s.machine.swapDevice.empty())
      checkDeviceName(s, s.machine.swapDevice, "machine.swapDevice");

    checkKeys(s.vm, "vm", kVmKeys);

    const std::vector<std::string> policies = policyNames();
    if (std::find(policies.begin(), policies.end(), s.policy) == policies.end())
      m_context.fail("policy", "unknown policy '" + printable(s.policy) +
                                   "' (known: " + joinNames(policies) + ")");

    if (s.tasks.size() > kMaxTaskGroups)
      m_context.fail("tasks", "lists " + std::to_string(s.tasks.size()) + " task groups; at most " +
                                  std::to_string(kMaxTaskGroups) + " are supported");
    if (s.cgroups.size() > kMaxCgroups)
      m_context.fail("cgroups", "lists " + std::to_string(s.cgroups.size()) + " cgroups; at most " +
                                    std::to_string(kMaxCgroups) + " are supported");
    for (std::size_t i = 0; i < s.cgroups.size(); ++i) validateCgroup(s, i);
    std::int64_t total = 0;
    for (std::size_t i = 0; i < s.tasks.size(); ++i) {
      validateTask(s, i);
      total += s.tasks[i].count;
    }
    if (total > kMaxTotalTasks)
      m_context.fail("tasks", "the task counts add up to " + std::to_string(total) +
                                  ", more than the " + std::to_string(kMaxTotalTasks) +
                                  " supported");
  }

 private:
  void validateDevice(const Scenario& s, std::size_t i) const {
    const DeviceConfig& d = s.devices[i];
    const std::string path = deviceJsonPath(i, m_deviceArrayForm || s.devices.size() > 1);
    checkKeys(d, path, kDeviceKeys);
    if (d.name.find_first_of(" \t") != std::string::npos)
      m_context.fail(path + ".name", "must not contain spaces, got \"" + printable(d.name) + "\"");
    for (std::size_t j = 0; j < i; ++j)
      if (s.devices[j].name == d.name)
        m_context.fail(path + ".name", "device name \"" + printable(d.name) + "\" is used twice");
    if (!fsKindFromString(d.fileSystem))
      m_context.fail(path + ".fileSystem", "unknown file system '" + printable(d.fileSystem) +
                                               "' (known: none, ext3, ext4, xfs)");
    std::string mountError, stallError;
    if (!parseMountOptions(d.mountOptions, &mountError))
      m_context.fail(path + ".mountOptions", printable(mountError, 200));
    if (std::vector<Stall> stalls; !parseStalls(d.stalls, d.stallPeriodS, &stalls, &stallError))
      m_context.fail(path + ".stalls", printable(stallError, 200));
    if (!knownElevator(d.elevator))
      m_context.fail(path + ".elevator",
                     "unknown elevator '" + printable(d.elevator) + "' (known: fifo, deadline)");
    if (d.minRatio > d.maxRatio)
      m_context.fail(path + ".minRatio", "must not exceed maxRatio (" + std::to_string(d.maxRatio) +
                                             "), got " + std::to_string(d.minRatio));
  }

  void validateCgroup(const Scenario& s, std::size_t i) const {
    const CgroupSpec& c = s.cgroups[i];
    const std::string path = cgroupJsonPath(i);
    checkKeys(c, path, kCgroupKeys);
    for (const char ch : c.name) {
      const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                      (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' || ch == '.';
      if (!ok)
        m_context.fail(path + ".name", "may hold only letters, digits, '_', '-' and '.', got \"" +
                                           printable(c.name) + "\"");
    }
    for (std::size_t j = 0; j < i; ++j)
      if (s.cgroups[j].name == c.name)
        m_context.fail(path + ".name", "cgroup name \"" + printable(c.name) + "\" is used twice");
  }

  void validateTask(const Scenario& s, std::size_t i) const {
    const TaskSpec& t = s.tasks[i];
    const std::string path = taskJsonPath(i);
    checkKeys(t, path, kTaskKeys);
    if (!t.cgroup.empty() && std::none_of(s.cgroups.begin(), s.cgroups.end(),
                                          [&](const CgroupSpec& c) { return c.name == t.cgroup; }))
      m_context.fail(path + ".cgroup",
                     "no cgroup named \"" + printable(t.cgroup) + "\" in `cgroups`");
    // A compiler may write no object file (0); an allocator writes nothing at all.
    if (t.kind == TaskKind::Writer && t.fileMiB < 1)
      m_context.fail(path + ".fileMiB", rangeReason(1, kMaxFileMiB, std::to_string(t.fileMiB)));
    if (t.sched == SchedClass::Other && t.rtPriority != 0)
      m_context.fail(path + ".rtPriority",
                     "must be 0 for sched \"other\" (only fifo and rr "
                     "tasks have a real-time priority), got " +
                         std::to_string(t.rtPriority));
    if (t.sched != SchedClass::Other && (t.rtPriority < 1 || t.rtPriority > 99))
      m_context.fail(path + ".rtPriority", "must be between 1 and 99 for sched \"" +
                                               std::string(toString(t.sched)) + "\", got " +
                                               std::to_string(t.rtPriority));
    if (!t.device.empty()) checkDeviceName(s, t.device, path + ".device");
    if (t.kind == TaskKind::Compiler && !(t.cpuS > 0) && !(t.anonMiB > 0))
      m_context.fail(path + ".cpuS",
                     "a compiler needs cpuS > 0 or anonMiB > 0 (it would do nothing), got cpuS " +
                         formatDouble(t.cpuS) + " and anonMiB " + formatDouble(t.anonMiB));
    if (t.kind == TaskKind::Allocator && !(t.anonMiB > 0))
      m_context.fail(path + ".anonMiB",
                     "an allocator needs anonMiB > 0 (the memory it "
                     "allocates), got " +
                         formatDouble(t.anonMiB));
  }

  // Every scalar key of `keys` against its row. The path is built only for a message.
  template <class T, std::size_t N>
  void checkKeys(const T& obj, const std::string& prefix, const Key<T> (&keys)[N]) const {
    for (const Key<T>& k : keys) {
      const std::string reason = std::visit(
          [&](auto m) -> std::string {
            if constexpr (std::is_same_v<decltype(m), std::monostate>)
              return {};
            else
              return check(obj.*m, k);
          },
          k.member);
      if (!reason.empty()) m_context.fail(keyPath(prefix, k.name), reason);
    }
  }

  template <class T, class Int>
  requires std::is_integral_v<Int> && std::is_signed_v<Int>
  static std::string check(Int v, const Key<T>& k) {
    const auto lo = static_cast<std::int64_t>(k.range.lo);
    const auto hi = static_cast<std::int64_t>(k.range.hi);
    if ((v == 0 && !k.zeroOr.empty()) || (v >= lo && v <= hi)) return {};
    return "must be " + std::string(k.zeroOr) + "between " + std::to_string(lo) + " and " +
           std::to_string(hi) + ", got " + std::to_string(v);
  }

  // Written as !(in range) so that NaN, which compares false, is rejected too.
  template <class T>
  static std::string check(double v, const Key<T>& k) {
    const Range& r = k.range;
    if ((v == 0 && !k.zeroOr.empty()) || ((r.loOpen ? v > r.lo : v >= r.lo) && v <= r.hi))
      return {};
    if (r.loOpen)
      return "must be greater than " + formatDouble(r.lo) + " and at most " + formatDouble(r.hi) +
             ", got " + formatDouble(v);
    return "must be " + std::string(k.zeroOr) + "between " + formatDouble(r.lo) + " and " +
           formatDouble(r.hi) + ", got " + formatDouble(v);
  }

  template <class T>
  static std::string check(const std::string& name, const Key<T>& k) {
    return k.range.hi > 0 ? nameProblem(name, static_cast<std::size_t>(k.range.hi)) : std::string();
  }

  template <class T, class E>
  requires std::is_enum_v<E>
  static std::string check(E e, const Key<T>&) {
    const auto& all = EnumInfo<E>::kAll;
    return std::find(all.begin(), all.end(), e) == all.end()
               ? "unknown " + std::string(EnumInfo<E>::kWhat)
               : std::string();
  }

  template <class T>
  static std::string check(bool, const Key<T>&) {
    return {};
  }
  template <class T>
  static std::string check(std::uint64_t, const Key<T>&) {
    return {};
  }

  static std::string nameProblem(const std::string& name, std::size_t maxLength) {
    if (name.empty()) return "must not be empty";
    if (name.size() > maxLength)
      return "is " + std::to_string(name.size()) + " characters long; at most " +
             std::to_string(maxLength) + " are allowed";
    // Names end up in CSV provenance lines, trace lines and window titles.
    if (std::any_of(name.begin(), name.end(), [](char c) {
          const auto u = static_cast<unsigned char>(c);
          return u < 0x20 || u == 0x7f;
        }))
      return "must not contain control characters, got \"" + printable(name) + "\"";
    if (!isUtf8(name)) return "must be UTF-8 text, got \"" + printable(name) + "\"";
    return {};
  }

  void checkDeviceName(const Scenario& s, const std::string& name, const std::string& path) const {
    if (std::any_of(s.devices.begin(), s.devices.end(),
                    [&](const DeviceConfig& d) { return d.name == name; }))
      return;
    std::vector<std::string> names;
    for (const auto& d : s.devices) names.push_back(printable(d.name));
    m_context.fail(
        path, "no device named \"" + printable(name) + "\" (devices: " + joinNames(names) + ")");
  }

  const Context& m_context;
  bool m_deviceArrayForm;
};

// ---------------------------------------------------------------------------------------------
// The key tables of docs/scenario-format.md.

// 16777216 as "16 777 216" (4096 stays 4096); a fraction or a huge value as the shortest
// round-trip form.
std::string docNumber(double v) {
  if (std::trunc(v) != v || std::fabs(v) >= 1e15) return formatDouble(v);
  if (std::fabs(v) < 10'000) return std::to_string(static_cast<std::int64_t>(v));
  std::string digits = std::to_string(static_cast<std::int64_t>(std::fabs(v)));
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ' ';
    out += digits[i];
  }
  return v < 0 ? "-" + out : out;
}

template <class V>
std::string docType() {
  if constexpr (std::is_same_v<V, bool>)
    return "boolean";
  else if constexpr (std::is_same_v<V, double>)
    return "number";
  else if constexpr (std::is_integral_v<V>)
    return "integer";
  else
    return "string";
}

template <class V>
std::string docValue(const V& v) {
  if constexpr (std::is_same_v<V, bool>)
    return v ? "`true`" : "`false`";
  else if constexpr (std::is_same_v<V, std::string>)
    return "`\"" + v + "\"`";
  else if constexpr (std::is_enum_v<V>)
    return "`\"" + std::string(toString(v)) + "\"`";
  else if constexpr (std::is_same_v<V, double>)
    return "`" + formatDouble(v) + "`";
  else
    return "`" + std::to_string(v) + "`";
}

template <class V, class T>
std::string docAllowed(const Key<T>& k) {
  const Range& r = k.range;
  if constexpr (std::is_same_v<V, bool>) {
    return "";
  } else if constexpr (std::is_same_v<V, std::uint64_t>) {
    return "0 … " + std::to_string(std::numeric_limits<std::uint64_t>::max());
  } else if constexpr (std::is_same_v<V, std::string>) {
    if (r.hi == 0) return "any";
    return docNumber(r.lo) + "–" + docNumber(r.hi) + " characters, no control characters";
  } else if constexpr (std::is_enum_v<V>) {
    std::string names;
    for (const V e : EnumInfo<V>::kAll)
      names += (names.empty() ? "`\"" : ", `\"") + std::string(toString(e)) + "\"`";
    return names;
  } else {
    const std::string range = docNumber(r.lo) + " … " + docNumber(r.hi);
    if (r.loOpen) return "> " + docNumber(r.lo) + ", ≤ " + docNumber(r.hi);
    return k.zeroOr.empty() ? range : "0, or " + range;
  }
}

template <class T, std::size_t N>
std::string docTable(const Key<T> (&keys)[N]) {
  static const T defaults{};
  std::string out =
      "| Key | Type | Unit | Default | Allowed | Meaning |\n"
      "|---|---|---|---|---|---|\n";
  for (const Key<T>& k : keys) {
    std::string type, value, allowed;
    if (k.kind == FieldKind::Object) type = "object";
    if (k.kind == FieldKind::ObjectArray) type = "array of objects";
    std::visit(
        [&](auto m) {
          if constexpr (!std::is_same_v<decltype(m), std::monostate>) {
            using V = std::remove_cvref_t<decltype(defaults.*m)>;
            type = docType<V>();
            value = docValue(defaults.*m);
            allowed = docAllowed<V>(k);
          }
        },
        k.member);
    if (!k.defaultText.empty()) value = k.defaultText;
    if (!k.allowed.empty()) allowed = k.allowed;
    out += "| `" + std::string(k.name) + "` | " + type + " | " + std::string(k.unit) + " | " +
           value + " | " + allowed + " | " + std::string(k.meaning) + " |\n";
  }
  return out;
}

std::string docTable(std::string_view section) {
  if (section == "top") return docTable(kRootKeys);
  if (section == "machine") return docTable(kMachineKeys);
  if (section == "device") return docTable(kDeviceKeys);
  if (section == "vm") return docTable(kVmKeys);
  if (section == "tasks") return docTable(kTaskKeys);
  if (section == "cgroups") return docTable(kCgroupKeys);
  throw std::invalid_argument("no scenario key table named '" + printable(section) +
                              "' (known: top, machine, device, vm, tasks, cgroups)");
}

// ---------------------------------------------------------------------------------------------
// Writing: every key in its table's order.

template <class T>
void writeKey(OrderedJson& j, const T& obj, const Key<T>& k) {
  std::visit(
      [&](auto m) {
        if constexpr (!std::is_same_v<decltype(m), std::monostate>) {
          const auto& v = obj.*m;
          using V = std::remove_cvref_t<decltype(v)>;
          if constexpr (std::is_enum_v<V>) {
            j[std::string(k.name)] = std::string(toString(v));
          } else if constexpr (std::is_same_v<V, std::string>) {
            if (!(k.omitWhenEmpty && v.empty())) j[std::string(k.name)] = v;
          } else if constexpr (std::is_same_v<V, int>) {
            if (!(k.omitWhenEmpty && v == -1)) j[std::string(k.name)] = v;
          } else {
            static const T kDefaults{};
            if (k.omitWhenDefault && v == kDefaults.*m) return;
            j[std::string(k.name)] = v;
          }
        }
      },
      k.member);
}

template <class T, std::size_t N>
OrderedJson objectToJson(const T& obj, const Key<T> (&keys)[N]) {
  OrderedJson j = OrderedJson::object();
  for (const Key<T>& k : keys) writeKey(j, obj, k);
  return j;
}

template <class T, std::size_t N>
OrderedJson arrayToJson(const std::vector<T>& objects, const Key<T> (&keys)[N]) {
  OrderedJson j = OrderedJson::array();
  for (const T& obj : objects) j.push_back(objectToJson(obj, keys));
  return j;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

namespace {
constexpr EnumName<SchedClass> kSchedClassNames[] = {
    {SchedClass::Other, "other"}, {SchedClass::Fifo, "fifo"}, {SchedClass::RoundRobin, "rr"}};
constexpr EnumName<TaskKind> kTaskKindNames[] = {{TaskKind::Writer, "writer"},
                                                 {TaskKind::Compiler, "compiler"},
                                                 {TaskKind::Allocator, "allocator"}};
}  // namespace

std::string_view toString(SchedClass c) {
  return nameOf(c, kSchedClassNames, "other");
}

std::string_view toString(TaskKind k) {
  return nameOf(k, kTaskKindNames, "writer");
}

std::optional<TaskKind> taskKindFromString(std::string_view s) {
  return valueNamed(s, kTaskKindNames);
}

std::optional<SchedClass> schedClassFromString(std::string_view s) {
  return valueNamed(s, kSchedClassNames);
}

Scenario parseScenario(std::string_view json, std::string_view origin,
                       const std::vector<Override>& overrides) {
  Context context{std::string(origin.empty() ? std::string_view("scenario") : origin)};
  Json doc = parseDocument(json, context);
  // A path that does not fit the schema is the command line's fault, not the file's.
  const Context overrideContext{"command line"};
  if (!overrides.empty() && !doc.is_object())
    context.fail("", "the scenario must be a JSON object, got " + describe(doc));
  for (const auto& o : overrides) context.addOverridden(applyOverride(doc, o, overrideContext));
  // Messages name a device the way the document does; a document with "devices" keeps that
  // form even when it lists one.
  const bool deviceArrayForm = doc.is_object() && doc.contains("devices");
  Scenario s = Reader(context).read(doc);
  Validator(context, deviceArrayForm).validate(s);
  return s;
}

void validateScenario(const Scenario& s) {
  const Context context{s.name.empty() ? std::string("scenario") : printable(s.name)};
  Validator(context, false).validate(s);
}

std::string scenarioToJson(const Scenario& s) {
  OrderedJson j = OrderedJson::object();
  for (const Key<Scenario>& k : kRootKeys) {
    if (k.kind == FieldKind::Scalar)
      writeKey(j, s, k);
    else if (k.name == "machine")
      j["machine"] = objectToJson(s.machine, kMachineKeys);
    else if (k.name == "device" && s.devices.size() == 1)
      j["device"] = objectToJson(s.devices.front(), kDeviceKeys);
    else if (k.name == "devices" && s.devices.size() != 1)
      j["devices"] = arrayToJson(s.devices, kDeviceKeys);
    else if (k.name == "vm")
      j["vm"] = objectToJson(s.vm, kVmKeys);
    else if (k.name == "tasks")
      j["tasks"] = arrayToJson(s.tasks, kTaskKeys);
    else if (k.name == "cgroups" && !s.cgroups.empty())
      j["cgroups"] = arrayToJson(s.cgroups, kCgroupKeys);
  }
  // `replace` keeps a name with invalid UTF-8 (possible in a scenario built in code) from
  // throwing; parsed scenarios are valid UTF-8 already.
  return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::vector<std::string> builtinScenarioNames() {
  std::vector<std::string> names;
  for (const auto& [name, json] : detail::embeddedScenarios()) names.emplace_back(name);
  return names;
}

std::optional<std::string> builtinScenarioJson(std::string_view name) {
  for (const auto& [builtinName, json] : detail::embeddedScenarios())
    if (builtinName == name) return std::string(json);
  return std::nullopt;
}

Scenario loadScenario(std::string_view fileOrName, const std::vector<Override>& overrides) {
  namespace fs = std::filesystem;
  // An empty name means the scenario the app opens with, as in GuiLaunchOptions.
  const std::string given =
      fileOrName.empty() ? std::string(kDefaultScenarioName) : std::string(fileOrName);
  const std::string shown = printable(given, 200);
  std::error_code ec;
  const fs::path path(given);
  const auto status = fs::status(path, ec);
  if (!ec && fs::exists(status)) {
    if (fs::is_directory(status))
      throw ScenarioError("", shown + ": is a directory, not a scenario file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ScenarioError("", shown + ": cannot open the file: " + std::strerror(errno));
    std::string text;
    std::array<char, 65536> buf{};
    while (in.read(buf.data(), buf.size()) || in.gcount() > 0) {
      text.append(buf.data(), static_cast<std::size_t>(in.gcount()));
      if (text.size() > kMaxInputBytes)
        throw ScenarioError("", shown + ": larger than " +
                                    std::to_string(kMaxInputBytes / (1024 * 1024)) +
                                    " MiB; a scenario is a small JSON file");
    }
    if (in.bad()) throw ScenarioError("", shown + ": reading the file failed");
    return parseScenario(text, shown, overrides);
  }
  if (const auto json = builtinScenarioJson(given))
    return parseScenario(*json, given + " (built-in)", overrides);
  throw ScenarioError("", shown +
                              ": no such file, and no built-in scenario of that name (built-in: " +
                              joinNames(builtinScenarioNames()) + ")");
}

std::size_t deviceIndexOf(const Scenario& s, const TaskSpec& t) {
  if (t.device.empty()) {
    if (s.devices.empty()) throw ScenarioError("devices", "the scenario has no device");
    return 0;
  }
  for (std::size_t i = 0; i < s.devices.size(); ++i)
    if (s.devices[i].name == t.device) return i;
  std::string key = "tasks[].device";
  for (std::size_t i = 0; i < s.tasks.size(); ++i)
    if (&s.tasks[i] == &t) key = taskJsonPath(i) + ".device";
  throw ScenarioError(
      key, printable(s.name) + ": " + key + ": no device named \"" + printable(t.device) + "\"");
}

int cgroupIndexOf(const Scenario& s, const TaskSpec& t) {
  if (t.cgroup.empty()) return -1;
  for (std::size_t i = 0; i < s.cgroups.size(); ++i)
    if (s.cgroups[i].name == t.cgroup) return static_cast<int>(i);
  std::string key = "tasks[].cgroup";
  for (std::size_t i = 0; i < s.tasks.size(); ++i)
    if (&s.tasks[i] == &t) key = taskJsonPath(i) + ".cgroup";
  throw ScenarioError(
      key, printable(s.name) + ": " + key + ": no cgroup named \"" + printable(t.cgroup) + "\"");
}

std::string withScenarioKeyTables(std::string_view markdown) {
  static constexpr std::string_view kBegin = "<!-- scenario-keys: ";
  static constexpr std::string_view kEnd = "<!-- /scenario-keys -->";
  std::string out;
  std::size_t pos = 0;
  while (true) {
    const std::size_t begin = markdown.find(kBegin, pos);
    if (begin == std::string_view::npos) break;
    const std::size_t nameEnd = markdown.find(" -->\n", begin);
    if (nameEnd == std::string_view::npos)
      throw std::invalid_argument("a '" + std::string(kBegin) + "' line without ' -->'");
    const std::string_view section =
        markdown.substr(begin + kBegin.size(), nameEnd - begin - kBegin.size());
    const std::size_t end = markdown.find(kEnd, nameEnd);
    if (end == std::string_view::npos)
      throw std::invalid_argument("the table '" + printable(section) + "' has no '" +
                                  std::string(kEnd) + "' line");
    out += markdown.substr(pos, nameEnd + 5 - pos);
    out += docTable(section);
    pos = end;
  }
  out += markdown.substr(pos);
  for (const std::string_view section : {"top", "machine", "device", "vm", "tasks", "cgroups"})
    if (markdown.find(std::string(kBegin) + std::string(section) + " -->") ==
        std::string_view::npos)
      throw std::invalid_argument("no '" + std::string(kBegin) + std::string(section) +
                                  " -->' line: every key table belongs in the document");
  return out;
}

}  // namespace throttlelab::engine
