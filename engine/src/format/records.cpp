// SPDX-License-Identifier: GPL-3.0-or-later
// Small helpers of the record types (records.h).
#include "throttlelab/engine/records.h"

#include <algorithm>

#include "throttlelab/engine/enum_names.h"

namespace throttlelab::engine {

Comm makeComm(std::string_view name) {
  // TASK_COMM_LEN is 16 including the terminating NUL: the kernel keeps 15 characters.
  Comm comm{};
  const std::size_t n = std::min(name.size(), comm.size() - 1);
  std::copy_n(name.begin(), n, comm.begin());
  return comm;
}

std::string_view toString(TaskState s) {
  static constexpr EnumName<TaskState> kNames[] = {
      {TaskState::NotStarted, "not_started"}, {TaskState::Running, "running"},
      {TaskState::Runnable, "runnable"},      {TaskState::Paused, "paused"},
      {TaskState::IoWait, "io_wait"},         {TaskState::Thinking, "thinking"},
      {TaskState::Exited, "exited"}};
  return nameOf(s, kNames, "unknown");
}

}  // namespace throttlelab::engine
