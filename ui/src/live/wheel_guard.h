// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The mouse wheel scrolls a panel of controls instead of changing them on the way past.
class QWidget;

namespace throttlelab::ui {

/// The spin boxes, sliders and combo boxes under `root` take the wheel only while they have
/// the keyboard focus that a click, Tab or a shortcut gave them (the wheel no longer gives it,
/// nor does a window shown): over any other, the wheel goes on to what holds them, the scroll
/// area of the Parameters panel. Scrolling that panel changed the RT priority from 50 to 35, a
/// timeline event per notch. Controls under `root` are those it has now.
void wheelOnlyWhenFocused(QWidget* root);

}  // namespace throttlelab::ui
