// SPDX-License-Identifier: GPL-3.0-or-later
// The Kernel's side of the devices: a request's completion and who it lets go on (its owner,
// those waiting for a request slot or for the queue to decongest, the flusher, the journal),
// what the flushers, journals and writers ask of the Kernel, and the block and jbd2
// tracepoints.
#include <algorithm>

#include "cost_model.h"
#include "kernel.h"

namespace throttlelab::engine {

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
    d.fs.journal().ioDone(*this);
  } else if (r.file == kReadFile) {
    if (r.owner >= 0) m_writers.readIoDone(*this, task(r.owner));
  } else if (r.file == kSwapFile) {
    if (r.read) {
      if (r.owner >= 0) swapInDone(task(r.owner), r.pages);
    } else {
      PageAllocator::swapOutDone(*this, r);
    }
  } else {
    writebackDone(dev, r);
  }
  scheduleDevice(dev);
  wakeSlotWaiters(dev);
  d.flusher.requestCompleted(*this);
  if (!d.device.congested()) {
    wakeCongestionWaiters(dev);
    d.flusher.congestionEnded(*this);
  }
  m_pages.wakeMemoryWaiters(*this);
}

void Kernel::writebackDone(int dev, const IoRequest& r) {
  DeviceState& d = device(dev);
  CachedFile& f = m_files[static_cast<std::size_t>(r.file)];
  f.completeWriteback(r.pages);
  m_pages.noteClean(f);
  m_mem.nrWriteback -= r.pages;
  m_mem.written += r.pages;
  d.writeback -= r.pages;
  d.written += r.pages;
  m_domain.completions.add(static_cast<std::size_t>(dev), r.pages, m_now);
  if (f.cgroup >= 0) m_memcg.writebackDone(*this, f, r.pages, dev);
  if (d.fs.journal().phase() == CommitPhase::Data) d.fs.journal().dataWritten(*this);
}

void Kernel::wakeSlotWaiters(int dev) {
  DeviceState& d = device(dev);
  while (const std::optional<int> id = d.device.takeSlotWaiter()) {
    if (*id == BlockDevice::kKswapdWaiter) {
      m_pages.kswapdSlotFree(*this);
      continue;
    }
    if (*id == BlockDevice::kFlusherWaiter) {
      d.flusher.slotGranted(*this);
      continue;
    }
    Task& t = task(*id);
    if (t.removed || t.state != TaskState::IoWait || t.writebackLeft <= 0) continue;
    t.state = TaskState::Runnable;
    // ioc_batching: having waited, the task may allocate BLK_BATCH_REQ (32) requests within
    // BLK_BATCH_TIME (20 ms) without waiting again.
    t.batchRequests = 32;
    t.batchUntil = m_now + std::chrono::milliseconds(20);
    continueTaskWriteback(t);
  }
  d.fs.journal().slotWaitersWoken(*this);  // a writepage() holding a handle may have gone on
}

void Kernel::taskWriteback(Task& t, Pages pages) {
  device(t.info.device).flusher.startTaskWriteback(*this, t, pages);
  continueTaskWriteback(t);
}

void Kernel::continueTaskWriteback(Task& t) {
  Flusher& flusher = device(t.info.device).flusher;
  if (!flusher.continueTaskWriteback(*this, t)) return;  // waiting for a request slot
  runCpu(t, flusher.endTaskWriteback(*this, t), 0, AfterCpu::Balance);
}

void Kernel::congestionWait(Task& t, SimDuration timeout) {
  // congestion_wait(): sleep until a queue leaves congestion, at most `timeout`.
  DeviceState& d = device(t.info.device);
  sleepTask(t, timeout, TaskState::Paused);
  if (d.device.congested()) d.congestionWaiters.push_back(t.info.index);
}

void Kernel::wakeCongestionWaiters(int dev) {
  DeviceState& d = device(dev);
  if (d.congestionWaiters.empty() || d.device.congested()) return;
  std::vector<int> waiters;
  waiters.swap(d.congestionWaiters);
  for (int id : waiters) {
    Task& t = task(id);
    if (!t.removed && t.state == TaskState::Paused) wakeTaskNow(t);
  }
}

void Kernel::startBackgroundWriteback(int dev) {
  device(dev).flusher.startBackground(*this);
}

void Kernel::startReclaimWriteback(int dev) {
  // Reclaim that meets dirty pages wakes the flushers to write them out, all of them, over
  // the background threshold or not (wakeup_flusher_threads(WB_REASON_VMSCAN): nr_pages is
  // every dirty page; a bdi without dirty IO is passed by): below it, nothing else would
  // ever write them while memory is short.
  DeviceState& d = device(dev);
  if (d.reclaimable <= 0) return;
  d.flusher.writeAtLeast(*this, d.reclaimable);
}

bool Kernel::writebackInProgress(int dev) const {
  return device(dev).flusher.active();
}

bool Kernel::congested(int dev) const {
  return device(dev).device.congested();
}

int Kernel::addFile(int dev, Pages size) {
  const int id = static_cast<int>(m_files.size());
  m_files.emplace_back(id, dev, size);
  return id;
}

// --- what a device's journal asks ---

JournalHost::WbPages Kernel::wbPages(int dev) const {
  const DeviceState& d = device(dev);
  return {.dirty = d.reclaimable, .writeback = d.writeback, .written = d.written};
}

void Kernel::writeOrderedData(int dev, Pages pages) {
  device(dev).flusher.writeAtLeast(*this, pages);
}

Pages Kernel::fsyncDirtyPages(int id) const {
  const Task& t = m_tasks[static_cast<std::size_t>(id)];
  return t.file >= 0 ? m_files[static_cast<std::size_t>(t.file)].dirty() : 0;
}

void Kernel::journalWaitDone(int id) {
  m_writers.journalWaitDone(*this, task(id));
}

// --- tracepoints ---

void Kernel::trace(const TraceRecord& r) {
  if (m_sink) m_sink->onTrace(r);
}

namespace {
// The model does not track which task a request was issued or completed in the context of:
// the block lines carry the idle task, as an issue from the completion interrupt shows.
TraceHeader kernelContext(SimTime now, std::string_view comm) {
  TraceHeader h;
  h.time = now;
  h.comm = makeComm(comm);
  return h;
}
}  // namespace

void Kernel::traceBlockIssue(int dev) {
  DeviceState& d = device(dev);
  if (d.tracedIssues == d.device.issued()) return;
  d.tracedIssues = d.device.issued();
  if (const IoRequest* r = d.device.inService()) traceBlockRq(dev, *r, false);
}

void Kernel::traceBlockRq(int dev, const IoRequest& r, bool complete) {
  BlockRq b;
  b.header = kernelContext(m_now, "<idle>");
  b.complete = complete;
  b.minor = static_cast<std::uint32_t>(16 * dev);
  const std::string_view rwbs = r.read ? "R" : (r.file == kJournalFile ? "WS" : "W");
  std::copy(rwbs.begin(), rwbs.end(), b.rwbs.begin());
  b.sector = static_cast<std::uint64_t>(std::max<std::int64_t>(r.offset, 0)) * (kPageBytes / 512);
  b.nrSector = static_cast<std::uint32_t>(r.pages * (kPageBytes / 512));
  m_sink->onFsTrace(b);
}

void Kernel::traceJbd2Commit(int dev, bool end, std::int64_t tid, int sync) {
  Jbd2Commit j;
  // kjournald2's thread is named after the device and the journal's inode (8).
  j.header = kernelContext(m_now, "jbd2/" + std::string(deviceName(dev)) + "-8");
  j.end = end;
  j.minor = static_cast<std::uint32_t>(16 * dev);
  j.transaction = tid;
  j.sync = sync;
  j.head = tid;
  m_sink->onFsTrace(j);
}

TraceHeader Kernel::traceHeader(const Task& t) const {
  TraceHeader h;
  h.time = m_now;
  h.comm = makeComm(t.info.name);
  h.pid = t.info.pid;
  h.cpu = t.info.index % std::max(1, m_scenario.machine.cpus);
  return h;
}

std::string_view Kernel::deviceName(int dev) const {
  return device(dev).device.config().name;
}

}  // namespace throttlelab::engine
