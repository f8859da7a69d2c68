// SPDX-License-Identifier: GPL-3.0-or-later
// One trace line into one record. The importer calls this for every line of files that can
// be gigabytes long, so it never allocates, never copies the line and touches each byte a
// small constant number of times. Fields are looked up by name, never by position: the
// tracepoints gained, renamed and reordered fields across kernel releases.
//
// Speed: nearly every line of a real trace has its fields exactly as today's
// kernels print them. readCanonical reads those with everything known at compile time and
// gives up at the first difference, leaving the line to the general readFields, which gives
// the same result for every line readCanonical accepts. The header is read with helpers that
// look at eight bytes at a time. Any change here must keep results identical: the tests in
// tests/traceio pin them, and comparing the parse of mutated lines against the previous
// version is the quickest way to check.
#include "throttlelab/traceio/trace_parser.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>
#include <variant>

#include "throttlelab/engine/enum_names.h"
#include "throttlelab/engine/tracepoints.h"

namespace throttlelab::traceio {

namespace te = throttlelab::engine;

std::string_view toString(TraceFormat f) {
  static constexpr te::EnumName<TraceFormat> kNames[] = {
      {TraceFormat::Ftrace, "ftrace"},
      {TraceFormat::TraceCmd, "trace-cmd report"},
      {TraceFormat::PerfScript, "perf script"}};
  return te::nameOf(f, kNames, "unknown");
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

// A field name a kernel printed that the model has no member for (unstable, the 4.2-era
// cgroup path, 2011's avg_dirty): skipped like an unknown name (-1), but known.
constexpr int kIgnored = 100;

template <class Record>
constexpr const auto& kFields = te::Tracepoint<Record>::kFields;
template <class Record>
constexpr std::size_t kFieldCount = std::size(kFields<Record>);

/// The slot (row of the tracepoint's table, bit of ParsedLine::missingFields) of a field
/// name, under its current or an older name; kIgnored or -1 for a name to skip. Only lines
/// that the canonical reading does not take come here.
template <class Record>
int fieldSlot(std::string_view n) {
  const auto& fields = kFields<Record>;
  for (std::size_t i = 0; i < std::size(fields); ++i) {
    if (fields[i].name == n) return static_cast<int>(i);
    for (const std::string_view old : fields[i].oldNames)
      if (!old.empty() && old == n) return static_cast<int>(i);
  }
  for (const std::string_view ignored : te::Tracepoint<Record>::kInfo.ignored)
    if (!ignored.empty() && ignored == n) return kIgnored;
  return -1;
}

/// A text made at compile time, so that ParsedLine::problem (a string_view) can point at it.
struct FixedText {
  std::array<char, 64> chars{};
  std::size_t size = 0;
  constexpr void append(std::string_view s) {
    for (const char c : s) {
      if (size == chars.size()) throw "FixedText too short";  // stops the compilation
      chars[size++] = c;
    }
  }
  constexpr std::string_view view() const { return {chars.data(), size}; }
};

/// "no number in dirty=" for each field of Record, by slot.
template <class Record>
constexpr auto kNoNumber = [] {
  std::array<FixedText, kFieldCount<Record>> texts{};
  for (std::size_t i = 0; i < texts.size(); ++i) {
    texts[i].append("no number in ");
    texts[i].append(kFields<Record>[i].name);
    texts[i].append("=");
  }
  return texts;
}();

/// The fields that must be there for the record to mean anything, as missingFields bits.
template <class Record>
constexpr std::uint32_t kRequired = [] {
  std::uint32_t bits = 0;
  for (std::size_t i = 0; i < kFieldCount<Record>; ++i)
    if (kFields<Record>[i].required) bits |= 1u << i;
  return bits;
}();

/// "no dirty= or no writeback= field": the problem of a line without a required field.
template <class Record>
constexpr FixedText kMissingRequired = [] {
  FixedText text;
  bool first = true;
  for (const auto& f : kFields<Record>) {
    if (!f.required) continue;
    text.append(first ? "no " : " or no ");
    text.append(f.name);
    text.append("=");
    first = false;
  }
  text.append(" field");
  return text;
}();

/// Field K's value into its member, cast as the kernel's types convert.
template <class Record, std::size_t K>
void storeField(Record& r, std::uint64_t v) {
  constexpr const auto& f = kFields<Record>[K];
  constexpr auto member = std::get<f.member.index()>(f.member);
  r.*member = static_cast<std::remove_reference_t<decltype(r.*member)>>(v);
}

template <class Record, std::size_t... K>
constexpr auto storesOf(std::index_sequence<K...>) {
  return std::array<void (*)(Record&, std::uint64_t), sizeof...(K)>{&storeField<Record, K>...};
}

template <class Record>
void store(Record& r, int slot, std::uint64_t v) {
  static constexpr auto kStores = storesOf<Record>(std::make_index_sequence<kFieldCount<Record>>{});
  kStores[static_cast<std::size_t>(slot)](r, v);
}

constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
constexpr std::uint64_t kHighs = 0x8080808080808080ULL;

/// The high bit of every zero byte of `x`, the usual carry trick: (x - 0x0101…) & ~x & 0x8080….
/// A borrow may also flag a byte above a zero byte, so only the lowest flag is exact; the
/// scanners below use only that one.
inline std::uint64_t zeroBytes(std::uint64_t x) {
  return (x - kOnes) & ~x & kHighs;
}

/// The first byte equal to `a` or `b` at or after `p` (or `end`), eight bytes at a time: the
/// bytes of a word equal to `a` are the zero bytes of word ^ a·0x0101….
inline const char* findEitherByte(const char* p, const char* end, char a, char b) {
  const std::uint64_t pa = kOnes * static_cast<unsigned char>(a);
  const std::uint64_t pb = kOnes * static_cast<unsigned char>(b);
  while (end - p >= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    if (const std::uint64_t hit = zeroBytes(w ^ pa) | zeroBytes(w ^ pb))
      return p + (__builtin_ctzll(hit) >> 3);
    p += 8;
  }
  while (p < end && *p != a && *p != b) ++p;
  return p;
}

/// The first '=' or ' ' at or after `p` (or `end`). Names are most of a line's bytes, so they
/// are scanned eight at a time.
inline const char* findEqualsOrSpace(const char* p, const char* end) {
  return findEitherByte(p, end, '=', ' ');
}

// A field's kind is its type in the tracepoint's TP_STRUCT__entry (te::TraceFieldType).
using FieldKind = te::TraceFieldType;

/// The values a kind can take and what the problem says about one that it cannot.
/// The bounds sit far above anything a real machine prints (2^48 pages are 1 EiB of 4 KiB
/// pages; 2^50 KB/s is 1 EiB/s; 2^40 ms are 34 years) and far below 2^63, where a negative
/// number printed through %lu lands: they catch wrapped, corrupt and made-up values, which
/// would otherwise become negative numbers in the CSV. The counters may be anything a long
/// holds.
struct KindRange {
  std::uint64_t max;  ///< of the magnitude
  bool isSigned;
  std::string_view negative;  ///< the problem of a '-' in front of an unsigned kind
  std::string_view tooLarge;
  std::string_view notWhole;  ///< 1e400, 2.5: the kernel prints integers only
};

constexpr KindRange kKindRanges[] = {
    {std::uint64_t{1} << 48, false,
     "is out of range: a page count (unsigned long) is never negative",
     "is out of range: a page count (unsigned long) above 2^48 is more than any machine has",
     "is out of range: a page count (unsigned long) is a whole number"},
    {static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()), false,
     "is out of range: a page counter (unsigned long) is never negative",
     "is out of range: a page counter (unsigned long) above 2^63 - 1 is a negative number "
     "printed unsigned",
     "is out of range: a page counter (unsigned long) is a whole number"},
    {std::uint64_t{1} << 50, false,
     "is out of range: a rate in KB/s (unsigned long) is never negative",
     "is out of range: a rate in KB/s (unsigned long) above 2^50 (1 EiB/s) is no device's",
     "is out of range: a rate in KB/s (unsigned long) is a whole number"},
    {std::numeric_limits<std::uint32_t>::max(), false,
     "is out of range: an unsigned int is never negative",
     "is out of range: an unsigned int is at most 4294967295",
     "is out of range: an unsigned int is a whole number"},
    {std::uint64_t{1} << 40, false,
     "is out of range: milliseconds (unsigned long) are never negative",
     "is out of range: milliseconds (unsigned long) above 2^40 are more than 34 years",
     "is out of range: milliseconds (unsigned long) are a whole number"},
    {std::uint64_t{1} << 40, true, "",
     "is out of range: milliseconds (long) beyond 2^40 either way are more than 34 years",
     "is out of range: milliseconds (long) are a whole number"},
    {std::numeric_limits<std::uint64_t>::max(), false,
     "is out of range: an inode number (unsigned long) is never negative",
     "is out of range: an inode number (unsigned long) is at most 2^64 - 1",
     "is out of range: an inode number (unsigned long) is a whole number"},
};

constexpr const KindRange& rangeOf(FieldKind k) {
  return kKindRanges[static_cast<std::size_t>(k)];
}

/// A field name with its '=' as little-endian words, to be recognised with a few compares:
/// today's kernels print the fields in records.h order, so the next field is almost always
/// the one expected.
struct ExpectedName {
  std::array<std::uint64_t, 4> words{};
  std::array<std::uint64_t, 4> masks{};
  int count = 0;  ///< words to compare
  int length = 0;
  std::uint64_t tail = 0;  ///< the last 8 bytes, for a name of 8 or more near the line's end
  FieldKind kind = FieldKind::PageCount;  ///< for a field: the values it can take
};

/// `name` followed by `suffix` ("=" after a field, ":" after an event).
constexpr ExpectedName expected(std::string_view name, std::string_view suffix,
                                FieldKind kind = FieldKind::PageCount) {
  ExpectedName e;
  e.kind = kind;
  e.length = static_cast<int>(name.size() + suffix.size());
  e.count = (e.length + 7) / 8;
  const auto byte = [&](int i) {
    const auto k = static_cast<std::size_t>(i);
    return static_cast<std::uint64_t>(
        static_cast<unsigned char>(k < name.size() ? name[k] : suffix[k - name.size()]));
  };
  for (int i = 0; i < e.length; ++i) {
    const auto shift = static_cast<unsigned>(8 * (i % 8));
    e.words[static_cast<std::size_t>(i / 8)] |= byte(i) << shift;
    e.masks[static_cast<std::size_t>(i / 8)] |= std::uint64_t{0xff} << shift;
    if (i >= e.length - 8) e.tail |= byte(i) << (8 * (i - (e.length - 8)));
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

/// The names of Record's fields in slot order, as today's kernels print them.
template <class Record, std::size_t... K>
constexpr std::array<ExpectedName, sizeof...(K)> orderOf(std::index_sequence<K...>) {
  return {expected(kFields<Record>[K].name, "=", kFields<Record>[K].type)...};
}
template <class Record>
constexpr auto kOrder = orderOf<Record>(std::make_index_sequence<kFieldCount<Record>>{});

/// Reads the run of up to eight decimal digits at p (eight bytes must be readable) into v and
/// returns the first byte after it. Byte i of x = w - '0'·0x0101… is digit i's value as long
/// as the bytes before it were digits (no borrow), and exceeds 9 at the first non-digit
/// whatever it is; the bytes after that do not matter.
[[gnu::always_inline]] inline const char* eightDigits(const char* p, std::uint64_t& v) {
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

// ---------------------------------------------------------------------------------------------
// Helpers of the header (task, cpu, flags, timestamp): each replaces a byte-by-byte loop that
// showed in the profile with a few operations on eight bytes at a time.

/// The first byte at or after p that is not ' ', eight bytes at a time: ftrace pads the task
/// column and the timestamp with runs of spaces. In w ^ "        " the spaces are zero bytes,
/// so the first other byte is the lowest nonzero one.
inline const char* skipSpaces(const char* p, const char* end) {
  constexpr std::uint64_t kSpaces = 0x2020202020202020ULL;
  while (end - p >= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    if (const std::uint64_t x = w ^ kSpaces) return p + (__builtin_ctzll(x) >> 3);
    p += 8;
  }
  while (p < end && *p == ' ') ++p;
  return p;
}

/// The first `c` in [p, end), or nullptr, eight bytes at a time: the `[cpu]` column is some
/// 25 bytes in, too close for a call to memchr to pay off.
inline const char* findByte(const char* p, const char* end, char c) {
  const std::uint64_t pattern = kOnes * static_cast<unsigned char>(c);
  while (end - p >= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    if (const std::uint64_t hit = zeroBytes(w ^ pattern)) return p + (__builtin_ctzll(hit) >> 3);
    p += 8;
  }
  for (; p < end; ++p)
    if (*p == c) return p;
  return nullptr;
}

/// The first ' ' or '\t' at or after p (or `end`).
inline const char* findBlank(const char* p, const char* end) {
  return findEitherByte(p, end, ' ', '\t');
}

/// `end` moved back over the spaces before it (not below `begin`), eight bytes at a time.
inline const char* trimSpacesBack(const char* begin, const char* end) {
  constexpr std::uint64_t kSpaces = 0x2020202020202020ULL;
  while (end - begin >= 8) {
    std::uint64_t w;
    std::memcpy(&w, end - 8, 8);
    if (const std::uint64_t x = w ^ kSpaces) return end - (__builtin_clzll(x) >> 3);
    end -= 8;
  }
  while (end > begin && end[-1] == ' ') --end;
  return end;
}

/// The decimal digits that end at `last` (the 8 bytes before it must be readable): how many,
/// 0 to 8, and their value. Every byte is classified on its own (high nibble 3, low nibble
/// at most 9), so whatever lies below the digits does not matter; then, as in eightDigits,
/// the bytes below them become leading zeros and three multiplications add the digits up.
inline int digitsEndingAt(const char* last, std::uint64_t& v) {
  constexpr std::uint64_t kZeros = 0x3030303030303030ULL;
  std::uint64_t w;
  std::memcpy(&w, last - 8, 8);
  const std::uint64_t notDigit =
      ((w & 0xF0F0F0F0F0F0F0F0ULL) ^ kZeros) |
      (((w & 0x0F0F0F0F0F0F0F0FULL) + 0x0606060606060606ULL) & 0x1010101010101010ULL);
  const int n = notDigit ? __builtin_clzll(notDigit) >> 3 : 8;  // the top bytes that are digits
  v = 0;
  if (n == 0) return 0;
  const std::uint64_t keep = ~std::uint64_t{0} << (8 * (8 - n));
  std::uint64_t d = ((w & keep) | (kZeros & ~keep)) - kZeros;
  d = (d * 2561) >> 8;
  d = ((d & 0x00FF00FF00FF00FFULL) * 6553601) >> 16;
  v = ((d & 0x0000FFFF0000FFFFULL) * 42949672960001ULL) >> 32;
  return n;
}

/// `seconds[.fraction]:` at p (1 to 10 digits of seconds; microsecond precision from ftrace
/// and perf, nanoseconds from trace-cmd -t, further digits truncated) into nanoseconds.
/// Returns the byte after the ':', or nullptr. One pass, the digits eight at a time.
inline const char* readTimestamp(const char* p, const char* end, std::int64_t& ns) {
  const char* const start = p;
  std::uint64_t secs = 0;
  if (end - p >= 8) p = eightDigits(p, secs);
  if (p - start == 8 || end - start < 8)
    for (; p < end && isDigit(*p) && p - start <= 10; ++p) secs = secs * 10 + (*p - '0');
  // Ten digits of seconds would overflow nanoseconds in an int64; 2^62 ns (146 years since
  // boot) is far more than any trace clock shows.
  constexpr std::uint64_t kMaxSeconds = (std::uint64_t{1} << 62) / 1'000'000'000;
  if (p == start || p - start > 10 || secs > kMaxSeconds) return nullptr;
  std::uint64_t frac = 0;
  int digits = 0;
  if (p < end && *p == '.') {
    ++p;
    if (end - p >= 8) {
      const char* const fracStart = p;
      p = eightDigits(p, frac);
      digits = static_cast<int>(p - fracStart);
    }
    if (digits == 8 || end - p < 8)
      for (; p < end && isDigit(*p); ++p, ++digits)
        if (digits < 9) frac = frac * 10 + static_cast<std::uint64_t>(*p - '0');
  }
  if (p == end || *p != ':') return nullptr;
  constexpr std::uint64_t kPow10[] = {1,      10,      100,      1000,      10000,
                                      100000, 1000000, 10000000, 100000000, 1000000000};
  if (digits < 9) frac *= kPow10[9 - digits];
  ns = static_cast<std::int64_t>(secs * 1'000'000'000 + frac);
  return p + 1;
}

/// A timestamp readTimestamp refused for its size alone (`99999999999.5:`, digits, an
/// optional fraction, the ':'): returns the byte after the ':', else nullptr.
inline const char* timestampBeyondRange(const char* p, const char* end) {
  const char* const start = p;
  while (p < end && isDigit(*p)) ++p;
  if (p == start) return nullptr;
  if (p < end && *p == '.') {
    ++p;
    while (p < end && isDigit(*p)) ++p;
  }
  return p < end && *p == ':' ? p + 1 : nullptr;
}

// ---------------------------------------------------------------------------------------------
// The canonical reading of the fields (readCanonical), tried before readFields.

/// matches() for a name too close to the line's end to be read in whole words (the last field,
/// `cgroup_ino=1`). A name of 8 to 16 bytes is its first 8 and its last 8, overlapping.
inline bool matchesNearEnd(const char* p, const char* end, const ExpectedName& e) {
  if (end - p < e.length) return false;
  if (e.length >= 8 && e.length <= 16) {
    std::uint64_t first, last;
    std::memcpy(&first, p, 8);
    std::memcpy(&last, p + e.length - 8, 8);
    return first == e.words[0] && last == e.tail;
  }
  for (int i = 0; i < e.length; ++i) {
    const auto expectedByte = (e.words[static_cast<std::size_t>(i / 8)] >> (8 * (i % 8))) & 0xff;
    if (static_cast<unsigned char>(p[i]) != expectedByte) return false;
  }
  return true;
}

/// Reads 1 to 15 decimal digits at p into v and returns the byte after them; nullptr when
/// there is no digit or more than 15 (readFields then decides what that means).
[[gnu::always_inline]] inline const char* digitRun(const char* p, const char* end,
                                                   std::uint64_t& v) {
  v = 0;
  const char* const start = p;
  if (end - p >= 8) {
    p = eightDigits(p, v);
    if (p - start < 8) return p == start ? nullptr : p;
    if (end - p >= 8) {
      // A ninth digit: cumulative counters (dirtied=, written=) of a machine up for days.
      std::uint64_t low = 0;
      const char* const q = eightDigits(p, low);
      if (q - p == 8) return nullptr;
      constexpr std::uint64_t kPow10[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};
      v = v * kPow10[q - p] + low;
      return q;
    }
  }
  // The last few bytes of the line, one at a time.
  for (; p < end && p - start < 15; ++p) {
    const auto d = static_cast<unsigned>(*p - '0');
    if (d > 9) break;
    v = v * 10 + d;
  }
  if (p == start || (p - start == 15 && p < end && isDigit(*p))) return nullptr;
  return p;
}

/// One field of a canonical line (see readCanonical): the name expected in slot K, its value,
/// and the single space after it (the end of the line after the last one).
template <const auto& Order, std::size_t K>
inline bool canonicalField(const char*& p, const char* end, std::uint64_t* values) {
  constexpr std::size_t N = std::tuple_size_v<std::remove_cvref_t<decltype(Order)>>;
  constexpr ExpectedName name = Order[K];
  if (!(end - p >= 8 * name.count ? matches(p, end, name) : matchesNearEnd(p, end, name)))
    return false;
  p += name.length;
  const bool negative = p < end && *p == '-';
  if (negative) ++p;
  std::uint64_t v;
  const char* const after = digitRun(p, end, v);
  if (!after) return false;
  // A value the field cannot hold goes to readFields, which names the problem.
  constexpr KindRange range = rangeOf(name.kind);
  if ((negative && !range.isSigned) || v > range.max) return false;
  if constexpr (K + 1 < N) {
    if (after == end || *after != ' ') return false;
    p = after + 1;
  } else {
    if (after != end) return false;
    p = after;
  }
  values[K] = negative ? 0 - v : v;  // as readFields stores it
  return true;
}

template <const auto& Order, std::size_t... K>
inline bool readCanonical(const char* p, const char* end, std::uint64_t* values,
                          std::index_sequence<K...>) {
  return (canonicalField<Order, K>(p, end, values) && ...);
}

/// The fields exactly as today's kernels print them: every name of `Order` in turn, one space
/// apart, each value `-?digits` (at most 15 digits), the last one ending the line, into
/// values[slot]. Nearly every line of a trace is like this. Reading it with each field's slot
/// known at compile time (the name compared against constants, no lookup, no switch, no loop
/// over fields) takes a fraction of readFields' instructions. Anything else — an older
/// kernel's names or fields, a long or bad number, two spaces — returns false, and the caller
/// reads the line with readFields, which gives the same result as this for every line this
/// accepts.
template <const auto& Order>
inline bool readCanonical(const char* p, const char* end, std::uint64_t* values) {
  constexpr std::size_t N = std::tuple_size_v<std::remove_cvref_t<decltype(Order)>>;
  return readCanonical<Order>(p, end, values, std::make_index_sequence<N>{});
}

constexpr ExpectedName kPerfSystem = expected("writeback", ":");
template <class Record>
constexpr ExpectedName kEventName = expected(te::Tracepoint<Record>::kInfo.event, ":");

/// Reads `name=value` pairs from `p` to `end` into `rec`. Returns the problem, or empty.
/// `order[k]` is the name expected in position k; it is also slot k.
/// `name=value` of a field from its name to the end of its value, for the problem.
std::string_view fieldText(const char* nameStart, const char* value, const char* end) {
  while (value < end && *value != ' ') ++value;
  return {nameStart, static_cast<std::size_t>(value - nameStart)};
}

/// Whether [p, end) up to the next space reads as a decimal fraction or exponent (`.5`,
/// `e400`, `E+3`): the rest of a number the kernel would never print, rather than junk.
bool looksLikeFractionOrExponent(const char* p, const char* end) {
  if (p == end || (*p != '.' && *p != 'e' && *p != 'E')) return false;
  bool digit = false;
  for (; p < end && *p != ' '; ++p) {
    const char c = *p;
    if (isDigit(c))
      digit = true;
    else if (c != '.' && c != 'e' && c != 'E' && c != '+' && c != '-')
      return false;
  }
  return digit;
}

template <typename Record>
std::string_view readFields(const char* p, const char* end, Record& rec, std::uint32_t& missing,
                            std::string_view& problemField) {
  constexpr std::size_t N = kFieldCount<Record>;
  constexpr const auto& order = kOrder<Record>;
  constexpr std::uint32_t all = (1u << N) - 1;
  std::uint32_t present = 0;
  std::size_t next = 0;              // the slot expected next
  const char* fieldStart = nullptr;  // the last field read, for a word that follows it
  while (p < end) {
    while (p < end && *p == ' ') ++p;
    if (p == end) break;
    int slot;
    const char* const nameStart = p;
    if (next < N && matches(p, end, order[next])) {
      slot = static_cast<int>(next);
      p += order[next].length;
    } else {
      p = findEqualsOrSpace(p, end);
      if (p == end || *p != '=') {
        // A word without '=': the kernel prints name=value pairs only, so it is a value
        // with a space in it (`cgroup_ino=1 2`) or junk, and the line cannot be trusted.
        problemField = fieldText(fieldStart ? fieldStart : nameStart, p, end);
        return "is malformed: a word that is not name=value among the fields (a value with a "
               "space in it?)";
      }
      const std::string_view name(nameStart, static_cast<std::size_t>(p - nameStart));
      ++p;
      slot = fieldSlot<Record>(name);
      if (slot < 0 || slot == kIgnored) {
        while (p < end && *p != ' ') ++p;
        fieldStart = nameStart;
        continue;
      }
    }
    fieldStart = nameStart;
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
    if (p == digits && (p == end || *p == ' '))
      return kNoNumber<Record>[static_cast<std::size_t>(slot)].view();
    const KindRange& range = rangeOf(order[static_cast<std::size_t>(slot)].kind);
    const auto outOfRange = [&](std::string_view why) {
      problemField = fieldText(nameStart, digits, end);
      return why;
    };
    if (p < end && *p != ' ')
      return outOfRange(looksLikeFractionOrExponent(p, end)
                            ? range.notWhole
                            : "is not a number as the kernel prints one (decimal digits)");
    if (negative && !range.isSigned) return outOfRange(range.negative);
    if (overflow || v > range.max) return outOfRange(range.tooLarge);
    // A negative number read as its magnitude: the two's complement is what a cast from
    // int64 gives, and what %lu printed for a negative long.
    store(rec, slot, negative ? 0 - v : v);
    present |= 1u << slot;
  }
  missing = all & ~present;
  if (present == 0) return "no name=value fields";
  if (missing & kRequired<Record>) return kMissingRequired<Record>.view();
  return {};
}

/// The task column before `[cpu]` in general: `comm-pid`, perf's `comm pid` or `comm pid/tid`,
/// a trailing `(tgid)`. False with `problem` set if there is no pid.
bool readTaskColumn(std::string_view head, std::string_view& comm, int& pid, bool& perfLayout,
                    std::string_view& problem) {
#define GARBAGE(why) \
  do {               \
    problem = why;   \
    return false;    \
  } while (false)
  if (!head.empty() && head.back() == ')') {
    const std::size_t open = head.rfind('(');
    if (open == std::string_view::npos) GARBAGE("unbalanced (tgid) column");
    head = head.substr(0, open);
    while (!head.empty() && isBlank(head.back())) head.remove_suffix(1);
  }
  if (head.empty()) GARBAGE("no task before the [cpu] column");
  std::size_t tokenStart = head.size();
  while (tokenStart > 0 && !isBlank(head[tokenStart - 1])) --tokenStart;
  const std::string_view last = head.substr(tokenStart);
  std::string_view pidText;
  if (const std::size_t dash = last.rfind('-');
      dash != std::string_view::npos && allDigits(last.substr(dash + 1))) {
    pidText = last.substr(dash + 1);
    comm = head.substr(0, tokenStart + dash);
  } else {
    std::string_view pidWord = last;
    if (const std::size_t slash = pidWord.find('/'); slash != std::string_view::npos) {
      if (!allDigits(pidWord.substr(0, slash))) GARBAGE("no pid before the [cpu] column");
      pidWord = pidWord.substr(slash + 1);  // perf's pid/tid: the kernel's pid is the thread's
    }
    if (!allDigits(pidWord) || tokenStart == 0) GARBAGE("no pid before the [cpu] column");
    pidText = pidWord;
    comm = head.substr(0, tokenStart);
    while (!comm.empty() && isBlank(comm.back())) comm.remove_suffix(1);
    perfLayout = true;
  }
  while (!comm.empty() && isBlank(comm.front())) comm.remove_prefix(1);
  if (pidText.size() > 9) GARBAGE("pid out of range");
  std::from_chars(pidText.data(), pidText.data() + pidText.size(), pid);
  return true;
#undef GARBAGE
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

/// Why readBdi's name was not taken: none, or longer than the kernel's char[32].
std::string_view bdiProblem(std::string_view bdi) {
  return bdi.size() > kMaxBdiNameBytes
             ? "bdi name longer than 32 characters (the kernel prints at most 31)"
             : "no `bdi NAME:` before the fields";
}

Event eventNamed(std::string_view name) {
  if (name == te::Tracepoint<te::GlobalDirtyState>::kInfo.event) return Event::GlobalDirtyState;
  if (name == te::Tracepoint<te::BdiDirtyRatelimit>::kInfo.event) return Event::BdiDirtyRatelimit;
  if (name == te::Tracepoint<te::BalanceDirtyPages>::kInfo.event) return Event::BalanceDirtyPages;
  return Event::None;
}

}  // namespace

namespace {

/// Makes `v` hold a default T, built in place: libstdc++'s emplace builds a temporary and
/// moves it for small trivially copyable alternatives, a copy per line we can do without.
/// (For the general reading only; see emplaceRecord.)
template <typename T>
T& recordAs(te::TraceRecord& v) {
  static_assert(std::is_trivially_destructible_v<te::TraceRecord>);
  std::destroy_at(&v);
  std::construct_at(&v, std::in_place_type<T>);
  return *std::get_if<T>(&v);
}

// A canonical line's record, built in place member by member from its values (slot order is
// member order, the casts are storeField's). Value-initialising the record first, as recordAs
// does, zeroes its ~150 bytes with `rep stos`, whose start-up cost was 8 % of the parse.
template <class Record, std::size_t K>
using MemberType = std::remove_reference_t<decltype(std::declval<Record&>().*
                                                    std::get<kFields<Record>[K].member.index()>(
                                                        kFields<Record>[K].member))>;

template <class Record, std::size_t... K>
void emplaceRecord(te::TraceRecord& v, const te::TraceHeader& h, std::string_view bdi,
                   const std::uint64_t* f, std::index_sequence<K...>) {
  std::destroy_at(&v);
  if constexpr (te::Tracepoint<Record>::kInfo.hasBdi)
    std::construct_at(&v, std::in_place_type<Record>, h, bdi,
                      static_cast<MemberType<Record, K>>(f[K])...);
  else
    std::construct_at(&v, std::in_place_type<Record>, h,
                      static_cast<MemberType<Record, K>>(f[K])...);
}

// The rows must be in member order for that: a record built from the values 1, 2, 3... has
// them in its rows' members in turn.
template <class Record, std::size_t... K>
constexpr bool rowsInMemberOrder(std::index_sequence<K...>) {
  Record r;
  if constexpr (te::Tracepoint<Record>::kInfo.hasBdi)
    r = Record{te::TraceHeader{}, std::string_view{}, static_cast<MemberType<Record, K>>(K + 1)...};
  else
    r = Record{te::TraceHeader{}, static_cast<MemberType<Record, K>>(K + 1)...};
  return ((te::fieldValue(r, kFields<Record>[K]) == K + 1) && ...);
}
template <class Record>
constexpr bool rowsInMemberOrder() {
  return rowsInMemberOrder<Record>(std::make_index_sequence<kFieldCount<Record>>{});
}
static_assert(rowsInMemberOrder<te::GlobalDirtyState>());
static_assert(rowsInMemberOrder<te::BdiDirtyRatelimit>());
static_assert(rowsInMemberOrder<te::BalanceDirtyPages>());

/// One event's fields after the header (and the bdi): the canonical reading, else the general
/// one into a default record. Returns the problem, or empty.
template <class Record>
std::string_view readEvent(const char* p, const char* end, const te::TraceHeader& header,
                           ParsedLine& r) {
  constexpr auto kSlots = std::make_index_sequence<kFieldCount<Record>>{};
  std::string_view bdi;
  if constexpr (te::Tracepoint<Record>::kInfo.hasBdi) {
    if (!readBdi(p, end, bdi) || bdi.size() > kMaxBdiNameBytes) {
      auto& rec = recordAs<Record>(r.record);
      rec.header = header;
      rec.bdi = bdi;
      return bdiProblem(bdi);
    }
  }
  std::uint64_t values[kFieldCount<Record>];
  if (readCanonical<kOrder<Record>>(p, end, values)) {
    emplaceRecord<Record>(r.record, header, bdi, values, kSlots);
    return {};
  }
  auto& rec = recordAs<Record>(r.record);
  rec.header = header;
  if constexpr (te::Tracepoint<Record>::kInfo.hasBdi) rec.bdi = bdi;
  return readFields(p, end, rec, r.missingFields, r.problemField);
}

/// The CPU column `[003]`: the first `[digits]` preceded by a blank. Sets its '[' and the
/// character after its ']'; false when the line has none.
bool findCpuColumn(const char* begin, const char* end, const char*& bracket, const char*& cpuEnd,
                   int& cpu) {
  bracket = begin;
  for (;;) {
    bracket = findByte(bracket, end, '[');
    if (!bracket) return false;
    const char* q = bracket + 1;
    const char* const digitsEnd = bracket + std::min<std::ptrdiff_t>(8, end - bracket);
    int v = 0;
    while (q < digitsEnd && isDigit(*q)) v = v * 10 + (*q++ - '0');
    if (q < end && *q == ']' && q > bracket + 1 && bracket > begin && isBlank(bracket[-1])) {
      cpu = v;
      cpuEnd = q + 1;
      return true;
    }
    ++bracket;
  }
}

/// The event name at p (after the timestamp): `balance_dirty_pages:` (ftrace, trace-cmd) or
/// `writeback:balance_dirty_pages:` (perf). Ours are recognised by a few word compares, any
/// other name by eventNamed(). Returns the end of the name's token, or null when there is no
/// `name:` token.
const char* readEventName(const char* p, const char* end, Event& event) {
  if (matches(p, end, kPerfSystem)) p += kPerfSystem.length;
  const char* tokenEnd = p;
  event = Event::None;
  if (matches(p, end, kEventName<te::BalanceDirtyPages>)) {
    event = Event::BalanceDirtyPages;
    tokenEnd = p + kEventName<te::BalanceDirtyPages>.length;
  } else if (matches(p, end, kEventName<te::GlobalDirtyState>)) {
    event = Event::GlobalDirtyState;
    tokenEnd = p + kEventName<te::GlobalDirtyState>.length;
  } else if (matches(p, end, kEventName<te::BdiDirtyRatelimit>)) {
    event = Event::BdiDirtyRatelimit;
    tokenEnd = p + kEventName<te::BdiDirtyRatelimit>.length;
  }
  if (event == Event::None || (tokenEnd < end && !isBlank(*tokenEnd))) {
    tokenEnd = p;
    while (tokenEnd < end && !isBlank(*tokenEnd)) ++tokenEnd;
    if (tokenEnd == p || tokenEnd[-1] != ':') return nullptr;
    event = eventNamed(std::string_view(p, static_cast<std::size_t>(tokenEnd - 1 - p)));
  }
  return tokenEnd;
}

/// makeComm without its call: TASK_COMM_LEN keeps 15 characters and a NUL.
void copyComm(std::string_view comm, const char* lineEnd, te::Comm& out) {
  const std::size_t commLength = std::min<std::size_t>(comm.size(), out.size() - 1);
  if (lineEnd - comm.data() >= 16) {
    // The line goes on well past the name: copy 16 bytes and clear those past the name,
    // rather than a loop whose length changes from task to task.
    const auto firstBytes = [](std::size_t n) {
      return n >= 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * n)) - 1;
    };
    std::uint64_t low, high;
    std::memcpy(&low, comm.data(), 8);
    std::memcpy(&high, comm.data() + 8, 8);
    low &= firstBytes(commLength);
    high &= commLength > 8 ? firstBytes(commLength - 8) : 0;
    std::memcpy(out.data(), &low, 8);
    std::memcpy(out.data() + 8, &high, 8);
  } else {
    for (std::size_t i = 0; i < commLength; ++i) out[i] = comm[i];
  }
}

/// The fields of one of our events into r.record. Returns the problem, or empty.
std::string_view readEventOf(Event event, const char* p, const char* end,
                             const te::TraceHeader& header, ParsedLine& r) {
  switch (event) {
    case Event::GlobalDirtyState:
      return readEvent<te::GlobalDirtyState>(p, end, header, r);
    case Event::BdiDirtyRatelimit:
      return readEvent<te::BdiDirtyRatelimit>(p, end, header, r);
    case Event::BalanceDirtyPages:
      return readEvent<te::BalanceDirtyPages>(p, end, header, r);
    case Event::None:
      break;
  }
  return {};
}

}  // namespace

void parseTraceLine(std::string_view line, ParsedLine& r) {
  // Reset without touching the record: it is only valid for an Event, which rebuilds it.
  r.kind = LineKind::Garbage;
  r.format = TraceFormat::Unknown;
  r.missingFields = 0;
  r.problem = {};
  r.problemField = {};
#define THROTTLELAB_GARBAGE(why) \
  do {                           \
    r.problem = why;             \
    return;                      \
  } while (false)
  if (line.size() > kMaxLineBytes) {
    r.kind = LineKind::Malformed;
    r.problem = "longer than 64 KiB: no kernel prints such a line; not read";
    return;
  }
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::size_t start = skipSpaces(line.data(), line.data() + line.size()) - line.data();
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
  if (!findCpuColumn(begin, end, bracket, cpuEnd, cpu)) THROTTLELAB_GARBAGE("no [cpu] column");

  // Task and pid: `comm-pid` (ftrace, trace-cmd), `comm pid` or `comm pid/tid` (perf),
  // optionally followed by ftrace's `(tgid)` column.
  std::string_view head(begin, static_cast<std::size_t>(trimSpacesBack(begin, bracket) - begin));
  while (!head.empty() && isBlank(head.back())) head.remove_suffix(1);
  std::string_view comm;
  int pid = 0;
  bool perfLayout = false;
  // Nearly always `comm-pid`: the digits before the column's end, read at once, then the '-'.
  // That '-' is the last of the column's last word with only digits after it, which is what
  // the general reading looks for; anything else (perf's layout, a tgid, 9 digits) goes there.
  const char* const headEnd = head.data() + head.size();
  std::uint64_t pidValue = 0;
  const int pidDigits = headEnd - line.data() >= 8 ? digitsEndingAt(headEnd, pidValue) : 0;
  if (pidDigits > 0 && static_cast<std::size_t>(pidDigits) < head.size() &&
      headEnd[-pidDigits - 1] == '-') {
    pid = static_cast<int>(pidValue);
    comm = std::string_view(head.data(), head.size() - static_cast<std::size_t>(pidDigits) - 1);
  } else {
    if (!readTaskColumn(head, comm, pid, perfLayout, r.problem)) return;
  }

  // After the CPU: optional latency flags (`.....`, `d..1`, `dNh2.`), then `seconds.micros:`.
  // A timestamp starts with a digit, the flags never do.
  const char* p = cpuEnd;
  while (p < end && isBlank(*p)) ++p;
  const bool flags = p < end && !isDigit(*p);
  if (flags) {
    p = findBlank(p, end);
    p = skipSpaces(p, end);  // the timestamp is right-aligned
    while (p < end && isBlank(*p)) ++p;
  }
  std::int64_t ns = 0;
  const char* tokenEnd = readTimestamp(p, end, ns);
  std::string_view badTimestamp;  // `seconds.fraction:` with more seconds than a clock counts
  if (!tokenEnd) {
    tokenEnd = timestampBeyondRange(p, end);
    if (!tokenEnd) THROTTLELAB_GARBAGE("no timestamp after the [cpu] column");
    badTimestamp = std::string_view(p, static_cast<std::size_t>(tokenEnd - 1 - p));
  }

  p = tokenEnd;
  while (p < end && isBlank(*p)) ++p;
  Event event = Event::None;
  tokenEnd = readEventName(p, end, event);
  if (!tokenEnd) THROTTLELAB_GARBAGE("no event name after the timestamp");

  r.format =
      perfLayout ? TraceFormat::PerfScript : (flags ? TraceFormat::Ftrace : TraceFormat::TraceCmd);
  if (event == Event::None) {
    r.kind = LineKind::Other;
    return;
  }
  if (!badTimestamp.empty()) {
    r.kind = LineKind::Malformed;
    r.problemField = badTimestamp;
    r.problem =
        "is out of range as a timestamp: seconds since boot, at most 4611686018 (146 years)";
    return;
  }

  te::TraceHeader header;
  header.time = te::SimTime{te::SimDuration{ns}};
  copyComm(comm, line.data() + line.size(), header.comm);
  header.pid = pid;
  header.cpu = cpu;

  p = tokenEnd;
  while (p < end && isBlank(*p)) ++p;
  const std::string_view problem = readEventOf(event, p, end, header, r);
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

std::string problemText(const ParsedLine& line) {
  if (line.problemField.empty()) return std::string(line.problem);
  constexpr std::size_t kFieldChars = 64;  // the longest name and a 20-digit value
  std::string out;
  for (const char c : line.problemField.substr(0, kFieldChars)) {
    const auto u = static_cast<unsigned char>(c);
    out += (u >= 0x20 && u < 0x7f) ? c : '?';
  }
  if (line.problemField.size() > kFieldChars) out += "...";
  out += ' ';
  out += line.problem;
  return out;
}

}  // namespace throttlelab::traceio
