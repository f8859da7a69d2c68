// SPDX-License-Identifier: GPL-3.0-or-later
// The QApplication every ui test needs, created offscreen before the first test runs.
// (gtest_main is linked by the test helper, so a global test environment does this.)
#include <gtest/gtest.h>
#include <QApplication>
#include <memory>

namespace {

class QtEnvironment final : public ::testing::Environment {
 public:
  void SetUp() override {
    qputenv("QT_QPA_PLATFORM", "offscreen");
    static int argc = 1;
    static char name[] = "throttlelab-ui-test";
    static char* argv[] = {name, nullptr};
    m_app = std::make_unique<QApplication>(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("ThrottleLabTests"));
    QApplication::setApplicationName(QStringLiteral("ThrottleLabTests"));
  }
  void TearDown() override { m_app.reset(); }

 private:
  std::unique_ptr<QApplication> m_app;
};

[[maybe_unused]] ::testing::Environment* const kQtEnvironment =
    ::testing::AddGlobalTestEnvironment(new QtEnvironment);

}  // namespace
