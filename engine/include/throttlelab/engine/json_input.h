// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The one door through which JSON comes into ThrottleLab: scenario files, lessons, sessions,
/// and the values of `--set` and `--branch-set` (engine/src/format/json_reader.cpp). Whatever
/// the format, a document is refused, with the JSON path of the place at fault, when it
///  - is not JSON (the reason gives the line and column),
///  - nests deeper than kMaxJsonDepth,
///  - holds a number a double cannot hold (`1e400`; `1e-400`, which would silently be 0),
///  - gives a key twice in one object,
///  - gives an object a key its format does not know, at any depth ("did you mean ...?").
/// Each format describes the objects it knows as a tree of JsonField; it then reads the
/// document's values, their types and ranges, itself.
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace throttlelab::engine {

/// Levels of nesting any document may have: a scenario needs 3, a lesson with an inline
/// scenario 6, a session 5. Deeper input is refused before it is walked (or written back).
inline constexpr int kMaxJsonDepth = 32;

/// What a key of a known object holds, as far as the reader looks.
enum class JsonKind : std::uint8_t {
  Value,        ///< a value the format reads itself (a container here is not looked into)
  Object,       ///< an object whose keys are `children`
  ObjectArray,  ///< an array of such objects
};

/// One key of an object the format knows. `open`: the object also takes keys that are not
/// among `children` (the format checks those itself); `children` still say what the known
/// ones hold.
struct JsonField {
  std::string_view key;
  JsonKind kind = JsonKind::Value;
  std::span<const JsonField> children{};
  bool open = false;
};

/// Why a document was refused. `path()` is the JSON path of the place ("vm.dirty_ratio",
/// "steps[2].runFor"; empty for the document itself), `reason()` what is wrong there;
/// what() is "PATH: REASON".
class JsonInputError : public std::runtime_error {
 public:
  enum class Kind : std::uint8_t { Syntax, TooDeep, Number, DuplicateKey, UnknownKey };
  JsonInputError(Kind kind, std::string path, std::string reason)
      : std::runtime_error(path.empty() ? reason : path + ": " + reason),
        m_kind(kind),
        m_path(std::move(path)),
        m_reason(std::move(reason)) {}
  Kind kind() const { return m_kind; }
  const std::string& path() const { return m_path; }
  const std::string& reason() const { return m_reason; }

 private:
  Kind m_kind;
  std::string m_path;
  std::string m_reason;
};

/// Checks `text` as a document whose top level is `root` (its `key` is not used). Throws
/// JsonInputError. For readers outside the engine (the window's session files), which then
/// read the values with their own JSON library. (A format that embeds a scenario gives it
/// throttlelab/engine/scenario_keys.h's schema::kRootFields.)
void checkJson(std::string_view text, const JsonField& root);

}  // namespace throttlelab::engine
