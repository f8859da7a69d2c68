// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// What every QCustomPlot of the window does alike: whether it is on screen, how it replots,
/// how its axes take the theme.
class QCustomPlot;
class QCPAxis;

namespace throttlelab::ui {

struct Theme;

/// Visible on screen: not hidden, not in a minimised window.
bool plotIsShown(const QCustomPlot* plot);

/// Replots at once (exports, tests) or queued to the next event-loop turn (live frames).
void replotPlot(QCustomPlot* plot, bool immediate);

/// The theme's pens, fonts and grid on one axis (no zero line).
void styleAxis(QCPAxis* axis, const Theme& theme);

}  // namespace throttlelab::ui
