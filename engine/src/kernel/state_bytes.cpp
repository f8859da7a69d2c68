// SPDX-License-Identifier: GPL-3.0-or-later
// The size of a snapshot: what a copy of the kernel's state holds, in bytes. An estimate from
// the containers' element counts and their layout (heap_bytes.h), not a count of allocations:
// it counts every table that grows with the tasks, files, devices, events and extents (the
// task table as allocateLargeTable() maps it), and of the parts of fixed size their sizeof.
// Left out: the scenario's strings inside its task and device specs, the per-device request
// queues' and waiter lists' elements beyond their count, and the throttle policy object (a
// few hundred bytes). tests/engine/snapshot_bytes_test.cpp holds it to the allocator's own
// count of a copy; bench/snapshot_bench.cpp prints it beside the resident memory a copy adds.
#include "huge_page_allocator.h"
#include "kernel.h"

namespace throttlelab::engine {

std::size_t CachedFile::heapBytes() const {
  return heap::of(m_runs);
}

namespace {

std::size_t scenarioBytes(const Scenario& s) {
  std::size_t bytes = heap::of(s.devices) + heap::of(s.tasks) + heap::of(s.cgroups) +
                      heap::of(s.name) + heap::of(s.description);
  for (const auto& d : s.devices) bytes += heap::of(d.stalls);
  return bytes;
}

std::size_t deviceBytes(const DeviceState& d, std::size_t files) {
  std::size_t bytes = heap::chunk(sizeof(DeviceState)) + d.flusher.heapBytes() +
                      heap::of(d.device.slotWaiters()) + heap::of(d.congestionWaiters);
  // The request queue (a deque of IoRequest), from the requests allocated on the device.
  const std::size_t queued = static_cast<std::size_t>(std::max(0, d.device.allocated()));
  bytes += heap::chunk(512) * (queued * sizeof(IoRequest) / 512 + 1) + heap::chunk(8 * 8);
  // The file system's extents: a vector per file id up to the last it allocated for (at most
  // every file), with a block of its extents each.
  if (const auto extents = static_cast<std::size_t>(d.fs.extentCount()); extents > 0)
    bytes += extents * sizeof(Extent) + files * (sizeof(std::vector<Extent>) + 16);
  return bytes + d.fs.regionBytes();
}

}  // namespace

std::size_t Kernel::stateBytes() const {
  std::size_t bytes = 0;
  bytes += largeTableBytes(m_tasks.capacity() * sizeof(Task));
  bytes += heap::of(m_infos) + m_writers.heapBytes() + heap::of(m_files) + heap::of(m_groupAlive) +
           heap::of(m_wbMemo) + heap::of(m_devices) + m_memcg.heapBytes();
  for (const CachedFile& f : m_files) bytes += f.heapBytes();
  for (const auto& d : m_devices) bytes += deviceBytes(*d, m_files.size());
  bytes += heap::of(m_runEvents);
  for (const RunEvent& e : m_runEvents) bytes += heap::of(e.text);
  bytes += m_queue.heapBytes() + m_cpu.heapBytes() + scenarioBytes(m_scenario);
  // The page allocator's lists hold at most one entry per task and per file.
  bytes += heap::chunk(m_tasks.size() * sizeof(int)) + heap::chunk(m_files.size() * sizeof(int));
  return bytes;
}

}  // namespace throttlelab::engine
