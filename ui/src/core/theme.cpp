// SPDX-License-Identifier: GPL-3.0-or-later
#include "theme.h"

#include <algorithm>
#include <array>

namespace throttlelab::ui {

namespace {
// Okabe & Ito (2008), "Color Universal Design". Blue is lightened on dark backgrounds, where
// #0072B2 has too little contrast.
constexpr std::array<QRgb, 7> kOkabeItoLight = {0xE69F00, 0x56B4E9, 0x009E73, 0xC8B400,
                                                0x0072B2, 0xD55E00, 0xCC79A7};
constexpr std::array<QRgb, 7> kOkabeItoDark = {0xE69F00, 0x56B4E9, 0x1CC08F, 0xF0E442,
                                               0x4EA3E0, 0xFF7A2E, 0xE08FC0};

QColor mix(const QColor& a, const QColor& b, double t) {
  auto blend = [t](float x, float y) {
    return static_cast<float>(static_cast<double>(x) * (1 - t) + static_cast<double>(y) * t);
  };
  return QColor::fromRgbF(blend(a.redF(), b.redF()), blend(a.greenF(), b.greenF()),
                          blend(a.blueF(), b.blueF()));
}
}  // namespace

Theme Theme::fromPalette(const QPalette& palette, const QFont& baseFont, bool presenter) {
  Theme t;
  t.background = palette.color(QPalette::Base);
  t.foreground = palette.color(QPalette::Text);
  t.dark = static_cast<double>(t.background.lightnessF()) < 0.5;
  t.grid = mix(t.background, t.foreground, t.dark ? 0.22 : 0.16);
  t.subGrid = mix(t.background, t.foreground, t.dark ? 0.10 : 0.07);
  t.legendBackground = t.background;
  t.legendBackground.setAlpha(200);
  t.font = baseFont;
  t.presenter = presenter;
  t.penScale = presenter ? 2.5 : 1.0;
  if (presenter) {
    t.font.setPointSizeF(std::max(14.0, baseFont.pointSizeF() * 1.5));
  }
  return t;
}

QColor Theme::colour(SeriesColour role) const {
  if (role == SeriesColour::Grey) return mix(background, foreground, 0.55);
  // The palette tables hold the seven Okabe-Ito colours in this order.
  static constexpr std::array kPaletteRoles = {
      SeriesColour::Orange, SeriesColour::SkyBlue,    SeriesColour::Green, SeriesColour::Yellow,
      SeriesColour::Blue,   SeriesColour::Vermillion, SeriesColour::Purple};
  static_assert(kPaletteRoles.size() == kOkabeItoLight.size());
  const auto* at = std::find(kPaletteRoles.begin(), kPaletteRoles.end(), role);
  if (at == kPaletteRoles.end()) return foreground;  // SeriesColour::Foreground
  const auto& table = dark ? kOkabeItoDark : kOkabeItoLight;
  return QColor(table[static_cast<std::size_t>(at - kPaletteRoles.begin())]);
}

QColor Theme::taskColour(int i) const {
  static constexpr std::array kOrder = {
      SeriesColour::Blue,   SeriesColour::Orange,  SeriesColour::Green,  SeriesColour::Vermillion,
      SeriesColour::Purple, SeriesColour::SkyBlue, SeriesColour::Yellow, SeriesColour::Foreground};
  return colour(kOrder[static_cast<std::size_t>(i) % kOrder.size()]);
}

Qt::PenStyle Theme::taskStyle(int i) const {
  return (i / 8) % 2 == 0 ? Qt::SolidLine : Qt::DashLine;
}

QFont Theme::titleFont() const {
  QFont f = font;
  f.setPointSizeF(font.pointSizeF() * 1.1);
  f.setBold(true);
  return f;
}

QFont Theme::labelFont() const {
  return font;
}

QFont Theme::tickFont() const {
  QFont f = font;
  f.setPointSizeF(font.pointSizeF() * 0.9);
  return f;
}

QFont Theme::legendFont() const {
  QFont f = font;
  f.setPointSizeF(font.pointSizeF() * 0.9);
  return f;
}

}  // namespace throttlelab::ui
