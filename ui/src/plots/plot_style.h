// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// What every QCustomPlot of the window does alike: whether it is on screen, how it replots,
/// how its axes take the theme.
#include <QStringList>

class QCustomPlot;
class QCPAxis;
class QCPLegend;
class QFontMetrics;
class QSplitter;

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

/// The pixels of a plot's height that are not its data area (title, legend, axes) at its
/// present width: its layout is laid out once on a tall rectangle, as a replot would.
int plotOverheadHeight(QCustomPlot* plot);

/// Gives every shown plot of `splitter` (a column of QCustomPlots) at least `minData` pixels
/// of data area where the others have them to spare, taken from those in proportion to what
/// they have over theirs. Called on every resize of the splitter by keepDataAreasOnResize().
void keepDataAreas(QSplitter* splitter, int minData);
void keepDataAreasOnResize(QSplitter* splitter, int minData);

/// `text` broken between words into lines no wider than `width` pixels where it can be (a
/// word wider than that stays whole on its line); one line if it fits or `width` is not
/// positive.
QStringList wrapWords(const QString& text, const QFontMetrics& metrics, int width);

/// The legend's font, icon size and column spacing for the theme; `compact` (a narrow plot)
/// takes shorter icons and spacing, and in presenter mode a smaller font, so that the
/// entries fit in fewer rows instead of crowding the plot.
void styleLegend(QCPLegend* legend, const Theme& theme, bool compact);

}  // namespace throttlelab::ui
