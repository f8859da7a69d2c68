// SPDX-License-Identifier: GPL-3.0-or-later
// Reading the scenario document into a Scenario: each key's JSON type, and whether its value
// can be stored at all. The ranges are the validator's (scenario_validate.cpp), which also
// checks scenarios built in code; the document's shape (unknown keys, nesting, numbers) was
// checked at the JSON front door (json_reader.cpp).
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>

#include "scenario_parts.h"

namespace throttlelab::engine::scenario_parts {

namespace {

using input::describe;
using input::formatDouble;
using input::printable;
using schema::EnumInfo;
using schema::Key;
using schema::Range;

template <class E>
std::optional<E> enumFromString(std::string_view name) {
  for (const E e : EnumInfo<E>::kAll)
    if (toString(e) == name) return e;
  return std::nullopt;
}

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
    readValue(*version, "schemaVersion", schema::kAnyInt, v);
    if (v != kScenarioSchemaVersion)
      m_context.fail("schemaVersion", "unsupported schema version " + std::to_string(v) +
                                          " (this build reads " +
                                          std::to_string(kScenarioSchemaVersion) + ")");
    readKeys(doc, "", schema::kRootKeys, s);

    if (const Json* m = member(doc, "machine"))
      readObject(*m, "machine", schema::kMachineKeys, s.machine);

    const Json* device = member(doc, "device");
    const Json* devices = member(doc, "devices");
    if (device && devices)
      m_context.fail("devices", "give either \"device\" (one) or \"devices\" (a list), not both");
    if (device) {
      s.devices = {DeviceConfig{}};
      readObject(*device, "device", schema::kDeviceKeys, s.devices[0]);
    } else if (devices) {
      requireArray(*devices, "devices");
      if (devices->empty()) m_context.fail("devices", "must list at least one device");
      requireAtMost(*devices, "devices", "devices", engine::kMaxDevices);
      readEach(
          *devices, schema::kDeviceKeys, [](std::size_t i) { return deviceJsonPath(i, true); },
          s.devices);
    }

    if (const Json* vm = member(doc, "vm")) readObject(*vm, "vm", schema::kVmKeys, s.vm);

    if (const Json* tasks = member(doc, "tasks")) {
      requireArray(*tasks, "tasks");
      requireAtMost(*tasks, "tasks", "task groups", schema::kMaxTaskGroups);
      readEach(*tasks, schema::kTaskKeys, taskJsonPath, s.tasks);
    }

    if (const Json* cgroups = member(doc, "cgroups")) {
      requireArray(*cgroups, "cgroups");
      requireAtMost(*cgroups, "cgroups", "cgroups", schema::kMaxCgroups);
      readEach(*cgroups, schema::kCgroupKeys, cgroupJsonPath, s.cgroups);
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

  /// The engine's bound on a list's length (`what` names its entries in the message).
  void requireAtMost(const Json& list, const std::string& path, std::string_view what,
                     std::size_t most) const {
    if (list.size() > most)
      m_context.fail(path, "lists " + std::to_string(list.size()) + " " + std::string(what) +
                               "; at most " + std::to_string(most) + " are supported");
  }

  /// Each object of the array `list` into its own default entry of `out`, at the path
  /// `pathOf(i)` names.
  template <class T, std::size_t N, class PathOf>
  void readEach(const Json& list, const Key<T> (&keys)[N], PathOf pathOf,
                std::vector<T>& out) const {
    out.assign(list.size(), T{});
    for (std::size_t i = 0; i < list.size(); ++i) readObject(list[i], pathOf(i), keys, out[i]);
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
      if (k.kind != JsonKind::Value) continue;
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
}  // namespace

Scenario readScenario(const Json& doc, const Context& context) {
  return Reader(context).read(doc);
}

}  // namespace throttlelab::engine::scenario_parts
