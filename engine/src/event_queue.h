// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The discrete-event core: a binary heap of events keyed by time, ties broken by a sequence
// number so that runs are deterministic.
#include <cstdint>
#include <queue>
#include <vector>

#include "throttlelab/engine/sim_time.h"

namespace throttlelab::engine {

enum class EventKind : std::uint8_t {
  TaskStart,     ///< a task begins its first run
  TaskWake,      ///< a pause or think time ends
  CpuDone,       ///< the CPU scheduler's earliest piece of work completes
  DeviceDone,    ///< a device completes the request in service
  FlusherTimer,  ///< the periodic (kupdate) writeback timer of a device
  FlusherRun,    ///< a device's flusher has work (kicked), or its congestion wait ended
  KswapdRun,     ///< kswapd's next reclaim batch
  OomExit,       ///< an OOM victim's memory is freed
  Sample,        ///< one sample interval ends
};

struct Event {
  SimTime time{};
  std::uint64_t seq = 0;
  EventKind kind = EventKind::Sample;
  int id = 0;                 ///< task or device index
  std::uint32_t generation = 0;  ///< stale events are dropped when it no longer matches
  bool operator>(const Event& o) const { return time != o.time ? time > o.time : seq > o.seq; }
};

class EventQueue {
 public:
  void push(SimTime t, EventKind k, int id = 0, std::uint32_t gen = 0) {
    m_heap.push(Event{t, m_seq++, k, id, gen});
  }
  bool empty() const { return m_heap.empty(); }
  const Event& top() const { return m_heap.top(); }
  Event pop() {
    Event e = m_heap.top();
    m_heap.pop();
    return e;
  }
  std::size_t size() const { return m_heap.size(); }

 private:
  std::priority_queue<Event, std::vector<Event>, std::greater<>> m_heap;
  std::uint64_t m_seq = 0;
};

}  // namespace throttlelab::engine
