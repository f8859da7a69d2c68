// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// A QCustomPlot over simulated time, fed incrementally: new samples are appended with
/// data()->add, old ones dropped with removeBefore, and one replot happens per frame at most.
/// It also draws the shared hover cursor, the A/B markers and a readout of values.
#include <QObject>
#include <QPoint>
#include <QRect>
#include <QRectF>
#include <QString>
#include <QVector>
#include <functional>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "display_units.h"
#include "plot_id.h"
#include "plot_style.h"
#include "sample_history.h"
#include "series_spec.h"
#include "theme.h"
#include "throttlelab/engine/events.h"

class QCustomPlot;
class QSplitter;
class QWidget;
class QCPGraph;
class QCPAxis;
class QCPRange;
class QCPAbstractItem;
class QCPItemStraightLine;
class QCPItemRect;
class QCPItemText;
class QCPTextElement;
class QCPLayoutGrid;
class QCPPainter;
class QMouseEvent;

namespace throttlelab::ui {

class SampleHistory;
class TaskTraceHistory;
class EventMarksLayerable;

/// One timeline event as a time plot draws it: a dashed mark at its time, and a label.
struct EventMark {
  double timeS = 0;
  QString label;  ///< what the label says where there is room (shortened or left out if not)
  QString full;   ///< every word of it: the hover readout and the label's tooltip
};

/// A label as laid out: its text (perhaps shortened) and its box in the plot's pixels.
struct EventLabelBox {
  int mark = 0;  ///< index into eventMarks()
  QString text;
  QRectF box;
  int row = 0;  ///< 0: the row next to the data area
};

class TimePlot : public QObject {
  Q_OBJECT

 public:
  TimePlot(PlotId id, QWidget* parentWidget);
  ~TimePlot() override;

  PlotId id() const { return m_id; }
  QCustomPlot* widget() const { return m_plot; }
  /// Replaces the title plotTitle(id()) gave (views other than the dashboard reuse the ids).
  void setTitle(const QString& title);
  QString title() const;

  virtual void appendSamples(const SampleBuffer& samples);
  virtual void appendTaskSamples(const TaskSampleBuffer& samples);
  /// Refills every graph from the history (after decimation, a unit change or a reset).
  virtual void rebuild(const SampleHistory& history, const TaskTraceHistory& tasks);
  virtual void clearData();
  /// For plots whose series read several runs (SeriesSpec::source): only that run's series.
  void appendSourceSamples(int source, const SampleBuffer& samples);
  void rebuildSource(int source, const SampleHistory& history);
  void clearSource(int source);
  virtual void trimBefore(double timeS);

  void setTimeRange(double lower, double upper);
  std::pair<double, double> timeRange() const;
  /// Fits the value axes to what is visible, with hysteresis so they do not jitter.
  virtual void autoscaleValues();

  void setCursor(std::optional<double> timeS, const engine::Sample* nearest,
                 const TaskTraceHistory* tasks);
  /// The same, with the nearest sample of each run (indexed by SeriesSpec::source; null:
  /// that run has no data there).
  void setCursor(std::optional<double> timeS, const std::vector<const engine::Sample*>& nearest);
  std::optional<double> cursorTime() const;
  /// The hover readout's text ("" when hidden).
  QString readoutText() const;
  void setMarkers(std::optional<double> a, std::optional<double> b);
  /// The run's timeline as labelled vertical marks (drawn in exports too), in words
  /// (describeEvent(); `names`: the scenario whose task groups the events name).
  void setEvents(const std::vector<engine::RunEvent>& events,
                 const engine::Scenario* names = nullptr);
  void setEventMarks(std::vector<EventMark> marks);
  const std::vector<EventMark>& eventMarks() const { return m_marks; }
  /// Whether the marks' labels are drawn, in a strip above the data area (the marks always
  /// are): a stack of plots labels its top one only.
  void setEventLabelsShown(bool shown);
  bool eventLabelsShown() const { return m_labelsShown; }
  /// The labels as the last layout placed them: only those of marks in the visible time range,
  /// never overlapping; a label without room is shortened ("…") or left out.
  const std::vector<EventLabelBox>& eventLabelLayout() const { return m_labelLayout; }
  /// The texts of eventLabelLayout() (for tests).
  QStringList eventLabels() const;
  /// A lesson's highlight (docs/lessons.md): the time range [fromS, toS] as a translucent
  /// band behind the curves (drawn in exports too), and the series named in `curves` (legend
  /// names) drawn wider while the others are dimmed. No range and no curves clear it.
  /// applyTheme() draws the series plain: call this again after it.
  void setHighlight(std::optional<std::pair<double, double>> range, const QStringList& curves);
  std::optional<std::pair<double, double>> highlightRange() const { return m_highlightRange; }
  /// The series drawn emphasised (for tests): the highlighted names this plot has.
  QStringList emphasisedSeries() const;
  /// A lesson step's `curves` on this plot (docs/lessons.md): only the series named (legend
  /// names) are drawn, in the legend and the readouts; empty draws every series. A series the
  /// plot itself hides (setSeriesShown) stays hidden. Per-task curves are not series.
  void setFocusCurves(const QStringList& curves);
  QStringList focusCurves() const { return m_focus; }
  /// The names of the series drawn now (for tests).
  QStringList visibleSeries() const;
  /// The whole texts of the marks within a few pixels of `timeS` ("40.0 s: dd ×1 → ×10").
  QStringList eventsNear(double timeS) const;
  /// "name: a → b (Δ d unit)" for every series, for the marker readout.
  QStringList deltaLines(const engine::Sample& a, const engine::Sample& b) const;

  virtual void applyTheme(const Theme& theme);
  void setUnits(const DisplayUnits& units);
  const DisplayUnits& units() const { return m_units; }

  /// Visible on screen (not hidden, not in a minimised window).
  bool isShown() const { return plotIsShown(m_plot); }
  void markDirty() { m_dirty = true; }
  bool isDirty() const { return m_dirty; }
  void replot(bool immediate) {
    replotPlot(m_plot, immediate);
    m_dirty = false;
  }
  /// Redraws only the overlay layer (cursor, markers, readout): cheap, used on hover.
  void replotOverlay();
  int graphCount() const;

 Q_SIGNALS:
  void hovered(double timeS);
  void hoverLeft();
  void clicked(double timeS, bool shift);
  /// A Ctrl+click (after its clicked()): "Branch here" at that moment.
  void branchClicked(double timeS);
  /// A click on the curve of task `task` (plots with per-task curves).
  void taskClicked(int task, double timeS);
  void userRangeChanged(double lower, double upper);
  void contextMenuRequested(QPoint globalPos);
  /// The header (title lines, legend rows and place) took another shape: the plot needs
  /// another height for the same data area.
  void headerChanged();

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;
  /// autoscaleValues() over the data of these times only.
  void autoscaleValuesOver(double fromS, double toS);
  int addSeries(SeriesSpec spec);
  /// The dirty-pages plots' common curves: dirty+writeback, dirty and writeback pages against
  /// the throttling thresholds (`limitName` read from `limit`, setpoint, freerun, bg_thresh).
  void addDirtySeries(const QString& limitName, engine::Pages engine::Sample::*limit);
  QCPGraph* seriesGraph(int i) const { return m_graphs[static_cast<std::size_t>(i)]; }
  const SeriesSpec& series(int i) const { return m_specs[static_cast<std::size_t>(i)]; }
  int seriesCount() const { return static_cast<int>(m_specs.size()); }
  void setSeriesShown(int i, bool shown);
  /// Renames a series (legend and readout).
  void setSeriesName(int i, const QString& name);
  /// Axis titles; called after unit changes.
  virtual void updateAxisTitles() = 0;
  /// The value axis title of a plot of runs side by side (compare, trace) by its id: `memory`
  /// in the memory unit for dirty pages, pauses on a log₂ axis, bandwidth otherwise.
  void setRunsAxisTitle(const QString& memory);
  /// Extra readout lines (e.g. per-task pauses) at time t.
  virtual QStringList extraReadout(double timeS, const engine::Sample& nearest,
                                   const TaskTraceHistory* tasks) const;
  QString unitOf(const SeriesSpec& s) const;
  /// The task whose curve is at `pos` (pixels), -1 if none: plots with per-task curves.
  virtual int taskAtPixel(QPoint) const { return -1; }
  void styleGraph(QCPGraph* graph, QColor colour, Qt::PenStyle style, double width, bool dots);
  void setLegendColumns();
  /// Merges legend entries into fewer (`on`), or lists them all again (`!on`); returns
  /// whether entries were merged. setLegendColumns() asks for it only when the full legend
  /// takes more than two compact rows.
  virtual bool summariseLegend(bool) { return false; }

  QCustomPlot* m_plot;
  Theme m_theme;
  DisplayUnits m_units;

 private:
  /// The highlight in the theme's colours: the band, and the series' pens
  /// (time_plot_highlight.cpp).
  void styleHighlight();
  friend class EventMarksLayerable;
  /// Lays the labels out for the axis rect as it is now (after a layout) and makes the strip
  /// above the data area as tall as their rows need; returns whether its height changed.
  bool layoutEventLabels();
  void drawEvents(QCPPainter* painter) const;
  /// A mark's x in pixels, at the edge of `rect` if a pixel or two outside it; NaN if further.
  double markPixel(double timeS, const QRect& rect) const;
  QFont eventFont() const;
  void onMouseMove(QMouseEvent* event);
  void onMousePress(QMouseEvent* event);
  void onMouseRelease(QMouseEvent* event);
  void autoscaleAxis(QCPAxis* axis, const QCPRange& keys);
  /// The cursor line at `timeS` (hidden without one), and the readout box if `readout`.
  void placeCursor(std::optional<double> timeS, bool readout);
  /// The readout's text, in a box beside the cursor on whichever side has room.
  void showReadout(const QStringList& lines, double timeS);
  /// Appends (or, with `replace`, sets) every series' points from `samples`; only the series
  /// of `source` when one is given.
  template <typename Samples>
  void fillGraphs(const Samples& samples, std::optional<int> source, bool replace);
  QCPItemStraightLine* makeLine();
  /// Shown by the plot and not left out by a lesson's focus.
  bool seriesVisible(std::size_t i) const;
  void applySeriesVisibility(std::size_t i);

  PlotId m_id;
  std::vector<SeriesSpec> m_specs;
  std::vector<QCPGraph*> m_graphs;
  std::vector<bool> m_shown;
  QStringList m_focus;                ///< setFocusCurves(); empty: every series
  QCPLayoutGrid* m_header = nullptr;  ///< the title, and the legend beside or under it
  QCPTextElement* m_title = nullptr;
  QString m_titleText;  ///< the title as set; m_title shows it wrapped to the plot's width
  /// What headerChanged() compares: title lines, legend below, rows, font size, entries.
  std::tuple<qsizetype, bool, int, double, int> m_headerShape{};
  QCPItemStraightLine* m_cursor = nullptr;
  QCPItemText* m_readout = nullptr;
  QCPItemStraightLine* m_markerA = nullptr;
  QCPItemStraightLine* m_markerB = nullptr;
  QCPItemText* m_labelA = nullptr;
  QCPItemText* m_labelB = nullptr;
  QCPItemRect* m_highlightBand = nullptr;
  std::optional<std::pair<double, double>> m_highlightRange;
  QStringList m_highlightCurves;
  std::vector<EventMark> m_marks;
  std::vector<double> m_labelWidths;  ///< of each mark's whole label, in eventFont()
  std::vector<EventLabelBox> m_labelLayout;
  EventMarksLayerable* m_eventLayer = nullptr;
  bool m_labelsShown = true;
  int m_labelRows = 0;      ///< rows of labels the strip above the data area has room for
  int m_baseTopMargin = 0;  ///< the axis rect's least top margin without labels
  QPoint m_pressPos;
  bool m_settingRange = false;
  bool m_dirty = true;
};

/// The three stacked time plots of a view that shows two runs at once (the compare view, the
/// real-kernel view): dirty pages, pauses and bandwidth, 3:2:2 in height. `make` creates each
/// plot (and keeps it); hovering a plot moves `cursor`, zooming one calls `userRange` with it.
struct RunPlotHooks {
  std::function<TimePlot*(PlotId, QWidget* parent)> make;
  std::function<void(std::optional<double> timeS)> cursor;
  std::function<void(TimePlot* source, double lower, double upper)> userRange;
};
QSplitter* stackRunPlots(QObject* context, const RunPlotHooks& hooks);
/// The data area each of them keeps where the others can spare it (the dashboard's too).
inline constexpr int kRunPlotMinDataHeight = 90;

}  // namespace throttlelab::ui
