// SPDX-License-Identifier: GPL-3.0-or-later
#include "throttlelab/engine/spelling.h"

#include <algorithm>
#include <vector>

namespace throttlelab::engine {

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

std::optional<std::size_t> closestName(std::string_view word,
                                       std::span<const std::string_view> names,
                                       std::size_t maxDistance) {
  std::optional<std::size_t> best;
  std::size_t bestDistance = maxDistance + 1;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::size_t lengthGap = word.size() > names[i].size() ? word.size() - names[i].size()
                                                                : names[i].size() - word.size();
    if (lengthGap >= bestDistance) continue;
    const std::size_t d = editDistance(word, names[i]);
    if (d < bestDistance) {
      bestDistance = d;
      best = i;
    }
  }
  return best;
}

}  // namespace throttlelab::engine
