// SPDX-License-Identifier: GPL-3.0-or-later
// The command line's stream over a file descriptor (output_file.h): everything arrives in order,
// and a failed write is remembered with its errno.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <ostream>
#include <string>

#include "output_file.h"

namespace throttlelab::cli {
namespace {

TEST(FdStreamBuf, RemembersWhyAWriteFailed) {
  const int fd = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
  if (fd < 0) GTEST_SKIP() << "no /dev/full";
  FdStreamBuf buffer(fd, 16);
  std::ostream out(&buffer);
  out << "more than sixteen bytes, so that it must be written";
  out.flush();
  EXPECT_FALSE(out);
  EXPECT_EQ(buffer.error(), ENOSPC);
  EXPECT_EQ(standardOutputFailure(out), "No space left on device");
  ::close(fd);
}

TEST(FdStreamBuf, WritesEverythingInOrder) {
  int pipeFds[2];
  ASSERT_EQ(::pipe(pipeFds), 0);
  std::string expected;
  {
    FdStreamBuf buffer(pipeFds[1], 8);
    std::ostream out(&buffer);
    for (int i = 0; i < 200; ++i) {
      const std::string piece = std::to_string(i) + (i % 7 == 0 ? std::string(20, 'x') : ",");
      out << piece;
      expected += piece;
    }
    out.flush();
    EXPECT_TRUE(out);
    EXPECT_FALSE(standardOutputFailure(out));
  }
  ::close(pipeFds[1]);
  std::string got;
  char chunk[256];
  for (ssize_t n; (n = ::read(pipeFds[0], chunk, sizeof chunk)) > 0;)
    got.append(chunk, static_cast<std::size_t>(n));
  ::close(pipeFds[0]);
  EXPECT_EQ(got, expected);
}

}  // namespace
}  // namespace throttlelab::cli
