// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Shared by the trace parser and import tests: writeback trace records compared field by
// field, and a header built from the values a trace line prints.
#include <gtest/gtest.h>

#include <cstdint>
#include <string_view>
#include <type_traits>
#include <variant>

#include "throttlelab/engine/output.h"
#include "throttlelab/engine/records.h"
#include "throttlelab/engine/tracepoints.h"

namespace throttlelab::test {

/// The header a line `COMM-PID [CPU] ..... SECONDS:` prints, with the time in nanoseconds.
inline engine::TraceHeader traceHeader(std::string_view comm, int pid, int cpu, std::int64_t ns) {
  return {engine::SimTime{engine::SimDuration{ns}}, engine::makeComm(comm), pid, cpu};
}

/// Checks that `actual` holds `expected`: the header, the device and every field the
/// tracepoint's table lists, each failure naming the field.
inline void expectSameRecord(const engine::TraceRecord& actual,
                             const engine::TraceRecord& expected) {
  ASSERT_EQ(actual.index(), expected.index()) << engine::formatTraceLine(actual);
  std::visit(
      [&](const auto& e) {
        using Record = std::decay_t<decltype(e)>;
        const auto& a = std::get<Record>(actual);
        EXPECT_EQ(a.header.time, e.header.time);
        EXPECT_EQ(a.header.comm, e.header.comm) << a.header.comm.data();
        EXPECT_EQ(a.header.pid, e.header.pid);
        EXPECT_EQ(a.header.cpu, e.header.cpu);
        if constexpr (engine::Tracepoint<Record>::kInfo.hasBdi) {
          EXPECT_EQ(a.bdi, e.bdi);
        }
        for (const auto& f : engine::Tracepoint<Record>::kFields)
          EXPECT_EQ(engine::fieldValue(a, f), engine::fieldValue(e, f)) << f.name;
      },
      expected);
}

}  // namespace throttlelab::test
