// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Shared by the command-line and host suites: a directory of its own for each test.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <utility>

namespace throttlelab::test {

/// A fixture whose every test gets an empty directory, `PREFIX-PID-TESTNAME` in the temporary
/// directory, removed after the test.
class TestDirFixture : public ::testing::Test {
 protected:
  explicit TestDirFixture(std::string prefix) : m_prefix(std::move(prefix)) {}
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    m_dir = std::filesystem::temp_directory_path() /
            (m_prefix + "-" + std::to_string(::getpid()) + "-" + info->name());
    std::filesystem::remove_all(m_dir);
    std::filesystem::create_directories(m_dir);
  }
  void TearDown() override { std::filesystem::remove_all(m_dir); }

  std::filesystem::path m_dir;

 private:
  std::string m_prefix;
};

}  // namespace throttlelab::test
