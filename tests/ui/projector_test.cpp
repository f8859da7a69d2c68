// SPDX-License-Identifier: GPL-3.0-or-later
// The window on a teacher's projector (1280x720, 1024x768) and under a teacher's hands: the
// defects an audit of the window found, each checked where it showed (geometry, not pixels).
#include <gtest/gtest.h>

#include <QtTest/qtestspontaneevent.h>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QTableView>
#include <QTest>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <limits>

#include "compare_view.h"
#include "dashboard.h"
#include "live_controller.h"
#include "log_slider.h"
#include "memory_plot.h"
#include "parameter_panel.h"
#include "pause_plot.h"
#include "qcp.h"
#include "theme.h"
#include "trace_view.h"
#include "window_parts.h"
#include "window_rig.h"
#include "window_session.h"

namespace throttlelab::ui {
namespace {

using test::part;

// --- A session opened on a smaller screen ------------------------------------------------

/// Saved on a larger screen, or placed 20 px down (Qt keeps room for a title bar that a screen
/// without a window manager does not draw), the window came back partly off the screen: at
/// 1280x720 its status bar was below the edge.
TEST(Projector, ARestoredGeometryStaysOnTheScreen) {
  QWidget saved;
  const QRect screen = saved.screen()->availableGeometry();
  saved.setGeometry(QRect(screen.topLeft() + QPoint(30, 20), screen.size() + QSize(200, 120)));
  const QByteArray geometry = saved.saveGeometry();

  QWidget restored;
  restoreGeometryOnScreen(restored, geometry);
  EXPECT_TRUE(screen.contains(restored.frameGeometry()))
      << restored.frameGeometry().x() << "," << restored.frameGeometry().y() << " "
      << restored.frameGeometry().width() << "x" << restored.frameGeometry().height();

  // A window that fits stays where it was.
  saved.setGeometry(QRect(screen.topLeft() + QPoint(10, 20), screen.size() / 2));
  restoreGeometryOnScreen(restored, saved.saveGeometry());
  EXPECT_EQ(restored.geometry(), saved.geometry());
}

TEST(Projector, ASessionOpensWithTheStatusBarOnTheScreen) {
  test::WindowRig rig;
  MainWindow& window = *rig.window;
  const QRect screen = window.screen()->availableGeometry();
  window.setGeometry(QRect(screen.topLeft() + QPoint(0, 20), QSize(1280, 720)));
  const SessionState session = window.captureSession();
  window.setGeometry(QRect(screen.topLeft(), QSize(640, 480)));
  window.applySession(session);
  const QRect frame = window.frameGeometry();
  // No lower than the screen's bottom, unless the window cannot be that short.
  EXPECT_LE(frame.bottom(),
            std::max(screen.bottom(), screen.top() + window.minimumSizeHint().height() - 1));
  EXPECT_GE(frame.top(), screen.top());
}

}  // namespace
}  // namespace throttlelab::ui
