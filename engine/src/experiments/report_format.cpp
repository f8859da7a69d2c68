// SPDX-License-Identifier: GPL-3.0-or-later
#include "report_format.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace throttlelab::engine::report {

std::string number(double v) {
  if (!std::isfinite(v)) return "n/a";
  const double a = std::fabs(v);
  int decimals = 0;
  if (a > 0) decimals = std::clamp(4 - static_cast<int>(std::floor(std::log10(a))), 0, 6);
  std::string out = fixed(v, decimals);
  if (out.find('.') != std::string::npos) {
    while (out.back() == '0') out.pop_back();
    if (out.back() == '.') out.pop_back();
  }
  return out;
}

std::string percentChange(std::optional<double> pct) {
  if (!pct || !std::isfinite(*pct)) return "n/a";
  std::string out = fixed(*pct, 1);
  if (out.front() != '-') out.insert(out.begin(), '+');
  return out + " %";
}

std::string cell(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string tableRow(const std::vector<std::string>& cells) {
  std::string out = "|";
  for (const auto& c : cells) out += " " + c + " |";
  out += '\n';
  return out;
}

std::string tableRule(std::size_t columns, std::size_t leftColumns) {
  std::string out = "|";
  for (std::size_t i = 0; i < columns; ++i) out += i < leftColumns ? "---|" : "---:|";
  out += '\n';
  return out;
}

Spread spread(const std::vector<double>& values) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  if (values.empty()) return {kNaN, kNaN, kNaN};
  Spread s{0, values.front(), values.front()};
  for (const double v : values) {
    if (std::isnan(v)) return {kNaN, kNaN, kNaN};
    s.mean += v;
    s.min = std::min(s.min, v);
    s.max = std::max(s.max, v);
  }
  // The rounded sum of n equal values divided by n can land an ulp outside them.
  s.mean = std::clamp(s.mean / static_cast<double>(values.size()), s.min, s.max);
  return s;
}

}  // namespace throttlelab::engine::report
