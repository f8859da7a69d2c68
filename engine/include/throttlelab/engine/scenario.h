// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// A scenario: the machine, its devices, the vm sysctls, the policy and the tasks.
/// It is a plain value; its JSON form (schemaVersion 1) is documented in docs/scenario-format.md.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace throttlelab::engine {

inline constexpr int kScenarioSchemaVersion = 1;

/// The hardware the simulated kernel runs on.
struct MachineConfig {
  std::int64_t memoryMiB = 4096;  ///< RAM; every page of it is managed by the allocator
  int cpus = 4;                   ///< CPUs shared by runnable tasks
  int hz = 250;                   ///< CONFIG_HZ: jiffy length, rounding of pauses
  std::int64_t swapMiB = 0;       ///< swap space; 0 = no swap
  std::string swapDevice;         ///< device holding the swap area; empty = the first device
  /// Page-allocator generation: watermark spacing and the real-time reserve bonus
  /// (docs/model.md, The page allocator): "2.6.0-no-rt" (before Love's 2003 change), "2.6.0"
  /// (Love/Morton incremental min, RT halves the marks), "2.6.9" (ALLOC_HARDER: RT gets 3/4 of
  /// min), "6.x" (ALLOC_MIN_RESERVE: RT gets 1/2 of min, 4.6+ watermark spacing).
  std::string allocator = "6.x";
  /// The largest page-cache folio a buffered write() creates, as a page order
  /// (mapping_max_folio_order(); docs/model.md, Large folios in the write path): -1 = the
  /// policy's kernel (9 for ioless and none, 0 for ioless-3.2 and the 2.6.x policies),
  /// 0 = 4 KiB pages only, up to 9 (2 MiB, HPAGE_PMD_ORDER on x86-64).
  int maxFolioOrder = -1;
  /// The page cache when the run starts (docs/model.md, The page cache at the start): this many
  /// dirty pages (NR_FILE_DIRTY) and pages under writeback (NR_WRITEBACK) of the files the
  /// writers write, shared among the writers that start at 0 s outside a memory cgroup, as if
  /// each had written its share of its first run already (the `nr_dirty` and `nr_writeback` of
  /// a global_dirty_state record). 0 = an empty page cache, as after boot.
  std::int64_t initialDirtyPages = 0;
  std::int64_t initialWritebackPages = 0;
  /// CPU time to build, submit and complete a page of writeback IO, microseconds (writepages,
  /// the bio, its completion and end_page_writeback; docs/model.md, The CPU-cost model): a
  /// property of the machine, as TaskSpec::copyMBps is. The default is the built-in scenarios'
  /// figure; this project's 6.18 machine measured 0.41 (engine/src/cost_model.h).
  double writebackUsPerPage = 1.29;
  bool operator==(const MachineConfig&) const = default;
};

/// A block device with one backing_dev_info (bdi) and one flusher.
struct DeviceConfig {
  std::string name = "sda";  ///< bdi name as in /sys/class/bdi and the tracepoints
  double writeMBps = 57;     ///< sequential write bandwidth, decimal MB/s
  double readMBps = 0;       ///< sequential read bandwidth (swap-in); 0 = same as writeMBps
  double seekMs = 8;         ///< mean positioning time when the stream changes
  int maxRequestKiB = 512;   ///< max_sectors_kb: largest merged request
  int nrRequests = 128;      ///< request-queue depth (nr_requests)
  int minRatio = 0;          ///< /sys/class/bdi/<dev>/min_ratio, %
  int maxRatio = 100;        ///< /sys/class/bdi/<dev>/max_ratio, %
  bool strictLimit = false;  ///< BDI_CAP_STRICTLIMIT (FUSE-style)
  /// The file system on the device (docs/model.md, The file system): "none" (each file one
  /// preallocated region, no metadata, no journal; also ""), "ext3", "ext4" or "xfs".
  std::string fileSystem{};
  /// Mount options, comma-separated: `atime`/`relatime`/`noatime`, `data=ordered`/
  /// `data=writeback`, `commit=SECONDS`. Empty = the file system's defaults.
  std::string mountOptions{};
  /// The I/O scheduler (/sys/block/<dev>/queue/scheduler): "fifo" (noop; also "") or
  /// "deadline".
  std::string elevator{};
  /// The device's bdi_writeback bandwidth state when the run starts, in KB/s as the
  /// bdi_dirty_ratelimit tracepoint prints it (write_bw, awrite_bw, dirty_ratelimit): the kernel
  /// keeps these for the bdi's lifetime, so a run that begins after earlier writes starts from
  /// them. 0 = INIT_BW (100 MB/s), the value wb_init() gives them at boot.
  double initialWriteBwKBps = 0;
  double initialAvgWriteBwKBps = 0;
  double initialDirtyRatelimitKBps = 0;
  /// Spells in which the device completes nothing (docs/model.md, A device that stalls), as a
  /// virtual disk does while its host holds the writes: `START+LENGTH` pairs in seconds of
  /// simulated time, separated by spaces or commas, in order. The request in service makes no
  /// progress during a stall. Empty = never stalls.
  std::string stalls{};
  /// The stall timeline repeats every this many seconds; 0 = it happens once.
  double stallPeriodS = 0;
  bool operator==(const DeviceConfig&) const = default;
};

/// The vm.* sysctls that govern writeback. Names mirror /proc/sys/vm.
struct VmConfig {
  int dirtyRatio = 20;            ///< vm.dirty_ratio, % of dirtyable memory
  int dirtyBackgroundRatio = 10;  ///< vm.dirty_background_ratio, %
  std::int64_t dirtyBytes = 0;    ///< vm.dirty_bytes; non-zero overrides dirty_ratio
  std::int64_t dirtyBackgroundBytes =
      0;                            ///< vm.dirty_background_bytes; non-zero overrides the ratio
  int dirtyExpireCentisecs = 3000;  ///< vm.dirty_expire_centisecs
  int dirtyWritebackCentisecs =
      500;              ///< vm.dirty_writeback_centisecs; 0 disables periodic writeback
  int swappiness = 60;  ///< vm.swappiness: anon vs file scan balance
  std::int64_t minFreeKbytes =
      0;  ///< vm.min_free_kbytes; 0 = the boot default (docs/model.md, Eq. 41)
  int watermarkScaleFactor = 10;  ///< vm.watermark_scale_factor (4.6+), 1/10000 of memory
  bool operator==(const VmConfig&) const = default;
};

enum class SchedClass { Other, Fifo, RoundRobin };
/// Writer: dd. Compiler: a cc1-like job (an anonymous working set, CPU work that keeps
/// touching it, then an object file written). Allocator: allocates and touches anonymous
/// memory, holds it, and frees it (a VM starting, or "allocate 4 MB").
enum class TaskKind { Writer, Compiler, Allocator };
std::string_view toString(TaskKind k);
std::optional<TaskKind> taskKindFromString(std::string_view s);

std::string_view toString(SchedClass c);
std::optional<SchedClass> schedClassFromString(std::string_view s);

/// A group of identical tasks (like `count` copies of one dd command line).
struct TaskSpec {
  std::string name = "dd";  ///< comm, as in the tracepoint's task field
  int count = 1;            ///< how many identical tasks
  TaskKind kind = TaskKind::Writer;
  std::int64_t blockKiB = 1024;  ///< dd bs=
  std::int64_t fileMiB = 512;    ///< bytes written per run (bs × count of dd)
  bool loop = true;              ///< `while true; do dd ... conv=notrunc; done` versus a single run
  double copyMBps = 2000;        ///< user-space copy speed with a whole CPU, decimal MB/s
  double thinkMs = 0;            ///< time between two blocks, not using a CPU
  double startS = 0;             ///< when the first run starts
  SchedClass sched = SchedClass::Other;
  int rtPriority = 0;         ///< 1..99 for Fifo/RoundRobin, 0 otherwise
  int nice = 0;               ///< -20..19 for Other
  std::string device;         ///< device name; empty = the first device
  int runs = 0;               ///< with loop: stop after this many runs (0 = never)
  double anonMiB = 0;         ///< Compiler/Allocator: anonymous memory allocated per run
  double allocMBps = 1000;    ///< Compiler/Allocator: page-touching speed with a whole CPU
  double cpuS = 0;            ///< Compiler: CPU seconds of computation per run
  double holdS = 0;           ///< Allocator: how long the memory is held before it is freed
  bool lessThrottle = false;  ///< PF_LESS_THROTTLE (nfsd-like): +1/4 dirty limits
  int oomScoreAdj = 0;        ///< /proc/<pid>/oom_score_adj, -1000..1000
  std::string cgroup = {};    ///< name of its memory cgroup (Scenario::cgroups); empty = the root
  /// Writer: KiB read from a file of the same device before each run, never cached (a
  /// program's text paged in from disk); the read's latency and its atime update are counted.
  std::int64_t readKiB = 0;
  bool fsync = false;  ///< Writer: fsync() the file at the end of each run
  bool operator==(const TaskSpec&) const = default;
};

/// A memory cgroup (one level below the root). Since 4.2 its page cache is a writeback domain
/// of its own (docs/model.md, Memory cgroups); policies of older kernels ignore it.
struct CgroupSpec {
  std::string name = {};           ///< referred to by TaskSpec::cgroup
  std::int64_t memoryMaxMiB = 0;   ///< memory.max; 0 = "max" (no limit)
  std::int64_t memoryHighMiB = 0;  ///< memory.high; 0 = "max"
  /// 2: the unified hierarchy (cgroup writeback: its own wb_domain and wbs). 1: the v1 memory
  /// controller, which limits memory but has no writeback domain (throttled only globally).
  int version = 2;
  bool operator==(const CgroupSpec&) const = default;
};

/// The most devices a scenario may list (Scenario::devices). The trace importer gives columns to
/// as many bdis, and a scenario derived from a trace simulates as many.
inline constexpr std::size_t kMaxDevices = 64;

struct Scenario {
  int schemaVersion = kScenarioSchemaVersion;
  std::string name = "unnamed";
  std::string description;
  std::uint64_t seed = 1;
  double durationS = 60;
  double sampleIntervalS = 0.1;  ///< one Sample (CSV row) per interval of simulated time
  MachineConfig machine;
  std::vector<DeviceConfig> devices{DeviceConfig{}};
  VmConfig vm;
  std::string policy = "ioless";
  std::vector<TaskSpec> tasks;
  std::vector<CgroupSpec> cgroups;  ///< memory cgroups tasks may be put in
  bool operator==(const Scenario&) const = default;
};

/// A scenario that cannot be used. `key()` is the JSON path at fault ("vm.dirty_ratio",
/// "tasks[0].count") or empty for a syntax error; what() is one readable sentence.
class ScenarioError : public std::runtime_error {
 public:
  ScenarioError(std::string key, const std::string& message, std::string reason = {})
      : std::runtime_error(message), m_key(std::move(key)), m_reason(std::move(reason)) {}
  const std::string& key() const { return m_key; }
  /// What is wrong, without the origin and the key that what() puts before it ("must be
  /// between 5 and 100"), for a caller that names the place itself (a lesson's step); what()
  /// when the error was made without one.
  std::string reason() const { return m_reason.empty() ? std::string(what()) : m_reason; }

 private:
  std::string m_key;
  std::string m_reason;
};

/// One `--set KEY=VALUE` override: KEY is a JSON path, VALUE is JSON (or a bare string).
struct Override {
  std::string path;
  std::string value;
};

/// Parses and validates scenario JSON. `origin` names the source in messages (a file name).
/// Throws ScenarioError naming the key and the reason.
Scenario parseScenario(std::string_view json, std::string_view origin,
                       const std::vector<Override>& overrides = {});
/// Validates a scenario value (the same rules parseScenario applies). Throws ScenarioError.
void validateScenario(const Scenario& s);
/// Serialises to the schemaVersion 1 JSON form, pretty-printed; parseScenario round-trips it.
std::string scenarioToJson(const Scenario& s);

/// Built-in scenarios compiled from resources/scenarios/*.json.
std::vector<std::string> builtinScenarioNames();
std::optional<std::string> builtinScenarioJson(std::string_view name);
/// The scenario the app opens with.
inline constexpr std::string_view kDefaultScenarioName = "default";

/// Loads a scenario from a file path, or by built-in name when no such file exists.
/// Throws ScenarioError (key empty) if neither exists or the file cannot be read.
Scenario loadScenario(std::string_view fileOrName, const std::vector<Override>& overrides = {});

/// Index of the device a task writes to (empty name = device 0). Throws ScenarioError if none.
std::size_t deviceIndexOf(const Scenario& s, const TaskSpec& t);
/// Index of the task's memory cgroup in s.cgroups; -1 for the root (no `cgroup`). Throws
/// ScenarioError for a name the scenario does not define.
int cgroupIndexOf(const Scenario& s, const TaskSpec& t);

}  // namespace throttlelab::engine
