// SPDX-License-Identifier: GPL-3.0-or-later
#include "throttlelab/engine/number_text.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <string_view>

namespace throttlelab::engine {

void appendFixed(std::string& out, double v, int decimals) {
  if (!std::isfinite(v)) {
    out += std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
    return;
  }
  // Fixed notation of 1e308 needs 309 digits before the point, and the decimals come after.
  std::array<char, 700> buf{};
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v, std::chars_format::fixed,
                               std::clamp(decimals, 0, 340));
  std::string_view text(buf.data(), static_cast<std::size_t>(r.ptr - buf.data()));
  if (text.front() == '-' && text.find_first_not_of("-0.") == std::string_view::npos)
    text.remove_prefix(1);
  out += text;
}

std::string fixed(double v, int decimals) {
  std::string out;
  appendFixed(out, v, decimals);
  return out;
}

}  // namespace throttlelab::engine
