// SPDX-License-Identifier: GPL-3.0-or-later
#include "plot_id.h"

namespace throttlelab::ui {

QString plotKey(PlotId id) {
  switch (id) {
    case PlotId::DirtyPages:
      return QStringLiteral("dirty-pages");
    case PlotId::Pauses:
      return QStringLiteral("pauses");
    case PlotId::Bandwidth:
      return QStringLiteral("bandwidth");
    case PlotId::Memory:
      return QStringLiteral("memory");
    case PlotId::ThrottleCurve:
      return QStringLiteral("throttle-curve");
  }
  return {};
}

std::optional<PlotId> plotFromKey(const QString& key) {
  for (PlotId id : kAllPlots)
    if (plotKey(id) == key) return id;
  return std::nullopt;
}

QString plotTitle(PlotId id) {
  switch (id) {
    case PlotId::DirtyPages:
      return QStringLiteral("Dirty pages and limits");
    case PlotId::Pauses:
      return QStringLiteral("Throttle delays");
    case PlotId::Bandwidth:
      return QStringLiteral("Bandwidth");
    case PlotId::Memory:
      return QStringLiteral("Memory");
    case PlotId::ThrottleCurve:
      return QStringLiteral("Why tasks pause: the throttle curve");
  }
  return {};
}

}  // namespace throttlelab::ui
