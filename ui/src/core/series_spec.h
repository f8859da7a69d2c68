// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// One curve of a time plot, declared as a value: how to read it from a Sample, its unit,
/// colour role and axis. The same spec feeds the graph, the hover readout and the A/B deltas.
#include <QString>
#include <functional>
#include <optional>

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

/// How a series reads one sample.
using SeriesValue = std::function<double(const engine::Sample&, const DisplayUnits&)>;

/// Reads a page count of the sample, in the display's memory unit.
SeriesValue memoryOf(engine::Pages engine::Sample::*field);

/// dirty + writeback pages in the display's memory unit: the heavy line of the dirty plots.
double dirtyAndWritebackMemory(const engine::Sample& s, const DisplayUnits& u);

/// Reads a bandwidth of the first device in MB/s (deviceMBps).
SeriesValue deviceMBpsOf(double engine::DeviceSample::*field, bool positive = false);

/// The value only under a policy with position control (Sample::positionControl): setpoint,
/// freerun and the ratelimits mean nothing under the IO-ful policies, so their curves have a gap
/// for that stretch of time.
SeriesValue onlyWithPositionControl(SeriesValue value);

/// A curve of one page count of the sample, in the display's memory unit.
SeriesSpec memorySeries(const QString& name, engine::Pages engine::Sample::*field,
                        SeriesColour colour, Qt::PenStyle style = Qt::SolidLine, double width = 1);

/// One threshold or level drawn against the dirty pages (a row of a plot's table of levels).
struct MemoryLevel {
  QString name;
  engine::Pages engine::Sample::*field;
  SeriesColour colour;
  Qt::PenStyle style = Qt::SolidLine;
  double width = 1;
  bool positionControlOnly = false;  ///< a line of position control (onlyWithPositionControl)
};

/// Readable number with a precision suited to its size.
QString formatValue(double v);

/// A percent change with its sign ("+12.5 %"), or "—" where there is none.
QString formatPercentChange(std::optional<double> pct, int decimals);

}  // namespace throttlelab::ui
