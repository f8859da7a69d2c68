// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The discrete-event core: a calendar queue of events keyed by time, ties broken by a sequence
// number so that runs are deterministic.
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "heap_bytes.h"
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
  JournalTimer,  ///< a device's journal: the running transaction's commit is due (id = device)
};

struct Event {
  SimTime time{};
  std::uint64_t seq = 0;
  EventKind kind = EventKind::Sample;
  int id = 0;                    ///< task or device index
  std::uint32_t generation = 0;  ///< stale events are dropped when it no longer matches
  bool operator>(const Event& o) const { return time != o.time ? time > o.time : seq > o.seq; }
};

class EventQueue {
 public:
  // A calendar of ~1 ms slots instead of a heap. With 10,000 writers the queue holds ~10^4
  // events and every wake is a pop and a push: a heap pays log N moves and compares for each
  // (28 % of ioless-3.2's instructions with a 4-ary heap). Here a push appends to its slot and
  // a pop takes the next element of the current slot, which is sorted once when it becomes
  // current, and only if pushes arrived out of time order (wakes after equal pauses arrive in
  // order). Events beyond the calendar's horizon wait in a small heap. The pop order is the
  // same total order on (time, seq) as a heap's, and seq is unique, so runs are unchanged.
  // Events pushed into the current slot after it was sorted (wake-ups "now", CPU completions)
  // go to a small heap beside it, so that waking thousands of tasks at once stays cheap.
  void push(SimTime t, EventKind k, int id = 0, std::uint32_t gen = 0) {
    const Event e{t, m_seq++, k, id, gen};
    const std::int64_t slot = slotOf(t);
    if (slot <= m_current) {
      m_late.push_back(e);
      std::push_heap(m_late.begin(), m_late.end(), later);
    } else if (slot < m_current + static_cast<std::int64_t>(kSlots)) {
      toRing(slot, e);
    } else {
      m_far.push_back(e);
      std::push_heap(m_far.begin(), m_far.end(), later);
    }
    ++m_size;
    if (activeEmpty() && m_late.empty()) advance();
  }
  bool empty() const { return m_size == 0; }
  const Event& top() const { return fromLate() ? m_late.front() : m_active[m_head]; }
  Event pop() {
    Event e;
    if (fromLate()) {
      std::pop_heap(m_late.begin(), m_late.end(), later);
      e = m_late.back();
      m_late.pop_back();
    } else {
      e = m_active[m_head++];
    }
    --m_size;
    if (activeEmpty() && m_late.empty() && m_size > 0) advance();
    return e;
  }
  std::size_t size() const { return m_size; }
  /// What a copy of the queue holds on the heap (heap_bytes.h): every slot's vector.
  std::size_t heapBytes() const {
    std::size_t bytes = heap::of(m_active) + heap::of(m_late) + heap::of(m_far);
    for (const auto& slot : m_ring) bytes += heap::of(slot);
    return bytes;
  }
  /// The event `ahead` places after the next one in the current slot, if the slot holds it
  /// (a hint for prefetching: an event pushed meanwhile may still come first).
  const Event* peekAhead(std::size_t ahead) const {
    return m_head + ahead < m_active.size() ? &m_active[m_head + ahead] : nullptr;
  }

 private:
  static constexpr int kSlotShift = 20;       ///< 2^20 ns ~ 1 ms per slot
  static constexpr std::size_t kSlots = 256;  ///< ~270 ms of calendar
  static constexpr std::size_t kKeepCapacity = 256;
  static std::int64_t slotOf(SimTime t) { return t.time_since_epoch().count() >> kSlotShift; }
  struct Later {  // a type, not a function pointer, so that sort and the heaps inline it
    bool operator()(const Event& a, const Event& b) const {
      return a.time != b.time ? a.time > b.time : a.seq > b.seq;
    }
  };
  static constexpr Later later{};
  struct Earlier {
    bool operator()(const Event& a, const Event& b) const { return later(b, a); }
  };
  static constexpr Earlier earlier{};

  bool activeEmpty() const { return m_head == m_active.size(); }

  /// Whether the earliest event is in m_late rather than m_active (one of them is non-empty).
  bool fromLate() const {
    if (m_late.empty()) return false;
    return activeEmpty() || later(m_active[m_head], m_late.front());
  }

  /// Appends to a slot of the ring, noting whether the slot is still in time order.
  void toRing(std::int64_t slot, const Event& e) {
    const auto i = static_cast<std::size_t>(slot) % kSlots;
    auto& bucket = m_ring[i];
    if (!bucket.empty() && earlier(e, bucket.back())) m_unsorted[i] = true;
    bucket.push_back(e);
    ++m_inRing;
  }

  /// Makes the next non-empty slot current (the current one is empty, some event is queued).
  void advance() {
    // The emptied slot's buffer goes back into the ring: keep it only if it is small, or a
    // burst (10,000 tasks started in the same millisecond) would leave every slot that size.
    // A slot may keep room for an eighth of the queue: 10,000 writers pausing 20 ms put ~500
    // events in each slot, and freeing and regrowing those buffers every millisecond cost more
    // than the sort. At most 256 x (size / 8) events of room are held, bounded by the queue.
    m_active.clear();
    m_head = 0;
    if (m_active.capacity() > std::max(kKeepCapacity, m_size / 8))
      std::vector<Event>().swap(m_active);
    for (;;) {
      if (m_inRing == 0) {
        m_current = slotOf(m_far.front().time);  // nothing nearer: jump to the far heap's first
      } else {
        ++m_current;
      }
      while (!m_far.empty() &&
             slotOf(m_far.front().time) < m_current + static_cast<std::int64_t>(kSlots)) {
        std::pop_heap(m_far.begin(), m_far.end(), later);
        toRing(slotOf(m_far.back().time), m_far.back());
        m_far.pop_back();
      }
      const auto i = static_cast<std::size_t>(m_current) % kSlots;
      auto& bucket = m_ring[i];
      if (!bucket.empty()) {
        m_active.swap(bucket);
        m_inRing -= m_active.size();
        if (m_unsorted[i]) std::sort(m_active.begin(), m_active.end(), earlier);
        m_unsorted[i] = false;
        return;
      }
    }
  }

  std::vector<Event> m_active;                    ///< the current slot, earliest first
  std::size_t m_head = 0;                         ///< the next event of m_active
  std::vector<Event> m_late;                      ///< pushed into the current slot since (a heap)
  std::array<std::vector<Event>, kSlots> m_ring;  ///< slots after the current one
  std::array<bool, kSlots> m_unsorted{};          ///< a slot received a push out of time order
  std::vector<Event> m_far;                       ///< beyond the ring (a heap, earliest on top)
  std::int64_t m_current = 0;                     ///< the current slot's number
  std::size_t m_inRing = 0;
  std::size_t m_size = 0;
  std::uint64_t m_seq = 0;
};

}  // namespace throttlelab::engine
