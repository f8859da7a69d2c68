// SPDX-License-Identifier: GPL-3.0-or-later
#include "standard_streams.h"

#include <fcntl.h>
#include <unistd.h>

namespace throttlelab::cli {

namespace {

/// Puts /dev/null, opened with `flags`, on descriptor `fd` if it is closed; true if it was.
bool reserve(int fd, int flags) {
  if (::fcntl(fd, F_GETFD) != -1) return false;
  // The lowest free number: `fd` itself when the ones below it are open (they are reserved
  // first). dup2() covers the case where they are not.
  const int opened = ::open("/dev/null", flags);
  if (opened >= 0 && opened != fd) {
    ::dup2(opened, fd);
    ::close(opened);
  }
  return true;
}

}  // namespace

ClosedStandardStreams reserveStandardStreams() {
  ClosedStandardStreams closed;
  closed.input = reserve(STDIN_FILENO, O_RDONLY);
  closed.output = reserve(STDOUT_FILENO, O_RDONLY);
  closed.error = reserve(STDERR_FILENO, O_WRONLY);
  return closed;
}

}  // namespace throttlelab::cli
