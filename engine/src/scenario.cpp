// SPDX-License-Identifier: GPL-3.0-or-later
// Scenario JSON (schemaVersion 1): strict parsing with one path-precise message per problem,
// `--set` overrides, validation, serialisation and the built-in scenarios.
#include "throttlelab/engine/scenario.h"

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
#include <unordered_set>
#include <variant>

#include "throttlelab/engine/simulator.h"

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
// Limits. Lower bounds come from the kernel or from the model; upper bounds keep every derived
// quantity (pages, bytes, nanoseconds) far from integer overflow.

struct IntRange {
  std::int64_t lo;
  std::int64_t hi;
};

constexpr std::int64_t kTiB = std::int64_t{1} << 40;
constexpr IntRange kMemoryMiBRange{16, 16 * 1024 * 1024};  // 16 MiB .. 16 TiB
constexpr IntRange kCpusRange{1, 4096};
constexpr std::array<int, 4> kValidHz{100, 250, 300, 1000};
constexpr IntRange kPercentRange{0, 100};
constexpr IntRange kDirtyBytesRange{0, 16 * kTiB};
constexpr std::int64_t kMinDirtyBytes = 2 * kPageBytes;  // the kernel's dirty_bytes_min
constexpr IntRange kCentisecsRange{0, 100'000'000};      // ~11.5 days
constexpr IntRange kMaxRequestKiBRange{4, 1 << 20};
constexpr IntRange kNrRequestsRange{4, 1 << 20};
constexpr IntRange kCountRange{0, 100'000};
constexpr std::int64_t kMaxTotalTasks = 100'000;
constexpr std::size_t kMaxTaskGroups = 100'000;
constexpr std::size_t kMaxDevices = 64;
constexpr IntRange kBlockKiBRange{4, 1 << 20};               // one page .. 1 GiB
constexpr IntRange kFileMiBRange{1, std::int64_t{1} << 30};  // 1 MiB .. 1 PiB
constexpr IntRange kRtPriorityRange{1, 99};
constexpr IntRange kNiceRange{-20, 19};
constexpr IntRange kIntRange{std::numeric_limits<int>::min(), std::numeric_limits<int>::max()};
constexpr IntRange kSwapMiBRange{0, 16 * 1024 * 1024};  // none .. 16 TiB
constexpr IntRange kSwappinessRange{0, 200};            // 200 since 5.8
constexpr IntRange kMinFreeKbytesRange{0, 4'194'304};   // 0 = boot default; else 128 .. 4 GiB
constexpr std::int64_t kMinFreeKbytesLow = 128;  // the kernel's lower clamp (docs/model.md, Eq. 41)
constexpr IntRange kWatermarkScaleRange{1, 3000};       // 3000 since 5.x; 1000 before
constexpr IntRange kRunsRange{0, 1'000'000'000};
constexpr IntRange kOomScoreAdjRange{-1000, 1000};  // OOM_SCORE_ADJ_MIN .. MAX
constexpr double kMaxAnonMiB = 16.0 * 1024 * 1024;  // 16 TiB
// Page-allocator generations (MachineConfig::allocator), oldest first.
constexpr std::array<std::string_view, 4> kAllocators{"2.6.0-no-rt", "2.6.0", "2.6.9", "6.x"};
constexpr double kMaxDurationS = 1e7;
constexpr double kMinSampleIntervalS = 0.001;
constexpr double kMaxSampleIntervalS = 60;
// Speeds (device, copy, page touching) in decimal MB/s. Below a page (4 KiB) per second the
// kernel's own bandwidth estimate (pages per second, at least 1) cannot express a device, and
// a smaller figure only makes one request outlast any run; 0.001 MB/s (1 kB/s) keeps every
// speed a trace can show. Tiny values such as 1e-320 (denormals) are refused with the range.
constexpr double kMinMBps = 0.001;
constexpr double kMaxMBps = 1e6;
// A compiler's CPU work per run, when it has any: less than a microsecond is no process at
// all, and a run of nothing loops without simulated time passing.
constexpr double kMinCpuS = 1e-6;
constexpr double kMaxSeekMs = 1e5;
constexpr double kMaxThinkMs = 1e9;
constexpr std::size_t kMaxNameLength = 64;
constexpr std::size_t kMaxInputBytes = 16 * 1024 * 1024;
constexpr int kMaxDepth = 32;  // the schema needs 3; deeper input is rejected, not walked

// ---------------------------------------------------------------------------------------------
// The schema's key tree, shared by the parser (unknown keys), the overrides (valid paths) and
// the serialiser's tests. Key names are fixed by the file format; never rename one.

enum class FieldKind { Scalar, Object, ObjectArray };

struct Field {
  std::string_view key;
  FieldKind kind = FieldKind::Scalar;
  std::span<const Field> children{};
};

constexpr Field kMachineFields[] = {{"memoryMiB"}, {"cpus"},       {"hz"},
                                    {"swapMiB"},   {"swapDevice"}, {"allocator"}};
constexpr Field kDeviceFields[] = {{"name"},       {"writeMBps"}, {"readMBps"}, {"seekMs"},
                                   {"maxRequestKiB"}, {"nrRequests"}, {"minRatio"}, {"maxRatio"},
                                   {"strictLimit"}};
constexpr Field kVmFields[] = {{"dirty_ratio"},
                               {"dirty_background_ratio"},
                               {"dirty_bytes"},
                               {"dirty_background_bytes"},
                               {"dirty_expire_centisecs"},
                               {"dirty_writeback_centisecs"},
                               {"swappiness"},
                               {"min_free_kbytes"},
                               {"watermark_scale_factor"}};
constexpr Field kTaskFields[] = {{"name"},    {"count"}, {"kind"},         {"blockKiB"},
                                 {"fileMiB"}, {"loop"},  {"copyMBps"},     {"thinkMs"},
                                 {"startS"},  {"sched"}, {"rtPriority"},   {"nice"},
                                 {"device"},  {"runs"},  {"anonMiB"},      {"allocMBps"},
                                 {"cpuS"},    {"holdS"}, {"lessThrottle"}, {"oomScoreAdj"}};
constexpr Field kRootFields[] = {{"schemaVersion"},
                                 {"name"},
                                 {"seed"},
                                 {"durationS"},
                                 {"description"},
                                 {"sampleIntervalS"},
                                 {"machine", FieldKind::Object, kMachineFields},
                                 {"device", FieldKind::Object, kDeviceFields},
                                 {"devices", FieldKind::ObjectArray, kDeviceFields},
                                 {"vm", FieldKind::Object, kVmFields},
                                 {"policy"},
                                 {"tasks", FieldKind::ObjectArray, kTaskFields}};

const Field* findField(std::span<const Field> fields, std::string_view key) {
  for (const auto& f : fields)
    if (f.key == key) return &f;
  return nullptr;
}

std::size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
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
  const Field* best = nullptr;
  std::size_t bestDistance = 3;
  // Long garbage keys cannot be within distance 2 of a schema key; skip the O(n·m) work.
  if (key.size() <= 40) {
    for (const auto& f : known) {
      const std::size_t d = editDistance(key, f.key);
      if (d < bestDistance) {
        bestDistance = d;
        best = &f;
      }
    }
  }
  if (best) reason += " (did you mean '" + std::string(best->key) + "'?)";
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
    throw ScenarioError(key, message);
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
// Reading the document into a Scenario: types and representable ranges. The value rules that
// also apply to scenarios built in code live in Validator below.

class Reader {
 public:
  explicit Reader(const Context& context) : m_context(context) {}

  Scenario read(const Json& doc) {
    if (!doc.is_object())
      m_context.fail("", "the scenario must be a JSON object, got " + describe(doc));
    Scenario s;
    const Json* version = member(doc, "schemaVersion");
    if (!version)
      m_context.fail("schemaVersion", "missing; a scenario file starts with \"schemaVersion\": " +
                                          std::to_string(kScenarioSchemaVersion));
    const std::int64_t v = readInt(*version, "schemaVersion", kIntRange);
    if (v != kScenarioSchemaVersion)
      m_context.fail("schemaVersion", "unsupported schema version " + std::to_string(v) +
                                          " (this build reads " +
                                          std::to_string(kScenarioSchemaVersion) + ")");
    s.schemaVersion = static_cast<int>(v);
    readString(doc, "name", "name", s.name);
    readString(doc, "description", "description", s.description);
    if (const Json* seed = member(doc, "seed")) s.seed = readSeed(*seed);
    readDouble(doc, "durationS", "durationS", s.durationS);
    readDouble(doc, "sampleIntervalS", "sampleIntervalS", s.sampleIntervalS);
    readString(doc, "policy", "policy", s.policy);

    if (const Json* m = member(doc, "machine")) {
      requireObject(*m, "machine");
      readInt(*m, "memoryMiB", "machine.memoryMiB", kMemoryMiBRange, s.machine.memoryMiB);
      readInt(*m, "cpus", "machine.cpus", kCpusRange, s.machine.cpus);
      readInt(*m, "hz", "machine.hz", kIntRange, s.machine.hz);
      readInt(*m, "swapMiB", "machine.swapMiB", kSwapMiBRange, s.machine.swapMiB);
      readString(*m, "swapDevice", "machine.swapDevice", s.machine.swapDevice);
      readString(*m, "allocator", "machine.allocator", s.machine.allocator);
    }

    const Json* device = member(doc, "device");
    const Json* devices = member(doc, "devices");
    if (device && devices)
      m_context.fail("devices", "give either \"device\" (one) or \"devices\" (a list), not both");
    if (device) {
      s.devices = {readDevice(*device, "device")};
    } else if (devices) {
      requireArray(*devices, "devices");
      if (devices->empty()) m_context.fail("devices", "must list at least one device");
      if (devices->size() > kMaxDevices)
        m_context.fail("devices", "lists " + std::to_string(devices->size()) +
                                      " devices; at most " + std::to_string(kMaxDevices) +
                                      " are supported");
      s.devices.clear();
      for (std::size_t i = 0; i < devices->size(); ++i)
        s.devices.push_back(readDevice((*devices)[i], deviceJsonPath(i, true)));
    }

    if (const Json* vm = member(doc, "vm")) {
      requireObject(*vm, "vm");
      readInt(*vm, "dirty_ratio", "vm.dirty_ratio", kPercentRange, s.vm.dirtyRatio);
      readInt(*vm, "dirty_background_ratio", "vm.dirty_background_ratio", kPercentRange,
              s.vm.dirtyBackgroundRatio);
      readInt(*vm, "dirty_bytes", "vm.dirty_bytes", kDirtyBytesRange, s.vm.dirtyBytes);
      readInt(*vm, "dirty_background_bytes", "vm.dirty_background_bytes", kDirtyBytesRange,
              s.vm.dirtyBackgroundBytes);
      readInt(*vm, "dirty_expire_centisecs", "vm.dirty_expire_centisecs", kCentisecsRange,
              s.vm.dirtyExpireCentisecs);
      readInt(*vm, "dirty_writeback_centisecs", "vm.dirty_writeback_centisecs", kCentisecsRange,
              s.vm.dirtyWritebackCentisecs);
      readInt(*vm, "swappiness", "vm.swappiness", kSwappinessRange, s.vm.swappiness);
      readInt(*vm, "min_free_kbytes", "vm.min_free_kbytes", kMinFreeKbytesRange,
              s.vm.minFreeKbytes);
      readInt(*vm, "watermark_scale_factor", "vm.watermark_scale_factor", kWatermarkScaleRange,
              s.vm.watermarkScaleFactor);
    }

    if (const Json* tasks = member(doc, "tasks")) {
      requireArray(*tasks, "tasks");
      if (tasks->size() > kMaxTaskGroups)
        m_context.fail("tasks", "lists " + std::to_string(tasks->size()) +
                                    " task groups; at most " + std::to_string(kMaxTaskGroups) +
                                    " are supported");
      s.tasks.reserve(tasks->size());
      for (std::size_t i = 0; i < tasks->size(); ++i)
        s.tasks.push_back(readTask((*tasks)[i], taskJsonPath(i)));
    }
    return s;
  }

 private:
  static const Json* member(const Json& obj, const char* key) {
    const auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
  }

  void requireObject(const Json& v, const std::string& path) const {
    if (!v.is_object()) m_context.fail(path, "must be an object, got " + describe(v));
  }
  void requireArray(const Json& v, const std::string& path) const {
    if (!v.is_array()) m_context.fail(path, "must be an array, got " + describe(v));
  }

  std::int64_t readInt(const Json& v, const std::string& path, IntRange range) const {
    std::int64_t value = 0;
    if (v.is_number_unsigned()) {
      const auto u = v.get<std::uint64_t>();
      if (u > static_cast<std::uint64_t>(range.hi))
        m_context.fail(path, rangeReason(range.lo, range.hi, std::to_string(u)));
      value = static_cast<std::int64_t>(u);
    } else if (v.is_number_integer()) {
      value = v.get<std::int64_t>();
    } else if (v.is_number_float()) {
      // JSON has one number type; 1e3 or 20.0 are integers, 20.5 is not.
      const double d = v.get<double>();
      if (std::trunc(d) != d) m_context.fail(path, "must be an integer, got " + formatDouble(d));
      if (d < static_cast<double>(range.lo) || d > static_cast<double>(range.hi))
        m_context.fail(path, rangeReason(range.lo, range.hi, formatDouble(d)));
      value = static_cast<std::int64_t>(d);
    } else {
      m_context.fail(path, "must be an integer, got " + describe(v));
    }
    if (value < range.lo || value > range.hi)
      m_context.fail(path, rangeReason(range.lo, range.hi, std::to_string(value)));
    return value;
  }

  template <class T>
  void readInt(const Json& obj, const char* key, const std::string& path, IntRange range,
               T& out) const {
    if (const Json* v = member(obj, key)) out = static_cast<T>(readInt(*v, path, range));
  }

  void readDouble(const Json& obj, const char* key, const std::string& path, double& out) const {
    const Json* v = member(obj, key);
    if (!v) return;
    if (!v->is_number()) m_context.fail(path, "must be a number, got " + describe(*v));
    out = v->get<double>();
  }

  void readBool(const Json& obj, const char* key, const std::string& path, bool& out) const {
    const Json* v = member(obj, key);
    if (!v) return;
    if (!v->is_boolean()) m_context.fail(path, "must be true or false, got " + describe(*v));
    out = v->get<bool>();
  }

  void readString(const Json& obj, const char* key, const std::string& path,
                  std::string& out) const {
    const Json* v = member(obj, key);
    if (!v) return;
    if (!v->is_string()) m_context.fail(path, "must be a string, got " + describe(*v));
    out = v->get<std::string>();
  }

  std::uint64_t readSeed(const Json& v) const {
    const std::string reason = "must be an unsigned 64-bit integer, got ";
    if (v.is_number_unsigned()) return v.get<std::uint64_t>();
    if (v.is_number_integer()) {
      const auto i = v.get<std::int64_t>();
      if (i < 0) m_context.fail("seed", reason + std::to_string(i));
      return static_cast<std::uint64_t>(i);
    }
    if (v.is_number_float()) {
      // Only below 2^53 does a double name one integer exactly.
      const double d = v.get<double>();
      if (d >= 0 && d <= 9007199254740992.0 && std::trunc(d) == d)
        return static_cast<std::uint64_t>(d);
    }
    m_context.fail("seed", reason + describe(v));
  }

  DeviceConfig readDevice(const Json& v, const std::string& path) const {
    requireObject(v, path);
    DeviceConfig d;
    readString(v, "name", path + ".name", d.name);
    readDouble(v, "writeMBps", path + ".writeMBps", d.writeMBps);
    readDouble(v, "readMBps", path + ".readMBps", d.readMBps);
    readDouble(v, "seekMs", path + ".seekMs", d.seekMs);
    readInt(v, "maxRequestKiB", path + ".maxRequestKiB", kMaxRequestKiBRange, d.maxRequestKiB);
    readInt(v, "nrRequests", path + ".nrRequests", kNrRequestsRange, d.nrRequests);
    readInt(v, "minRatio", path + ".minRatio", kPercentRange, d.minRatio);
    readInt(v, "maxRatio", path + ".maxRatio", kPercentRange, d.maxRatio);
    readBool(v, "strictLimit", path + ".strictLimit", d.strictLimit);
    return d;
  }

  TaskSpec readTask(const Json& v, const std::string& path) const {
    requireObject(v, path);
    TaskSpec t;
    readString(v, "name", path + ".name", t.name);
    readInt(v, "count", path + ".count", kCountRange, t.count);
    if (const Json* kind = member(v, "kind")) {
      if (!kind->is_string())
        m_context.fail(path + ".kind", "must be a string, got " + describe(*kind));
      const auto& name = kind->get_ref<const std::string&>();
      const auto k = taskKindFromString(name);
      if (!k)
        m_context.fail(path + ".kind", "unknown task kind '" + printable(name) +
                                           "' (known: writer, compiler, allocator)");
      t.kind = *k;
    }
    readInt(v, "blockKiB", path + ".blockKiB", kBlockKiBRange, t.blockKiB);
    // 0 is a valid object-file size for a compiler; the validator checks per kind.
    readInt(v, "fileMiB", path + ".fileMiB", IntRange{0, kFileMiBRange.hi}, t.fileMiB);
    readBool(v, "loop", path + ".loop", t.loop);
    readDouble(v, "copyMBps", path + ".copyMBps", t.copyMBps);
    readDouble(v, "thinkMs", path + ".thinkMs", t.thinkMs);
    readDouble(v, "startS", path + ".startS", t.startS);
    if (const Json* sched = member(v, "sched")) {
      if (!sched->is_string())
        m_context.fail(path + ".sched", "must be a string, got " + describe(*sched));
      const auto& name = sched->get_ref<const std::string&>();
      const auto c = schedClassFromString(name);
      if (!c)
        m_context.fail(path + ".sched", "unknown scheduling class '" + printable(name) +
                                            "' (known: other, fifo, rr)");
      t.sched = *c;
    }
    readInt(v, "rtPriority", path + ".rtPriority", kIntRange, t.rtPriority);
    readInt(v, "nice", path + ".nice", kNiceRange, t.nice);
    readString(v, "device", path + ".device", t.device);
    readInt(v, "runs", path + ".runs", kRunsRange, t.runs);
    readDouble(v, "anonMiB", path + ".anonMiB", t.anonMiB);
    readDouble(v, "allocMBps", path + ".allocMBps", t.allocMBps);
    readDouble(v, "cpuS", path + ".cpuS", t.cpuS);
    readDouble(v, "holdS", path + ".holdS", t.holdS);
    readBool(v, "lessThrottle", path + ".lessThrottle", t.lessThrottle);
    readInt(v, "oomScoreAdj", path + ".oomScoreAdj", kOomScoreAdjRange, t.oomScoreAdj);
    return t;
  }

  const Context& m_context;
};

// ---------------------------------------------------------------------------------------------
// Value rules, applied to every scenario whether it came from JSON or from the window.

class Validator {
 public:
  Validator(const Context& context, bool deviceArrayForm)
      : m_context(context), m_deviceArrayForm(deviceArrayForm) {}

  void validate(const Scenario& s) const {
    if (s.schemaVersion != kScenarioSchemaVersion)
      m_context.fail("schemaVersion", "unsupported schema version " +
                                          std::to_string(s.schemaVersion) + " (this build reads " +
                                          std::to_string(kScenarioSchemaVersion) + ")");
    checkName(s.name, "name", kMaxNameLength * 4);
    checkDouble(s.durationS, "durationS", 0, false, kMaxDurationS);
    if (!(s.sampleIntervalS >= kMinSampleIntervalS && s.sampleIntervalS <= kMaxSampleIntervalS))
      m_context.fail("sampleIntervalS", "must be between " + formatDouble(kMinSampleIntervalS) +
                                            " and " + formatDouble(kMaxSampleIntervalS) + ", got " +
                                            formatDouble(s.sampleIntervalS));

    checkInt(s.machine.memoryMiB, "machine.memoryMiB", kMemoryMiBRange);
    checkInt(s.machine.cpus, "machine.cpus", kCpusRange);
    if (std::find(kValidHz.begin(), kValidHz.end(), s.machine.hz) == kValidHz.end())
      m_context.fail("machine.hz",
                     "must be one of 100, 250, 300, 1000, got " + std::to_string(s.machine.hz));
    checkInt(s.machine.swapMiB, "machine.swapMiB", kSwapMiBRange);
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

    checkInt(s.vm.dirtyRatio, "vm.dirty_ratio", kPercentRange);
    checkInt(s.vm.dirtyBackgroundRatio, "vm.dirty_background_ratio", kPercentRange);
    checkInt(s.vm.dirtyBytes, "vm.dirty_bytes", kDirtyBytesRange);
    if (s.vm.dirtyBytes != 0 && s.vm.dirtyBytes < kMinDirtyBytes)
      m_context.fail("vm.dirty_bytes", "must be 0 (use dirty_ratio) or at least " +
                                           std::to_string(kMinDirtyBytes) + " (two pages), got " +
                                           std::to_string(s.vm.dirtyBytes));
    checkInt(s.vm.dirtyBackgroundBytes, "vm.dirty_background_bytes", kDirtyBytesRange);
    checkInt(s.vm.dirtyExpireCentisecs, "vm.dirty_expire_centisecs", kCentisecsRange);
    checkInt(s.vm.dirtyWritebackCentisecs, "vm.dirty_writeback_centisecs", kCentisecsRange);
    checkInt(s.vm.swappiness, "vm.swappiness", kSwappinessRange);
    checkInt(s.vm.minFreeKbytes, "vm.min_free_kbytes", kMinFreeKbytesRange);
    if (s.vm.minFreeKbytes != 0 && s.vm.minFreeKbytes < kMinFreeKbytesLow)
      m_context.fail("vm.min_free_kbytes", "must be 0 (the boot default) or between " +
                                               std::to_string(kMinFreeKbytesLow) + " and " +
                                               std::to_string(kMinFreeKbytesRange.hi) + ", got " +
                                               std::to_string(s.vm.minFreeKbytes));
    checkInt(s.vm.watermarkScaleFactor, "vm.watermark_scale_factor", kWatermarkScaleRange);

    const std::vector<std::string> policies = Simulator::policyNames();
    if (std::find(policies.begin(), policies.end(), s.policy) == policies.end())
      m_context.fail("policy", "unknown policy '" + printable(s.policy) +
                                   "' (known: " + joinNames(policies) + ")");

    if (s.tasks.size() > kMaxTaskGroups)
      m_context.fail("tasks", "lists " + std::to_string(s.tasks.size()) + " task groups; at most " +
                                  std::to_string(kMaxTaskGroups) + " are supported");
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
    checkName(d.name, path + ".name", 32);
    if (d.name.find_first_of(" \t") != std::string::npos)
      m_context.fail(path + ".name", "must not contain spaces, got \"" + printable(d.name) + "\"");
    for (std::size_t j = 0; j < i; ++j)
      if (s.devices[j].name == d.name)
        m_context.fail(path + ".name", "device name \"" + printable(d.name) + "\" is used twice");
    checkDouble(d.writeMBps, path + ".writeMBps", kMinMBps, true, kMaxMBps);
    if (d.readMBps != 0) checkDouble(d.readMBps, path + ".readMBps", kMinMBps, true, kMaxMBps, "0 (the write speed) or ");
    checkDouble(d.seekMs, path + ".seekMs", 0, true, kMaxSeekMs);
    checkInt(d.maxRequestKiB, path + ".maxRequestKiB", kMaxRequestKiBRange);
    checkInt(d.nrRequests, path + ".nrRequests", kNrRequestsRange);
    checkInt(d.minRatio, path + ".minRatio", kPercentRange);
    checkInt(d.maxRatio, path + ".maxRatio", kPercentRange);
    if (d.minRatio > d.maxRatio)
      m_context.fail(path + ".minRatio", "must not exceed maxRatio (" + std::to_string(d.maxRatio) +
                                             "), got " + std::to_string(d.minRatio));
  }

  void validateTask(const Scenario& s, std::size_t i) const {
    const TaskSpec& t = s.tasks[i];
    const std::string path = taskJsonPath(i);
    checkName(t.name, path + ".name", kMaxNameLength);
    checkInt(t.count, path + ".count", kCountRange);
    if (t.kind != TaskKind::Writer && t.kind != TaskKind::Compiler && t.kind != TaskKind::Allocator)
      m_context.fail(path + ".kind", "unknown task kind");
    checkInt(t.blockKiB, path + ".blockKiB", kBlockKiBRange);
    // A compiler may write no object file (0); an allocator writes nothing at all.
    checkInt(t.fileMiB, path + ".fileMiB",
             t.kind == TaskKind::Writer ? kFileMiBRange : IntRange{0, kFileMiBRange.hi});
    checkDouble(t.copyMBps, path + ".copyMBps", kMinMBps, true, kMaxMBps);
    checkDouble(t.thinkMs, path + ".thinkMs", 0, true, kMaxThinkMs);
    checkDouble(t.startS, path + ".startS", 0, true, kMaxDurationS);
    switch (t.sched) {
      case SchedClass::Other:
        if (t.rtPriority != 0)
          m_context.fail(path + ".rtPriority",
                         "must be 0 for sched \"other\" (only fifo and rr "
                         "tasks have a real-time priority), got " +
                             std::to_string(t.rtPriority));
        break;
      case SchedClass::Fifo:
      case SchedClass::RoundRobin:
        if (t.rtPriority < kRtPriorityRange.lo || t.rtPriority > kRtPriorityRange.hi)
          m_context.fail(path + ".rtPriority", "must be between 1 and 99 for sched \"" +
                                                   std::string(toString(t.sched)) + "\", got " +
                                                   std::to_string(t.rtPriority));
        break;
      default:
        m_context.fail(path + ".sched", "unknown scheduling class");
    }
    checkInt(t.nice, path + ".nice", kNiceRange);
    if (!t.device.empty()) checkDeviceName(s, t.device, path + ".device");
    checkInt(t.runs, path + ".runs", kRunsRange);
    checkDouble(t.anonMiB, path + ".anonMiB", 0, true, kMaxAnonMiB);
    checkDouble(t.allocMBps, path + ".allocMBps", kMinMBps, true, kMaxMBps);
    checkDouble(t.cpuS, path + ".cpuS", 0, true, kMaxDurationS);
    if (t.cpuS != 0) checkDouble(t.cpuS, path + ".cpuS", kMinCpuS, true, kMaxDurationS, "0 or ");
    checkDouble(t.holdS, path + ".holdS", 0, true, kMaxDurationS);
    checkInt(t.oomScoreAdj, path + ".oomScoreAdj", kOomScoreAdjRange);
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

  void checkDeviceName(const Scenario& s, const std::string& name, const std::string& path) const {
    if (std::any_of(s.devices.begin(), s.devices.end(),
                    [&](const DeviceConfig& d) { return d.name == name; }))
      return;
    std::vector<std::string> names;
    for (const auto& d : s.devices) names.push_back(printable(d.name));
    m_context.fail(
        path, "no device named \"" + printable(name) + "\" (devices: " + joinNames(names) + ")");
  }

  void checkName(const std::string& name, const std::string& path, std::size_t maxLength) const {
    if (name.empty()) m_context.fail(path, "must not be empty");
    if (name.size() > maxLength)
      m_context.fail(path, "is " + std::to_string(name.size()) + " characters long; at most " +
                               std::to_string(maxLength) + " are allowed");
    // Names end up in CSV provenance lines, trace lines and window titles.
    if (std::any_of(name.begin(), name.end(), [](char c) {
          const auto u = static_cast<unsigned char>(c);
          return u < 0x20 || u == 0x7f;
        }))
      m_context.fail(path, "must not contain control characters, got \"" + printable(name) + "\"");
    if (!isUtf8(name))
      m_context.fail(path, "must be UTF-8 text, got \"" + printable(name) + "\"");
  }

  void checkInt(std::int64_t v, const std::string& path, IntRange range) const {
    if (v < range.lo || v > range.hi)
      m_context.fail(path, rangeReason(range.lo, range.hi, std::to_string(v)));
  }

  // Written as !(in range) so that NaN, which compares false, is rejected too. `alternative`
  // names an accepted value outside the range ("0 or ").
  void checkDouble(double v, const std::string& path, double lo, bool loInclusive, double hi,
                   const std::string& alternative = "") const {
    const bool ok = (loInclusive ? v >= lo : v > lo) && v <= hi;
    if (ok) return;
    if (loInclusive)
      m_context.fail(path, "must be " + alternative + "between " + formatDouble(lo) + " and " +
                               formatDouble(hi) + ", got " + formatDouble(v));
    m_context.fail(path, "must be greater than " + formatDouble(lo) + " and at most " +
                             formatDouble(hi) + ", got " + formatDouble(v));
  }

  const Context& m_context;
  bool m_deviceArrayForm;
};

}  // namespace

// ---------------------------------------------------------------------------------------------

std::string_view toString(SchedClass c) {
  switch (c) {
    case SchedClass::Other:
      return "other";
    case SchedClass::Fifo:
      return "fifo";
    case SchedClass::RoundRobin:
      return "rr";
  }
  return "other";
}

std::string_view toString(TaskKind k) {
  switch (k) {
    case TaskKind::Writer:
      return "writer";
    case TaskKind::Compiler:
      return "compiler";
    case TaskKind::Allocator:
      return "allocator";
  }
  return "writer";
}

std::optional<TaskKind> taskKindFromString(std::string_view s) {
  if (s == "writer") return TaskKind::Writer;
  if (s == "compiler") return TaskKind::Compiler;
  if (s == "allocator") return TaskKind::Allocator;
  return std::nullopt;
}

std::optional<SchedClass> schedClassFromString(std::string_view s) {
  if (s == "other") return SchedClass::Other;
  if (s == "fifo") return SchedClass::Fifo;
  if (s == "rr") return SchedClass::RoundRobin;
  return std::nullopt;
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
  const auto device = [](const DeviceConfig& d) {
    OrderedJson j;
    j["name"] = d.name;
    j["writeMBps"] = d.writeMBps;
    j["readMBps"] = d.readMBps;
    j["seekMs"] = d.seekMs;
    j["maxRequestKiB"] = d.maxRequestKiB;
    j["nrRequests"] = d.nrRequests;
    j["minRatio"] = d.minRatio;
    j["maxRatio"] = d.maxRatio;
    j["strictLimit"] = d.strictLimit;
    return j;
  };
  OrderedJson j;
  j["schemaVersion"] = s.schemaVersion;
  j["name"] = s.name;
  j["description"] = s.description;
  j["seed"] = s.seed;
  j["durationS"] = s.durationS;
  j["sampleIntervalS"] = s.sampleIntervalS;
  OrderedJson machine;
  machine["memoryMiB"] = s.machine.memoryMiB;
  machine["cpus"] = s.machine.cpus;
  machine["hz"] = s.machine.hz;
  machine["swapMiB"] = s.machine.swapMiB;
  if (!s.machine.swapDevice.empty()) machine["swapDevice"] = s.machine.swapDevice;
  machine["allocator"] = s.machine.allocator;
  j["machine"] = std::move(machine);
  if (s.devices.size() == 1) {
    j["device"] = device(s.devices.front());
  } else {
    j["devices"] = OrderedJson::array();
    for (const auto& d : s.devices) j["devices"].push_back(device(d));
  }
  j["vm"] = {{"dirty_ratio", s.vm.dirtyRatio},
             {"dirty_background_ratio", s.vm.dirtyBackgroundRatio},
             {"dirty_bytes", s.vm.dirtyBytes},
             {"dirty_background_bytes", s.vm.dirtyBackgroundBytes},
             {"dirty_expire_centisecs", s.vm.dirtyExpireCentisecs},
             {"dirty_writeback_centisecs", s.vm.dirtyWritebackCentisecs},
             {"swappiness", s.vm.swappiness},
             {"min_free_kbytes", s.vm.minFreeKbytes},
             {"watermark_scale_factor", s.vm.watermarkScaleFactor}};
  j["policy"] = s.policy;
  j["tasks"] = OrderedJson::array();
  for (const auto& t : s.tasks) {
    OrderedJson tj;
    tj["name"] = t.name;
    tj["count"] = t.count;
    tj["kind"] = std::string(toString(t.kind));
    tj["blockKiB"] = t.blockKiB;
    tj["fileMiB"] = t.fileMiB;
    tj["loop"] = t.loop;
    tj["copyMBps"] = t.copyMBps;
    tj["thinkMs"] = t.thinkMs;
    tj["startS"] = t.startS;
    tj["sched"] = std::string(toString(t.sched));
    tj["rtPriority"] = t.rtPriority;
    tj["nice"] = t.nice;
    if (!t.device.empty()) tj["device"] = t.device;
    tj["runs"] = t.runs;
    tj["anonMiB"] = t.anonMiB;
    tj["allocMBps"] = t.allocMBps;
    tj["cpuS"] = t.cpuS;
    tj["holdS"] = t.holdS;
    tj["lessThrottle"] = t.lessThrottle;
    tj["oomScoreAdj"] = t.oomScoreAdj;
    j["tasks"].push_back(std::move(tj));
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

}  // namespace throttlelab::engine
