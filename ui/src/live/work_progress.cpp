// SPDX-License-Identifier: GPL-3.0-or-later
#include "work_progress.h"

#include <QWidget>
#include <algorithm>
#include <cmath>

namespace throttlelab::ui {

namespace {
constexpr int kSteps = 1000;  ///< the bar's resolution: tenths of a percent
}  // namespace

WorkProgress::WorkProgress(QObject* owner, Poll poll, double delayS)
    : QObject(owner), m_poll(std::move(poll)), m_delayS(delayS) {
  setObjectName(QStringLiteral("workProgress"));
  m_clock.start();
  m_timer.setInterval(kPollMs);
  connect(&m_timer, &QTimer::timeout, this, &WorkProgress::poll);
  m_timer.start();
}

WorkProgress::~WorkProgress() {
  delete m_dialog;
}

void WorkProgress::showDialog(QWidget* window, QString title) {
  m_window = window;
  m_title = std::move(title);
}

QString WorkProgress::text() const {
  return QString::fromStdString(m_meter.line());
}

double WorkProgress::fraction() const {
  return m_meter.totalS() > 0 ? std::clamp(m_meter.doneS() / m_meter.totalS(), 0.0, 1.0) : 0.0;
}

void WorkProgress::poll() {
  if (m_finished) return;
  const auto [doneS, totalS] = m_poll();
  if (totalS != m_meter.totalS()) m_meter = engine::ProgressMeter(totalS);
  m_meter.update(doneS, static_cast<double>(m_clock.elapsed()) / 1000);
  if (!m_shown) {
    // The rate means something after a few polls; the work shows once it is expected to
    // outlast the delay (or already has).
    if (!m_meter.expectedLongerThan(m_delayS, std::min(m_delayS, 0.3))) return;
    m_shown = true;
  }
  if (m_window && !m_dialog) {
    m_dialog = new QProgressDialog(m_window);
    m_dialog->setObjectName(QStringLiteral("workProgressDialog"));
    m_dialog->setWindowTitle(m_title);
    m_dialog->setWindowModality(Qt::WindowModal);
    m_dialog->setRange(0, kSteps);
    m_dialog->setMinimumDuration(0);  // the delay is ours: shown as soon as it is made
    m_dialog->setAutoClose(false);
    m_dialog->setAutoReset(false);
    m_dialog->setMinimumWidth(480);
    connect(m_dialog, &QProgressDialog::canceled, this, &WorkProgress::cancel);
  }
  const QString line = text();
  if (m_dialog) {
    m_dialog->setLabelText(m_title + QStringLiteral("\n") + line);
    m_dialog->setValue(static_cast<int>(std::lround(fraction() * kSteps)));
    m_dialog->show();
  }
  Q_EMIT updated(fraction(), line);
}

void WorkProgress::finish() {
  m_finished = true;
  m_timer.stop();
  if (m_dialog) {
    // Closed before it goes: its canceled() signal must not report a cancel now.
    m_dialog->disconnect(this);
    m_dialog->hide();
    m_dialog->deleteLater();
    m_dialog = nullptr;
  }
}

void WorkProgress::cancel() {
  if (m_finished) return;
  finish();
  Q_EMIT cancelled();
}

}  // namespace throttlelab::ui
