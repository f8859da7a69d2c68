// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The dashboard's plots, with the stable keys sessions store them under.
#include <QString>
#include <array>
#include <optional>

namespace throttlelab::ui {

enum class PlotId { DirtyPages, Pauses, Bandwidth, Memory, ThrottleCurve, Device };

inline constexpr std::array kAllPlots = {PlotId::DirtyPages,    PlotId::Pauses,
                                         PlotId::Bandwidth,     PlotId::Memory,
                                         PlotId::ThrottleCurve, PlotId::Device};

QString plotKey(PlotId id);
std::optional<PlotId> plotFromKey(const QString& key);
QString plotTitle(PlotId id);
/// The plot a lesson names ("dirty", "curve", "pause", "bandwidth", "memory", "device";
/// docs/lessons.md), and back.
std::optional<PlotId> plotFromLessonName(const QString& name);
QString lessonPlotName(PlotId id);

}  // namespace throttlelab::ui
