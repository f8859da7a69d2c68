// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// An enum's names written once, as a table that serves both directions: the name of a value
// (the toString() functions) and the value of a name (the ...FromString() parsers).
#include <cstddef>
#include <optional>
#include <string_view>

namespace throttlelab::engine {

template <class E>
struct EnumName {
  E value;
  std::string_view name;
};

/// The name of `value` in `names`, or `otherwise` if the table lacks it.
template <class E, std::size_t N>
constexpr std::string_view nameOf(E value, const EnumName<E> (&names)[N],
                                  std::string_view otherwise) {
  for (const EnumName<E>& n : names)
    if (n.value == value) return n.name;
  return otherwise;
}

/// The value called `name` in `names`, if there is one.
template <class E, std::size_t N>
constexpr std::optional<E> valueNamed(std::string_view name, const EnumName<E> (&names)[N]) {
  for (const EnumName<E>& n : names)
    if (n.name == name) return n.value;
  return std::nullopt;
}

}  // namespace throttlelab::engine
