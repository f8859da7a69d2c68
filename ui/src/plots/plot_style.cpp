// SPDX-License-Identifier: GPL-3.0-or-later
#include "plot_style.h"

#include <QEvent>
#include <QFontMetrics>
#include <QSplitter>
#include <QString>
#include <QTimer>
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

QStringList wrapWords(const QString& text, const QFontMetrics& metrics, int width) {
  if (width <= 0 || metrics.horizontalAdvance(text) <= width) return {text};
  QStringList lines;
  QString line;
  for (const QString& word : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
    const QString longer = line.isEmpty() ? word : line + QLatin1Char(' ') + word;
    if (!line.isEmpty() && metrics.horizontalAdvance(longer) > width) {
      lines << line;
      line = word;
    } else {
      line = longer;
    }
  }
  if (!line.isEmpty()) lines << line;
  return lines;
}

int plotOverheadHeight(QCustomPlot* plot) {
  QCPLayoutGrid* layout = plot->plotLayout();
  const auto layOut = [layout](const QRect& rect) {
    layout->setOuterRect(rect);
    for (auto phase :
         {QCPLayoutElement::upPreparation, QCPLayoutElement::upMargins, QCPLayoutElement::upLayout})
      layout->update(phase);
  };
  const QRect tall(0, 0, std::max(plot->width(), 1), 4000);
  layOut(tall);
  const int overhead = tall.height() - plot->axisRect()->rect().height();
  layOut(plot->viewport());
  return overhead;
}

void keepDataAreas(QSplitter* splitter, int minData) {
  QList<int> sizes = splitter->sizes();
  std::vector<int> need(static_cast<std::size_t>(splitter->count()), -1);
  int deficit = 0;
  int surplus = 0;
  for (int i = 0; i < splitter->count(); ++i) {
    auto* plot = qobject_cast<QCustomPlot*>(splitter->widget(i));
    if (!plot || plot->isHidden()) continue;
    const int n = plotOverheadHeight(plot) + minData;
    need[static_cast<std::size_t>(i)] = n;
    if (sizes[i] < n)
      deficit += n - sizes[i];
    else
      surplus += sizes[i] - n;
  }
  if (deficit == 0 || surplus == 0) return;
  // All the surplus when there is less of it than the deficit: every plot as near its need.
  const int moved = std::min(deficit, surplus);
  for (int i = 0; i < splitter->count(); ++i) {
    const int n = need[static_cast<std::size_t>(i)];
    if (n < 0) continue;
    int& have = sizes[i];
    if (have < n)
      have += static_cast<int>(static_cast<long long>(n - have) * moved / deficit);
    else
      have -= static_cast<int>(static_cast<long long>(have - n) * moved / surplus);
  }
  splitter->setSizes(sizes);
}

namespace {
class DataAreaKeeper : public QObject {
 public:
  DataAreaKeeper(QSplitter* splitter, int minData) : QObject(splitter), m_minData(minData) {}

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() == QEvent::Resize || event->type() == QEvent::Show) {
      auto* splitter = static_cast<QSplitter*>(watched);
      // After the splitter has laid its widgets out at the new size.
      QTimer::singleShot(0, splitter,
                         [splitter, minData = m_minData] { keepDataAreas(splitter, minData); });
    }
    return false;
  }

 private:
  int m_minData;
};
}  // namespace

void keepDataAreasOnResize(QSplitter* splitter, int minData) {
  splitter->installEventFilter(new DataAreaKeeper(splitter, minData));
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
