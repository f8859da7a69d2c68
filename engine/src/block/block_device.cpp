// SPDX-License-Identifier: GPL-3.0-or-later
#include "block_device.h"

#include <algorithm>
#include <cmath>

namespace throttlelab::engine {

BlockDevice::BlockDevice(const DeviceConfig& config, std::uint64_t seed)
    : m_config(config),
      m_stalls(timelineOf(config)),
      m_rng(seed),
      m_deadline(config.elevator == "deadline") {}

StallTimeline BlockDevice::timelineOf(const DeviceConfig& config) {
  std::vector<Stall> stalls;
  // The scenario was validated; a timeline that does not parse is treated as none.
  if (config.stalls.empty() || !parseStalls(config.stalls, config.stallPeriodS, &stalls, nullptr))
    return {};
  return StallTimeline(std::move(stalls), seconds(config.stallPeriodS));
}

void BlockDevice::configure(const DeviceConfig& config) {
  // A new timeline applies to the requests that start after it; the one in service keeps the
  // completion time it was given.
  if (config.stalls != m_config.stalls || config.stallPeriodS != m_config.stallPeriodS)
    m_stalls = timelineOf(config);
  m_config = config;
  m_deadline = config.elevator == "deadline";
  updateCongestion();
}

Pages BlockDevice::submit(int file, std::int64_t offset, Pages pages, SimTime now, int extraSlots) {
  const int limit = m_config.nrRequests + std::clamp(extraSlots, 0, m_config.nrRequests / 2);
  const Pages maxPages = std::max<Pages>(1, m_config.maxRequestKiB / 4);
  Pages accepted = 0;
  while (accepted < pages) {
    const std::int64_t off = offset + accepted;
    // Back merge into the newest queued request (not the one in service).
    if (!m_queue.empty()) {
      auto& tail = m_queue.back();
      if (!tail.read && tail.file == file && tail.offset + tail.pages == off &&
          tail.pages < maxPages) {
        const Pages take = std::min(pages - accepted, maxPages - tail.pages);
        tail.pages += take;
        accepted += take;
        continue;
      }
    }
    if (allocated() >= limit) break;
    const Pages take = std::min(pages - accepted, maxPages);
    m_queue.push_back(IoRequest{.file = file, .offset = off, .pages = take});
    ++m_created;
    accepted += take;
    updateCongestion();
  }
  if (!m_inService) startNext(now);
  return accepted;
}

bool BlockDevice::submitSwap(std::int64_t slot, Pages pages, bool read, int owner, SimTime now) {
  if (!read && !m_queue.empty()) {  // back merge of a streaming swap-out
    auto& tail = m_queue.back();
    const Pages maxPages = std::max<Pages>(1, m_config.maxRequestKiB / 4);
    if (!tail.read && tail.file == kSwapFile && tail.owner == owner &&
        tail.offset + tail.pages == slot && tail.pages + pages <= maxPages) {
      tail.pages += pages;
      return true;
    }
  }
  if (full()) return false;
  m_queue.push_back(
      IoRequest{.file = kSwapFile, .offset = slot, .pages = pages, .read = read, .owner = owner});
  updateCongestion();
  if (!m_inService) startNext(now);
  return true;
}

void BlockDevice::submitOther(int file, std::int64_t lba, Pages pages, bool read, int owner,
                              SimTime now) {
  m_queue.push_back(
      IoRequest{.file = file, .offset = lba, .pages = pages, .read = read, .owner = owner});
  ++m_created;
  updateCongestion();
  if (!m_inService) startNext(now);
}

std::size_t BlockDevice::pickNext() {
  if (!m_deadline) return 0;
  // deadline-iosched.c defaults: fifo_batch 16, writes_starved 2. (read_expire and
  // write_expire order requests within a direction, which here is arrival order anyway.)
  constexpr int kFifoBatch = 16;
  constexpr int kWritesStarved = 2;
  std::size_t firstRead = m_queue.size(), firstWrite = m_queue.size();
  for (std::size_t i = 0; i < m_queue.size(); ++i) {
    if (m_queue[i].read) {
      if (firstRead == m_queue.size()) firstRead = i;
    } else if (firstWrite == m_queue.size()) {
      firstWrite = i;
    }
    if (firstRead < m_queue.size() && firstWrite < m_queue.size()) break;
  }
  const bool haveRead = firstRead < m_queue.size();
  const bool haveWrite = firstWrite < m_queue.size();
  if (m_batchLeft > 0 && (m_batchRead ? haveRead : haveWrite)) {
    --m_batchLeft;
    return m_batchRead ? firstRead : firstWrite;
  }
  if (haveRead && (!haveWrite || m_starved < kWritesStarved)) {
    if (haveWrite) ++m_starved;
    m_batchRead = true;
  } else {
    m_starved = 0;
    m_batchRead = false;
  }
  m_batchLeft = kFifoBatch - 1;
  return m_batchRead ? firstRead : firstWrite;
}

SimDuration BlockDevice::serviceTime(const IoRequest& r) {
  const double bytes = static_cast<double>(r.pages * kPageBytes);
  const double mbps = r.read && m_config.readMBps > 0 ? m_config.readMBps : m_config.writeMBps;
  double s = bytes / (mbps * 1e6);
  if (r.seek) s += m_config.seekMs * 1e-3 * m_rng.uniform(0.5, 1.5);
  return SimDuration{static_cast<std::int64_t>(std::ceil(s * 1e9))};
}

void BlockDevice::startNext(SimTime now) {
  if (m_queue.empty()) return;
  const std::size_t at = pickNext();
  IoRequest r = m_queue[at];
  m_queue.erase(m_queue.begin() + static_cast<std::ptrdiff_t>(at));
  // Positioning is needed unless this request starts where the last one ended on disk.
  r.seek = !(r.offset == m_lastEnd && !r.read && r.file != kSwapFile && m_lastFile != kSwapFile) &&
           !(r.file == kSwapFile && m_lastFile == kSwapFile && r.offset == m_lastEnd && !r.read);
  // A task's uncached reads: one readahead window after another, contiguous on disk.
  if (r.file == kReadFile && m_lastFile == kReadFile && r.offset == m_lastEnd) r.seek = false;
  m_serviceStart = now;
  // Eq. 65: the service makes no progress while the device stalls.
  m_serviceEnd = m_stalls.finishAfter(now, serviceTime(r));
  m_inService = r;
  ++m_issued;
}

std::optional<SimTime> BlockDevice::nextCompletion() const {
  if (!m_inService || m_serviceEnd == SimTime::max()) return std::nullopt;
  return m_serviceEnd;
}

IoRequest BlockDevice::completeCurrent(SimTime now) {
  IoRequest r = *m_inService;
  m_inService.reset();
  if (r.read) {
    m_counters.bytesRead += r.pages * kPageBytes;
  } else {
    m_counters.bytesWritten += r.pages * kPageBytes;
    if (r.file == kSwapFile) m_counters.swapBytesWritten += r.pages * kPageBytes;
  }
  m_counters.sectors += r.pages * (kPageBytes / 512);
  m_counters.requests += 1;
  if (r.seek) m_counters.seeks += 1;
  m_counters.busy += now - m_serviceStart;
  m_lastFile = r.file;
  m_lastEnd = r.offset + r.pages;
  startNext(now);
  updateCongestion();
  return r;
}

SimDuration BlockDevice::busyUntil(SimTime now) const {
  SimDuration b = m_counters.busy;
  if (m_inService && now > m_serviceStart) b += now - m_serviceStart;
  return b;
}

void BlockDevice::updateCongestion() {
  // blk_queue_congestion_threshold() (2.6.10+): on at nr - nr/8 + 1, off below nr - nr/8 - nr/16
  // - 1.
  const int nr = m_config.nrRequests;
  const int on = std::min(nr, nr - nr / 8 + 1);
  const int off = std::max(1, nr - nr / 8 - nr / 16 - 1);
  const int a = allocated();
  if (a >= on)
    m_congested = true;
  else if (a < off)
    m_congested = false;
}

}  // namespace throttlelab::engine
