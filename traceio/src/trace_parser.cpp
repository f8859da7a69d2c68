// SPDX-License-Identifier: GPL-3.0-or-later
// One trace line into one record. The importer calls this for every line of files that can
// be gigabytes long, so it never allocates, never copies the line and touches each byte a
// small constant number of times. Fields are looked up by name, never by position: the
// tracepoints gained, renamed and reordered fields across kernel releases.
#include "throttlelab/traceio/trace_parser.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>

namespace throttlelab::traceio {

namespace te = throttlelab::engine;

std::string_view toString(TraceFormat f) {
  switch (f) {
    case TraceFormat::Ftrace:
      return "ftrace";
    case TraceFormat::TraceCmd:
      return "trace-cmd report";
    case TraceFormat::PerfScript:
      return "perf script";
    case TraceFormat::Unknown:
      break;
  }
  return "unknown";
}

namespace {

enum class Event { None, GlobalDirtyState, BdiDirtyRatelimit, BalanceDirtyPages };

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}
bool isBlank(char c) {
  return c == ' ' || c == '\t';
}

/// `n == "literal"` with the length known at compile time, so that the comparison is inlined
/// instead of a call to memcmp for every field of every line.
/// (GCC keeps memcmp a call for these sizes; a loop of constant length it unrolls.)
template <std::size_t N>
inline bool startsWith(std::string_view s, const char (&literal)[N]) {
  if (s.size() < N - 1) return false;
  for (std::size_t i = 0; i < N - 1; ++i)
    if (s[i] != literal[i]) return false;
  return true;
}

template <std::size_t N>
inline bool is(std::string_view n, const char (&literal)[N]) {
  return n.size() == N - 1 && startsWith(n, literal);
}

bool allDigits(std::string_view s) {
  if (s.empty()) return false;
  for (const char c : s)
    if (!isDigit(c)) return false;
  return true;
}

/// Lines that belong to a trace but carry no event: ftrace's `#` header, trace-cmd's
/// `cpus=2` / `CPU 0 is empty` / `version = 6` preamble, the lost-events notes of both.
bool isCommentLine(std::string_view s) {
  if (s.empty() || s[0] == '#') return true;
  if (s[0] != 'c' && s[0] != 'C' && s[0] != 'v') return false;
  if (startsWith(s, "cpus=")) return allDigits(s.substr(5));
  if (startsWith(s, "CPU ")) {
    // `CPU 0 is empty`, `CPU 1 data recorded at offset=...`
    std::size_t i = 4;
    while (i < s.size() && isDigit(s[i])) ++i;
    return i > 4 && (i == s.size() || isBlank(s[i]));
  }
  if (startsWith(s, "CPU:"))
    return s.find("LOST") != std::string_view::npos;  // CPU:1 [LOST 3 EVENTS]
  if (startsWith(s, "version = ")) return true;
  return false;
}

/// Parses `digits[.digits]` into nanoseconds. Accepts microsecond (ftrace, perf) and
/// nanosecond (trace-cmd -t) precision; more fractional digits are truncated.
bool parseTimestamp(const char* p, const char* end, std::int64_t& ns) {
  std::int64_t secs = 0;
  const char* const start = p;
  while (p < end && isDigit(*p)) secs = secs * 10 + (*p++ - '0');
  if (p == start || p - start > 10) return false;
  std::int64_t frac = 0;
  if (p < end) {
    if (*p++ != '.') return false;
    int digits = 0;
    for (; p < end; ++p, ++digits) {
      if (!isDigit(*p)) return false;
      if (digits < 9) frac = frac * 10 + (*p - '0');
    }
    for (; digits < 9; ++digits) frac *= 10;
  }
  ns = secs * 1'000'000'000 + frac;
  return true;
}

// Field slots per event, in the order of the members in records.h (the bit positions of
// ParsedLine::missingFields). kIgnored: a field we know and skip (unstable, the 4.2-era
// cgroup path, 2011's avg_dirty); -1: unknown, skipped too.
constexpr int kIgnored = 100;

int gdsField(std::string_view n) {
  switch (n.size()) {
    case 5:
      if (is(n, "dirty")) return 0;
      if (is(n, "limit")) return 4;
      break;
    case 6:
      if (is(n, "thresh")) return 3;
      break;
    case 7:
      if (is(n, "dirtied")) return 5;
      if (is(n, "written")) return 6;
      break;
    case 8:
      if (is(n, "unstable")) return kIgnored;
      break;
    case 9:
      if (is(n, "writeback")) return 1;
      if (is(n, "bg_thresh")) return 2;
      break;
    default:
      break;
  }
  return -1;
}

int bdrField(std::string_view n) {
  switch (n.size()) {
    case 6:
      if (is(n, "cgroup")) return kIgnored;
      break;
    case 8:
      if (is(n, "write_bw")) return 0;
      break;
    case 9:
      if (is(n, "awrite_bw")) return 1;
      break;
    case 10:
      if (is(n, "dirty_rate")) return 2;
      if (is(n, "cgroup_ino")) return 6;
      break;
    case 12:
      // `trace-cmd report -R` and raw perf output print the struct member, not the label.
      if (is(n, "avg_write_bw")) return 1;
      break;
    case 14:
      if (is(n, "task_ratelimit")) return 4;
      break;
    case 15:
      if (is(n, "dirty_ratelimit")) return 3;
      break;
    case 24:
      if (is(n, "balanced_dirty_ratelimit")) return 5;
      break;
    default:
      break;
  }
  return -1;
}

int bdpField(std::string_view n) {
  switch (n.size()) {
    case 4:
      if (is(n, "goal")) return 1;  // 2011 patch name of setpoint
      break;
    case 5:
      if (is(n, "dirty")) return 2;
      if (is(n, "pause")) return 10;
      if (is(n, "limit")) return 0;
      if (is(n, "think")) return 12;
      break;
    case 6:
      if (is(n, "paused")) return 9;
      if (is(n, "period")) return 11;
      if (is(n, "cgroup")) return kIgnored;
      break;
    case 7:
      if (is(n, "dirtied")) return 7;
      if (is(n, "base_bw")) return 5;  // 2011 patch name of dirty_ratelimit
      if (is(n, "task_bw")) return 6;  // 2011 patch name of task_ratelimit
      break;
    case 8:
      if (is(n, "setpoint")) return 1;
      if (is(n, "wb_dirty")) return 4;
      if (is(n, "bdi_goal")) return 3;  // 2011 patch name of bdi_setpoint
      break;
    case 9:
      if (is(n, "bdi_dirty")) return 4;  // 3.2 .. 4.2 name of wb_dirty
      if (is(n, "base_rate")) return 5;  // 2011 patch name of dirty_ratelimit
      if (is(n, "avg_dirty")) return kIgnored;
      break;
    case 10:
      if (is(n, "cgroup_ino")) return 13;
      break;
    case 11:
      if (is(n, "wb_setpoint")) return 3;
      break;
    case 12:
      if (is(n, "bdi_setpoint")) return 3;  // 3.2 .. 4.2 name of wb_setpoint
      break;
    case 13:
      if (is(n, "dirtied_pause")) return 8;
      break;
    case 14:
      if (is(n, "task_ratelimit")) return 6;
      break;
    case 15:
      if (is(n, "dirty_ratelimit")) return 5;
      break;
    default:
      break;
  }
  return -1;
}

// Problems name the field; they are literals because ParsedLine::problem is a string_view.
constexpr std::string_view kGdsBad[] = {
    "no number in dirty=",  "no number in writeback=", "no number in bg_thresh=",
    "no number in thresh=", "no number in limit=",     "no number in dirtied=",
    "no number in written="};
constexpr std::string_view kBdrBad[] = {
    "no number in write_bw=",       "no number in awrite_bw=",
    "no number in dirty_rate=",     "no number in dirty_ratelimit=",
    "no number in task_ratelimit=", "no number in balanced_dirty_ratelimit=",
    "no number in cgroup_ino="};
constexpr std::string_view kBdpBad[] = {
    "no number in limit=",          "no number in setpoint=",  "no number in dirty=",
    "no number in wb_setpoint=",    "no number in wb_dirty=",  "no number in dirty_ratelimit=",
    "no number in task_ratelimit=", "no number in dirtied=",   "no number in dirtied_pause=",
    "no number in paused=",         "no number in pause=",     "no number in period=",
    "no number in think=",          "no number in cgroup_ino="};

// Which fields must be there for the record to mean anything.
constexpr std::uint32_t kGdsRequired = (1u << 0) | (1u << 1);   // dirty, writeback
constexpr std::uint32_t kBdrRequired = (1u << 3);               // dirty_ratelimit
constexpr std::uint32_t kBdpRequired = (1u << 2) | (1u << 10);  // dirty, pause

void store(te::GlobalDirtyState& r, int slot, std::uint64_t v) {
  const auto p = static_cast<te::Pages>(v);
  switch (slot) {
    case 0:
      r.dirty = p;
      break;
    case 1:
      r.writeback = p;
      break;
    case 2:
      r.bgThresh = p;
      break;
    case 3:
      r.thresh = p;
      break;
    case 4:
      r.limit = p;
      break;
    case 5:
      r.dirtied = p;
      break;
    case 6:
      r.written = p;
      break;
    default:
      break;
  }
}

void store(te::BdiDirtyRatelimit& r, int slot, std::uint64_t v) {
  const auto i = static_cast<std::int64_t>(v);
  switch (slot) {
    case 0:
      r.writeBw = i;
      break;
    case 1:
      r.awriteBw = i;
      break;
    case 2:
      r.dirtyRate = i;
      break;
    case 3:
      r.dirtyRatelimit = i;
      break;
    case 4:
      r.taskRatelimit = i;
      break;
    case 5:
      r.balancedDirtyRatelimit = i;
      break;
    case 6:
      r.cgroupIno = v;
      break;
    default:
      break;
  }
}

void store(te::BalanceDirtyPages& r, int slot, std::uint64_t v) {
  const auto i = static_cast<std::int64_t>(v);
  switch (slot) {
    case 0:
      r.limit = i;
      break;
    case 1:
      r.setpoint = i;
      break;
    case 2:
      r.dirty = i;
      break;
    case 3:
      r.wbSetpoint = i;
      break;
    case 4:
      r.wbDirty = i;
      break;
    case 5:
      r.dirtyRatelimit = i;
      break;
    case 6:
      r.taskRatelimit = i;
      break;
    case 7:
      r.dirtied = static_cast<std::uint32_t>(v);
      break;
    case 8:
      r.dirtiedPause = static_cast<std::uint32_t>(v);
      break;
    case 9:
      r.paused = i;
      break;
    case 10:
      r.pause = i;
      break;
    case 11:
      r.period = i;
      break;
    case 12:
      r.think = i;
      break;
    case 13:
      r.cgroupIno = v;
      break;
    default:
      break;
  }
}

/// The first '=' or ' ' at or after `p` (or `end`). Names are most of a line's bytes, so they
/// are scanned eight at a time: a word's bytes equal to c are found as the zero bytes of
/// word ^ c·0x0101…, the usual carry trick.
inline const char* findEqualsOrSpace(const char* p, const char* end) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHighs = 0x8080808080808080ULL;
  while (end - p >= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    const std::uint64_t eq = w ^ (kOnes * '=');
    const std::uint64_t sp = w ^ (kOnes * ' ');
    const std::uint64_t hit = ((eq - kOnes) & ~eq & kHighs) | ((sp - kOnes) & ~sp & kHighs);
    if (hit) return p + (__builtin_ctzll(hit) >> 3);
    p += 8;
  }
  while (p < end && *p != '=' && *p != ' ') ++p;
  return p;
}

/// A field name with its '=' as little-endian words, to be recognised with a few compares:
/// today's kernels print the fields in records.h order, so the next field is almost always
/// the one expected.
struct ExpectedName {
  std::array<std::uint64_t, 4> words{};
  std::array<std::uint64_t, 4> masks{};
  int count = 0;  ///< words to compare
  int length = 0;
};

constexpr ExpectedName expected(std::string_view nameWithEquals) {
  ExpectedName e;
  e.length = static_cast<int>(nameWithEquals.size());
  e.count = (e.length + 7) / 8;
  for (int i = 0; i < e.length; ++i) {
    const auto shift = static_cast<unsigned>(8 * (i % 8));
    e.words[static_cast<std::size_t>(i / 8)] |=
        static_cast<std::uint64_t>(
            static_cast<unsigned char>(nameWithEquals[static_cast<std::size_t>(i)]))
        << shift;
    e.masks[static_cast<std::size_t>(i / 8)] |= std::uint64_t{0xff} << shift;
  }
  return e;
}

inline bool matches(const char* p, const char* end, const ExpectedName& e) {
  if (end - p < 8 * e.count) return false;  // near the line's end: the general path
  for (int i = 0; i < e.count; ++i) {
    std::uint64_t w;
    std::memcpy(&w, p + 8 * i, 8);
    if ((w & e.masks[static_cast<std::size_t>(i)]) != e.words[static_cast<std::size_t>(i)])
      return false;
  }
  return true;
}

constexpr std::array<ExpectedName, 7> kGdsOrder{
    expected("dirty="), expected("writeback="), expected("bg_thresh="), expected("thresh="),
    expected("limit="), expected("dirtied="),   expected("written=")};
constexpr std::array<ExpectedName, 7> kBdrOrder{
    expected("write_bw="),       expected("awrite_bw="),
    expected("dirty_rate="),     expected("dirty_ratelimit="),
    expected("task_ratelimit="), expected("balanced_dirty_ratelimit="),
    expected("cgroup_ino=")};
constexpr std::array<ExpectedName, 14> kBdpOrder{
    expected("limit="),          expected("setpoint="),  expected("dirty="),
    expected("wb_setpoint="),    expected("wb_dirty="),  expected("dirty_ratelimit="),
    expected("task_ratelimit="), expected("dirtied="),   expected("dirtied_pause="),
    expected("paused="),         expected("pause="),     expected("period="),
    expected("think="),          expected("cgroup_ino=")};

/// Reads the run of up to eight decimal digits at p (eight bytes must be readable) into v and
/// returns the first byte after it. Byte i of x = w - '0'·0x0101… is digit i's value as long
/// as the bytes before it were digits (no borrow), and exceeds 9 at the first non-digit
/// whatever it is; the bytes after that do not matter.
inline const char* eightDigits(const char* p, std::uint64_t& v) {
  std::uint64_t w;
  std::memcpy(&w, p, 8);
  const std::uint64_t x = w - 0x3030303030303030ULL;
  const std::uint64_t above9 = ((x + 0x7676767676767676ULL) | x) & 0x8080808080808080ULL;
  const int n = above9 ? __builtin_ctzll(above9) >> 3 : 8;
  if (n == 0) return p;
  // The n digits into the high bytes, zeros (leading zeros of the number) below them.
  std::uint64_t d = (x << (8 * (8 - n))) & 0x0F0F0F0F0F0F0F0FULL;
  d = (d * 2561) >> 8;
  d = ((d & 0x00FF00FF00FF00FFULL) * 6553601) >> 16;
  v = ((d & 0x0000FFFF0000FFFFULL) * 42949672960001ULL) >> 32;
  return p + n;
}

constexpr ExpectedName kPerfSystem = expected("writeback:");
constexpr ExpectedName kBdpEvent = expected("balance_dirty_pages:");
constexpr ExpectedName kGdsEvent = expected("global_dirty_state:");
constexpr ExpectedName kBdrEvent = expected("bdi_dirty_ratelimit:");

/// Reads `name=value` pairs from `p` to `end` into `rec`. Returns the problem, or empty.
/// `order[k]` is the name expected in position k; it is also slot k.
template <typename Record, typename Lookup, std::size_t N>
std::string_view readFields(const char* p, const char* end, Record& rec, Lookup lookup,
                            const std::array<ExpectedName, N>& order,
                            const std::string_view (&bad)[N], std::uint32_t required,
                            std::string_view missingRequired, std::uint32_t& missing) {
  constexpr std::uint32_t all = (1u << N) - 1;
  std::uint32_t present = 0;
  std::size_t next = 0;  // the slot expected next
  while (p < end) {
    while (p < end && *p == ' ') ++p;
    if (p == end) break;
    int slot;
    if (next < N && matches(p, end, order[next])) {
      slot = static_cast<int>(next);
      p += order[next].length;
    } else {
      const char* nameStart = p;
      p = findEqualsOrSpace(p, end);
      if (p == end || *p != '=') continue;  // a bare word: not a field
      const std::string_view name(nameStart, static_cast<std::size_t>(p - nameStart));
      ++p;
      slot = lookup(name);
      if (slot < 0 || slot == kIgnored) {
        while (p < end && *p != ' ') ++p;
        continue;
      }
    }
    next = static_cast<std::size_t>(slot) + 1;
    // The value in the same pass as the scan for its end.
    const bool negative = p < end && *p == '-';
    if (negative) ++p;
    const char* const digits = p;
    std::uint64_t v = 0;
    if (end - p >= 8) p = eightDigits(p, v);
    for (; p < end; ++p) {
      const auto d = static_cast<unsigned>(*p - '0');
      if (d > 9) break;
      v = v * 10 + d;  // cannot overflow within 19 digits; longer values are checked below
    }
    bool overflow = false;
    if (p - digits >= 20) {
      // Only 2^64 - 1 and below fit: redo with checks (%lu of a negative long has 20 digits).
      v = 0;
      for (const char* q = digits; q < p; ++q) {
        overflow |= __builtin_mul_overflow(v, 10u, &v);
        overflow |= __builtin_add_overflow(v, static_cast<unsigned>(*q - '0'), &v);
      }
    }
    if (p == digits || overflow || (p < end && *p != ' ') ||
        (negative && v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + 1))
      return bad[slot];
    // A negative number read as its magnitude: the two's complement is what a cast from
    // int64 gives, and what %lu printed for a negative long.
    store(rec, slot, negative ? 0 - v : v);
    present |= 1u << slot;
  }
  missing = all & ~present;
  if (present == 0) return "no name=value fields";
  if (missing & required) return missingRequired;
  return {};
}

/// `bdi NAME: ` in front of the fields of the two per-device events. The name is what
/// dev_name() gives: `8:0`, `254:0`, `sda`; it may itself contain ':' but not ": ".
bool readBdi(const char*& p, const char* end, std::string_view& bdi) {
  if (!startsWith(std::string_view(p, static_cast<std::size_t>(end - p)), "bdi ")) return false;
  const char* const name = p + 4;
  const char* q = name;
  // The name ends at ": ", or at a ':' that ends the line (`bdi 8:0:` without fields).
  while (q < end && !(*q == ':' && (q + 1 == end || q[1] == ' '))) ++q;
  if (q == end || q == name) return false;
  bdi = std::string_view(name, static_cast<std::size_t>(q - name));
  p = q + 1 < end ? q + 2 : end;
  return true;
}

Event eventNamed(std::string_view name) {
  switch (name.size()) {
    case 18:
      if (is(name, "global_dirty_state")) return Event::GlobalDirtyState;
      break;
    case 19:
      if (is(name, "bdi_dirty_ratelimit")) return Event::BdiDirtyRatelimit;
      if (is(name, "balance_dirty_pages")) return Event::BalanceDirtyPages;
      break;
    default:
      break;
  }
  return Event::None;
}

}  // namespace

namespace {

/// Makes `v` hold a default T, built in place: libstdc++'s emplace builds a temporary and
/// moves it for small trivially copyable alternatives, a copy per line we can do without.
template <typename T>
T& recordAs(te::TraceRecord& v) {
  static_assert(std::is_trivially_destructible_v<te::TraceRecord>);
  std::destroy_at(&v);
  std::construct_at(&v, std::in_place_type<T>);
  return *std::get_if<T>(&v);
}

}  // namespace

void parseTraceLine(std::string_view line, ParsedLine& r) {
  // Reset without touching the record: it is only valid for an Event, which rebuilds it.
  r.kind = LineKind::Garbage;
  r.format = TraceFormat::Unknown;
  r.missingFields = 0;
  r.problem = {};
#define THROTTLELAB_GARBAGE(why) \
  do {                           \
    r.problem = why;             \
    return;                      \
  } while (false)
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::size_t start = 0;
  while (start + 8 <= line.size() && std::memcmp(line.data() + start, "        ", 8) == 0)
    start += 8;
  while (start < line.size() && isBlank(line[start])) ++start;
  const std::string_view text(line.data() + start, line.size() - start);
  if (isCommentLine(text)) {
    r.kind = LineKind::Comment;
    return;
  }

  // The CPU column `[003]` anchors the header: the task name before it may contain
  // anything, including spaces and dashes (`kworker/u8:1-33`, `Web Content-1234`).
  const char* const begin = text.data();
  const char* const end = begin + text.size();
  const char* bracket = begin;
  const char* cpuEnd = nullptr;
  int cpu = 0;
  for (;;) {
    bracket = static_cast<const char*>(
        std::memchr(bracket, '[', static_cast<std::size_t>(end - bracket)));
    if (!bracket) THROTTLELAB_GARBAGE("no [cpu] column");
    const char* q = bracket + 1;
    int v = 0;
    while (q < end && isDigit(*q) && q - bracket < 8) v = v * 10 + (*q++ - '0');
    if (q < end && *q == ']' && q > bracket + 1 && bracket > begin && isBlank(bracket[-1])) {
      cpu = v;
      cpuEnd = q + 1;
      break;
    }
    ++bracket;
  }

  // Task and pid: `comm-pid` (ftrace, trace-cmd), `comm pid` or `comm pid/tid` (perf),
  // optionally followed by ftrace's `(tgid)` column.
  std::string_view head(begin, static_cast<std::size_t>(bracket - begin));
  while (!head.empty() && isBlank(head.back())) head.remove_suffix(1);
  if (!head.empty() && head.back() == ')') {
    const std::size_t open = head.rfind('(');
    if (open == std::string_view::npos) THROTTLELAB_GARBAGE("unbalanced (tgid) column");
    head = head.substr(0, open);
    while (!head.empty() && isBlank(head.back())) head.remove_suffix(1);
  }
  if (head.empty()) THROTTLELAB_GARBAGE("no task before the [cpu] column");
  std::size_t tokenStart = head.size();
  while (tokenStart > 0 && !isBlank(head[tokenStart - 1])) --tokenStart;
  const std::string_view last = head.substr(tokenStart);
  std::string_view comm;
  std::string_view pidText;
  bool perfLayout = false;
  if (const std::size_t dash = last.rfind('-');
      dash != std::string_view::npos && allDigits(last.substr(dash + 1))) {
    pidText = last.substr(dash + 1);
    comm = head.substr(0, tokenStart + dash);
  } else {
    std::string_view pid = last;
    if (const std::size_t slash = pid.find('/'); slash != std::string_view::npos) {
      if (!allDigits(pid.substr(0, slash))) THROTTLELAB_GARBAGE("no pid before the [cpu] column");
      pid = pid.substr(slash + 1);  // perf's pid/tid: the kernel's pid is the thread's
    }
    if (!allDigits(pid) || tokenStart == 0) THROTTLELAB_GARBAGE("no pid before the [cpu] column");
    pidText = pid;
    comm = head.substr(0, tokenStart);
    while (!comm.empty() && isBlank(comm.back())) comm.remove_suffix(1);
    perfLayout = true;
  }
  while (!comm.empty() && isBlank(comm.front())) comm.remove_prefix(1);
  if (pidText.size() > 9) THROTTLELAB_GARBAGE("pid out of range");
  int pid = 0;
  std::from_chars(pidText.data(), pidText.data() + pidText.size(), pid);

  // After the CPU: optional latency flags (`.....`, `d..1`, `dNh2.`), then `seconds.micros:`.
  // A timestamp starts with a digit, the flags never do.
  const char* p = cpuEnd;
  while (p < end && isBlank(*p)) ++p;
  const bool flags = p < end && !isDigit(*p);
  if (flags) {
    while (p < end && !isBlank(*p)) ++p;
    while (p < end && isBlank(*p)) ++p;
  }
  const char* tokenEnd = p;
  while (tokenEnd < end && (isDigit(*tokenEnd) || *tokenEnd == '.')) ++tokenEnd;
  std::int64_t ns = 0;
  if (tokenEnd == end || *tokenEnd != ':' || !parseTimestamp(p, tokenEnd, ns))
    THROTTLELAB_GARBAGE("no timestamp after the [cpu] column");
  ++tokenEnd;

  // The event name: `balance_dirty_pages:` (ftrace, trace-cmd) or
  // `writeback:balance_dirty_pages:` (perf). Ours are recognised by a few word compares.
  p = tokenEnd;
  while (p < end && isBlank(*p)) ++p;
  if (matches(p, end, kPerfSystem)) p += kPerfSystem.length;
  Event event = Event::None;
  if (matches(p, end, kBdpEvent)) {
    event = Event::BalanceDirtyPages;
    tokenEnd = p + kBdpEvent.length;
  } else if (matches(p, end, kGdsEvent)) {
    event = Event::GlobalDirtyState;
    tokenEnd = p + kGdsEvent.length;
  } else if (matches(p, end, kBdrEvent)) {
    event = Event::BdiDirtyRatelimit;
    tokenEnd = p + kBdrEvent.length;
  }
  if (event == Event::None || (tokenEnd < end && !isBlank(*tokenEnd))) {
    tokenEnd = p;
    while (tokenEnd < end && !isBlank(*tokenEnd)) ++tokenEnd;
    if (tokenEnd == p || tokenEnd[-1] != ':')
      THROTTLELAB_GARBAGE("no event name after the timestamp");
    event = eventNamed(std::string_view(p, static_cast<std::size_t>(tokenEnd - 1 - p)));
  }

  r.format =
      perfLayout ? TraceFormat::PerfScript : (flags ? TraceFormat::Ftrace : TraceFormat::TraceCmd);
  if (event == Event::None) {
    r.kind = LineKind::Other;
    return;
  }

  const auto fillHeader = [&](te::TraceHeader & header) __attribute__((always_inline)) {
    header.time = te::SimTime{te::SimDuration{ns}};
    // makeComm without its call: TASK_COMM_LEN keeps 15 characters and a NUL.
    const std::size_t n = std::min<std::size_t>(comm.size(), header.comm.size() - 1);
    for (std::size_t i = 0; i < n; ++i) header.comm[i] = comm[i];
    header.pid = pid;
    header.cpu = cpu;
  };

  p = tokenEnd;
  while (p < end && isBlank(*p)) ++p;
  std::string_view problem;
  switch (event) {
    case Event::GlobalDirtyState: {
      auto& rec = recordAs<te::GlobalDirtyState>(r.record);
      fillHeader(rec.header);
      problem = readFields(p, end, rec, gdsField, kGdsOrder, kGdsBad, kGdsRequired,
                           "no dirty= or no writeback= field", r.missingFields);
      break;
    }
    case Event::BdiDirtyRatelimit: {
      auto& rec = recordAs<te::BdiDirtyRatelimit>(r.record);
      fillHeader(rec.header);
      if (!readBdi(p, end, rec.bdi)) {
        problem = "no `bdi NAME:` before the fields";
        break;
      }
      problem = readFields(p, end, rec, bdrField, kBdrOrder, kBdrBad, kBdrRequired,
                           "no dirty_ratelimit= field", r.missingFields);
      break;
    }
    case Event::BalanceDirtyPages: {
      auto& rec = recordAs<te::BalanceDirtyPages>(r.record);
      fillHeader(rec.header);
      if (!readBdi(p, end, rec.bdi)) {
        problem = "no `bdi NAME:` before the fields";
        break;
      }
      problem = readFields(p, end, rec, bdpField, kBdpOrder, kBdpBad, kBdpRequired,
                           "no dirty= or no pause= field", r.missingFields);
      break;
    }
    case Event::None:
      break;
  }
  if (!problem.empty()) {
    r.kind = LineKind::Malformed;
    r.problem = problem;
    r.missingFields = 0;
    return;
  }
  r.kind = LineKind::Event;
  return;
#undef THROTTLELAB_GARBAGE
}

ParsedLine parseTraceLine(std::string_view line) {
  ParsedLine r;
  parseTraceLine(line, r);
  return r;
}

}  // namespace throttlelab::traceio
