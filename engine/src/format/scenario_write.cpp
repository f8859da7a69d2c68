// SPDX-License-Identifier: GPL-3.0-or-later
// Writing a scenario as JSON (schemaVersion 1): every key in its table's order
// (throttlelab/engine/scenario_keys.h), pretty-printed; parseScenario reads it back equal.
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "throttlelab/engine/scenario.h"
#include "throttlelab/engine/scenario_keys.h"

namespace throttlelab::engine {

namespace {

using OrderedJson = nlohmann::ordered_json;
using schema::Key;

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

std::string scenarioToJson(const Scenario& s) {
  OrderedJson j = OrderedJson::object();
  for (const Key<Scenario>& k : schema::kRootKeys) {
    if (k.kind == JsonKind::Value)
      writeKey(j, s, k);
    else if (k.name == "machine")
      j["machine"] = objectToJson(s.machine, schema::kMachineKeys);
    else if (k.name == "device" && s.devices.size() == 1)
      j["device"] = objectToJson(s.devices.front(), schema::kDeviceKeys);
    else if (k.name == "devices" && s.devices.size() != 1)
      j["devices"] = arrayToJson(s.devices, schema::kDeviceKeys);
    else if (k.name == "vm")
      j["vm"] = objectToJson(s.vm, schema::kVmKeys);
    else if (k.name == "tasks")
      j["tasks"] = arrayToJson(s.tasks, schema::kTaskKeys);
    else if (k.name == "cgroups" && !s.cgroups.empty())
      j["cgroups"] = arrayToJson(s.cgroups, schema::kCgroupKeys);
  }
  // `replace` keeps a name with invalid UTF-8 (possible in a scenario built in code) from
  // throwing; parsed scenarios are valid UTF-8 already.
  return j.dump(2, ' ', false, OrderedJson::error_handler_t::replace) + "\n";
}

}  // namespace throttlelab::engine
