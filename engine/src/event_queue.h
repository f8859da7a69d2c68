// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The discrete-event core: a heap of events keyed by time, ties broken by a sequence
// number so that runs are deterministic.
#include <cstdint>
#include <algorithm>
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
  // A 4-ary min-heap on (time, seq): the same total order as a binary heap (seq is unique, so
  // the pop order is exactly the same), but half as deep, and a node's four children share
  // two cache lines. With 10,000 sleeping writers the queue holds ~10^4 events and every wake
  // is a pop and a push, so its depth is most of the queue's cost.
  void push(SimTime t, EventKind k, int id = 0, std::uint32_t gen = 0) {
    const Event e{t, m_seq++, k, id, gen};
    std::size_t i = m_heap.size();
    m_heap.push_back(e);
    while (i > 0) {
      const std::size_t parent = (i - 1) / kArity;
      if (!before(e, m_heap[parent])) break;
      m_heap[i] = m_heap[parent];
      i = parent;
    }
    m_heap[i] = e;
  }
  bool empty() const { return m_heap.empty(); }
  const Event& top() const { return m_heap.front(); }
  Event pop() {
    const Event result = m_heap.front();
    const Event last = m_heap.back();
    m_heap.pop_back();
    const std::size_t n = m_heap.size();
    if (n > 0) {
      std::size_t i = 0;
      for (;;) {
        const std::size_t first = kArity * i + 1;
        if (first >= n) break;
        const std::size_t end = std::min(first + kArity, n);
        std::size_t best = first;
        for (std::size_t c = first + 1; c < end; ++c)
          if (before(m_heap[c], m_heap[best])) best = c;
        if (!before(m_heap[best], last)) break;
        m_heap[i] = m_heap[best];
        i = best;
      }
      m_heap[i] = last;
    }
    return result;
  }
  std::size_t size() const { return m_heap.size(); }

 private:
  static constexpr std::size_t kArity = 4;
  static bool before(const Event& a, const Event& b) {
    return a.time != b.time ? a.time < b.time : a.seq < b.seq;
  }
  std::vector<Event> m_heap;
  std::uint64_t m_seq = 0;
};

}  // namespace throttlelab::engine
