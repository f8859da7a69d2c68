// SPDX-License-Identifier: GPL-3.0-or-later
#include "series_spec.h"

#include <limits>

#include <cmath>

#include "sample_fields.h"

namespace throttlelab::ui {

SeriesValue memoryOf(engine::Pages engine::Sample::*field) {
  return [field](const engine::Sample& s, const DisplayUnits& u) {
    return u.memory(static_cast<double>(s.*field));
  };
}

double dirtyAndWritebackMemory(const engine::Sample& s, const DisplayUnits& u) {
  return u.memory(static_cast<double>(s.dirtyPages + s.writebackPages));
}

SeriesValue deviceMBpsOf(double engine::DeviceSample::*field, bool positive) {
  return [field, positive](const engine::Sample& s, const DisplayUnits&) {
    return deviceMBps(s, field, positive);
  };
}

SeriesValue onlyWithPositionControl(SeriesValue value) {
  return [value = std::move(value)](const engine::Sample& s, const DisplayUnits& u) {
    return s.positionControl ? value(s, u) : std::numeric_limits<double>::quiet_NaN();
  };
}

SeriesSpec memorySeries(const QString& name, engine::Pages engine::Sample::*field,
                        SeriesColour colour, Qt::PenStyle style, double width) {
  return {.name = name,
          .memoryUnit = true,
          .value = memoryOf(field),
          .colour = colour,
          .style = style,
          .width = width};
}

QString formatValue(double v) {
  if (std::isnan(v)) return QStringLiteral("–");
  if (v == 0) return QStringLiteral("0");
  const double a = std::abs(v);
  const int decimals = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
  return QString::number(v, 'f', decimals);
}

QString formatPercentChange(std::optional<double> pct, int decimals) {
  if (!pct) return QStringLiteral("—");
  return QStringLiteral("%1%2 %").arg(*pct >= 0 ? "+" : "").arg(*pct, 0, 'f', decimals);
}

}  // namespace throttlelab::ui
