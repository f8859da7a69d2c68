// SPDX-License-Identifier: GPL-3.0-or-later
#include "plot_style.h"

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

}  // namespace throttlelab::ui
