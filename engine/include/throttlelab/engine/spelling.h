// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// "Did you mean ...?" for the command line's options and the scenario's keys.
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace throttlelab::engine {

/// Levenshtein distance: the fewest single-character insertions, deletions and substitutions
/// that turn `a` into `b`.
std::size_t editDistance(std::string_view a, std::string_view b);

/// The index in `names` of the name closest to `word`, if one is at most `maxDistance` edits
/// away (the first of equally close ones). Names whose length alone puts them further away
/// are not compared, so a long garbage word costs nothing.
std::optional<std::size_t> closestName(std::string_view word,
                                       std::span<const std::string_view> names,
                                       std::size_t maxDistance = 2);

}  // namespace throttlelab::engine
