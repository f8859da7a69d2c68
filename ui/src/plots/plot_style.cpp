// SPDX-License-Identifier: GPL-3.0-or-later
#include "plot_style.h"

#include <QFontMetrics>
#include <algorithm>
#include <vector>

#include "qcp.h"
#include "theme.h"

namespace throttlelab::ui {

bool plotIsShown(const QCustomPlot* plot) {
  return plot->isVisible() && !plot->window()->isMinimized();
}

void replotPlot(QCustomPlot* plot, bool immediate) {
  plot->replot(immediate ? QCustomPlot::rpImmediateRefresh : QCustomPlot::rpQueuedReplot);
}

void styleAxis(QCPAxis* axis, const Theme& theme) {
  QPen axisPen(theme.foreground, theme.presenter ? 2 : 1);
  axis->setBasePen(axisPen);
  axis->setTickPen(axisPen);
  axis->setSubTickPen(axisPen);
  axis->setTickLabelColor(theme.foreground);
  axis->setLabelColor(theme.foreground);
  axis->setTickLabelFont(theme.tickFont());
  axis->setLabelFont(theme.labelFont());
  axis->grid()->setPen(QPen(theme.grid, 1, Qt::DotLine));
  axis->grid()->setZeroLinePen(Qt::NoPen);
}

int wrapLegend(QCPLegend* legend, int available) {
  const QFontMetrics fm(legend->font());
  std::vector<int> widths;
  for (int i = 0; i < legend->itemCount(); ++i) {
    QCPAbstractLegendItem* item = legend->item(i);
    if (!item) continue;                     // an empty cell of the wrapped grid
    item->setMargins(QMargins(0, 0, 0, 3));  // room for underscores below the baseline
    auto* plottableItem = qobject_cast<QCPPlottableLegendItem*>(item);
    const QString name = plottableItem ? plottableItem->plottable()->name() : QString();
    widths.push_back(fm.horizontalAdvance(name) + legend->iconSize().width() +
                     legend->iconTextPadding() + legend->columnSpacing() + 4);
  }
  const int n = static_cast<int>(widths.size());
  int columns = 1;
  for (int c = n; c > 1; --c) {
    std::vector<int> column(static_cast<std::size_t>(c), 0);
    for (std::size_t i = 0; i < widths.size(); ++i) {
      int& w = column[i % static_cast<std::size_t>(c)];
      w = std::max(w, widths[i]);
    }
    int total = 0;
    for (int w : column) total += w;
    if (total <= available) {
      columns = c;
      break;
    }
  }
  if (legend->wrap() != columns) {
    legend->setWrap(columns);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);  // re-flow the items
  }
  return n == 0 ? 0 : (n + columns - 1) / columns;
}

void styleLegend(QCPLegend* legend, const Theme& theme, bool compact) {
  QFont font = theme.legendFont();
  // Presenter mode's large font can shrink; the normal one is as small as stays readable.
  if (compact && theme.presenter) font.setPointSizeF(font.pointSizeF() * 0.75);
  legend->setFont(font);
  if (compact)
    legend->setIconSize(theme.presenter ? QSize(24, 10) : QSize(16, 8));
  else
    legend->setIconSize(theme.presenter ? QSize(36, 16) : QSize(24, 10));
  legend->setColumnSpacing(compact ? 4 : 10);
}

}  // namespace throttlelab::ui
