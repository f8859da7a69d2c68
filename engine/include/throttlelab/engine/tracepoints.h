// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The three writeback tracepoints field by field (docs/model.md, Tracepoints): one row per
/// field names it as TP_printk prints it (include/trace/events/writeback.h), the member of the
/// record in records.h that holds it, the kernel type it has, and the names earlier kernels
/// gave it. The engine's trace writer (formatTraceLine) prints the rows in order; the trace
/// parser reads them by name, in any order, under their old names too. Adding a field is one
/// member in records.h and one row here, at the member's place: rows are in member order.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <variant>

#include "throttlelab/engine/records.h"

namespace throttlelab::engine {

/// What a field is in the tracepoint's TP_STRUCT__entry, and so which values the kernel can
/// print there: page counts, the cumulative NR_DIRTIED/NR_WRITTEN counters and the KBps()
/// rates are unsigned long (%lu), dirtied and dirtied_pause unsigned int (%u), paused and
/// period unsigned long milliseconds, pause and think long milliseconds (%ld; both go negative
/// when a task comes back before its last pause was due), cgroup_ino an ino_t printed as %lu.
enum class TraceFieldType : std::uint8_t { PageCount, Counter, Rate, UInt, Ms, SignedMs, Ino };

/// Whether the kernel prints the type with %ld (else %lu or %u).
constexpr bool isSigned(TraceFieldType t) {
  return t == TraceFieldType::SignedMs;
}

template <class Record>
using TraceMember =
    std::variant<std::int64_t Record::*, std::uint32_t Record::*, std::uint64_t Record::*>;

template <class Record>
struct TraceField {
  std::string_view name;  ///< as printed: `name=value`
  TraceMember<Record> member;
  TraceFieldType type;
  /// A record without it means nothing (the parser rejects the line).
  bool required = false;
  /// Earlier names of the same value: 3.2–4.2 kernels (`bdi_dirty`), the 2011 patches
  /// (`base_rate`), or the struct member that `trace-cmd report -R` prints (`avg_write_bw`).
  std::array<std::string_view, 3> oldNames{};
};

/// A tracepoint: its event name, whether `bdi NAME: ` comes before the fields, and the names
/// of fields that kernels printed and that the model has no member for (skipped on reading).
struct TracepointInfo {
  std::string_view event;
  bool hasBdi;
  std::array<std::string_view, 2> ignored{};
};

// The rows, in a namespace of their own so that the short name of the type stays in it.
namespace tracepoint_rows {
using T = TraceFieldType;

inline constexpr TracepointInfo kGlobalDirtyStateInfo{"global_dirty_state", false, {"unstable"}};
inline constexpr TraceField<GlobalDirtyState> kGlobalDirtyStateFields[] = {
    {"dirty", &GlobalDirtyState::dirty, T::PageCount, true},
    {"writeback", &GlobalDirtyState::writeback, T::PageCount, true},
    {"bg_thresh", &GlobalDirtyState::bgThresh, T::PageCount},
    {"thresh", &GlobalDirtyState::thresh, T::PageCount},
    {"limit", &GlobalDirtyState::limit, T::PageCount},
    {"dirtied", &GlobalDirtyState::dirtied, T::Counter},
    {"written", &GlobalDirtyState::written, T::Counter},
};

// `cgroup` is the 4.2-era cgroup path.
inline constexpr TracepointInfo kBdiDirtyRatelimitInfo{"bdi_dirty_ratelimit", true, {"cgroup"}};
inline constexpr TraceField<BdiDirtyRatelimit> kBdiDirtyRatelimitFields[] = {
    {"write_bw", &BdiDirtyRatelimit::writeBw, T::Rate},
    {"awrite_bw", &BdiDirtyRatelimit::awriteBw, T::Rate, false, {"avg_write_bw"}},
    {"dirty_rate", &BdiDirtyRatelimit::dirtyRate, T::Rate},
    {"dirty_ratelimit", &BdiDirtyRatelimit::dirtyRatelimit, T::Rate, true},
    {"task_ratelimit", &BdiDirtyRatelimit::taskRatelimit, T::Rate},
    {"balanced_dirty_ratelimit", &BdiDirtyRatelimit::balancedDirtyRatelimit, T::Rate},
    {"cgroup_ino", &BdiDirtyRatelimit::cgroupIno, T::Ino},
};

// `avg_dirty` is a 2011 patch's field.
inline constexpr TracepointInfo kBalanceDirtyPagesInfo{
    "balance_dirty_pages", true, {"cgroup", "avg_dirty"}};
inline constexpr TraceField<BalanceDirtyPages> kBalanceDirtyPagesFields[] = {
    {"limit", &BalanceDirtyPages::limit, T::PageCount},
    {"setpoint", &BalanceDirtyPages::setpoint, T::PageCount, false, {"goal"}},
    {"dirty", &BalanceDirtyPages::dirty, T::PageCount, true},
    {"wb_setpoint",
     &BalanceDirtyPages::wbSetpoint,
     T::PageCount,
     false,
     {"bdi_setpoint", "bdi_goal"}},
    {"wb_dirty", &BalanceDirtyPages::wbDirty, T::PageCount, false, {"bdi_dirty"}},
    {"dirty_ratelimit",
     &BalanceDirtyPages::dirtyRatelimit,
     T::Rate,
     false,
     {"base_bw", "base_rate"}},
    {"task_ratelimit", &BalanceDirtyPages::taskRatelimit, T::Rate, false, {"task_bw"}},
    {"dirtied", &BalanceDirtyPages::dirtied, T::UInt},
    {"dirtied_pause", &BalanceDirtyPages::dirtiedPause, T::UInt},
    {"paused", &BalanceDirtyPages::paused, T::Ms},
    {"pause", &BalanceDirtyPages::pause, T::SignedMs, true},
    {"period", &BalanceDirtyPages::period, T::Ms},
    {"think", &BalanceDirtyPages::think, T::SignedMs},
    {"cgroup_ino", &BalanceDirtyPages::cgroupIno, T::Ino},
};

}  // namespace tracepoint_rows

/// The table of a record type.
template <class Record>
struct Tracepoint;
template <>
struct Tracepoint<GlobalDirtyState> {
  static constexpr const TracepointInfo& kInfo = tracepoint_rows::kGlobalDirtyStateInfo;
  static constexpr const auto& kFields = tracepoint_rows::kGlobalDirtyStateFields;
};
template <>
struct Tracepoint<BdiDirtyRatelimit> {
  static constexpr const TracepointInfo& kInfo = tracepoint_rows::kBdiDirtyRatelimitInfo;
  static constexpr const auto& kFields = tracepoint_rows::kBdiDirtyRatelimitFields;
};
template <>
struct Tracepoint<BalanceDirtyPages> {
  static constexpr const TracepointInfo& kInfo = tracepoint_rows::kBalanceDirtyPagesInfo;
  static constexpr const auto& kFields = tracepoint_rows::kBalanceDirtyPagesFields;
};

/// The value of field `f` of `r` as the kernel's unsigned long holds it (a signed value as its
/// two's complement).
template <class Record>
constexpr std::uint64_t fieldValue(const Record& r, const TraceField<Record>& f) {
  return std::visit([&](auto m) { return static_cast<std::uint64_t>(r.*m); }, f.member);
}

}  // namespace throttlelab::engine
