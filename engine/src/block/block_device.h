// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A block device (docs/model.md, The block device): a request queue of nr_requests, merging of
// adjacent pages of one file up to max_sectors_kb, one request in service at a time in FIFO order,
// a positioning cost when consecutive requests are not contiguous, and the kernel's
// congestion hysteresis.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>

#include "rng.h"
#include "stall_timeline.h"
#include "throttlelab/engine/scenario.h"
#include "throttlelab/engine/sim_time.h"
#include "throttlelab/engine/units.h"

namespace throttlelab::engine {

// Requests that are not a page-cache file's writeback carry a pseudo file number:
/// Requests of the swap area.
inline constexpr int kSwapFile = -2;
/// Requests of a file system's journal (jbd/jbd2) or log (XFS).
inline constexpr int kJournalFile = -3;
/// Uncached reads of a task (TaskSpec::readKiB).
inline constexpr int kReadFile = -4;

struct IoRequest {
  int file = -1;
  std::int64_t offset = 0;  ///< first page, in the file's writeback order (or the swap slot)
  Pages pages = 0;
  bool read = false;  ///< a read (swap-in); reads never merge with writes
  int owner = -1;     ///< swap IO: the task whose anonymous pages these are
  bool seek = false;  ///< decided when service starts
};

struct DeviceCounters {
  std::int64_t bytesRead = 0;
  std::int64_t swapBytesWritten = 0;
  std::int64_t bytesWritten = 0;
  std::int64_t requests = 0;
  std::int64_t seeks = 0;
  std::int64_t sectors = 0;
  SimDuration busy{};
};

class BlockDevice {
 public:
  BlockDevice(const DeviceConfig& config, std::uint64_t seed);
  void configure(const DeviceConfig& config);
  const DeviceConfig& config() const { return m_config; }

  /// Queues up to `pages` pages of `file` starting at `offset`, merging into the last queued
  /// request when contiguous. Stops when no request slot is left; returns the pages accepted.
  /// `extraSlots` lets a batching task (ioc_batching: one that just waited for a slot) go past
  /// nr_requests, up to 1.5 x nr_requests.
  Pages submit(int file, std::int64_t offset, Pages pages, SimTime now, int extraSlots = 0);
  /// Queues a swap request (write: swap-out, read: swap-in) for `owner`'s pages.
  /// Returns false, queueing nothing, when no request slot is left.
  bool submitSwap(std::int64_t slot, Pages pages, bool read, int owner, SimTime now);
  /// Queues a request that needs no write slot: an uncached read of task `owner` (reads have
  /// their own request pool) or a journal write (file kJournalFile). `lba` is a disk address.
  void submitOther(int file, std::int64_t lba, Pages pages, bool read, int owner, SimTime now);
  bool full() const { return allocated() >= m_config.nrRequests; }
  bool congested() const { return m_congested; }
  int allocated() const { return static_cast<int>(m_queue.size()) + (m_inService ? 1 : 0); }
  bool idle() const { return !m_inService && m_queue.empty(); }

  /// When the request in service completes, if one is and the device's stalls let it
  /// (docs/model.md, A device that stalls: none while the stalls cover the whole period).
  std::optional<SimTime> nextCompletion() const;
  /// Completes the request in service at `now` and starts the next. Returns the finished one.
  IoRequest completeCurrent(SimTime now);

  const DeviceCounters& counters() const { return m_counters; }
  /// The request in service, if any, and how many requests have started service so far
  /// (the block_rq_issue tracepoint reads them).
  const IoRequest* inService() const { return m_inService ? &*m_inService : nullptr; }
  std::int64_t issued() const { return m_issued; }
  /// Requests created by submit() so far (merges excluded).
  std::int64_t requestsCreated() const { return m_created; }
  /// Busy time including the part of the current request served so far.
  SimDuration busyUntil(SimTime now) const;

  // Who sleeps in get_request_wait() for a request slot, longest first: task numbers, or one
  // of the kernel threads below.
  static constexpr int kFlusherWaiter = -1;  ///< the device's flusher
  static constexpr int kKswapdWaiter = -2;   ///< kswapd, for a swap-out
  void waitForSlot(int waiter) { m_slotWaiters.push_back(waiter); }
  /// The longest waiter, taken off the queue, while a request slot is free; nullopt when none
  /// is free or nobody waits.
  std::optional<int> takeSlotWaiter() {
    if (m_slotWaiters.empty() || full()) return std::nullopt;
    const int waiter = m_slotWaiters.front();
    m_slotWaiters.pop_front();
    ++m_slotWakeups;
    return waiter;
  }
  const std::deque<int>& slotWaiters() const { return m_slotWaiters; }
  bool waitsForSlot(int waiter) const {
    return std::find(m_slotWaiters.begin(), m_slotWaiters.end(), waiter) != m_slotWaiters.end();
  }
  void stopWaitingForSlot(int waiter) {
    m_slotWaiters.erase(std::remove(m_slotWaiters.begin(), m_slotWaiters.end(), waiter),
                        m_slotWaiters.end());
  }
  /// Waiters taken off the queue so far.
  std::int64_t slotWakeups() const { return m_slotWakeups; }

 private:
  void startNext(SimTime now);
  /// The queued request the elevator dispatches next: the oldest under fifo; under deadline
  /// (deadline_dispatch_requests()) reads first, in batches of fifo_batch, except that writes
  /// get a batch once reads were preferred writes_starved times.
  std::size_t pickNext();
  void updateCongestion();
  SimDuration serviceTime(const IoRequest& r);

  /// The spells without completions (DeviceConfig::stalls), parsed once per configuration.
  static StallTimeline timelineOf(const DeviceConfig& config);

  DeviceConfig m_config;
  StallTimeline m_stalls;
  Rng m_rng;
  std::deque<IoRequest> m_queue;
  std::optional<IoRequest> m_inService;
  SimTime m_serviceStart{};
  SimTime m_serviceEnd{};
  bool m_deadline = false;
  bool m_batchRead = false;  ///< deadline: the direction of the batch being dispatched
  int m_batchLeft = 0;       ///< deadline: requests left in that batch
  int m_starved = 0;         ///< deadline: read batches dispatched while writes waited
  int m_lastFile = -1;
  std::int64_t m_lastEnd = -1;
  bool m_congested = false;
  std::int64_t m_created = 0;
  std::int64_t m_issued = 0;
  DeviceCounters m_counters;
  std::deque<int> m_slotWaiters;
  std::int64_t m_slotWakeups = 0;
};

}  // namespace throttlelab::engine
