// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
/// Long work in the window (a session's branch run again; a lesson's step), counted in simulated
/// seconds: once it is expected to take more than a moment (kDelayS), it says how far it has got
/// with the line the command line prints on a terminal (simulated time done of the whole, the
/// speed, an estimate of the time left: engine::ProgressMeter) and offers Cancel. Work that ends
/// sooner shows nothing. The work runs elsewhere (the simulation worker's thread, a
/// BackgroundJob); WorkProgress polls it on the GUI thread.
///
/// Two ways to show it: a dialog over the window (showDialog(): opening a session), or the
/// caller's own widgets (a panel's progress row) fed by updated() and cancelling through cancel().
#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QProgressDialog>
#include <QString>
#include <QTimer>
#include <functional>
#include <utility>

#include "throttlelab/engine/progress.h"

class QWidget;

namespace throttlelab::ui {

class WorkProgress final : public QObject {
  Q_OBJECT

 public:
  /// Simulated seconds done and the whole, as the work stands now.
  using Poll = std::function<std::pair<double, double>()>;
  /// How long work must be expected to take before it is shown (wall-clock seconds).
  static constexpr double kDelayS = 0.5;
  /// Polls this often (milliseconds).
  static constexpr int kPollMs = 100;

  /// Starts polling. `owner` owns it (deleting it ends the polling).
  WorkProgress(QObject* owner, Poll poll, double delayS = kDelayS);
  ~WorkProgress() override;

  /// Shows it as a dialog over `window`, titled `title`, with a bar and Cancel, once it is due.
  void showDialog(QWidget* window, QString title);
  /// The work ended: stops polling and closes the dialog. Says nothing (no cancelled()).
  void finish();
  /// The user cancelled (the dialog's button, or a panel's own): finishes and emits cancelled().
  void cancel();

  /// Whether it is being shown (the work was expected to last more than the delay).
  bool isShown() const { return m_shown; }
  bool isFinished() const { return m_finished; }
  /// The dialog, while it is shown (for tests and scripted figures); null otherwise.
  QProgressDialog* dialog() const { return m_dialog; }
  /// The line shown (the meter's), as of the last poll.
  QString text() const;
  /// Done of the whole, 0 … 1, as of the last poll.
  double fraction() const;

 Q_SIGNALS:
  /// Each poll once it is due: how far the work has got, and the line to show.
  void updated(double fraction, const QString& line);
  /// The user pressed Cancel (or closed the dialog): the work should stop where it is.
  void cancelled();

 private:
  void poll();

  Poll m_poll;
  double m_delayS;
  QTimer m_timer;
  QElapsedTimer m_clock;
  engine::ProgressMeter m_meter{0};
  QPointer<QWidget> m_window;
  QString m_title;
  QPointer<QProgressDialog> m_dialog;
  bool m_shown = false;
  bool m_finished = false;
};

}  // namespace throttlelab::ui
