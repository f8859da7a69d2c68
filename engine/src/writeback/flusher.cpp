// SPDX-License-Identifier: GPL-3.0-or-later
// Writeback: one flusher per device (docs/model.md, The flusher). Periodic ("kupdate") writeback of
// expired inodes, background writeback while over the background threshold, in chunks,
// oldest-dirtied inode first (fs/fs-writeback.c).
#include "flusher.h"

#include <algorithm>

#include "cost_model.h"
#include "device_state.h"
#include "heap_bytes.h"

namespace throttlelab::engine {

void Flusher::inodeDirtiedWhenChanged(const CachedFile& f, SimTime oldWhen, bool wasDirty) {
  const bool isDirty = f.dirty() > 0;
  const bool moved = !isDirty || f.dirtiedWhen() != oldWhen;
  if (wasDirty && moved) {
    m_dirty.erase({oldWhen, f.id()});
    m_dirtyUnowned.erase({oldWhen, f.id()});
  }
  if (isDirty && (!wasDirty || f.dirtiedWhen() != oldWhen)) {
    m_dirty.insert({f.dirtiedWhen(), f.id()});
    if (f.syncOwner < 0) m_dirtyUnowned.insert({f.dirtiedWhen(), f.id()});
  }
}

void Flusher::setSyncOwner(FlusherHost& host, CachedFile& f, int owner) {
  if (f.dirty() > 0) {
    if (owner >= 0)
      m_dirtyUnowned.erase({f.dirtiedWhen(), f.id()});
    else
      m_dirtyUnowned.insert({f.dirtiedWhen(), f.id()});
  }
  f.syncOwner = owner;
  if (owner < 0 && m_waitingForInode) {
    m_waitingForInode = false;
    if (!m_scheduled) {
      m_scheduled = true;
      host.scheduleAt(host.now(), EventKind::FlusherRun, m_device, 0);
    }
  }
}

void Flusher::queueIo(SimTime olderThan) {
  // Those under I_SYNC would only be requeued to b_more_io when met, so they are left out.
  for (const auto& [when, file] : m_dirtyUnowned) {
    if (when > olderThan) break;
    m_io.push_back(file);
  }
}

void Flusher::kick(FlusherHost& host) {
  if (m_active || m_scheduled) return;
  m_scheduled = true;
  host.scheduleAt(host.now(), EventKind::FlusherRun, m_device, 0);
}

void Flusher::startBackground(FlusherHost& host) {
  m_backgroundRequested = true;
  kick(host);
}

void Flusher::writeAtLeast(FlusherHost& host, Pages pages) {
  m_reclaimPages = std::max(m_reclaimPages, pages);
  kick(host);
}

void Flusher::startTimer(FlusherHost& host) {
  const auto interval = millis(host.vm().dirtyWritebackCentisecs * 10.0);
  if (interval.count() > 0)
    host.scheduleAt(host.now() + interval, EventKind::FlusherTimer, m_device, m_timerGeneration);
}

void Flusher::restartTimer(FlusherHost& host) {
  ++m_timerGeneration;  // the pending timer is stale
  startTimer(host);
}

void Flusher::timer(FlusherHost& host, std::uint32_t generation) {
  if (generation != m_timerGeneration) return;
  m_kupdateDue = true;
  kick(host);
  startTimer(host);
}

void Flusher::runEvent(FlusherHost& host, std::uint32_t generation) {
  if (generation == 1) {  // the end of a congestion wait
    if (!m_congestionWait) return;
    m_congestionWait = false;
  } else {
    m_scheduled = false;
  }
  workfn(host);
}

bool Flusher::overBackgroundThresh(FlusherHost& host) const {
  // Global dirty pages (not counting writeback) over bg_thresh, or this device's dirty pages over
  // its share of it. The flusher is a kernel thread: no RT bonus.
  const GlobalView g = host.globalView(nullptr, false);
  const Memory& mem = host.nodeCounters();
  if (host.era().flusher == FlusherStyle::Pdflush)
    return mem.nrDirty >= g.bgThresh && mem.nrDirty > 0;
  if (mem.nrDirty > g.bgThresh) return true;
  GlobalView asBg = g;
  asBg.thresh = g.bgThresh;
  if (host.device(m_device).reclaimable > host.wbView(m_device, asBg).wbThresh) return true;
  // 4.2+: a memory cgroup's wb over its own domain's background threshold.
  return host.memcgOverBackgroundThresh(m_device, g);
}

Pages Flusher::chunkSize(FlusherHost& host) const {
  if (host.era().flusher != FlusherStyle::Modern) return 1024;  // MAX_WRITEBACK_PAGES
  // 3.2+ (docs/model.md, Eq. 36): about half a second of device bandwidth, at most
  // dirty_limit/8, in whole 4 MiB units.
  const DeviceState& d = host.device(m_device);
  Pages pages = std::min<Pages>(d.bw.avgWriteBw / 2, host.domain().dirtyLimit / 8);
  pages = (pages + 1024) / 1024 * 1024;
  return std::max<Pages>(pages, 1024);
}

Pages Flusher::writepages(FlusherHost& host, int file, Pages pages, Task* batcher) {
  DeviceState& d = host.device(m_device);
  CachedFile& f = host.file(file);
  const Pages want = std::min(pages, f.dirty());
  if (want <= 0) return 0;
  const SimTime now = host.now();
  // Pages turn from dirty to writeback as they enter the request queue, one disk extent at a
  // time (a submission that crosses an extent boundary becomes separate requests).
  Pages accepted = 0;
  while (accepted < want) {
    const Pages offset = (f.writebackOffset() + accepted) % f.size();
    const Pages len = std::min(want - accepted, f.size() - offset);
    Pages run = 0;
    bool allocated = false;
    const std::int64_t lba =
        d.fs.mapForWriteback(file, f.size(), offset, len, f.dirty() - accepted, &run, &allocated);
    if (allocated) host.blocksAllocated(m_device, file);
    int extra = 0;
    if (batcher != nullptr && batcher->batchRequests > 0 && now <= batcher->batchUntil)
      extra = batcher->batchRequests;
    const std::int64_t before = d.device.requestsCreated();
    const Pages got = d.device.submit(file, lba, run, now, extra);
    if (batcher != nullptr)
      batcher->batchRequests = std::max<int>(
          0, batcher->batchRequests - static_cast<int>(d.device.requestsCreated() - before));
    accepted += got;
    if (got < run) break;  // the queue is full
  }
  if (accepted > 0) {
    const SimTime oldWhen = f.dirtiedWhen();
    const Pages moved = f.startWriteback(accepted, SimTime::max());
    inodeDirtiedWhenChanged(f, oldWhen, true);
    Memory& mem = host.nodeCounters();
    mem.nrDirty -= moved;
    mem.nrWriteback += moved;
    d.reclaimable -= moved;
    d.writeback += moved;
    if (f.cgroup >= 0) host.memcgWritebackStarted(f, moved);
  }
  host.scheduleDevice(m_device);
  return accepted;
}

bool Flusher::writeChunk(FlusherHost& host, int file, Pages pages) {
  const Pages want = std::min(pages, host.file(file).dirty());
  const Pages accepted = writepages(host, file, want);
  m_reclaimPages = std::max<Pages>(0, m_reclaimPages - accepted);
  // The flusher's own CPU: building the IO, spinning with any dirtiers submitting too.
  const int others = std::min(m_submitters, host.cpus());
  host.chargeKernel(thread(),
                    static_cast<double>(accepted) *
                        (cost::writebackSubmitPerPageS(host.machine().writebackUsPerPage) +
                         cost::kSubmitLockHoldPerPageS * others));
  if (accepted < want) {
    m_blockedFile = file;
    m_blockedPages = want - accepted;
    // 2.6.32+: the flusher sleeps in get_request_wait() inside do_writepages(), the inode
    // still under I_SYNC, so dirtiers pass it by. (pdflush gives the inode up and backs off.)
    if (host.era().flusher != FlusherStyle::Pdflush) {
      setSyncOwner(host, host.file(file), CachedFile::kFlusherOwner);
      host.device(m_device).device.waitForSlot(BlockDevice::kFlusherWaiter);
    }
    return false;
  }
  return true;
}

void Flusher::workfn(FlusherHost& host) {
  if (m_congestionWait) return;
  if (!m_active) {
    m_active = true;
    // Writeback restarting on an idle device: do not count the idle time as zero bandwidth.
    DeviceState& d = host.device(m_device);
    if (d.writeback == 0 && host.jiffies() > d.bw.bwTimeStampJiffies + host.hz())
      restampBandwidth(d.bw, d.written, d.dirtied, host.jiffies());
  }
  for (int guard = 0; guard < 1'000'000; ++guard)
    if (!writebackStep(host)) return;
}

bool Flusher::resumeBlocked(FlusherHost& host) {
  if (host.device(m_device).device.full()) return false;  // wait for a request slot
  const int file = m_blockedFile;
  const Pages rest = m_blockedPages;
  m_blockedFile = -1;
  CachedFile& f = host.file(file);
  if (f.syncOwner == CachedFile::kFlusherOwner) setSyncOwner(host, f, -1);
  return writeChunk(host, file, rest);
}

bool Flusher::writebackStep(FlusherHost& host) {
  if (host.era().flusher == FlusherStyle::Pdflush && host.device(m_device).device.congested()) {
    pdflushBackOff(host);  // nonblocking writeback met congestion
    return false;
  }
  if (m_blockedFile >= 0 && !resumeBlocked(host)) {
    pdflushBackOff(host);  // (a blocking flusher waits for a slot: requestCompleted())
    return false;
  }
  // The work in hand: expired inodes (kupdate), else everything dirty while over the
  // background threshold or reclaim asked for pages.
  const SimTime now = host.now();
  SimTime olderThan{};
  bool kupdate = false;
  if (m_kupdateDue) {
    kupdate = true;
    olderThan = now - millis(host.vm().dirtyExpireCentisecs * 10.0);
  } else if (overBackgroundThresh(host) || m_reclaimPages > 0) {
    olderThan = now;
  } else {
    m_active = false;
    m_backgroundRequested = false;
    m_io.clear();
    return false;
  }
  if (m_io.empty()) queueIo(olderThan);
  if (m_io.empty()) {
    if (kupdate) {
      m_kupdateDue = false;
      m_lastOldFlush = now;
      return true;
    }
    m_reclaimPages = 0;  // nothing left that anyone could write
    m_active = false;
    return false;
  }
  return writebackSbInodes(host);
}

bool Flusher::writebackSbInodes(FlusherHost& host) {
  // An inode under I_SYNC (a dirtier is writing it) is requeued to b_more_io and the next one
  // taken.
  int file = -1;
  while (!m_io.empty() && file < 0) {
    const int next = m_io.front();
    m_io.pop_front();
    if (host.file(next).syncOwner < 0) file = next;
  }
  if (file < 0) {
    // Every queued inode is being written by someone else: wb_writeback() sleeps in
    // inode_wait_for_writeback() until one is released (setSyncOwner() wakes it).
    m_waitingForInode = true;
    return false;
  }
  // do_writepages(): a bandwidth-only estimate update once 200 ms have passed.
  DeviceState& d = host.device(m_device);
  if (host.era().followDirtyLimit &&
      host.jiffies() > d.bw.bwTimeStampJiffies + std::max(host.hz() / 5, 1))
    updateBandwidthAndRestamp(d.bw, d.written, d.dirtied, host.jiffies(), host.hz());
  if (!writeChunk(host, file, chunkSize(host))) {
    pdflushBackOff(host);
    return false;
  }
  return true;
}

void Flusher::adoptStyle(FlusherHost& host) {
  // The policy changed the flusher's era while a flusher may be stopped at a full request
  // queue. A 2.6.32+ flusher sleeps there in get_request_wait(), queued for a slot and still
  // holding its inode (I_SYNC); pdflush gives the inode up and sleeps in
  // blk_congestion_wait() instead. A pdflush flusher left holding the inode would never come
  // back to it (it backs off at congestion before it looks at the blocked inode), and no
  // dirtier writes an inode someone else holds: the file would stay dirty for good.
  // The other way round needs nothing: a blocking flusher resumes from a congestion wait
  // when its timer ends and then waits for a slot as its era does.
  if (host.era().flusher != FlusherStyle::Pdflush) return;
  host.device(m_device).device.stopWaitingForSlot(BlockDevice::kFlusherWaiter);
  if (m_blockedFile < 0) return;
  CachedFile& f = host.file(m_blockedFile);
  if (f.syncOwner == CachedFile::kFlusherOwner) setSyncOwner(host, f, -1);
  if (!m_congestionWait) pdflushBackOff(host);
}

void Flusher::pdflushBackOff(FlusherHost& host) {
  // pdflush's nonblocking writeback gives up at a full queue and sleeps in
  // blk_congestion_wait(WRITE, HZ/10); later flushers wait for a slot instead.
  if (host.era().flusher != FlusherStyle::Pdflush) return;
  m_congestionWait = true;
  host.scheduleAt(host.now() + millis(100), EventKind::FlusherRun, m_device, 1);
}

void Flusher::requestCompleted(FlusherHost& host) {
  const BlockDevice& device = host.device(m_device).device;
  if (host.era().flusher != FlusherStyle::Pdflush && m_blockedFile >= 0 && m_active &&
      !device.full() && !device.waitsForSlot(BlockDevice::kFlusherWaiter))
    workfn(host);
}

void Flusher::slotGranted(FlusherHost& host) {
  if (m_blockedFile >= 0 && m_active) workfn(host);
}

void Flusher::congestionEnded(FlusherHost& host) {
  if (!m_congestionWait) return;
  m_congestionWait = false;
  workfn(host);
}

std::size_t Flusher::heapBytes() const {
  return heap::of(m_dirty) + heap::of(m_dirtyUnowned) + heap::of(m_io);
}

}  // namespace throttlelab::engine
