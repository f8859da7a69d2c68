// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// A time plot of the real-kernel view: a measured trace (source 0) against its simulation
/// (source 1), time-aligned at t = 0. Measured curves are dots in the blue family, simulated
/// ones solid lines in the vermillion family, and the legend says which is which.
#include <functional>
#include <vector>

#include "time_plot.h"

namespace throttlelab::ui {

struct TraceEvents;
class EventPoints;

class TracePlot final : public TimePlot {
  Q_OBJECT

 public:
  static constexpr int kMeasured = 0;
  static constexpr int kSimulated = 1;

  /// `id` picks the content: DirtyPages (dirty+writeback against thresh, bg_thresh, freerun,
  /// setpoint), Pauses (p50 and max pause per interval), Bandwidth (write_bw and
  /// dirty_ratelimit of the first bdi).
  TracePlot(PlotId id, QWidget* parentWidget);

  /// Draws the measured trace at event resolution (every record, as dots); nullptr clears.
  void setEvents(const TraceEvents* events);
  /// Dots drawn at event resolution.
  int eventPointCount() const;
  void applyTheme(const Theme& theme) override;
  void autoscaleValues() override;
  /// Shows or hides every series of a source (legend included).
  void setSourceShown(int source, bool shown);
  /// The points with a value that a source has in this plot (its first series).
  int pointCount(int source) const;

 protected:
  void updateAxisTitles() override;

 private:
  struct EventGraph {
    QCPGraph* graph;
    const EventPoints TraceEvents::*points;
    SeriesColour colour;
    bool memory;   ///< pages, shown in the display's memory unit
    double scale;  ///< applied to the value otherwise (KB/s → MB/s)
  };
  void addEventGraph(const QString& name, const EventPoints TraceEvents::*points,
                     SeriesColour colour, bool memory, double scale = 1);
  std::vector<EventGraph> m_events;
};

}  // namespace throttlelab::ui
