// SPDX-License-Identifier: GPL-3.0-or-later
#include "log2_ticker.h"

#include <cmath>

#include "qcp.h"

namespace throttlelab::ui {

namespace {
class Log2Ticker : public QCPAxisTickerLog {
 protected:
  QString getTickLabel(double tick, const QLocale& locale, QChar, int) override {
    if (tick >= 1) return locale.toString(std::round(tick), 'f', 0);
    return QStringLiteral("1/%1").arg(std::round(1 / tick), 0, 'f', 0);
  }
};
}  // namespace

void makeLog2Axis(QCPAxis* axis) {
  axis->setScaleType(QCPAxis::stLogarithmic);
  QSharedPointer<Log2Ticker> ticker(new Log2Ticker);
  ticker->setLogBase(2);
  ticker->setSubTickCount(0);
  axis->setTicker(ticker);
}

}  // namespace throttlelab::ui
