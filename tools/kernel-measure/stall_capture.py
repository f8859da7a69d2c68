#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""When this machine's disk completes writes: a longer trace of throttled dd, with the block
layer's completions beside the writeback tracepoints.

  tools/kernel-measure/stall_capture.py OUT_DIR [WRITERS ...]      (as root, under tl-exclusive)

For each WRITERS (default 10 and 100): that many dd (bs=1M, no end) write into files on the
ext4 root for 30 s under vm.dirty_bytes = 64 MiB and dirty_background_bytes = 32 MiB, traced
through a private ftrace instance: writeback:global_dirty_state, writeback:bdi_dirty_ratelimit,
writeback:balance_dirty_pages, block:block_rq_issue and block:block_rq_complete. OUT_DIR gets
stall-N.trace.txt (what trace_pipe gave) and stall-N.json (the run's times and counters).

tracefs is mounted at /sys/kernel/tracing if it is not (and unmounted again at the end); every
other setting is saved, restored and checked by measure_costs.py's save_settings() and
restore_settings() (vm.dirty_*, swappiness, swaps, tracing instances, memory cgroups).
"""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure_costs as mc  # noqa: E402

EVENTS = ['writeback/global_dirty_state', 'writeback/bdi_dirty_ratelimit',
          'writeback/balance_dirty_pages', 'block/block_rq_issue', 'block/block_rq_complete']
SECONDS = 30


def capture(out, n):
    mc.fresh_work()
    mc.sysctl('dirty_bytes', 64 << 20)
    mc.sysctl('dirty_background_bytes', 32 << 20)
    tr = mc.Trace(out + '.trace.txt', EVENTS)
    t0 = time.monotonic()
    a = mc.snapshot()
    procs = mc.start_dd(n, '1M', mc.WORK + '/f')
    time.sleep(SECONDS)
    for p in procs:
        p.terminate()
    tasks = mc.finish(procs)
    b = mc.snapshot()
    t1 = time.monotonic()
    tr.stop()
    return {'writers': n, 'bs': '1M', 'seconds': SECONDS, 'start': t0, 'end': t1,
            'before': a, 'after': b, 'tasks': tasks, 'events': EVENTS}


def main():
    if os.geteuid() != 0:
        sys.exit('stall_capture.py: run as root (it changes vm.dirty_* and tracing)')
    out_dir = sys.argv[1]
    writers = [int(w) for w in sys.argv[2:]] or [10, 100]
    os.makedirs(out_dir, exist_ok=True)

    def body(saved):
        for n in writers:
            print('stall_capture.py: %d dd for %d s' % (n, SECONDS), flush=True)
            out = os.path.join(out_dir, 'stall-%d' % n)
            result = capture(out, n)
            mc.restore_settings(saved)
            result['started'] = time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())
            mc.write(out + '.json', json.dumps(result, indent=1))
    mc.guarded('stall_capture.py', body)


if __name__ == '__main__':
    main()
