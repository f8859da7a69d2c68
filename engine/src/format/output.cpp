// SPDX-License-Identifier: GPL-3.0-or-later
// The run's text outputs. Every number goes through std::to_chars: the C locale functions
// (printf, iostream with a global locale) would print "0,5" once a Qt app has called setlocale,
// and the files must be byte-identical for the same scenario and seed.
#include "throttlelab/engine/output.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include "throttlelab/engine/number_text.h"
#include "throttlelab/engine/tracepoints.h"

namespace throttlelab::engine {

namespace {

// ---------------------------------------------------------------------------------------------
// Number formatting

void appendInt(std::string& out, std::int64_t v) {
  std::array<char, 24> buf{};
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  out.append(buf.data(), r.ptr);
}

void appendUnsigned(std::string& out, std::uint64_t v) {
  std::array<char, 24> buf{};
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  out.append(buf.data(), r.ptr);
}

/// Up to 6 significant digits in plain decimal notation, trailing zeros dropped: 57.1234,
/// 55664.1, 1234567, 0.000123. Only magnitudes from 1e15 use an exponent.
void appendNumber(std::string& out, double v) {
  if (!std::isfinite(v)) {
    appendFixed(out, v, 0);
    return;
  }
  const double a = std::fabs(v);
  if (a >= 1e15) {
    std::array<char, 32> buf{};
    const auto r =
        std::to_chars(buf.data(), buf.data() + buf.size(), v, std::chars_format::general, 6);
    out.append(buf.data(), r.ptr);
    return;
  }
  int integerDigits = 0;
  for (double p = 1; integerDigits < 16 && a >= p; p *= 10) ++integerDigits;
  const int decimals = std::max(0, 6 - integerDigits);
  const std::size_t start = out.size();
  appendFixed(out, v, decimals);
  if (decimals > 0) {
    while (out.back() == '0') out.pop_back();
    if (out.back() == '.') out.pop_back();
  }
  if (std::string_view(out).substr(start) == "-0") out.erase(start, 1);
}

/// Seconds with 3 decimals from integer nanoseconds, rounded to the millisecond.
void appendTimeS(std::string& out, SimTime t) {
  const std::int64_t ns = t.time_since_epoch().count();
  const std::uint64_t magnitude =
      ns < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
  const std::uint64_t ms = (magnitude + 500'000) / 1'000'000;
  if (ns < 0 && ms != 0) out += '-';
  appendUnsigned(out, ms / 1000);
  out += '.';
  const std::uint64_t frac = ms % 1000;
  out += static_cast<char>('0' + frac / 100);
  out += static_cast<char>('0' + frac / 10 % 10);
  out += static_cast<char>('0' + frac % 10);
}

template <class T>
void appendValue(std::string& out, T v) {
  if constexpr (std::is_same_v<T, bool>)
    out += v ? '1' : '0';
  else if constexpr (std::is_integral_v<T>)
    appendInt(out, static_cast<std::int64_t>(v));
  else
    appendNumber(out, static_cast<double>(v));
}

// RFC 4180: quote a field only when it holds a separator, a quote or a line break.
void appendCsvField(std::string& out, std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) {
    out += field;
    return;
  }
  out += '"';
  for (const char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

std::string oneLine(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return out;
}

std::string schedLabel(SchedClass c, int rtPriority) {
  std::string out(toString(c));
  if (c != SchedClass::Other) {
    out += ':';
    appendInt(out, rtPriority);
  }
  return out;
}

std::string_view commView(const Comm& comm) {
  const auto end = std::find(comm.begin(), comm.end(), '\0');
  return {comm.data(), static_cast<std::size_t>(end - comm.begin())};
}

// ---------------------------------------------------------------------------------------------
// Sample CSV columns: one table drives both the header and the rows, so they cannot disagree.

// `position`: a number of position control (docs/model.md, Position control), which a policy
// without it does not have (PositionColumns::EmptyWithout leaves it empty there).
struct GlobalColumn {
  std::string_view name;
  void (*write)(std::string&, const Sample&);
  bool position = false;
};
struct DeviceColumn {
  std::string_view name;
  void (*write)(std::string&, const DeviceSample&);
  bool position = false;
};

template <auto Field>
void writeField(std::string& out, const Sample& s) {
  appendValue(out, s.*Field);
}
template <auto Field>
void writeDeviceField(std::string& out, const DeviceSample& d) {
  appendValue(out, d.*Field);
}

const std::array kGlobalHead{
    GlobalColumn{"dirty_pages", writeField<&Sample::dirtyPages>},
    GlobalColumn{"writeback_pages", writeField<&Sample::writebackPages>},
    GlobalColumn{"bg_thresh_pages", writeField<&Sample::bgThreshPages>},
    GlobalColumn{"thresh_pages", writeField<&Sample::threshPages>},
    GlobalColumn{"freerun_pages", writeField<&Sample::freerunPages>, true},
    GlobalColumn{"setpoint_pages", writeField<&Sample::setpointPages>, true},
    GlobalColumn{"limit_pages", writeField<&Sample::limitPages>},
};
const std::array kDeviceMain{
    DeviceColumn{"write_bw_kbps", writeDeviceField<&DeviceSample::writeBwKBps>},
    DeviceColumn{"avg_write_bw_kbps", writeDeviceField<&DeviceSample::avgWriteBwKBps>},
    DeviceColumn{"dirty_rate_kbps", writeDeviceField<&DeviceSample::dirtyRateKBps>},
    DeviceColumn{"dirty_ratelimit_kbps", writeDeviceField<&DeviceSample::dirtyRatelimitKBps>, true},
    DeviceColumn{"balanced_dirty_ratelimit_kbps",
                 writeDeviceField<&DeviceSample::balancedDirtyRatelimitKBps>, true},
    DeviceColumn{"device_write_kbps", writeDeviceField<&DeviceSample::deviceWriteKBps>},
    DeviceColumn{"avg_request_kib", writeDeviceField<&DeviceSample::avgRequestKiB>},
};
const std::array kGlobalMiddle{
    GlobalColumn{"free_pages", writeField<&Sample::freePages>},
    GlobalColumn{"throttled_tasks", writeField<&Sample::throttledTasks>},
    GlobalColumn{"pause_ms_max", writeField<&Sample::pauseMsMax>},
    GlobalColumn{"dirty_limit_pages", writeField<&Sample::dirtyLimitPages>},
    GlobalColumn{"avail_pages", writeField<&Sample::availPages>},
    GlobalColumn{"total_pages", writeField<&Sample::totalPages>},
    GlobalColumn{"file_pages", writeField<&Sample::filePages>},
    GlobalColumn{"anon_pages", writeField<&Sample::anonPages>},
    GlobalColumn{"wmark_min_pages", writeField<&Sample::wmarkMinPages>},
    GlobalColumn{"wmark_low_pages", writeField<&Sample::wmarkLowPages>},
    GlobalColumn{"wmark_high_pages", writeField<&Sample::wmarkHighPages>},
    GlobalColumn{"dirtied_pages", writeField<&Sample::dirtiedPages>},
    GlobalColumn{"written_pages", writeField<&Sample::writtenPages>},
};
// wb_dirty_pages is the bdi's dirty pages not under IO, the per-device twin of dirty_pages;
// the balance_dirty_pages trace's wb_dirty adds wb_writeback_pages to it.
const std::array kDeviceExtra{
    DeviceColumn{"task_ratelimit_kbps", writeDeviceField<&DeviceSample::taskRatelimitKBps>, true},
    DeviceColumn{"pos_ratio", writeDeviceField<&DeviceSample::posRatio>, true},
    DeviceColumn{"wb_dirty_pages", writeDeviceField<&DeviceSample::reclaimablePages>},
    DeviceColumn{"wb_writeback_pages", writeDeviceField<&DeviceSample::writebackPages>},
    DeviceColumn{"wb_thresh_pages", writeDeviceField<&DeviceSample::wbThreshPages>},
    DeviceColumn{"wb_setpoint_pages", writeDeviceField<&DeviceSample::wbSetpointPages>, true},
    DeviceColumn{"seeks_per_s", writeDeviceField<&DeviceSample::seeksPerS>},
    DeviceColumn{"util_pct", writeDeviceField<&DeviceSample::utilPct>},
    DeviceColumn{"queue_depth", writeDeviceField<&DeviceSample::queueDepth>},
    DeviceColumn{"dirty_exceeded", writeDeviceField<&DeviceSample::dirtyExceeded>},
};
const std::array kGlobalTail{
    GlobalColumn{"tasks", writeField<&Sample::tasks>},
    GlobalColumn{"runnable_tasks", writeField<&Sample::runnableTasks>},
    GlobalColumn{"io_wait_tasks", writeField<&Sample::ioWaitTasks>},
    GlobalColumn{"pauses", writeField<&Sample::pauses>},
    GlobalColumn{"pause_ms_min", writeField<&Sample::pauseMsMin>},
    GlobalColumn{"pause_ms_p50", writeField<&Sample::pauseMsP50>},
    GlobalColumn{"max_pause_ms", writeField<&Sample::maxPauseMs>},
};

// Added with the page allocator and the CPU cost model; appended so that the columns above keep
// their positions in files read by older scripts.
const std::array kGlobalMemory{
    GlobalColumn{"system_pct", writeField<&Sample::systemPct>},
    GlobalColumn{"user_pct", writeField<&Sample::userPct>},
    GlobalColumn{"swap_total_pages", writeField<&Sample::swapTotalPages>},
    GlobalColumn{"swap_used_pages", writeField<&Sample::swapUsedPages>},
    GlobalColumn{"pgscan_kswapd_per_s", writeField<&Sample::pgscanKswapdPerS>},
    GlobalColumn{"pgscan_direct_per_s", writeField<&Sample::pgscanDirectPerS>},
    GlobalColumn{"pgsteal_per_s", writeField<&Sample::pgstealPerS>},
    GlobalColumn{"swap_out_kbps", writeField<&Sample::swapOutKBps>},
    GlobalColumn{"swap_in_kbps", writeField<&Sample::swapInKBps>},
    GlobalColumn{"alloc_stalls", writeField<&Sample::allocStalls>},
    GlobalColumn{"alloc_stall_ms_max", writeField<&Sample::allocStallMsMax>},
    GlobalColumn{"kswapd_active", writeField<&Sample::kswapdActive>},
    GlobalColumn{"oom_kills", writeField<&Sample::oomKills>},
};
const std::array kDeviceMemory{
    DeviceColumn{"read_kbps", writeDeviceField<&DeviceSample::readKBps>},
};

/// Walks the columns in order, calling onGlobal/onDevice(deviceIndex, column). Device 0's
/// columns are interleaved with the global ones; every further device k adds its own block
/// (main, extra, memory) at the end, so a one-device header is a prefix of a k-device one.
template <class OnTime, class OnGlobal, class OnDevice>
void forEachColumn(std::size_t deviceCount, OnTime onTime, OnGlobal onGlobal, OnDevice onDevice) {
  onTime();
  for (const auto& c : kGlobalHead) onGlobal(c);
  for (const auto& c : kDeviceMain) onDevice(0, c);
  for (const auto& c : kGlobalMiddle) onGlobal(c);
  for (const auto& c : kDeviceExtra) onDevice(0, c);
  for (const auto& c : kGlobalTail) onGlobal(c);
  for (const auto& c : kGlobalMemory) onGlobal(c);
  for (const auto& c : kDeviceMemory) onDevice(0, c);
  for (std::size_t k = 1; k < deviceCount; ++k) {
    for (const auto& c : kDeviceMain) onDevice(k, c);
    for (const auto& c : kDeviceExtra) onDevice(k, c);
    for (const auto& c : kDeviceMemory) onDevice(k, c);
  }
}

struct CgroupColumn {
  std::string_view name;
  void (*write)(std::string&, const CgroupSample&);
  bool position = false;
};
template <auto Field>
void writeCgroupField(std::string& out, const CgroupSample& c) {
  appendValue(out, c.*Field);
}
// Per memory cgroup, after every other column: `cgroup_<name>_<column>`.
const std::array kCgroupColumns{
    CgroupColumn{"file_pages", writeCgroupField<&CgroupSample::filePages>},
    CgroupColumn{"dirty_pages", writeCgroupField<&CgroupSample::dirtyPages>},
    CgroupColumn{"writeback_pages", writeCgroupField<&CgroupSample::writebackPages>},
    CgroupColumn{"max_pages", writeCgroupField<&CgroupSample::maxPages>},
    CgroupColumn{"avail_pages", writeCgroupField<&CgroupSample::availPages>},
    CgroupColumn{"bg_thresh_pages", writeCgroupField<&CgroupSample::bgThreshPages>},
    CgroupColumn{"thresh_pages", writeCgroupField<&CgroupSample::threshPages>},
    CgroupColumn{"freerun_pages", writeCgroupField<&CgroupSample::freerunPages>, true},
    CgroupColumn{"setpoint_pages", writeCgroupField<&CgroupSample::setpointPages>, true},
    CgroupColumn{"limit_pages", writeCgroupField<&CgroupSample::limitPages>},
    CgroupColumn{"dirty_limit_pages", writeCgroupField<&CgroupSample::dirtyLimitPages>},
    CgroupColumn{"pos_ratio", writeCgroupField<&CgroupSample::posRatio>, true},
    CgroupColumn{"reclaimed_pages", writeCgroupField<&CgroupSample::reclaimedPages>},
    CgroupColumn{"oom_kills", writeCgroupField<&CgroupSample::oomKills>},
};

std::string devicePrefix(std::size_t k) {
  return k == 0 ? std::string() : "dev" + std::to_string(k) + "_";
}

// ---------------------------------------------------------------------------------------------
// ftrace text. The layout is the kernel's print_trace_fmt() with the default trace_options
// (irq-info on, record-tgid off), checked against tests/data/real-trace-excerpt.txt:
//   "%16s-%-7d " comm-pid, "[%03d] " cpu, 5 latency flags, " %5lu.%06lu" time, ": ".

void appendPadded(std::string& out, std::string_view s, std::size_t width, bool right) {
  const std::size_t pad = s.size() < width ? width - s.size() : 0;
  if (right) out.append(pad, ' ');
  out += s;
  if (!right) out.append(pad, ' ');
}

void appendTraceHeader(std::string& out, const TraceHeader& h, std::string_view event) {
  appendPadded(out, commView(h.comm), 16, true);
  out += '-';
  std::string pid;
  appendInt(pid, h.pid);
  appendPadded(out, pid, 7, false);
  out += " [";
  std::string cpu;
  appendInt(cpu, std::max(h.cpu, 0));
  if (cpu.size() < 3) out.append(3 - cpu.size(), '0');
  out += cpu;
  // Interrupts on, no resched pending, no irq context, preempt count and migrate-disable 0:
  // what a task calling balance_dirty_pages() shows.
  out += "] ..... ";
  // ns2usecs() rounds to the nearest microsecond before the split into seconds.
  const std::int64_t ns = std::max<std::int64_t>(h.time.time_since_epoch().count(), 0);
  const auto us = static_cast<std::uint64_t>((ns + 500) / 1000);
  std::string secs;
  appendUnsigned(secs, us / 1'000'000);
  appendPadded(out, secs, 5, true);
  out += '.';
  std::string frac;
  appendUnsigned(frac, us % 1'000'000);
  out.append(6 - frac.size(), '0');
  out += frac;
  out += ": ";
  out += event;
  out += ": ";
}

// Field K of a tracepoint as the kernel prints it: %ld for a signed type, else %lu or %u of
// the value cast the same way, which keeps a (buggy) negative count looking exactly as the
// kernel would show it. One space between fields, none after the last.
template <class Record, std::size_t K>
void appendTraceField(std::string& out, const Record& rec) {
  constexpr const auto& fields = Tracepoint<Record>::kFields;
  constexpr const TraceField<Record>& f = fields[K];
  constexpr auto member = std::get<f.member.index()>(f.member);
  out += f.name;
  out += '=';
  if constexpr (isSigned(f.type))
    appendInt(out, static_cast<std::int64_t>(rec.*member));
  else
    appendUnsigned(out, static_cast<std::uint64_t>(rec.*member));
  if constexpr (K + 1 < std::size(fields)) out += ' ';
}

template <class Record, std::size_t... K>
void appendTraceFields(std::string& out, const Record& rec, std::index_sequence<K...>) {
  (appendTraceField<Record, K>(out, rec), ...);
}

}  // namespace

// ---------------------------------------------------------------------------------------------

std::vector<std::string> sampleCsvColumns(std::size_t deviceCount) {
  std::vector<std::string> names;
  forEachColumn(
      std::max<std::size_t>(deviceCount, 1), [&] { names.emplace_back("time_s"); },
      [&](const GlobalColumn& c) { names.emplace_back(c.name); },
      [&](std::size_t k, const DeviceColumn& c) {
        names.push_back(devicePrefix(k) + std::string(c.name));
      });
  return names;
}

std::vector<std::string> sampleCsvColumns(std::size_t deviceCount,
                                          const std::vector<std::string>& cgroupNames) {
  std::vector<std::string> names = sampleCsvColumns(deviceCount);
  for (const std::string& cg : cgroupNames)
    for (const auto& c : kCgroupColumns)
      names.push_back("cgroup_" + cg + "_" + std::string(c.name));
  return names;
}

const std::vector<std::string>& taskCsvColumns() {
  static const std::vector<std::string> kColumns{"time_s",
                                                 "task",
                                                 "pid",
                                                 "sched",
                                                 "dirtied_pages",
                                                 "write_kbps",
                                                 "task_ratelimit_kbps",
                                                 "pause_ms",
                                                 "state",
                                                 "journal_wait_s",
                                                 "read_wait_s"};
  return kColumns;
}

std::vector<std::string> csvCgroupNames(const Scenario& s) {
  std::vector<std::string> names;
  names.reserve(s.cgroups.size());
  for (const auto& c : s.cgroups) names.push_back(c.name);
  return names;
}

Provenance provenanceOf(const Scenario& s) {
  return Provenance{
      .scenarioName = s.name,
      .seed = s.seed,
      .version = THROTTLELAB_VERSION,
      .policy = s.policy,
      // Compact, in the file's key order.
      .scenarioJson = nlohmann::ordered_json::parse(scenarioToJson(s))
                          .dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace)};
}

Provenance traceProvenance(std::string_view source) {
  return Provenance{
      .scenarioName =
          "kernel trace " + (source == "-" ? std::string("(standard input)") : std::string(source)),
      .seed = 0,
      .version = THROTTLELAB_VERSION,
      .policy = "measured",
      .scenarioJson = {}};
}

void writeCsvProvenance(std::ostream& out, const Provenance& p) {
  std::string text = "# throttlelab " + oneLine(p.version) + "\n";
  text += "# scenario: " + oneLine(p.scenarioName) + "\n";
  text += "# seed: ";
  appendUnsigned(text, p.seed);
  text += "\n# policy: " + oneLine(p.policy) + "\n";
  if (!p.scenarioJson.empty()) {
    // Compact and in the original key order; anything unparsable is at least kept on one line.
    const auto doc = nlohmann::ordered_json::parse(p.scenarioJson, nullptr, false);
    text += "# scenario_json: ";
    text += doc.is_discarded()
                ? oneLine(p.scenarioJson)
                : doc.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
    text += '\n';
  }
  out << text;
}

void writeSampleCsvHeader(std::ostream& out, std::size_t deviceCount,
                          const std::vector<std::string>& cgroupNames) {
  std::string line;
  for (const auto& name : sampleCsvColumns(deviceCount, cgroupNames)) {
    if (!line.empty()) line += ',';
    line += name;
  }
  line += '\n';
  out << line;
}

void writeSampleCsvRow(std::ostream& out, const Sample& s, std::size_t deviceCount,
                       std::size_t cgroupCount) {
  writeSampleCsvRow(out, s, deviceCount, cgroupCount, PositionColumns::AsSampled);
}

void writeSampleCsvRow(std::ostream& out, const Sample& s, std::size_t deviceCount,
                       std::size_t cgroupCount, PositionColumns position) {
  static const DeviceSample kAbsent{};
  static const CgroupSample kAbsentCgroup{};
  // Under a policy without position control its numbers are the engine's leftovers (a frozen
  // dirty_ratelimit, a pos_ratio nothing uses): empty, if asked.
  const bool empty = position == PositionColumns::EmptyWithout && !s.positionControl;
  std::string line;
  line.reserve(512);
  forEachColumn(
      std::max<std::size_t>(deviceCount, 1), [&] { appendTimeS(line, s.time); },
      [&](const GlobalColumn& c) {
        line += ',';
        if (!(empty && c.position)) c.write(line, s);
      },
      [&](std::size_t k, const DeviceColumn& c) {
        line += ',';
        if (!(empty && c.position)) c.write(line, k < s.devices.size() ? s.devices[k] : kAbsent);
      });
  for (std::size_t k = 0; k < cgroupCount; ++k)
    for (const auto& c : kCgroupColumns) {
      line += ',';
      if (!(empty && c.position))
        c.write(line, k < s.cgroups.size() ? s.cgroups[k] : kAbsentCgroup);
    }
  line += '\n';
  out << line;
}

void writeTaskCsvHeader(std::ostream& out) {
  std::string line;
  for (const auto& name : taskCsvColumns()) {
    if (!line.empty()) line += ',';
    line += name;
  }
  line += '\n';
  out << line;
}

void writeTaskCsvRow(std::ostream& out, const TaskSample& s, const TaskInfo& info) {
  std::string line;
  line.reserve(128);
  appendTimeS(line, s.time);
  line += ',';
  const Comm comm = makeComm(info.name);
  appendCsvField(line, commView(comm));
  line += ',';
  appendInt(line, info.pid);
  line += ',';
  line += schedLabel(info.sched, info.rtPriority);
  line += ',';
  appendInt(line, s.dirtiedPages);
  line += ',';
  appendNumber(line, s.writeKBps);
  line += ',';
  appendNumber(line, s.taskRatelimitKBps);
  line += ',';
  appendNumber(line, s.pauseMs);
  line += ',';
  line += toString(s.state);
  line += ',';
  appendNumber(line, s.journalWaitS);
  line += ',';
  appendNumber(line, s.readWaitS);
  line += '\n';
  out << line;
}

std::string formatTraceLine(const TraceRecord& r) {
  std::string out;
  out.reserve(320);
  std::visit(
      [&](const auto& rec) {
        using Record = std::decay_t<decltype(rec)>;
        constexpr const TracepointInfo& info = Tracepoint<Record>::kInfo;
        appendTraceHeader(out, rec.header, info.event);
        if constexpr (info.hasBdi) {
          out += "bdi ";
          out += rec.bdi;
          out += ": ";
        }
        appendTraceFields(out, rec,
                          std::make_index_sequence<std::size(Tracepoint<Record>::kFields)>{});
      },
      r);
  return out;
}

std::string formatTraceLine(const FsTraceRecord& r) {
  std::string out;
  out.reserve(160);
  auto dev = [&](std::uint32_t major, std::uint32_t minor) {
    appendUnsigned(out, major);
    out += ',';
    appendUnsigned(out, minor);
  };
  if (const auto* b = std::get_if<BlockRq>(&r)) {
    // 3.x-5.x TP_printk: issue "%d,%d %s %u (%s) %llu + %u [%s]" (rwbs, bytes, the SCSI
    // command, empty for a file system request, sector + nr_sector, comm); complete
    // "%d,%d %s (%s) %llu + %u [%d]" (the last is the error, 0).
    appendTraceHeader(out, b->header, b->complete ? "block_rq_complete" : "block_rq_issue");
    dev(b->major, b->minor);
    out += ' ';
    out += std::string_view(b->rwbs.data(),
                            std::find(b->rwbs.begin(), b->rwbs.end(), '\0') - b->rwbs.begin());
    out += ' ';
    if (!b->complete) {
      appendUnsigned(out, static_cast<std::uint64_t>(b->nrSector) * 512);
      out += ' ';
    }
    out += "() ";
    appendUnsigned(out, b->sector);
    out += " + ";
    appendUnsigned(out, b->nrSector);
    out += " [";
    if (b->complete)
      out += '0';
    else
      out += commView(b->header.comm);
    out += ']';
  } else if (const auto* j = std::get_if<Jbd2Commit>(&r)) {
    // "dev %d,%d transaction %d sync %d", jbd2_end_commit adding " head %d".
    appendTraceHeader(out, j->header, j->end ? "jbd2_end_commit" : "jbd2_start_commit");
    out += "dev ";
    dev(j->major, j->minor);
    out += " transaction ";
    appendInt(out, j->transaction);
    out += " sync ";
    appendInt(out, j->sync);
    if (j->end) {
      out += " head ";
      appendInt(out, j->head);
    }
  }
  return out;
}

namespace {
// As print_func_help_header_irq() prints it on a 6.x kernel.
void writeTraceColumnLegend(std::ostream& out) {
  out << "#                                _-----=> irqs-off/BH-disabled\n"
         "#                               / _----=> need-resched\n"
         "#                              | / _---=> hardirq/softirq\n"
         "#                              || / _--=> preempt-depth\n"
         "#                              ||| / _-=> migrate-disable\n"
         "#                              |||| /     delay\n"
         "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
         "#              | |         |   |||||     |         |\n";
}
}  // namespace

void writeTraceHeader(std::ostream& out) {
  out << "# tracer: nop\n#\n";
  writeTraceColumnLegend(out);
}

void writeTraceHeader(std::ostream& out, std::int64_t entries, long cpus) {
  const std::string n = std::to_string(entries);
  out << "# tracer: nop\n#\n# entries-in-buffer/entries-written: " << n << '/' << n
      << "   #P:" << std::to_string(cpus) << "\n#\n";
  writeTraceColumnLegend(out);
}

// ---------------------------------------------------------------------------------------------
// Summary table

namespace {

constexpr std::size_t kSummaryTaskRows = 20;

std::string integer(std::int64_t v) {
  std::string s;
  appendInt(s, v);
  return s;
}

void cell(std::string& line, std::string_view text, std::size_t width, bool right = true) {
  line += ' ';
  appendPadded(line, text, width, right);
}

double kibPerSToMBps(double kibPerS) {
  return kibPerS * 1024.0 / 1e6;
}

/// One line of the task table; numbers already formatted so that the aggregate rows can show
/// "-" where a percentile of several tasks would mean nothing.
struct TaskRow {
  std::string_view name;
  std::string pid;
  std::string sched;
  double mbps = 0;
  double dirtiedMiB = 0;
  std::string p50;
  std::string p99;
  double maxMs = 0;
  std::string runs;
  double systemS = 0;
  double userS = 0;
};

void taskRow(std::string& out, const TaskRow& r) {
  std::string line = " ";
  appendPadded(line, r.name, 15, false);
  cell(line, r.pid, 7);
  line += ' ';
  cell(line, r.sched, 7, false);
  cell(line, fixed(r.mbps, 2), 9);
  cell(line, fixed(r.dirtiedMiB, 1), 12);
  cell(line, r.p50, 8);
  cell(line, r.p99, 8);
  cell(line, fixed(r.maxMs, 1), 8);
  cell(line, r.runs, 6);
  cell(line, fixed(r.systemS, 2), 8);
  cell(line, fixed(r.userS, 2), 8);
  while (!line.empty() && line.back() == ' ') line.pop_back();
  out += line;
  out += '\n';
}

void item(std::string& out, std::string_view label, const std::string& value) {
  out += "  ";
  appendPadded(out, label, 20, false);
  out += value;
  out += '\n';
}

/// "cc1 (pid 1003), cc1 (pid 1010) and 4 more": who the OOM killer chose.
std::string oomVictims(const Summary& s) {
  constexpr std::size_t kShown = 6;
  std::string out;
  std::size_t listed = 0, more = 0;
  for (const TaskStats& t : s.tasks) {
    if (!t.oomKilled) continue;
    if (listed == kShown) {
      ++more;
      continue;
    }
    if (listed > 0) out += ", ";
    out += commView(makeComm(t.info.name));
    out += " (pid " + integer(t.info.pid) + ")";
    ++listed;
  }
  if (more > 0) out += " and " + integer(static_cast<std::int64_t>(more)) + " more";
  return out;
}

}  // namespace

void writeSummary(std::ostream& out, const Summary& s, const Scenario& scenario) {
  std::string text;
  text += "ThrottleLab summary\n";
  item(text, "scenario", oneLine(scenario.name));
  item(text, "policy", oneLine(scenario.policy));
  item(text, "seed", std::to_string(scenario.seed));
  item(text, "simulated", fixed(s.simulatedS, 3) + " s");
  item(text, "events processed", integer(s.events));

  text += "\nTasks (" + std::to_string(s.tasks.size()) + ")\n";
  {
    std::string head = " ";
    appendPadded(head, "task", 15, false);
    cell(head, "pid", 7);
    head += ' ';
    cell(head, "sched", 7, false);
    cell(head, "MB/s", 9);
    cell(head, "dirtied MiB", 12);
    cell(head, "p50 ms", 8);
    cell(head, "p99 ms", 8);
    cell(head, "max ms", 8);
    cell(head, "runs", 6);
    cell(head, "sys s", 8);
    cell(head, "user s", 8);
    text += head + '\n';
  }
  const auto mbpsOf = [](const TaskStats& t) { return kibPerSToMBps(t.avgWriteKBps); };
  const auto mibOf = [](const TaskStats& t) {
    return pagesToMiB(static_cast<double>(t.dirtiedPages));
  };
  const std::size_t shown = std::min(s.tasks.size(), kSummaryTaskRows);
  for (std::size_t i = 0; i < shown; ++i) {
    const TaskStats& t = s.tasks[i];
    const Comm comm = makeComm(t.info.name);
    taskRow(text, TaskRow{.name = commView(comm),
                          .pid = integer(t.info.pid),
                          .sched = schedLabel(t.info.sched, t.info.rtPriority),
                          .mbps = mbpsOf(t),
                          .dirtiedMiB = mibOf(t),
                          .p50 = fixed(t.pauseMsP50, 1),
                          .p99 = fixed(t.pauseMsP99, 1),
                          .maxMs = t.pauseMsMax,
                          .runs = integer(t.runsCompleted),
                          .systemS = t.systemS,
                          .userS = t.userS});
  }
  // Percentiles do not add up across tasks; the aggregate lines show sums and the maximum.
  const auto aggregate = [&](std::size_t from, std::string_view name, std::string p50,
                             std::string p99) {
    TaskRow row{.name = name, .p50 = std::move(p50), .p99 = std::move(p99)};
    std::int64_t runs = 0;
    for (std::size_t i = from; i < s.tasks.size(); ++i) {
      const TaskStats& t = s.tasks[i];
      row.mbps += mbpsOf(t);
      row.dirtiedMiB += mibOf(t);
      row.maxMs = std::max(row.maxMs, t.pauseMsMax);
      runs += t.runsCompleted;
      row.systemS += t.systemS;
      row.userS += t.userS;
    }
    row.runs = integer(runs);
    return row;
  };
  if (s.tasks.size() > shown) {
    const std::string name = "... " + std::to_string(s.tasks.size() - shown) + " more";
    taskRow(text, aggregate(shown, name, "-", "-"));
  }
  if (!s.tasks.empty()) {
    TaskRow all = aggregate(0, "all tasks", fixed(s.pauseMsP50, 1), fixed(s.pauseMsP99, 1));
    all.maxMs = s.pauseMsMax;
    taskRow(text, all);
  }

  text += "\nCPU (" + std::to_string(scenario.machine.cpus) +
          (scenario.machine.cpus == 1 ? " CPU)\n" : " CPUs)\n");
  item(text, "%system", fixed(s.systemPct, 2) + " % of all CPUs");
  item(text, "%user", fixed(s.userPct, 2) + " % of all CPUs");

  text += "\nDevice";
  if (scenario.devices.size() == 1)
    text += " " + oneLine(scenario.devices.front().name);
  else
    text += "s (all " + std::to_string(scenario.devices.size()) + ")";
  text += '\n';
  item(text, "throughput",
       fixed(kibPerSToMBps(s.deviceWriteKBps), 2) + " MB/s (" + fixed(s.deviceWriteKBps, 0) +
           " wkB/s)");
  item(text, "average request",
       fixed(s.avgRequestKiB, 1) + " KiB (avgrq-sz " + fixed(s.avgRequestKiB * 2, 1) + " sectors)");
  item(text, "seeks", fixed(s.seeksPerS, 1) + " /s");
  item(text, "above freerun", fixed(s.shareAboveFreerun * 100, 1) + " % of the time");
  item(text, "above limit", fixed(s.shareAboveLimit * 100, 1) + " % of the time");
  item(text, "pauses (all tasks)",
       "p50 " + fixed(s.pauseMsP50, 1) + " ms, p99 " + fixed(s.pauseMsP99, 1) + " ms, max " +
           fixed(s.pauseMsMax, 1) + " ms");

  // Memory pressure: only what happened. A run without swap, stalls or kills has no section.
  const bool swapLine = scenario.machine.swapMiB > 0 || s.swapOutKiB > 0 || s.swapInKiB > 0;
  const bool stallLine = s.allocStalls > 0;
  const bool oomLine = s.oomKills > 0;
  if (swapLine || stallLine || oomLine) {
    text += "\nMemory\n";
    if (stallLine)
      item(text, "allocation stalls",
           integer(s.allocStalls) + "; latency p50 " + fixed(s.allocMsP50, 1) + " ms, p99 " +
               fixed(s.allocMsP99, 1) + " ms, max " + fixed(s.allocMsMax, 1) + " ms");
    if (swapLine)
      item(text, "swap",
           "out " + fixed(s.swapOutKiB / 1024, 1) + " MiB, in " + fixed(s.swapInKiB / 1024, 1) +
               " MiB (" + integer(scenario.machine.swapMiB) + " MiB configured)");
    if (oomLine) {
      std::string victims = oomVictims(s);
      item(text, "OOM kills", integer(s.oomKills) + (victims.empty() ? "" : ": " + victims));
    }
  }
  out << text;
}

}  // namespace throttlelab::engine
