// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// The permanent part of the status bar: simulated time, speed achieved, events per second.
#include <QWidget>

#include "live_batch.h"

class QLabel;

namespace throttlelab::ui {

class StatusReadout : public QWidget {
  Q_OBJECT

 public:
  explicit StatusReadout(QWidget* parent = nullptr);
  void show(const WorkerStatus& status);
  QString text() const;

 private:
  QLabel* m_time;
  QLabel* m_speed;
  QLabel* m_events;
};

}  // namespace throttlelab::ui
