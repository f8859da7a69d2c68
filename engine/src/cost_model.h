// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What kernel work costs in CPU time: every calibration constant of the model in one place,
// each with its source. Nothing here is adjusted per experiment.
//
// [M] measured on the development machine (AMD EPYC VM, Linux 6.18), 2026-11-30:
//     `dd if=/dev/zero of=/dev/shm/x bs=1M count=2000`: 0.94 s of system time for 512,000 pages,
//     i.e. 1.8 us per page for read(/dev/zero) + write() into the page cache, all of it kernel
//     time; this is why the built-in dd writers have copyMBps = 2000 (2.0 us per page).
//     `dd ... of=/dev/null`: 0.11 us per page, the read(/dev/zero) alone.
//     `dd ... of=/tmp/x conv=fdatasync` (ext4) minus the same without fdatasync: about
//     0.25 us per page of writeback submission (noisy: shared machine).
// [D] our own estimate, stated as such; an order of magnitude, not a fit to any mail.

namespace throttlelab::engine::cost {

/// Building and submitting a page of writeback IO (writepage, bio, request), whoever does it:
/// the flusher or, under IO-ful policies, the dirtier. [M] 0.25 us on this machine, doubled
/// for a 2010-era CPU and XFS [D].
inline constexpr double kWritebackSubmitPerPageS = 0.5e-6;

/// Completing a page of IO (interrupt, end_page_writeback, LRU). [D]
inline constexpr double kIoCompletionPerPageS = 0.1e-6;

/// One pass of balance_dirty_pages(): reading counters, computing limits and the pause, about
/// a thousand instructions. [D]
inline constexpr double kThrottleCallS = 0.3e-6;

/// A lock shared by everyone submitting writeback to one device (the bdi list lock and the
/// request queue lock of 2.6.3x) is held this long per page submitted. Each of k concurrent
/// submitters spins on average for the others: (k - 1) x this per page. [D]
inline constexpr double kSubmitLockHoldPerPageS = 0.5e-6;

/// Faulting in a fresh anonymous page: allocation, zeroing, mapping. [D]
inline constexpr double kAnonFaultPerPageS = 0.6e-6;

/// Scanning one page of an LRU list in reclaim (kswapd or direct). [D]
inline constexpr double kReclaimScanPerPageS = 0.1e-6;

/// Unmapping a page and setting up swap-out, or mapping a swapped-in page. [D]
inline constexpr double kSwapPerPageS = 1.0e-6;

/// Reclaim scans about this many pages for each page it frees. [D]
inline constexpr double kScanPerReclaimed = 2.0;

}  // namespace throttlelab::engine::cost
