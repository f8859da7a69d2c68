// SPDX-License-Identifier: GPL-3.0-or-later
// A session keeps the run speed exactly. The speed control is a log slider, so a speed such as
// 2.5333 s/s is ordinary; the session writer printed six significant digits, and the speed read
// back differed from the one saved. Found by fuzz/fuzz_session.
#include <gtest/gtest.h>

#include <QJsonDocument>

#include "session_file.h"
#include "ui_test_support.h"

namespace throttlelab::ui {
namespace {

TEST(SessionFile, KeepsTheSpeedExactly) {
  for (const double speed : {38.0 / 15.0, 0.1 * 3, 1000.0 / 7.0, 1.0}) {
    SessionState state;
    state.scenario = test::builtin("default");
    state.speed = speed;
    const QByteArray json = QJsonDocument(SessionFile::toJson(state)).toJson();
    const SessionFile::ReadResult read = SessionFile::fromJson(json, QStringLiteral("speed.json"));
    ASSERT_TRUE(read.state) << read.error.toStdString();
    EXPECT_EQ(read.state->speed, speed) << json.toStdString();
  }
}

}  // namespace
}  // namespace throttlelab::ui
