// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Colours, fonts and line widths of the plots, derived from the widget palette so the plots
/// follow light and dark themes. Series colours are the Okabe–Ito palette (colour-blind safe).
#include <QColor>
#include <QFont>
#include <QPalette>

namespace throttlelab::ui {

/// A series colour by role; the same role always means the same hue on every plot.
enum class SeriesColour {
  Foreground,
  Orange,
  SkyBlue,
  Green,
  Yellow,
  Blue,
  Vermillion,
  Purple,
  Grey
};

struct Theme {
  QColor background;  ///< plot background (the palette's Base)
  QColor foreground;  ///< axes, text, the "total" series
  QColor grid;
  QColor subGrid;
  QColor legendBackground;
  QFont font;           ///< base font of tick labels and legends
  double penScale = 1;  ///< multiplies every series pen width (presenter mode: thicker)
  bool dark = false;
  bool presenter = false;

  static Theme fromPalette(const QPalette& palette, const QFont& baseFont, bool presenter);

  QColor colour(SeriesColour role) const;
  /// Colour and dash for the i-th per-task curve (8 hues × 2 dash patterns).
  QColor taskColour(int i) const;
  Qt::PenStyle taskStyle(int i) const;
  QFont titleFont() const;
  QFont labelFont() const;
  QFont tickFont() const;
  QFont legendFont() const;
};

}  // namespace throttlelab::ui
