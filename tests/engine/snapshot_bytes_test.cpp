// SPDX-License-Identifier: GPL-3.0-or-later
// A snapshot's size (SimulatorSnapshot::bytes(), an estimate from the state's containers)
// against what taking it really allocated: this executable counts every operator new while a
// snapshot is being made, as glibc malloc sizes it, and adds the task table, which
// allocateLargeTable() takes outside operator new. A table the estimate leaves out shows here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <new>
#include <string>

#include "heap_bytes.h"
#include "huge_page_allocator.h"
#include "task.h"
#include "throttlelab/engine/simulator.h"

namespace {

thread_local bool g_counting = false;
thread_local std::size_t g_bytes = 0;

}  // namespace

// The replaceable allocation functions, every form of them, so that no allocation made through
// one form is freed through another's (a sanitizer's runtime provides the forms left out, and
// would see its operator new met by this free). The plain, array and nothrow forms are counted,
// as libstdc++ routes them through operator new(size_t); the aligned forms are not, as there.
void* operator new(std::size_t n) {
  if (g_counting) g_bytes += throttlelab::engine::heap::chunk(n);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) {
  return ::operator new(n);
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return ::operator new(n);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t n, const std::nothrow_t& tag) noexcept {
  return ::operator new(n, tag);
}
void* operator new(std::size_t n, std::align_val_t align) {
  const auto a = static_cast<std::size_t>(align);
  if (void* p = std::aligned_alloc(a, (std::max<std::size_t>(n, 1) + a - 1) / a * a)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n, std::align_val_t align) {
  return ::operator new(n, align);
}
void* operator new(std::size_t n, std::align_val_t align, const std::nothrow_t&) noexcept {
  try {
    return ::operator new(n, align);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t n, std::align_val_t align, const std::nothrow_t& tag) noexcept {
  return ::operator new(n, align, tag);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  std::free(p);
}

namespace te = throttlelab::engine;

namespace {

struct Case {
  std::string scenario;
  int writers;  ///< 0: as the scenario has them
  double atS;
  std::string fileSystem = {};  ///< of the first device
};

class SnapshotBytes : public ::testing::TestWithParam<Case> {};

TEST_P(SnapshotBytes, TheEstimateIsWithinFivePerCentOfWhatTheCopyAllocated) {
  const Case& c = GetParam();
  te::Scenario s = te::loadScenario(c.scenario);
  if (c.writers > 0) s.tasks[0].count = c.writers;
  if (!c.fileSystem.empty()) s.devices[0].fileSystem = c.fileSystem;
  s.durationS = c.atS + 1;
  te::Simulator sim(s);
  sim.runUntil(te::atSeconds(c.atS));

  g_bytes = 0;
  g_counting = true;
  const te::SimulatorSnapshot snapshot = sim.snapshot();
  g_counting = false;
  std::size_t tasks = 0;
  for (const auto& g : s.tasks) tasks += static_cast<std::size_t>(g.count);
  const std::size_t table = te::largeTableBytes(tasks * sizeof(te::Task));
  const double allocated = static_cast<double>(g_bytes + table);

  ASSERT_GT(g_bytes, 0U);
  EXPECT_GT(static_cast<double>(snapshot.bytes()), 0.95 * allocated);
  EXPECT_LT(static_cast<double>(snapshot.bytes()), 1.05 * allocated);
}

INSTANTIATE_TEST_SUITE_P(
    Scenarios, SnapshotBytes,
    ::testing::Values(Case{"one-dd", 0, 5}, Case{"ten-dd", 0, 20}, Case{"ten-dd", 1000, 20},
                      Case{"ten-dd", 1000, 300}, Case{"thousand-dd", 0, 60},
                      Case{"container-writer", 0, 20}, Case{"ten-dd", 0, 20, "ext4"},
                      Case{"hundred-dd", 0, 30, "xfs"}),
    [](const ::testing::TestParamInfo<Case>& info) {
      std::string n = info.param.scenario + "_" + std::to_string(info.param.writers) + "_at_" +
                      std::to_string(static_cast<int>(info.param.atS)) + info.param.fileSystem;
      for (char& ch : n)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return n;
    });

}  // namespace
