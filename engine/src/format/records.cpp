// SPDX-License-Identifier: GPL-3.0-or-later
// Small helpers of the record types (records.h).
#include "throttlelab/engine/records.h"

#include <algorithm>

namespace throttlelab::engine {

Comm makeComm(std::string_view name) {
  // TASK_COMM_LEN is 16 including the terminating NUL: the kernel keeps 15 characters.
  Comm comm{};
  const std::size_t n = std::min(name.size(), comm.size() - 1);
  std::copy_n(name.begin(), n, comm.begin());
  return comm;
}

std::string_view toString(TaskState s) {
  switch (s) {
    case TaskState::NotStarted:
      return "not_started";
    case TaskState::Running:
      return "running";
    case TaskState::Runnable:
      return "runnable";
    case TaskState::Paused:
      return "paused";
    case TaskState::IoWait:
      return "io_wait";
    case TaskState::Thinking:
      return "thinking";
    case TaskState::Exited:
      return "exited";
  }
  return "unknown";
}

}  // namespace throttlelab::engine
