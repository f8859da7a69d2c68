// SPDX-License-Identifier: GPL-3.0-or-later
// The command line's progress line, on a clock the test moves: nothing where standard error is
// no terminal, nothing for work that ends within the delay, then one line rewritten in place
// at most five times a second, cleared at the end.
#include "terminal_progress.h"

#include <gtest/gtest.h>

#include <sstream>

namespace throttlelab::cli {
namespace {

struct Clock {
  double now = 100;
  TerminalProgress::Clock fn() {
    return [this] { return now; };
  }
};

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(TerminalProgress, NothingWhereStandardErrorIsNoTerminal) {
  std::ostringstream err;
  Clock clock;
  {
    TerminalProgress p(err, false, 1000, "", 2, clock.fn());
    for (int i = 1; i <= 100; ++i) {
      clock.now += 1;
      p.update(i * 10);
    }
    EXPECT_FALSE(p.shown());
    EXPECT_FALSE(p.callback()) << "the engine need not even call it";
  }
  EXPECT_EQ(err.str(), "");
}

TEST(TerminalProgress, NothingForWorkThatEndsWithinTheDelay) {
  std::ostringstream err;
  Clock clock;
  {
    TerminalProgress p(err, true, 1000, "", 2, clock.fn());
    for (int i = 1; i <= 10; ++i) {
      clock.now += 0.15;  // 1.5 s in all
      p.update(i * 100);
    }
  }
  EXPECT_EQ(err.str(), "");
}

TEST(TerminalProgress, OneLineRewrittenInPlaceThenCleared) {
  std::ostringstream err;
  Clock clock;
  TerminalProgress p(err, true, 1000, "--compare: ", 2, clock.fn());
  clock.now += 0.3;
  p.update(50);  // too early to tell
  EXPECT_EQ(err.str(), "");
  clock.now += 0.3;
  p.update(100);  // 100 of 1000 in 0.6 s: about 6 s in all
  ASSERT_TRUE(p.shown());
  EXPECT_EQ(err.str(),
            "\rthrottlelab: --compare: simulated 100 of 1000 s (10 %), 167× real time, about 5 s "
            "left\x1b[K");
  // Ten updates in a second: five lines at most.
  for (int i = 0; i < 10; ++i) {
    clock.now += 0.1;
    p.update(110 + i * 10);
  }
  const int lines = count(err.str(), "\rthrottlelab: ");
  EXPECT_GE(lines, 5);
  EXPECT_LE(lines, 6);
  EXPECT_EQ(err.str().find('\n'), std::string::npos) << "one line, never a new one";
  p.finish();
  EXPECT_FALSE(p.shown());
  EXPECT_EQ(err.str().substr(err.str().size() - 4), "\r\x1b[K");
}

TEST(TerminalProgress, TheEnginesWholeReplacesTheOneGiven) {
  std::ostringstream err;
  Clock clock;
  TerminalProgress p(err, true, 0, "", 0, clock.fn());
  const auto report = p.callback();
  ASSERT_TRUE(report);
  clock.now += 1;
  report(30, 120);
  EXPECT_NE(err.str().find("simulated 30 of 120 s (25 %), 30× real time, about 3 s left"),
            std::string::npos)
      << err.str();
}

TEST(TerminalProgress, TheDelayComesFromTheEnvironment) {
  ::setenv("THROTTLELAB_PROGRESS_DELAY", "0.5", 1);
  EXPECT_EQ(TerminalProgress::defaultDelayS(), 0.5);
  ::setenv("THROTTLELAB_PROGRESS_DELAY", "soon", 1);
  EXPECT_EQ(TerminalProgress::defaultDelayS(), 2);
  ::setenv("THROTTLELAB_PROGRESS_DELAY", "-1", 1);
  EXPECT_EQ(TerminalProgress::defaultDelayS(), 2);
  ::unsetenv("THROTTLELAB_PROGRESS_DELAY");
  EXPECT_EQ(TerminalProgress::defaultDelayS(), 2);
}

}  // namespace
}  // namespace throttlelab::cli
