// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What kernel work costs in CPU time: every calibration constant of the model in one place,
// each with its measurement. Nothing here is adjusted per experiment.
//
// [M] measured on the development machine (Linux 6.18.44, x86-64, HZ 250, a Firecracker VM
//     with 2 vCPUs of an AMD EPYC, 24 GiB, ext4 on virtio-blk), 2026-12-01, by
//     tools/kernel-measure/measure_costs.py; its raw counters are in
//     tests/data/kernel-6.18-costs/NAME.json and tools/kernel-measure/derive_costs.py turns
//     them into tests/data/kernel-6.18-costs/costs.md, whose rows are quoted below. The median
//     of the repetitions is used; the spread is in costs.md.
// [D] our own estimate where no kernel of this machine can show the cost, stated as such.
//
// The dirtying cost itself (read from /dev/zero, copy, page-cache insertion and accounting) is
// the writer's copy speed, TaskSpec::copyMBps, a property of the machine a scenario describes.
// On this machine it is 2.62 us per page with dd bs=1M, all of it system time [M] (costs.md
// "dirtying a page, bs=1M", unthrottled-1M.{1..5}.json: dd's system time / pages, range
// 1.24-2.74), i.e. copyMBps = 1563; 3.56 us with bs=4k [M] (unthrottled-4k: 256 times more
// system calls, 4 KiB folios), copyMBps = 1150; 1.42 us into tmpfs [M] (tmpfs-1M). The
// scenarios of this machine (docs/real-kernel-6.18-*.json) use these; the built-in ones keep
// 2000 MB/s, the 2.0 us per page of their 2010-era description.

namespace throttlelab::engine::cost {

/// Building, submitting and completing a page of writeback IO (writepages, block allocation of
/// ext4's delayed allocation, bio, request, the completion interrupt and end_page_writeback),
/// whoever submits it, is a property of the machine: MachineConfig::writebackUsPerPage.
/// On this project's machine it is 0.41 us [M]: the machine's busy time by the idle clock
/// (2 CPUs less /proc/stat idle and iowait) less every other process's own run time
/// (schedstat), during a `sync` of 4 GiB written with bs=1M and nothing else of ours running,
/// over nr_written (tests/data/kernel-6.18-costs/cpu-accounting.md,
/// cpu-accounting-sync{,.2,.3}.json: 0.46, 0.33, 0.41 us; the kernel worker threads' own run
/// time 0.30 us of it). The throttled runs agree: 0.48 us with 10 dd, 0.63 with 100
/// (cpu-accounting.md, from throttled-10/-100.json: all busy time but dd's, kswapd's and user
/// time); docs/real-kernel-6.18-dd.json sets it. The built-in scenarios keep 1.29 us, the
/// figure first read here from /proc/stat's system and user columns during the syncs of
/// unthrottled-1M (costs.md "writing back a page, after bs=1M"): those syncs ran beside other
/// sessions' processes (0.39 CPU of user time) that the idle background did not remove, so
/// for them it is an estimate of an older, slower machine [D], not this one's measurement.
/// The model splits it into submission (charged to the submitter) and completion (charged to
/// the system); the split is ours [D], the sum is the machine's.
inline constexpr double kIoCompletionPerPageS = 0.1e-6;
inline double writebackSubmitPerPageS(double writebackUsPerPage) {
  return writebackUsPerPage * 1e-6 - kIoCompletionPerPageS;
}

/// One pass of balance_dirty_pages(): 0.32 us for the function itself [M] (costs.md "one
/// balance_dirty_pages() call, the function itself": perf-100.perf-children.txt self share of
/// the cpu-clock samples over the 4,814 calls per second that throttled-100 traced). Everything
/// under it, the context switch of its sleep included, is 8.4 us per call [M]; the model
/// charges the context switch nowhere else either, so it is not added here [D].
inline constexpr double kThrottleCallS = 0.32e-6;

/// A lock shared by everyone submitting writeback to one device (the bdi list lock and the
/// request queue lock of 2.6.3x) is held this long per page submitted. Each of k concurrent
/// submitters spins on average for the others: (k - 1) x this per page. [D]: only IO-ful
/// kernels (<= 3.1) let dirtiers submit, and this machine runs 6.18.
inline constexpr double kSubmitLockHoldPerPageS = 0.5e-6;

/// Faulting in a fresh anonymous page: allocation, zeroing, mapping. 2.08 us [M] (costs.md
/// "faulting in a fresh anonymous page", anon.{1..3}.json); on this VM it includes the
/// hypervisor backing a page the guest had handed back (first-touch.json: 1.4-6.1 us).
inline constexpr double kAnonFaultPerPageS = 2.08e-6;

/// Reclaiming one page-cache page (kswapd's scan, unmapping the buffers, freeing): kswapd0's
/// CPU over pgsteal_kswapd in the throttled runs, 0.19 us [M] (costs.md "reclaiming a page,
/// kswapd": throttled-10 0.192, throttled-100 0.194, perf-100 0.188), with one page scanned per
/// page reclaimed [M] (pgscan_kswapd / pgsteal_kswapd = 1.000 in all three).
inline constexpr double kReclaimScanPerPageS = 0.19e-6;
inline constexpr double kScanPerReclaimed = 1.0;

/// Unmapping a page and setting up its swap-out, or mapping a swapped-in page: 1.38 us [M]
/// (costs.md "swapping a page out", anon: the extra system time of a 1 GiB toucher in a 256 MiB
/// cgroup over pswpout). Swap-in measured 17.8 us per page, but that figure carries the
/// swap-out each swap-in causes and the wait for the read, which the model counts separately,
/// so the swap-out figure is used for both directions [D].
inline constexpr double kSwapPerPageS = 1.38e-6;

}  // namespace throttlelab::engine::cost
