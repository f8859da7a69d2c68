// SPDX-License-Identifier: GPL-3.0-or-later
// Writeback: one flusher per device (docs/model.md, The flusher). Periodic ("kupdate") writeback of
// expired inodes, background writeback while over the background threshold, in chunks,
// oldest-dirtied inode first. Its style follows the policy's era: pdflush (2.6.0–2.6.31)
// writes 1024-page chunks and backs off while the queue is congested; later flushers block
// on a full queue; 3.2+ sizes chunks to half a second of bandwidth (Eq. 36).
#include <algorithm>

#include "cost_model.h"
#include "kernel.h"

namespace throttlelab::engine {

void Kernel::fileDirtiedWhenChanged(CachedFile& f, SimTime oldWhen, bool wasDirty) {
  DeviceState& d = device(f.device());
  const bool isDirty = f.dirty() > 0;
  const bool moved = !isDirty || f.dirtiedWhen() != oldWhen;
  if (wasDirty && moved) {
    d.dirtyFiles.erase({oldWhen, f.id()});
    d.dirtyUnowned.erase({oldWhen, f.id()});
  }
  if (isDirty && (!wasDirty || f.dirtiedWhen() != oldWhen)) {
    d.dirtyFiles.insert({f.dirtiedWhen(), f.id()});
    if (f.syncOwner < 0) d.dirtyUnowned.insert({f.dirtiedWhen(), f.id()});
  }
}

void Kernel::setSyncOwner(CachedFile& f, int owner) {
  DeviceState& d = device(f.device());
  if (f.dirty() > 0) {
    if (owner >= 0)
      d.dirtyUnowned.erase({f.dirtiedWhen(), f.id()});
    else
      d.dirtyUnowned.insert({f.dirtiedWhen(), f.id()});
  }
  f.syncOwner = owner;
  Flusher& fl = d.flusher;
  if (owner < 0 && fl.waitingForInode) {
    fl.waitingForInode = false;
    if (!fl.scheduled) {
      fl.scheduled = true;
      m_queue.push(m_now, EventKind::FlusherRun, f.device());
    }
  }
}

void Kernel::queueIo(int dev, SimTime olderThan) {
  // queue_io(): the dirty inodes dirtied at or before `olderThan`, oldest first, onto b_io.
  // Those under I_SYNC would only be requeued to b_more_io when met, so they are left out.
  DeviceState& d = device(dev);
  for (const auto& [when, file] : d.dirtyUnowned) {
    if (when > olderThan) break;
    d.flusher.io.push_back(file);
  }
}

void Kernel::kickFlusher(int dev) {
  Flusher& fl = device(dev).flusher;
  if (fl.active || fl.scheduled) return;
  fl.scheduled = true;
  m_queue.push(m_now, EventKind::FlusherRun, dev);
}

void Kernel::startBackgroundWriteback(int dev) {
  device(dev).flusher.backgroundRequested = true;
  kickFlusher(dev);
}

void Kernel::startReclaimWriteback(int dev) {
  // Reclaim that meets dirty pages wakes the flushers to write them out, all of them, over
  // the background threshold or not (wakeup_flusher_threads(WB_REASON_VMSCAN): nr_pages is
  // every dirty page): below it, nothing else would ever write them while memory is short.
  DeviceState& d = device(dev);
  d.flusher.reclaimPages = std::max(d.flusher.reclaimPages, d.reclaimable);
  kickFlusher(dev);
}

bool Kernel::writebackInProgress(int dev) const {
  return device(dev).flusher.active;
}

void Kernel::flusherTimer(int dev) {
  DeviceState& d = device(dev);
  d.flusher.kupdateDue = true;
  kickFlusher(dev);
  const auto interval = millis(m_scenario.vm.dirtyWritebackCentisecs * 10.0);
  if (interval.count() > 0)
    m_queue.push(m_now + interval, EventKind::FlusherTimer, dev, d.flusher.timerGeneration);
}

bool Kernel::overBackgroundThresh(int dev) {
  // wb_over_bg_thresh() (docs/model.md, Eq. 35): global dirty pages (not counting writeback) over
  // bg_thresh, or this device's dirty pages over its share of it. The flusher is a kernel thread:
  // no RT bonus.
  const GlobalView g = globalViewFor(LimitBonus::None);
  if (m_era.flusher == FlusherStyle::Pdflush)
    return m_mem.nrDirty >= g.bgThresh && m_mem.nrDirty > 0;
  if (m_mem.nrDirty > g.bgThresh) return true;
  GlobalView asBg = g;
  asBg.thresh = g.bgThresh;
  if (device(dev).reclaimable > wbView(dev, asBg).wbThresh) return true;
  // 4.2+: a memory cgroup's wb over its own domain's background threshold.
  return memcgOverBackgroundThresh(dev, g);
}

Pages Kernel::writebackChunk(int dev) const {
  if (m_era.flusher != FlusherStyle::Modern) return 1024;  // MAX_WRITEBACK_PAGES
  // writeback_chunk_size(), 3.2+ (docs/model.md, Eq. 36): about half a second of device bandwidth,
  // at most dirty_limit/8, in whole 4 MiB units.
  const DeviceState& d = device(dev);
  Pages pages = std::min<Pages>(d.bw.avgWriteBw / 2, m_domain.dirtyLimit / 8);
  pages = (pages + 1024) / 1024 * 1024;
  return std::max<Pages>(pages, 1024);
}

Pages Kernel::submitPages(int dev, int file, Pages pages, Task* batcher) {
  DeviceState& d = device(dev);
  CachedFile& f = m_files[static_cast<std::size_t>(file)];
  const Pages want = std::min(pages, f.dirty());
  if (want <= 0) return 0;
  // Pages turn from dirty to writeback as they enter the request queue, one disk extent at a
  // time (a submission that crosses an extent boundary becomes separate requests).
  Pages accepted = 0;
  while (accepted < want) {
    const Pages offset = (f.writebackOffset() + accepted) % f.size();
    const Pages len = std::min(want - accepted, f.size() - offset);
    Pages run = 0;
    bool allocated = false;
    const std::int64_t lba = d.fs.mapForWriteback(f, offset, len, f.dirty() - accepted,
                                                  &d.allocCursor, &run, &allocated);
    if (allocated) noteAllocation(dev, file);
    int extra = 0;
    if (batcher != nullptr && batcher->batchRequests > 0 && m_now <= batcher->batchUntil)
      extra = batcher->batchRequests;
    const std::int64_t before = d.device.requestsCreated();
    const Pages got = d.device.submit(file, lba, run, m_now, extra);
    if (batcher != nullptr)
      batcher->batchRequests = std::max<int>(
          0, batcher->batchRequests - static_cast<int>(d.device.requestsCreated() - before));
    accepted += got;
    if (got < run) break;  // the queue is full
  }
  if (accepted > 0) {
    const SimTime oldWhen = f.dirtiedWhen();
    const Pages moved = f.startWriteback(accepted, SimTime::max());
    fileDirtiedWhenChanged(f, oldWhen, true);
    m_mem.nrDirty -= moved;
    m_mem.nrWriteback += moved;
    d.reclaimable -= moved;
    d.writeback += moved;
    if (f.cgroup >= 0) memcgWritebackStarted(f, moved);
  }
  scheduleDevice(dev);
  return accepted;
}

bool Kernel::submitChunk(int dev, int file, Pages pages) {
  DeviceState& d = device(dev);
  const Pages want = std::min(pages, m_files[static_cast<std::size_t>(file)].dirty());
  const Pages accepted = submitPages(dev, file, want);
  d.flusher.reclaimPages = std::max<Pages>(0, d.flusher.reclaimPages - accepted);
  // The flusher's own CPU: building the IO, spinning with any dirtiers submitting too.
  const int others = std::min(d.submitters, cpus());
  chargeKernel(flusherThread(dev),
               static_cast<double>(accepted) *
                   (cost::writebackSubmitPerPageS(m_scenario.machine.writebackUsPerPage) +
                    cost::kSubmitLockHoldPerPageS * others));
  if (accepted < want) {
    d.flusher.blockedFile = file;
    d.flusher.blockedPages = want - accepted;
    // 2.6.32+: the flusher sleeps in get_request_wait() inside do_writepages(), the inode
    // still under I_SYNC, so dirtiers pass it by. (pdflush gives the inode up and backs off.)
    if (m_era.flusher != FlusherStyle::Pdflush)
      setSyncOwner(m_files[static_cast<std::size_t>(file)], CachedFile::kFlusherOwner);
    if (m_era.flusher != FlusherStyle::Pdflush) d.slotWaiters.push_back(-1);
    return false;
  }
  return true;
}

void Kernel::flusherRun(int dev) {
  DeviceState& d = device(dev);
  Flusher& fl = d.flusher;
  if (fl.congestionWait) return;
  if (!fl.active) {
    fl.active = true;
    // Writeback restarting on an idle device: do not count the idle time as zero bandwidth.
    if (d.writeback == 0 && jiffies() > d.bw.bwTimeStampJiffies + hz())
      restampBandwidth(d.bw, d.written, d.dirtied, jiffies());
  }
  for (int guard = 0; guard < 1'000'000; ++guard) {
    if (m_era.flusher == FlusherStyle::Pdflush && d.device.congested()) {
      pdflushBackOff(dev);  // nonblocking writeback met congestion
      return;
    }
    if (fl.blockedFile >= 0) {
      if (d.device.full()) {
        pdflushBackOff(dev);
        return;  // wait for a request slot (deviceDone resumes us)
      }
      const int file = fl.blockedFile;
      const Pages rest = fl.blockedPages;
      fl.blockedFile = -1;
      if (m_files[static_cast<std::size_t>(file)].syncOwner == CachedFile::kFlusherOwner)
        setSyncOwner(m_files[static_cast<std::size_t>(file)], -1);
      if (!submitChunk(dev, file, rest)) {
        pdflushBackOff(dev);
        return;
      }
    }
    SimTime olderThan{};
    bool kupdate = false;
    if (fl.kupdateDue) {
      kupdate = true;
      olderThan = m_now - millis(m_scenario.vm.dirtyExpireCentisecs * 10.0);
    } else if (overBackgroundThresh(dev) || fl.reclaimPages > 0) {
      olderThan = m_now;
    } else {
      fl.active = false;
      fl.backgroundRequested = false;
      fl.io.clear();
      return;
    }
    if (fl.io.empty()) queueIo(dev, olderThan);
    if (fl.io.empty()) {
      if (kupdate) {
        fl.kupdateDue = false;
        fl.lastOldFlush = m_now;
        continue;
      }
      fl.reclaimPages = 0;  // nothing left that anyone could write
      fl.active = false;
      return;
    }
    // writeback_sb_inodes(): an inode under I_SYNC (a dirtier is writing it) is requeued to
    // b_more_io and the next one taken.
    int file = -1;
    while (!fl.io.empty() && file < 0) {
      const int next = fl.io.front();
      fl.io.pop_front();
      if (m_files[static_cast<std::size_t>(next)].syncOwner < 0) file = next;
    }
    if (file < 0) {
      // Every queued inode is being written by someone else: wb_writeback() sleeps in
      // inode_wait_for_writeback() until one is released (setSyncOwner() wakes it).
      fl.waitingForInode = true;
      return;
    }
    // do_writepages(): a bandwidth-only estimate update once 200 ms have passed.
    if (m_era.followDirtyLimit && jiffies() > d.bw.bwTimeStampJiffies + std::max(hz() / 5, 1))
      updateBandwidthAndRestamp(d.bw, d.written, d.dirtied, jiffies(), hz());
    if (!submitChunk(dev, file, writebackChunk(dev))) {
      pdflushBackOff(dev);
      return;
    }
  }
}

void Kernel::adoptFlusherStyle() {
  // The policy changed the flusher's era while a flusher may be stopped at a full request
  // queue. A 2.6.32+ flusher sleeps there in get_request_wait(), queued for a slot and still
  // holding its inode (I_SYNC); pdflush gives the inode up and sleeps in
  // blk_congestion_wait() instead. A pdflush flusher left holding the inode would never come
  // back to it (it backs off at congestion before it looks at the blocked inode), and no
  // dirtier writes an inode someone else holds: the file would stay dirty for good.
  // The other way round needs nothing: a blocking flusher resumes from a congestion wait
  // when its timer ends and then waits for a slot as its era does.
  if (m_era.flusher != FlusherStyle::Pdflush) return;
  for (int dev = 0; dev < static_cast<int>(m_devices.size()); ++dev) {
    DeviceState& d = device(dev);
    Flusher& fl = d.flusher;
    d.slotWaiters.erase(std::remove(d.slotWaiters.begin(), d.slotWaiters.end(), -1),
                        d.slotWaiters.end());
    if (fl.blockedFile < 0) continue;
    CachedFile& f = m_files[static_cast<std::size_t>(fl.blockedFile)];
    if (f.syncOwner == CachedFile::kFlusherOwner) setSyncOwner(f, -1);
    if (!fl.congestionWait) pdflushBackOff(dev);
  }
}

void Kernel::pdflushBackOff(int dev) {
  // pdflush's nonblocking writeback gives up at a full queue and sleeps in
  // blk_congestion_wait(WRITE, HZ/10); later flushers wait for a slot instead.
  if (m_era.flusher != FlusherStyle::Pdflush) return;
  Flusher& fl = device(dev).flusher;
  fl.congestionWait = true;
  m_queue.push(m_now + millis(100), EventKind::FlusherRun, dev, 1);
}

void Kernel::scheduleDevice(int dev) {
  DeviceState& d = device(dev);
  if (tracing()) traceBlockIssue(dev);
  const auto next = d.device.nextCompletion();
  if (!next || *next == d.scheduledCompletion) return;
  d.scheduledCompletion = *next;
  ++d.completionGeneration;
  m_queue.push(*next, EventKind::DeviceDone, dev, d.completionGeneration);
}

void Kernel::deviceDone(int dev) {
  DeviceState& d = device(dev);
  const IoRequest r = d.device.completeCurrent(m_now);
  d.scheduledCompletion = SimTime{};
  if (tracing()) traceBlockRq(dev, r, true);
  chargeKernel(kIoCompletionThread, static_cast<double>(r.pages) * cost::kIoCompletionPerPageS);
  if (r.file == kJournalFile) {
    journalIoDone(dev);
  } else if (r.file == kReadFile) {
    if (r.owner >= 0) readIoDone(task(r.owner));
  } else if (r.file == kSwapFile) {
    if (r.read) {
      if (r.owner >= 0) swapInDone(task(r.owner), r.pages);
    } else {
      PageAllocator::swapOutDone(*this, r);
    }
  } else {
    CachedFile& f = m_files[static_cast<std::size_t>(r.file)];
    f.completeWriteback(r.pages);
    m_pages.noteClean(f);
    m_mem.nrWriteback -= r.pages;
    m_mem.written += r.pages;
    d.writeback -= r.pages;
    d.written += r.pages;
    m_domain.completions.add(static_cast<std::size_t>(dev), r.pages, m_now);
    if (f.cgroup >= 0) memcgWritebackDone(f, r.pages, dev);
    if (d.fs.journal().phase == CommitPhase::Data) journalDataProgress(dev);
  }
  scheduleDevice(dev);
  wakeSlotWaiter(dev);
  if (m_era.flusher != FlusherStyle::Pdflush && d.flusher.blockedFile >= 0 && d.flusher.active &&
      !d.device.full() &&
      std::find(d.slotWaiters.begin(), d.slotWaiters.end(), -1) == d.slotWaiters.end())
    flusherRun(dev);
  if (!d.device.congested()) {
    wakeCongestionWaiters(dev);
    if (d.flusher.congestionWait) {
      d.flusher.congestionWait = false;
      flusherRun(dev);
    }
  }
  m_pages.wakeMemoryWaiters(*this);
}

}  // namespace throttlelab::engine
