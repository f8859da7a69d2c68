// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// What every QCustomPlot of the window does alike: whether it is on screen, how it replots,
/// how its axes take the theme.
class QCustomPlot;
class QCPAxis;
class QCPLegend;

namespace throttlelab::ui {

struct Theme;

/// Visible on screen: not hidden, not in a minimised window.
bool plotIsShown(const QCustomPlot* plot);

/// Replots at once (exports, tests) or queued to the next event-loop turn (live frames).
void replotPlot(QCustomPlot* plot, bool immediate);

/// The theme's pens, fonts and grid on one axis (no zero line).
void styleAxis(QCPAxis* axis, const Theme& theme);

/// Lays the legend's entries out in as many columns as fit in `available` pixels, each column
/// as wide as its widest entry, and returns the number of rows that takes.
int wrapLegend(QCPLegend* legend, int available);

/// The legend's font, icon size and column spacing for the theme; `compact` (a narrow plot)
/// takes shorter icons and spacing, and in presenter mode a smaller font, so that the
/// entries fit in fewer rows instead of crowding the plot.
void styleLegend(QCPLegend* legend, const Theme& theme, bool compact);

}  // namespace throttlelab::ui
