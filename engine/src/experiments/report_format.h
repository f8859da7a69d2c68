// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Number and text formatting shared by the comparison and experiment reports. Every number goes
// through engine::fixed (number_text.h), so a report is the same whatever locale the process
// runs in; where a report has no number to show, it says "n/a".
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "throttlelab/engine/number_text.h"

namespace throttlelab::engine::report {

/// About five significant digits, trailing zeros dropped: 30.916, 37843, 748.67, 0.12. NaN
/// and infinities print as "n/a".
std::string number(double v);
/// A signed percentage with one decimal: "+10.1 %", "-90.0 %"; nullopt prints "n/a".
std::string percentChange(std::optional<double> pct);
/// Escapes what would break a Markdown table cell (| and line breaks).
std::string cell(std::string_view text);
/// One Markdown table row from cells.
std::string tableRow(const std::vector<std::string>& cells);
/// The separator row: the first `leftColumns` columns left-aligned (text), the others
/// right-aligned (numbers).
std::string tableRule(std::size_t columns, std::size_t leftColumns = 1);

/// Mean, min and max of values; NaN for all three if empty or if any value is NaN.
struct Spread {
  double mean = 0;
  double min = 0;
  double max = 0;
};
Spread spread(const std::vector<double>& values);

}  // namespace throttlelab::engine::report
