// SPDX-License-Identifier: GPL-3.0-or-later
#include "status_readout.h"

#include <QHBoxLayout>
#include <QLabel>

namespace throttlelab::ui {

namespace {
QString compact(double v) {
  if (v >= 1e6) return QStringLiteral("%1 M").arg(v / 1e6, 0, 'f', 1);
  if (v >= 1e3) return QStringLiteral("%1 k").arg(v / 1e3, 0, 'f', 1);
  return QString::number(v, 'f', 0);
}
}  // namespace

StatusReadout::StatusReadout(QWidget* parent)
    : QWidget(parent),
      m_time(new QLabel(this)),
      m_speed(new QLabel(this)),
      m_events(new QLabel(this)) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(16);
  for (QLabel* l : {m_time, m_speed, m_events}) {
    l->setTextFormat(Qt::PlainText);
    layout->addWidget(l);
  }
  m_time->setMinimumWidth(m_time->fontMetrics().horizontalAdvance(QStringLiteral("t = 00000.0 s")));
  m_speed->setMinimumWidth(
      m_speed->fontMetrics().horizontalAdvance(QStringLiteral("speed 1000.0× of max (1/64)")));
  show(WorkerStatus{});
}

void StatusReadout::show(const WorkerStatus& s) {
  m_time->setText(tr("t = %1 s").arg(s.simTimeS, 0, 'f', 1));
  QString speed;
  if (!s.running) {
    speed = tr("paused");
  } else {
    const QString target =
        s.asFastAsPossible ? tr("max") : QStringLiteral("%1×").arg(s.targetSpeed);
    speed = tr("speed %1× of %2")
                .arg(s.achievedSpeed, 0, 'f', s.achievedSpeed < 10 ? 2 : 0)
                .arg(target);
    if (s.decimation > 1) speed += tr(" (1/%1)").arg(s.decimation);
  }
  m_speed->setText(speed);
  m_speed->setToolTip(
      tr("Simulated seconds per wall-clock second; (1/k): samples folded k to "
         "3 (min/max/last) so the plots keep up"));
  m_events->setText(tr("%1 events/s").arg(compact(s.eventsPerS)));
}

QString StatusReadout::text() const {
  return QStringList{m_time->text(), m_speed->text(), m_events->text()}.join(QStringLiteral(" | "));
}

}  // namespace throttlelab::ui
