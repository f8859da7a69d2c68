// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The plot panel: the four time plots and the throttle curve, their shared time axis
/// (follow live, fit all, synchronised pan/zoom), the hover cursor drawn at the same time in
/// every plot, and the A/B markers with their Δ readout. It is fed once per frame.
#include <QByteArray>
#include <QWidget>
#include <array>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "display_units.h"
#include "live_batch.h"
#include "plot_id.h"
#include "session_state.h"
#include "theme.h"
#include "throttlelab/engine/lesson.h"

class QCustomPlot;
class QLabel;
class QSplitter;

namespace throttlelab::ui {

class SampleHistory;
class TaskTraceHistory;
class TimePlot;
class PausePlot;
class ThrottleCurvePlot;

class Dashboard : public QWidget {
  Q_OBJECT

 public:
  /// The least height of a shown plot, normally and in presenter mode (larger fonts).
  static constexpr int kMinPlotHeight = 150;
  static constexpr int kPresenterMinPlotHeight = 190;
  /// The least height of a shown plot's data area (inside its axes) that the dashboard keeps
  /// by showing fewer plots when it is short (a projector's 720 or 768 px), in both modes.
  static constexpr int kMinDataHeight = 90;
  /// The least height that keeps every plot shown now at kMinDataHeight (and its least
  /// height), the marker line included: what a panel that wants room may leave it.
  int heightForShownPlots() const;

  explicit Dashboard(QWidget* parent = nullptr);
  ~Dashboard() override;

  /// The histories the plots mirror (owned by the LiveController).
  void setSources(const SampleHistory* history, const TaskTraceHistory* tasks);

  // Per frame, in this order: appendBatch (before the samples move into the history),
  // historyUpdated, refresh.
  void appendBatch(const SampleBuffer& samples, const TaskSampleBuffer& taskSamples);
  void historyUpdated(bool rebuilt);
  /// Moves the time window when following, fits the value axes and replots every visible
  /// plot whose data or view changed (all visible ones if `force`). Returns the number replotted.
  int refresh(bool immediate, bool force = false);
  void clearData();
  void rebuild();
  void setThrottleCurve(const engine::ThrottleCurve& curve);
  void setTaskInfos(const std::map<int, engine::TaskInfo>& infos);
  void setSelectedTask(int task);

  bool followLive() const { return m_follow; }
  void setFollowLive(bool follow);
  void fitAll();
  /// Shows this time range in every time plot and stops following.
  void setTimeRange(double lower, double upper);
  std::pair<double, double> timeRange() const;

  void setPlotVisible(PlotId id, bool visible);
  bool isPlotVisible(PlotId id) const;
  std::vector<PlotId> visiblePlots() const;
  /// The plots chosen to be shown: the visible ones and those put away for lack of room
  /// (they come back when the dashboard grows). Sessions keep this choice.
  std::vector<PlotId> chosenPlots() const;
  /// A lesson step's highlight (docs/lessons.md): its time range as a band on every time
  /// plot, its curves emphasised on its plot, and that plot kept in view: shown, never put
  /// away for room, and in presenter mode among the two or three shown. nullopt clears it.
  void setHighlight(const std::optional<engine::LessonHighlight>& highlight);
  std::optional<PlotId> highlightedPlot() const { return m_highlightPlot; }
  /// A lesson step's `curves` (docs/lessons.md): on each plot named only its curves named are
  /// drawn; the other plots, and an empty list, draw every curve.
  void setFocusCurves(const std::vector<engine::LessonCurves>& focus);
  void setPresenterMode(bool on);
  bool presenterMode() const { return m_presenter; }
  void setUnitsPages(bool pages);
  bool unitsPages() const { return m_units.pages; }

  void setCursorTime(std::optional<double> timeS);
  std::optional<double> cursorTime() const { return m_cursor; }
  /// A click: marker A, or B with Shift. `plot` names the plot whose values the Δ lists.
  void setMarker(double timeS, bool markerB, PlotId plot = PlotId::DirtyPages);
  void clearMarkers();
  /// The run's timeline, drawn as marks on every time plot, labelled in words above the top
  /// plot of each column (`names`: the scenario whose task groups the events name).
  void setEvents(const std::vector<engine::RunEvent>& events,
                 const engine::Scenario* names = nullptr);
  const std::vector<engine::RunEvent>& events() const { return m_events; }
  std::optional<double> markerA() const { return m_markerA; }
  std::optional<double> markerB() const { return m_markerB; }
  QString markerText() const;

  QCustomPlot* plotWidget(PlotId id) const;
  TimePlot* timePlot(PlotId id) const;
  PausePlot* pausePlot() const { return m_pauses; }
  ThrottleCurvePlot* curvePlot() const { return m_curve; }
  const Theme& theme() const { return m_theme; }
  QByteArray saveLayoutState() const;
  bool restoreLayoutState(const QByteArray& state);
  /// Its part of a session: visible plots, presenter mode, units, follow-live and layout.
  void captureSession(SessionState& session) const;
  /// Restores the layout (if the session has one) and which plots are visible.
  void applySessionLayout(const SessionState& session);

 Q_SIGNALS:
  void followLiveChanged(bool follow);
  void exportPlotRequested(throttlelab::ui::PlotId id);
  void plotVisibilityChanged(throttlelab::ui::PlotId id, bool visible);
  /// A click put marker A (or B) at this time.
  void markerPlaced(double timeS, bool markerB);
  /// A Ctrl+click on a time plot: marker A is at `timeS`, and the run is to branch there.
  void branchRequested(double timeS);
  /// A click on a task's curve in the delay plot.
  void taskClicked(int task, double timeS);

 protected:
  void changeEvent(QEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void showEvent(QShowEvent* event) override;

 private:
  void applyTheme();
  void applyFollowRange();
  void onHover(double timeS);
  void onUserRange(TimePlot* source, double lower, double upper);
  void updateMarkers();
  void showContextMenu(PlotId id, QPoint globalPos);
  void showPlot(PlotId id, bool visible);
  /// Labels the timeline's marks on the top shown time plot of each column only.
  void labelTopPlots();
  /// Keeps every shown plot's data area at kMinDataHeight: a column that has no room for its
  /// plots puts its lowest ones away (`mayHide`), plots put away come back while they fit
  /// (`mayShow`), and a plot below its height takes it from those above theirs.
  void fitPlots(bool mayHide, bool mayShow);
  /// Shows the highlighted plot; in presenter mode hides others to keep three at most.
  void keepHighlightInView();
  /// The highlight on the plots, in the current theme.
  void drawHighlight();

  const SampleHistory* m_history = nullptr;
  const TaskTraceHistory* m_tasks = nullptr;
  QSplitter* m_columns = nullptr;
  QSplitter* m_left = nullptr;
  QSplitter* m_right = nullptr;
  std::vector<TimePlot*> m_timePlots;
  PausePlot* m_pauses = nullptr;
  ThrottleCurvePlot* m_curve = nullptr;
  QLabel* m_markerLabel = nullptr;
  Theme m_theme;
  DisplayUnits m_units;
  bool m_presenter = false;
  std::vector<PlotId> m_plotsBeforePresenter;
  std::vector<PlotId> m_hiddenForRoom;  ///< put away by fitPlots, most recent last
  bool m_fitting = false;
  bool m_fitQueued = false;  ///< a fitPlots() after a header change is on its way
  bool m_follow = true;
  bool m_syncing = false;
  bool m_rehome = false;  ///< the data was cleared: move a paused time axis to the new run
  std::optional<double> m_cursor;
  std::optional<double> m_markerA;
  std::optional<double> m_markerB;
  PlotId m_markerPlot = PlotId::DirtyPages;
  std::vector<engine::RunEvent> m_events;
  std::optional<engine::LessonHighlight> m_highlight;
  std::optional<PlotId> m_highlightPlot;
};

}  // namespace throttlelab::ui
