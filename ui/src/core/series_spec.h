// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// One curve of a time plot, declared as a value: how to read it from a Sample, its unit,
/// colour role and axis. The same spec feeds the graph, the hover readout and the A/B deltas.
#include <QString>
#include <functional>

#include "display_units.h"
#include "theme.h"
#include "throttlelab/engine/records.h"

namespace throttlelab::ui {

struct SeriesSpec {
  QString name;
  QString unit;             ///< for readouts; ignored if memoryUnit
  bool memoryUnit = false;  ///< the unit follows DisplayUnits (MiB or pages)
  /// The value at one sample; NaN leaves a gap (e.g. a ratelimit not yet estimated).
  std::function<double(const engine::Sample&, const DisplayUnits&)> value;
  SeriesColour colour = SeriesColour::Foreground;
  Qt::PenStyle style = Qt::SolidLine;
  double width = 1;  ///< before the theme's pen scale
  bool rightAxis = false;
  bool step = false;  ///< step line (values that change at update instants)
  bool dots = false;  ///< small dots, no line
  /// Which run the series reads, in a plot that shows several (the compare view); 0 otherwise.
  int source = 0;
};

/// Readable number with a precision suited to its size.
QString formatValue(double v);

}  // namespace throttlelab::ui
