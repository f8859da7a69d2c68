// SPDX-License-Identifier: GPL-3.0-or-later
#include "plot_id.h"

namespace throttlelab::ui {

namespace {
struct PlotNames {
  PlotId id;
  const char* key;     ///< sessions store the plot under it
  const char* title;   ///< the plot's title on the dashboard
  const char* lesson;  ///< lessons name it so (engine::lessonPlotNames())
};
constexpr PlotNames kPlotNames[] = {
    {PlotId::DirtyPages, "dirty-pages", "Dirty pages and limits", "dirty"},
    {PlotId::Pauses, "pauses", "Throttle delays", "pause"},
    {PlotId::Bandwidth, "bandwidth", "Bandwidth", "bandwidth"},
    {PlotId::Memory, "memory", "Memory", "memory"},
    {PlotId::ThrottleCurve, "throttle-curve", "Why tasks pause: the throttle curve", "curve"},
    {PlotId::Device, "device", "The disk: seeks, request size, queue", "device"},
};

const PlotNames* namesOf(PlotId id) {
  for (const PlotNames& n : kPlotNames)
    if (n.id == id) return &n;
  return nullptr;
}
}  // namespace

QString plotKey(PlotId id) {
  const PlotNames* n = namesOf(id);
  return n ? QString::fromUtf8(n->key) : QString();
}

std::optional<PlotId> plotFromKey(const QString& key) {
  for (PlotId id : kAllPlots)
    if (plotKey(id) == key) return id;
  return std::nullopt;
}

QString plotTitle(PlotId id) {
  const PlotNames* n = namesOf(id);
  return n ? QString::fromUtf8(n->title) : QString();
}

std::optional<PlotId> plotFromLessonName(const QString& name) {
  for (const PlotNames& n : kPlotNames)
    if (name == QLatin1String(n.lesson)) return n.id;
  return std::nullopt;
}

QString lessonPlotName(PlotId id) {
  const PlotNames* n = namesOf(id);
  return n ? QString::fromUtf8(n->lesson) : QString();
}

}  // namespace throttlelab::ui
