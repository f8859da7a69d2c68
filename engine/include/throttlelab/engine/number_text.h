// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The one formatter for a number with a fixed count of decimals, used by every text
/// ThrottleLab writes (CSVs, traces, summaries, reports, a trace's derivation notes), so that
/// they cannot disagree about an edge:
/// - locale-independent (std::to_chars): a Qt application that called setlocale would
///   otherwise print "0,5";
/// - a value that rounds to zero has no sign: -0.0 and -0.0004 with 3 decimals print "0.000",
///   never "-0.000" (a sign that is not there);
/// - a non-finite value prints as strtod, a CSV reader and the C++ library read it back: "nan"
///   (whatever its sign bit: never "-nan"), "inf", "-inf". A report that wants "n/a" for a
///   missing value says so before it formats one (report::number).
#include <string>

namespace throttlelab::engine {

/// `v` with exactly `decimals` (0 … 340) digits after the point: fixed(3.14159, 1) = "3.1".
std::string fixed(double v, int decimals);
/// fixed(v, decimals) appended to `out`, without a temporary string (the CSV writers).
void appendFixed(std::string& out, double v, int decimals);

}  // namespace throttlelab::engine
