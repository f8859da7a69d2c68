// SPDX-License-Identifier: GPL-3.0-or-later
// The one JSON front door (throttlelab/engine/json_input.h): a SAX handler that builds the
// document and, on the way, refuses what nlohmann's DOM parser would accept silently (a key
// given twice, a number that underflows to 0) or throw about with no place named (a number too
// large for a double), and what no format wants built (unknown keys, absurd nesting). After the
// first such problem it builds nothing more and only lets the parser read on: a file that is no
// JSON at all is reported as that (with its line), whatever it has before the syntax error, and
// hostile input costs little.
#include "json_reader.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

#include "throttlelab/engine/spelling.h"

namespace throttlelab::engine {

namespace input {

namespace {

using Kind = JsonInputError::Kind;

/// What the format expects at a place of the document.
struct Expect {
  bool known = false;  ///< the format describes this place
  JsonKind kind = JsonKind::Value;
  std::span<const JsonField> children{};
  bool open = false;
};

Expect expectOf(const JsonField& f) {
  return {true, f.kind, f.children, f.open};
}

/// Whether the mantissa of a number's text has a digit other than 0 ("1e-400" has, "0.0e5"
/// has not).
bool nonZeroMantissa(std::string_view text) {
  for (const char c : text) {
    if (c == 'e' || c == 'E') break;
    if (c >= '1' && c <= '9') return true;
  }
  return false;
}

class CheckedDomBuilder {
 public:
  explicit CheckedDomBuilder(const JsonField& root) : m_rootExpect(expectOf(root)) {}

  /// The document, or the first problem it had.
  Json take() {
    if (m_problem) throw *m_problem;
    return std::move(m_root);
  }

  bool null() { return addScalar(Json(nullptr)); }
  bool boolean(bool v) { return addScalar(Json(v)); }
  bool number_integer(std::int64_t v) { return addScalar(Json(v)); }
  bool number_unsigned(std::uint64_t v) { return addScalar(Json(v)); }
  bool number_float(double v, const std::string& text) {
    if (m_problem) return true;
    // strtod gives 0 for what is too small to tell from it: the file said something else.
    if (v == 0 && nonZeroMantissa(text))
      fail(Kind::Number, here(),
           "the number " + printable(text) +
               " is out of range: it is too close to 0 for a double, which would read it as 0");
    return addScalar(Json(v));
  }
  bool string(std::string& v) { return addScalar(Json(std::move(v))); }
  bool binary(Json::binary_t&) { return addScalar(Json(nullptr)); }

  bool start_object(std::size_t) { return open(Json::object(), false); }
  bool start_array(std::size_t) { return open(Json::array(), true); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(std::string& k) {
    if (m_problem) return true;
    Frame& f = m_frames.back();
    if (f.expect.known && f.expect.kind == JsonKind::Object && !f.expect.open &&
        !findField(f.expect.children, k))
      return fail(Kind::UnknownKey, pathWith(k), unknownKeyReason(k, f.expect.children));
    if (!f.seenKeys.insert(k).second)
      return fail(Kind::DuplicateKey, pathWith(k), "duplicate key '" + printable(k) + "'");
    f.currentKey = k;
    m_objectSlot = &(*m_values.back())[k];
    return true;
  }

  template <class Exception>
  bool parse_error(std::size_t, const std::string& token, const Exception& ex) {
    // A number too large for a double (nlohmann's out_of_range 406, "number overflow"): the
    // parser stops there, so a problem before it is the one to report.
    if constexpr (std::is_same_v<Exception, Json::out_of_range>) {
      if (m_problem) throw *m_problem;
      throw JsonInputError(Kind::Number, here(),
                           "the number " + printable(token) +
                               " is out of range: a double holds at most about 1.8e308");
    }
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
    throw JsonInputError(Kind::Syntax, "", reason);
  }

 private:
  struct Frame {
    bool isArray = false;
    Expect expect;  ///< what the format expects of this container
    std::string currentKey;
    std::size_t index = 0;  // elements completed so far (arrays)
    std::unordered_set<std::string> seenKeys;
  };

  /// Keeps the first problem; from then on nothing is built or checked, and the parser reads
  /// on only to find a syntax error. Returns true (the parser goes on).
  bool fail(Kind kind, std::string path, std::string reason) {
    if (!m_problem) m_problem.emplace(kind, std::move(path), std::move(reason));
    return true;
  }

  /// The JSON path of the value being read: each open container's place in its parent.
  std::string here() const { return pathThrough(m_frames.size()); }

  /// The path of the key whose value nests too deep ("set.tasks[0].name"), rather than
  /// thirty-two levels of "[0]": every key on the way, and the index of an array the format
  /// describes as one of objects.
  std::string describedPlace() const {
    std::size_t n = 0;
    while (n < m_frames.size() && !isPlainArray(m_frames[n])) ++n;
    return pathThrough(n);
  }

  /// An array of anything but objects: the format names no key inside it.
  static bool isPlainArray(const Frame& f) {
    return f.isArray && !(f.expect.known && f.expect.kind == JsonKind::ObjectArray);
  }

  /// The path through the first `n` open containers.
  std::string pathThrough(std::size_t n) const {
    std::string path;
    for (std::size_t i = 0; i < n; ++i) {
      const Frame& f = m_frames[i];
      if (f.isArray) {
        path += "[" + std::to_string(f.index) + "]";
      } else {
        if (!path.empty()) path += '.';
        path += printable(f.currentKey);
      }
    }
    return path;
  }

  /// The path of key `leaf` of the innermost (object) container.
  std::string pathWith(std::string_view leaf) const {
    std::string path = pathThrough(m_frames.empty() ? 0 : m_frames.size() - 1);
    if (!path.empty()) path += '.';
    return path + printable(leaf);
  }

  /// What the format expects of the value that comes next.
  Expect expectHere() const {
    if (m_frames.empty()) return m_rootExpect;
    const Frame& parent = m_frames.back();
    if (!parent.expect.known) return {};
    if (parent.isArray)
      return parent.expect.kind == JsonKind::ObjectArray
                 ? Expect{true, JsonKind::Object, parent.expect.children, parent.expect.open}
                 : Expect{};
    if (parent.expect.kind != JsonKind::Object) return {};
    const JsonField* f = findField(parent.expect.children, parent.currentKey);
    return f ? expectOf(*f) : Expect{};
  }

  /// Where the next value goes.
  Json* slotForNewValue() {
    if (m_values.empty()) return &m_root;
    if (m_frames.back().isArray) {
      auto& array = m_values.back()->get_ref<Json::array_t&>();
      array.emplace_back();
      return &array.back();
    }
    return m_objectSlot;
  }

  bool addScalar(Json v) {
    if (m_problem) return true;
    *slotForNewValue() = std::move(v);
    if (!m_frames.empty() && m_frames.back().isArray) ++m_frames.back().index;
    return true;
  }

  bool open(Json container, bool isArray) {
    if (m_problem) return true;
    if (m_frames.size() >= static_cast<std::size_t>(kMaxJsonDepth))
      return fail(Kind::TooDeep, describedPlace(),
                  "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    Frame f;
    f.isArray = isArray;
    // A container where the format expects another kind of value is not looked into: its
    // reader reports the type with a better message.
    f.expect = expectHere();
    Json* slot = slotForNewValue();
    *slot = std::move(container);
    m_frames.push_back(std::move(f));
    m_values.push_back(slot);
    return true;
  }

  bool close() {
    if (m_problem) return true;
    m_frames.pop_back();
    m_values.pop_back();
    if (!m_frames.empty() && m_frames.back().isArray) ++m_frames.back().index;
    return true;
  }

  Expect m_rootExpect;
  Json m_root;
  std::vector<Frame> m_frames;
  std::vector<Json*> m_values;  // open containers; their addresses are stable while open
  Json* m_objectSlot = nullptr;
  std::optional<JsonInputError> m_problem;
};

}  // namespace

Json readJson(std::string_view text, const JsonField& root) {
  CheckedDomBuilder builder(root);
  try {
    Json::sax_parse(text.begin(), text.end(), &builder);
  } catch (const Json::exception& e) {
    // Errors the library raises outside parse_error(); JsonInputError passes through.
    throw JsonInputError(JsonInputError::Kind::Syntax, "",
                         "invalid JSON: " + printable(e.what(), 200));
  }
  return builder.take();
}

const JsonField* findField(std::span<const JsonField> fields, std::string_view key) {
  for (const auto& f : fields)
    if (f.key == key) return &f;
  return nullptr;
}

std::string unknownKeyReason(std::string_view key, std::span<const JsonField> known) {
  std::string reason = "unknown key '" + printable(key) + "'";
  std::vector<std::string_view> names;
  for (const auto& f : known) names.push_back(f.key);
  if (const auto best = closestName(key, names))
    reason += " (did you mean '" + std::string(names[*best]) + "'?)";
  return reason;
}

std::string printable(std::string_view s, std::size_t maxLength) {
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

// Names are saved as JSON, whose writer replaces anything but UTF-8 by U+FFFD: the saved file
// would name something else, and could exceed the length limit that the name met.
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

}  // namespace input

void checkJson(std::string_view text, const JsonField& root) {
  (void)input::readJson(text, root);
}

}  // namespace throttlelab::engine
