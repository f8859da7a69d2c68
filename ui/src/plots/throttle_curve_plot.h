// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Plot 5: the position-control curve pos_ratio(dirty) with freerun, setpoint and limit, and
/// the live operating point moving along it, so a user sees *why* a task got its pause:
/// task_ratelimit = dirty_ratelimit × pos_ratio, pause = pages dirtied ÷ task_ratelimit.
#include <QElapsedTimer>
#include <QObject>
#include <QSize>
#include <QStringList>
#include <optional>

#include "display_units.h"
#include "plot_style.h"
#include "theme.h"
#include "throttlelab/engine/records.h"
#include "throttlelab/engine/simulator.h"

class QCustomPlot;
class QCPGraph;
class QCPItemStraightLine;
class QCPItemText;
class QCPItemRect;
class QCPTextElement;
class QTimer;

namespace throttlelab::ui {

class SampleHistory;

class ThrottleCurvePlot : public QObject {
  Q_OBJECT

 public:
  explicit ThrottleCurvePlot(QWidget* parentWidget);

  QCustomPlot* widget() const { return m_plot; }
  void setCurve(const engine::ThrottleCurve& curve);
  /// The operating point and its recent trail, from the newest samples.
  void setLive(const SampleHistory& history);
  /// Marks the state at the hovered time of the time plots (nullptr hides the mark); the
  /// formula then gives that moment's numbers, at once.
  void setCursorSample(const engine::Sample* sample);
  /// The formula of the newest moment now, if a newer one waits (the formula follows a live
  /// run at most kTextHz times a wall second: numbers changing each frame cannot be read).
  void flushText();
  static constexpr int kTextHz = 4;
  void clearData();
  void applyTheme(const Theme& theme);
  void setUnits(const DisplayUnits& units);
  bool isShown() const { return plotIsShown(m_plot); }
  bool isDirty() const { return m_dirty || m_liveDirty; }
  /// A whole replot when the curve, the axes or the layout changed; otherwise only the live
  /// layer (the operating point, its trail and the formula), which is what moves each frame.
  void replot(bool immediate);
  void replotOverlay();
  /// The explanation text shown beside the curve (for tests).
  QString explanation() const;
  /// The widest line of the formula in its font, in pixels (for tests).
  int explanationWidth() const;
  const engine::ThrottleCurve& curve() const { return m_curve; }
  /// A lesson's highlight: these curves and lines (by their legend names or labels) drawn
  /// wider; none clears it.
  void setHighlightedCurves(const QStringList& names);
  /// What is drawn emphasised now (for tests).
  QStringList emphasisedCurves() const;
  /// A lesson step's `curves` on this plot: only these curves and lines (legend names, and
  /// bg_thresh, freerun, setpoint, limit) are drawn; none draws them all.
  void setFocusCurves(const QStringList& names);
  /// The curves and lines drawn now (for tests; a line off the axis's range is not).
  QStringList visibleCurves() const;

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  bool focused(const QString& name) const;
  /// What the formula needs of one sample.
  struct Moment {
    double timeS = 0;
    double dirty = 0;                                         ///< dirty + writeback, pages
    double freerun = 0, setpoint = 0, limit = 0, thresh = 0;  ///< pages, as sampled
    double ratio = 0;
    double ratelimitMBps = 0;
    double taskMBps = 0;
    double maxPauseMs = 0;
    bool positionControl = true;
  };
  static Moment momentOf(const engine::Sample& s);
  void redrawCurve();
  /// The x axis over the curve and the operating point; whether it changed.
  bool fitXRange();
  void fitToWidth();
  /// The x axis title, on two lines where one is wider than the data area; whether it changed.
  bool fitXTitle();
  void fitExplain();
  void placeMarker(QCPItemStraightLine* line, QCPItemText* label, double pages);
  void styleHighlight();
  /// The marker labels in rows above each other where they would overlap (after a layout).
  void layoutMarkerLabels();
  /// The formula for the cursor's moment if there is one, else the newest.
  void updateText();
  /// updateText() now if the last was long enough ago, else once it is.
  void requestText();

  QCustomPlot* m_plot;
  Theme m_theme;
  DisplayUnits m_units;
  engine::ThrottleCurve m_curve;
  QCPGraph* m_global = nullptr;
  QCPGraph* m_device = nullptr;
  QCPGraph* m_trail = nullptr;
  QCPGraph* m_point = nullptr;
  QCPGraph* m_cursorPoint = nullptr;
  QCPItemStraightLine* m_freerunLine = nullptr;
  QCPItemStraightLine* m_setpointLine = nullptr;
  QCPItemStraightLine* m_limitLine = nullptr;
  QCPItemStraightLine* m_bgLine = nullptr;
  QCPItemText* m_freerunLabel = nullptr;
  QCPItemText* m_setpointLabel = nullptr;
  QCPItemText* m_limitLabel = nullptr;
  QCPItemText* m_bgLabel = nullptr;
  QCPItemRect* m_freeArea = nullptr;
  QCPItemRect* m_overArea = nullptr;
  QCPItemText* m_freeAreaLabel = nullptr;
  QCPItemText* m_overAreaLabel = nullptr;
  QCPTextElement* m_title = nullptr;
  QCPTextElement* m_explain = nullptr;
  std::optional<Moment> m_now;     ///< the newest sample's
  std::optional<Moment> m_cursor;  ///< the hovered moment's
  double m_pointX = -1;            ///< the operating point on the x axis (memory unit), -1: none
  QElapsedTimer m_textClock;       ///< since the formula was last set
  QTimer* m_textTimer = nullptr;   ///< sets a formula that had to wait
  bool m_dirty = true;             ///< everything must be drawn again
  bool m_liveDirty = true;         ///< the live layer must be drawn again
  QSize m_explainSize;             ///< the formula's size at the last whole replot
  QString m_explainSource;         ///< the formula before fitExplain() wrapped it
  QStringList m_highlighted;
  QStringList m_focus;  ///< setFocusCurves(); empty: every curve
};

}  // namespace throttlelab::ui
