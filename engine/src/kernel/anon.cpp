// SPDX-License-Identifier: GPL-3.0-or-later
// Tasks that use anonymous memory. A Compiler (cc1 in a make -jN) allocates its working set,
// computes while touching it (pages that were swapped out come back by major faults that
// wait for a swap-in read), writes an object file, and exits. An Allocator allocates and
// touches memory, holds it, and frees it.
#include <algorithm>
#include <cmath>

#include "cost_model.h"
#include "kernel.h"

namespace throttlelab::engine {

namespace {
constexpr Pages kAllocPiece = 256;       // pages faulted in per CPU piece
constexpr double kComputeSliceS = 0.01;  // CPU seconds between checks for major faults
constexpr double kWorkingSetPasses = 4;  // [D] times a compile sweeps its working set
constexpr Pages kSwapCluster = 8;        // page-cluster = 3: a swap-in reads 8 pages
}  // namespace

void Kernel::beginAnonRun(Task& t) {
  t.anonPhase = AnonPhase::Allocate;
  // Touching any memory at all touches a whole page: a run allocates at least one, so that
  // no run is over before simulated time has moved.
  t.anonLeft = static_cast<Pages>(std::ceil(t.spec.anonMiB * kPagesPerMiB));
  t.computeLeftS = t.info.kind == TaskKind::Compiler ? t.spec.cpuS : 0;
  t.faultCarry = 0;
  t.runStart = m_now;
  t.allocPhaseStart = m_now;
  continueAnon(t);
}

void Kernel::continueAnon(Task& t) {
  switch (t.anonPhase) {
    case AnonPhase::Allocate: {
      if (t.anonLeft <= 0) {
        if (t.info.kind == TaskKind::Allocator) {
          t.lastRunS = toSeconds(m_now - t.allocPhaseStart);  // how long the allocation took
          if (t.spec.holdS > 0) {
            t.anonPhase = AnonPhase::Hold;
            sleepTask(t, seconds(t.spec.holdS), TaskState::Thinking);
          } else {
            endAnonRun(t);
          }
          return;
        }
        t.anonPhase = AnonPhase::Compute;
        continueAnon(t);
        return;
      }
      const Pages n = allocatePages(t, std::min(t.anonLeft, kAllocPiece));
      if (n == 0) return;  // waiting in the allocator; it calls us again
      m_mem.anon += n;
      t.rss += n;
      t.anonLeft -= n;
      const double userS = static_cast<double>(n * kPageBytes) / (t.spec.allocMBps * 1e6);
      runCpu(t, static_cast<double>(n) * cost::kAnonFaultPerPageS, userS, AfterCpu::Anon);
      return;
    }
    case AnonPhase::Compute: {
      if (t.computeLeftS <= 1e-12) {
        const Pages obj = static_cast<Pages>(static_cast<double>(t.spec.fileMiB) * kPagesPerMiB);
        if (t.info.kind == TaskKind::Compiler && obj > 0) {
          t.anonPhase = AnonPhase::WriteObject;
          const int dev = static_cast<int>(deviceIndexOf(m_scenario, t.spec));
          t.file = addFile(dev, obj);
          t.info.device = dev;
          t.runLeft = obj;
          t.blockLeft = std::max<Pages>(1, t.spec.blockKiB / 4);
          t.nrDirtied = 0;
          t.nrDirtiedPause = 32;
          t.dirtyPausedWhen = 0;
          m_writers.continueWriting(*this, t);
        } else {
          endAnonRun(t);
        }
        return;
      }
      // Touching the working set faults back what was swapped out: a share of the swapped
      // pages proportional to the CPU time of this slice.
      const double slice = std::min(t.computeLeftS, kComputeSliceS);
      if (t.swapped > 0 && t.spec.cpuS > 0) {
        t.faultCarry += static_cast<double>(t.swapped) * kWorkingSetPasses * slice / t.spec.cpuS;
        if (t.faultCarry >= 1.0) {
          const Pages k = allocatePages(
              t, std::min<Pages>({static_cast<Pages>(t.faultCarry), t.swapped, kSwapCluster}));
          if (k == 0) return;  // waiting in the allocator; it calls us again
          t.faultCarry -= static_cast<double>(k);
          t.swapped -= k;
          t.rss += k;
          m_mem.anon += k;
          const int dev = m_pages.swapDevice();
          // Major fault: a synchronous read from a scattered swap slot.
          const auto slot = static_cast<std::int64_t>(
              m_rng.uniform() * static_cast<double>(std::max<Pages>(m_mem.swapTotal, 1)));
          if (device(dev).device.submitSwap(slot, k, true, t.info.index, m_now)) {
            t.swapInPending += k;
            t.owedSystemS += static_cast<double>(k) * cost::kSwapPerPageS;  // the fault's mapping
            scheduleDevice(dev);
            ++t.generation;
            t.state = TaskState::IoWait;
            return;
          }
          // No request slot: the data is treated as read (the page is already allocated).
          m_mem.swapUsed -= k;
          m_mem.swapInPages += k;
        }
      }
      t.computeLeftS -= slice;
      runCpu(t, 0, slice, AfterCpu::Anon);
      return;
    }
    case AnonPhase::WriteObject:
      m_writers.continueWriting(*this, t);
      return;
    case AnonPhase::Hold:
      endAnonRun(t);
      return;
  }
}

void Kernel::anonPieceDone(Task& t) {
  t.state = TaskState::Runnable;
  continueAnon(t);
}

void Kernel::swapInDone(Task& t, Pages pages) {
  m_mem.swapUsed -= pages;
  m_mem.swapInPages += pages;
  t.swapInPending = std::max<Pages>(0, t.swapInPending - pages);
  if (t.removed || t.swapInPending > 0 || t.state != TaskState::IoWait || t.allocWaiting) return;
  t.state = TaskState::Runnable;
  // The faulting slice goes on computing.
  const double slice = std::min(t.computeLeftS, kComputeSliceS);
  t.computeLeftS -= slice;
  runCpu(t, 0, slice, AfterCpu::Anon);
}

void Kernel::releaseAnon(Task& t) {
  m_mem.anon -= t.rss;
  m_mem.free += t.rss;
  t.rss = 0;
  m_mem.swapUsed -= t.swapped;
  t.swapped = 0;
  t.swapWb = 0;  // still resident until its swap write completes; swapOutDone frees it then
}

void Kernel::endAnonRun(Task& t) {
  ++t.runs;
  if (t.info.kind == TaskKind::Compiler) t.lastRunS = toSeconds(m_now - t.runStart);
  releaseAnon(t);
  if (t.spec.loop && (t.spec.runs == 0 || t.runs < t.spec.runs)) {
    beginAnonRun(t);
    return;
  }
  noteTaskExiting(t);
  t.state = TaskState::Exited;
  t.exitedS = toSeconds(m_now);
}

}  // namespace throttlelab::engine
