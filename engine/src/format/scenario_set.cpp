// SPDX-License-Identifier: GPL-3.0-or-later
// The `--set KEY=VALUE` path language: KEY is a JSON path into the scenario document
// ("vm.dirty_bytes", "tasks[0].count", "device.writeMBps"), VALUE is JSON or a bare string. An
// override edits the document before it is read, so it passes every check a file does: its
// value goes through the JSON front door with the keys of the place it sets, so an object
// value (`vm={"dirty_ratio": 5}`) has its keys checked as the same object in a file would.
// The same rules serve `--branch-set`, a lesson's `set` and a session's branch.
#include <charconv>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "scenario_parts.h"

namespace throttlelab::engine::scenario_parts {

namespace {

using input::findField;
using input::printable;
using input::unknownKeyReason;

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

/// "vm" + "dirty_ratoi" = "vm.dirty_ratoi"; "tasks" + "[0].count" = "tasks[0].count".
std::string joinPath(const std::string& prefix, const std::string& rest) {
  if (rest.empty()) return prefix;
  return rest.front() == '[' ? prefix + rest : prefix + "." + rest;
}

/// VALUE, for the place `path` whose keys `expect` describes. VALUE is JSON when it is JSON
/// text, else a bare string: `--set policy=ioless` works. JSON that breaks a rule of the front
/// door (a key the place does not have, a number out of range) is refused, not taken as text.
Json overrideValue(const std::string& text, const JsonField& expect, const std::string& path,
                   const Context& context) {
  try {
    return input::readJson(text, expect);
  } catch (const JsonInputError& e) {
    if (e.kind() == JsonInputError::Kind::Syntax) return Json(text);
    context.fail(joinPath(path, e.path()), e.reason());
  }
}

/// An element of an array of objects whose keys are `keys`.
JsonField elementOf(std::span<const JsonField> keys) {
  return {.key = {}, .kind = JsonKind::Object, .children = keys};
}

const char* elementWord(std::string_view arrayKey) {
  if (arrayKey == "tasks") return " task group";
  if (arrayKey == "cgroups") return " cgroup";
  return " device";
}

}  // namespace

std::string applyOverride(Json& doc, const Override& o, const Context& context) {
  const std::vector<PathToken> tokens = splitPath(o.path, context);
  if (!doc.is_object()) context.fail("", "the scenario must be a JSON object");

  Json* node = &doc;
  std::span<const JsonField> fields = schema::kRootFields;
  std::string path;
  std::size_t t = 0;
  while (t < tokens.size()) {
    const bool last = t + 1 == tokens.size();
    if (!std::holds_alternative<std::string>(tokens[t]))
      context.fail(path.empty() ? printable(o.path) : path, "is not an array");
    std::string key = std::get<std::string>(tokens[t]);
    const JsonField* field = findField(fields, key);
    const std::string keyPath = path.empty() ? printable(key) : path + "." + printable(key);
    if (!field) context.fail(keyPath, unknownKeyReason(key, fields));

    // The device block may be spelled "device" (one) or "devices" (a list); an override
    // addresses whichever the document uses: device.X means devices[0].X and vice versa.
    if (path.empty() && key == "device" && !doc.contains("device") && doc.contains("devices")) {
      key = "devices";
      field = findField(schema::kRootFields, key);
      Json& devices = doc["devices"];
      if (!devices.is_array() || devices.empty())
        context.fail("devices", "has no first device to set");
      node = &devices[0];
      path = "devices[0]";
      fields = field->children;
      if (last) {
        *node = overrideValue(o.value, elementOf(fields), path, context);
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
        *node = overrideValue(o.value, elementOf(fields), path, context);
        return path;
      }
      continue;
    }

    if (!node->is_object()) context.fail(path, "is not an object, so " + o.path + " cannot be set");
    if (last) {
      (*node)[key] = overrideValue(o.value, *field, keyPath, context);
      return keyPath;
    }
    if (field->kind == JsonKind::Value) context.fail(keyPath, "is not an object or an array");
    Json& child = (*node)[key];
    if (field->kind == JsonKind::Object) {
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
                                  elementWord(key) + (size == 1 ? "" : "s") + ")");
    node = &child[index];
    fields = field->children;
    path = indexPath;
    t += 2;
    if (t == tokens.size()) {
      *node = overrideValue(o.value, elementOf(fields), path, context);
      return path;
    }
  }
  return path;
}

}  // namespace throttlelab::engine::scenario_parts
