// SPDX-License-Identifier: GPL-3.0-or-later
// The key tables of docs/scenario-format.md, written from the scenario's key table
// (throttlelab/engine/scenario_keys.h): app/scenario_format_doc.cpp rewrites the document, and a
// test checks that it is up to date.
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>

#include "scenario_parts.h"
#include "throttlelab/engine/scenario_doc.h"

namespace throttlelab::engine {

namespace {

using input::formatDouble;
using input::printable;
using schema::EnumInfo;
using schema::Key;
using schema::Range;

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
    if (k.kind == JsonKind::Object) type = "object";
    if (k.kind == JsonKind::ObjectArray) type = "array of objects";
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
  if (section == "top") return docTable(schema::kRootKeys);
  if (section == "machine") return docTable(schema::kMachineKeys);
  if (section == "device") return docTable(schema::kDeviceKeys);
  if (section == "vm") return docTable(schema::kVmKeys);
  if (section == "tasks") return docTable(schema::kTaskKeys);
  if (section == "cgroups") return docTable(schema::kCgroupKeys);
  throw std::invalid_argument("no scenario key table named '" + printable(section) +
                              "' (known: top, machine, device, vm, tasks, cgroups)");
}

}  // namespace

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
