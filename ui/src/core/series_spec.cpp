// SPDX-License-Identifier: GPL-3.0-or-later
#include "series_spec.h"

#include <cmath>

namespace throttlelab::ui {

QString formatValue(double v) {
  if (std::isnan(v)) return QStringLiteral("–");
  if (v == 0) return QStringLiteral("0");
  const double a = std::abs(v);
  const int decimals = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
  return QString::number(v, 'f', decimals);
}

}  // namespace throttlelab::ui
