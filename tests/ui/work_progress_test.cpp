// SPDX-License-Identifier: GPL-3.0-or-later
// WorkProgress: long work shows its progress and can be cancelled; short work shows nothing.
#include "work_progress.h"

#include <gtest/gtest.h>

#include <QPushButton>
#include <QTest>
#include <QWidget>

namespace throttlelab::ui {
namespace {

// Work that goes slowly (a tenth of its whole per second): shown once due, with the meter's
// line; its Cancel says so once and closes the dialog.
TEST(WorkProgress, LongWorkShowsADialogWhoseCancelStopsIt) {
  QWidget window;
  window.resize(800, 600);
  window.show();
  QElapsedTimer clock;
  clock.start();
  WorkProgress progress(
      &window,
      [&] {
        return std::pair{static_cast<double>(clock.elapsed()) / 1000 * 360, 3600.0};
      },
      0.2);
  progress.showDialog(&window, QStringLiteral("Opening the session"));
  int updates = 0, cancels = 0;
  QObject::connect(&progress, &WorkProgress::updated, [&] { ++updates; });
  QObject::connect(&progress, &WorkProgress::cancelled, [&] { ++cancels; });
  ASSERT_TRUE(
      QTest::qWaitFor([&] { return progress.dialog() && progress.dialog()->isVisible(); }, 5000));
  EXPECT_TRUE(progress.isShown());
  EXPECT_GT(updates, 0);
  EXPECT_TRUE(progress.text().contains(QStringLiteral("of 3600 s")))
      << progress.text().toStdString();
  EXPECT_TRUE(progress.dialog()->labelText().contains(QStringLiteral("Opening the session")));
  EXPECT_GT(progress.dialog()->value(), 0);
  EXPECT_LT(progress.dialog()->value(), progress.dialog()->maximum());
  auto* cancel = progress.dialog()->findChild<QPushButton*>();
  ASSERT_NE(cancel, nullptr);
  cancel->click();
  EXPECT_EQ(cancels, 1);
  EXPECT_TRUE(progress.isFinished());
  EXPECT_EQ(progress.dialog(), nullptr);
  // Nothing more once cancelled: no updates, no second cancel.
  const int before = updates;
  QTest::qWait(3 * WorkProgress::kPollMs);
  EXPECT_EQ(updates, before);
  progress.cancel();
  EXPECT_EQ(cancels, 1);
}

// Work that ends before the delay never shows, and finish() is no cancel.
TEST(WorkProgress, ShortWorkShowsNothing) {
  QWidget window;
  QElapsedTimer clock;
  clock.start();
  WorkProgress progress(
      &window,
      [&] {
        return std::pair{static_cast<double>(clock.elapsed()) / 1000 * 50, 10.0};  // 0.2 s in all
      },
      0.5);
  progress.showDialog(&window, QStringLiteral("Quick"));
  int cancels = 0;
  QObject::connect(&progress, &WorkProgress::cancelled, [&] { ++cancels; });
  QTimer::singleShot(200, &progress, &WorkProgress::finish);
  QTest::qWait(8 * WorkProgress::kPollMs);
  EXPECT_TRUE(progress.isFinished());
  EXPECT_FALSE(progress.isShown());
  EXPECT_EQ(progress.dialog(), nullptr);
  EXPECT_EQ(cancels, 0);
}

// Without a dialog (a panel's own progress row): updated() carries the fraction and the line,
// and cancel() (the panel's button) says cancelled().
TEST(WorkProgress, APanelCanShowItInItsOwnWidgets) {
  double done = 0;
  WorkProgress progress(
      nullptr,
      [&] {
        done += 10;
        return std::pair{done, 100000.0};
      },
      0.1);
  double fraction = -1;
  QString line;
  QObject::connect(&progress, &WorkProgress::updated, [&](double f, const QString& l) {
    fraction = f;
    line = l;
  });
  ASSERT_TRUE(QTest::qWaitFor([&] { return fraction >= 0; }, 5000));
  EXPECT_EQ(progress.dialog(), nullptr);
  EXPECT_GT(fraction, 0);
  EXPECT_LT(fraction, 1);
  EXPECT_TRUE(line.contains(QStringLiteral("of 100000 s"))) << line.toStdString();
  bool cancelled = false;
  QObject::connect(&progress, &WorkProgress::cancelled, [&] { cancelled = true; });
  progress.cancel();
  EXPECT_TRUE(cancelled);
}

}  // namespace
}  // namespace throttlelab::ui
