// SPDX-License-Identifier: GPL-3.0-or-later
// Writeback: one flusher per device (model-spec §2.5). Periodic ("kupdate") writeback of
// expired inodes, background writeback while over the background threshold, in chunks (E6),
// oldest-dirtied inode first, submitting to the device until its queue is full.
#include <algorithm>

#include "kernel.h"

namespace throttlelab::engine {

void Kernel::fileDirtiedWhenChanged(CachedFile& f, SimTime oldWhen, bool wasDirty) {
  auto& set = device(f.device()).dirtyFiles;
  const bool isDirty = f.dirty() > 0;
  if (wasDirty && (!isDirty || f.dirtiedWhen() != oldWhen)) set.erase({oldWhen, f.id()});
  if (isDirty && (!wasDirty || f.dirtiedWhen() != oldWhen)) set.insert({f.dirtiedWhen(), f.id()});
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

bool Kernel::writebackInProgress(int dev) const { return device(dev).flusher.active; }

void Kernel::flusherTimer(int dev) {
  DeviceState& d = device(dev);
  d.flusher.kupdateDue = true;
  kickFlusher(dev);
  const auto interval = millis(m_scenario.vm.dirtyWritebackCentisecs * 10.0);
  if (interval.count() > 0)
    m_queue.push(m_now + interval, EventKind::FlusherTimer, dev, d.flusher.timerGeneration);
}

bool Kernel::overBackgroundThresh(int dev) {
  // wb_over_bg_thresh() (E7): global dirty pages (not counting writeback) over bg_thresh, or
  // this device's dirty pages over its share of it. The flusher is a kernel thread: no RT bonus.
  const GlobalView g = globalViewFor(LimitBonus::None);
  if (m_mem.nrDirty > g.bgThresh) return true;
  GlobalView asBg = g;
  asBg.thresh = g.bgThresh;
  return device(dev).reclaimable > wbView(dev, asBg).wbThresh;
}

Pages Kernel::writebackChunk(int dev) const {
  // E6 (3.2+): about half a second of device bandwidth, at most dirty_limit/8, in whole 4 MiB units.
  const DeviceState& d = device(dev);
  Pages pages = std::min<Pages>(d.bw.avgWriteBw / 2, m_domain.dirtyLimit / 8);
  pages = (pages + 1024) / 1024 * 1024;
  return std::max<Pages>(pages, 1024);
}

bool Kernel::submitChunk(int dev, int file, Pages pages) {
  DeviceState& d = device(dev);
  CachedFile& f = m_files[static_cast<std::size_t>(file)];
  const Pages want = std::min(pages, f.dirty());
  if (want <= 0) return true;
  // Pages turn from dirty to writeback as they enter the request queue.
  const Pages accepted = d.device.submit(file, f.writebackOffset(), want, m_now);
  if (accepted > 0) {
    const SimTime oldWhen = f.dirtiedWhen();
    const Pages moved = f.startWriteback(accepted, SimTime::max());
    fileDirtiedWhenChanged(f, oldWhen, true);
    m_mem.nrDirty -= moved;
    m_mem.nrWriteback += moved;
    d.reclaimable -= moved;
    d.writeback += moved;
  }
  scheduleDevice(dev);
  if (accepted < want) {
    d.flusher.blockedFile = file;
    d.flusher.blockedPages = want - accepted;
    return false;
  }
  return true;
}

void Kernel::flusherRun(int dev) {
  DeviceState& d = device(dev);
  Flusher& fl = d.flusher;
  if (!fl.active) {
    fl.active = true;
    // Writeback restarting on an idle device: do not count the idle time as zero bandwidth.
    if (d.writeback == 0 && jiffies() > d.bw.bwTimeStampJiffies + hz()) {
      d.bw.writtenStamp = d.written;
      d.bw.dirtiedStamp = d.dirtied;
      d.bw.bwTimeStampJiffies = jiffies();
    }
  }
  for (int guard = 0; guard < 1'000'000; ++guard) {
    if (fl.blockedFile >= 0) {
      if (d.device.full()) return;  // wait for a request slot (deviceDone resumes us)
      const int file = fl.blockedFile;
      const Pages rest = fl.blockedPages;
      fl.blockedFile = -1;
      if (!submitChunk(dev, file, rest)) return;
    }
    SimTime olderThan{};
    bool kupdate = false;
    if (fl.kupdateDue) {
      kupdate = true;
      olderThan = m_now - millis(m_scenario.vm.dirtyExpireCentisecs * 10.0);
    } else if (overBackgroundThresh(dev)) {
      olderThan = m_now;
    } else {
      fl.active = false;
      fl.backgroundRequested = false;
      fl.io.clear();
      return;
    }
    if (fl.io.empty()) {
      for (const auto& [when, file] : d.dirtyFiles) {
        if (when > olderThan) break;
        fl.io.push_back(file);
      }
    }
    if (fl.io.empty()) {
      if (kupdate) {
        fl.kupdateDue = false;
        fl.lastOldFlush = m_now;
        continue;
      }
      fl.active = false;
      return;
    }
    const int file = fl.io.front();
    fl.io.pop_front();
    // do_writepages(): a bandwidth-only estimate update once 200 ms have passed.
    if (jiffies() > d.bw.bwTimeStampJiffies + std::max(hz() / 5, 1)) {
      updateWriteBandwidth(d.bw, jiffies() - d.bw.bwTimeStampJiffies, d.written, hz());
      d.bw.writtenStamp = d.written;
      d.bw.dirtiedStamp = d.dirtied;
      d.bw.bwTimeStampJiffies = jiffies();
    }
    if (!submitChunk(dev, file, writebackChunk(dev))) return;
  }
}

void Kernel::scheduleDevice(int dev) {
  DeviceState& d = device(dev);
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
  CachedFile& f = m_files[static_cast<std::size_t>(r.file)];
  f.completeWriteback(r.pages);
  m_mem.nrWriteback -= r.pages;
  m_mem.written += r.pages;
  d.writeback -= r.pages;
  d.written += r.pages;
  m_domain.completions.add(static_cast<std::size_t>(dev), r.pages, m_now);
  scheduleDevice(dev);
  if (d.flusher.blockedFile >= 0 && d.flusher.active && !d.device.full()) flusherRun(dev);
  wakeMemoryWaiters();
}

}  // namespace throttlelab::engine
