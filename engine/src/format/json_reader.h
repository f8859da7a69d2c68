// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The engine's side of the one JSON front door (throttlelab/engine/json_input.h says what it
/// refuses): the checked document as nlohmann's DOM for the engine's readers (scenarios, `--set`
/// values, lessons), and the few text helpers their messages share.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>

#include "throttlelab/engine/json_input.h"

namespace throttlelab::engine::input {

/// std::map-backed objects: lookups and inserts stay O(log n) even for hostile inputs with
/// millions of keys (ordered_json would make building such a document quadratic).
using Json = nlohmann::json;

/// `text` as a document whose top level is `root`, checked as json_input.h says. Throws
/// JsonInputError.
Json readJson(std::string_view text, const JsonField& root);

/// The field of `fields` named `key`, or nullptr.
const JsonField* findField(std::span<const JsonField> fields, std::string_view key);

/// "unknown key 'memoryMB' (did you mean 'memoryMiB'?)".
std::string unknownKeyReason(std::string_view key, std::span<const JsonField> known);

/// Keys and values from the input go into one-line messages: control characters are escaped
/// (\x1b) and what is longer than `maxLength` bytes is cut ("...").
inline constexpr std::size_t kShownTextBytes = 64;
std::string printable(std::string_view s, std::size_t maxLength = kShownTextBytes);

/// The shortest text that reads back as `v` ("0.1", "1e+300").
std::string formatDouble(double v);

/// A value as a message shows it: `the string "x"`, `20`, `an object`.
std::string describe(const Json& v);

/// Well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
bool isUtf8(std::string_view s);

}  // namespace throttlelab::engine::input
