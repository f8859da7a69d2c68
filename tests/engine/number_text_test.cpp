// SPDX-License-Identifier: GPL-3.0-or-later
// engine::fixed, the one formatter of numbers with fixed decimals: every output's edge cases
// (negative zero, values that round to zero, non-finite values, huge values, the locale) the
// same way.
#include <gtest/gtest.h>

#include <clocale>
#include <cmath>
#include <limits>
#include <string>

#include "throttlelab/engine/number_text.h"

namespace te = throttlelab::engine;

TEST(Fixed, RoundsToTheDecimalsAsked) {
  EXPECT_EQ(te::fixed(3.14159, 1), "3.1");
  EXPECT_EQ(te::fixed(3.14159, 0), "3");
  EXPECT_EQ(te::fixed(2.0, 3), "2.000");
  EXPECT_EQ(te::fixed(-1.25, 1), "-1.2");  // 1.25 is exact in binary: to even
  EXPECT_EQ(te::fixed(-1.35, 1), "-1.4");  // 1.35 is 1.350000000000000088…
  EXPECT_EQ(te::fixed(12345.678, 2), "12345.68");
}

TEST(Fixed, AValueThatRoundsToZeroHasNoSign) {
  EXPECT_EQ(te::fixed(-0.0, 0), "0");
  EXPECT_EQ(te::fixed(-0.0, 2), "0.00");
  EXPECT_EQ(te::fixed(-0.0004, 3), "0.000");
  EXPECT_EQ(te::fixed(-0.4, 0), "0");
  EXPECT_EQ(te::fixed(-0.0005001, 3), "-0.001");  // rounds away from zero: the sign stays
  EXPECT_EQ(te::fixed(-1e-300, 6), "0.000000");
}

TEST(Fixed, NonFiniteValuesAreSpelledAsStrtodReadsThem) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(te::fixed(nan, 2), "nan");
  EXPECT_EQ(te::fixed(-nan, 2), "nan");  // the sign bit of a NaN means nothing
  EXPECT_EQ(te::fixed(std::copysign(nan, -1.0), 0), "nan");
  EXPECT_EQ(te::fixed(inf, 1), "inf");
  EXPECT_EQ(te::fixed(-inf, 1), "-inf");
  for (const char* text : {"nan", "inf", "-inf"}) {
    const double back = std::strtod(te::fixed(std::strtod(text, nullptr), 3).c_str(), nullptr);
    EXPECT_EQ(te::fixed(back, 3), text);
  }
}

TEST(Fixed, HugeValuesAndManyDecimalsAreWrittenWhole) {
  const std::string big = te::fixed(1e308, 2);
  EXPECT_EQ(big.size(), 309u + 3u);
  EXPECT_EQ(big.substr(0, 3), "100");
  EXPECT_EQ(big.substr(big.size() - 3), ".00");
  const std::string lowest = te::fixed(std::numeric_limits<double>::lowest(), 0);
  EXPECT_EQ(lowest.front(), '-');
  EXPECT_EQ(lowest.size(), 310u);
  EXPECT_EQ(te::fixed(1.5, 20), "1.50000000000000000000");
  // Decimals beyond what a double can hold are clamped, not an overflow.
  EXPECT_EQ(te::fixed(0.5, 1000).size(), 2u + 340u);
  EXPECT_EQ(te::fixed(0.5, -3), "0");  // rounds half to even
}

TEST(Fixed, AppendsWhatFixedReturns) {
  std::string out = "x=";
  te::appendFixed(out, -0.00001, 2);
  te::appendFixed(out, std::numeric_limits<double>::infinity(), 2);
  EXPECT_EQ(out, "x=0.00inf");
}

TEST(Fixed, IgnoresTheProcessLocale) {
  // A Qt application calls setlocale(LC_ALL, ""); a German or French locale then writes
  // "0,5" through printf. The formatter must not.
  const std::string before = std::setlocale(LC_ALL, nullptr);
  bool switched = false;
  for (const char* name : {"de_DE.UTF-8", "fr_FR.UTF-8", "de_DE", "C.UTF-8"})
    if (std::setlocale(LC_ALL, name)) {
      switched = std::string(std::localeconv()->decimal_point) != ".";
      if (switched) break;
    }
  EXPECT_EQ(te::fixed(0.5, 1), "0.5");
  EXPECT_EQ(te::fixed(-1234.5678, 2), "-1234.57");
  std::setlocale(LC_ALL, before.c_str());
  if (!switched) GTEST_SKIP() << "no locale with a decimal comma is installed here";
}
