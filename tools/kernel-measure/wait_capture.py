#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Where throttled writers wait on this machine's kernel: every time a dd leaves the CPU, with
the kernel stack it left from, beside the writeback and block-layer events.

  tools/kernel-measure/wait_capture.py OUT_DIR [N]x[BS] ...       (as root, on a quiet machine)

Each argument is one run, e.g. 10x1M or 100x4k (default: 1x1M 10x1M 100x1M 1x4k 10x4k 100x4k):
N dd (no end) write BS blocks into files on the ext4 root for SECONDS under vm.dirty_bytes =
64 MiB and dirty_background_bytes = 32 MiB (the settings of throttled-N and stall-N), traced
through a private ftrace instance, read when the run is over (its buffer holds the whole run):

- sched:sched_switch of the writers and of the flusher's workers (prev or next comm "dd" or
  "kworker/u*"), with a `stacktrace` trigger on every switch away from one of them: the kernel
  stack each wait began in (offcputime-style accounting from tracefs);
- sched:sched_waking of the same tasks (common_pid / comm: who woke them);
- the writeback tracepoints (global_dirty_state, bdi_dirty_ratelimit, balance_dirty_pages,
  and the flusher's writeback_start/_written/_queue_io/_single_inode/_wait);
- block:block_rq_issue, block:block_rq_complete, block:block_rq_insert;
- vmscan's direct reclaim, kswapd wake-ups and mm_vmscan_throttled.

OUT_DIR gets waits-N-BS.trace.txt (what trace_pipe gave) and waits-N-BS.json (times, counters,
each dd's /proc/PID/schedstat, /proc/PID/sched switch counts and CPU times before and after).
wait_figures.py turns them into the table of waits.

Settings: tracefs is mounted if it is not (and unmounted again); vm.dirty_*, swappiness, swaps,
tracing instances and memory cgroups are saved, restored after every run and at the end, and
checked (measure_costs.py's guarded()). The writers are stopped when less than MIN_FREE is left
on the file system; every dd this script started is killed on any error.
"""
import json
import os
import re
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure_costs as mc  # noqa: E402

SECONDS = int(os.environ.get('WAIT_SECONDS', '30'))  # a shorter trial run: WAIT_SECONDS=5
MIN_FREE = 20 << 30
BUFFER_KB = 786432  # per CPU: a whole 30 s run of 100 writers with their stacks, read afterwards
WHO = '(prev_comm == "dd" || next_comm == "dd" || prev_comm ~ "kworker/u*" || ' \
      'next_comm ~ "kworker/u*")'
EVENTS = {
    'sched/sched_switch': WHO,
    'sched/sched_waking': '(comm == "dd" || comm ~ "kworker/u*")',
    'writeback/global_dirty_state': None,
    'writeback/bdi_dirty_ratelimit': None,
    'writeback/balance_dirty_pages': None,
    'writeback/writeback_start': None,
    'writeback/writeback_written': None,
    'writeback/writeback_queue_io': None,
    'writeback/writeback_single_inode': None,
    'writeback/writeback_wait': None,
    'block/block_rq_insert': None,
    'block/block_rq_issue': None,
    'block/block_rq_complete': None,
    'vmscan/mm_vmscan_direct_reclaim_begin': None,
    'vmscan/mm_vmscan_direct_reclaim_end': None,
    'vmscan/mm_vmscan_wakeup_kswapd': None,
    'vmscan/mm_vmscan_throttled': None,
}
TRIGGER = 'stacktrace if prev_comm == "dd" || prev_comm ~ "kworker/u*"'


def task_sched(pid):
    """Run time, run-queue wait and time slices (/proc/PID/schedstat, CONFIG_SCHED_INFO), and
    the switch counts of /proc/PID/sched."""
    out = {}
    try:
        run, wait, slices = mc.read('/proc/%d/schedstat' % pid).split()
        out.update(run_ns=int(run), runq_wait_ns=int(wait), slices=int(slices))
        for line in mc.read('/proc/%d/sched' % pid).splitlines():
            m = re.match(r'(nr_switches|nr_voluntary_switches|nr_involuntary_switches)\s*:\s*(\d+)',
                         line)
            if m:
                out[m.group(1)] = int(m.group(2))
    except OSError:
        return None
    out['cpu'] = mc.task_cpu(pid)
    out['wchar'] = mc.task_wchar(pid)
    return out


def tasks_sched(procs):
    return {str(p.pid): task_sched(p.pid) for p in procs}


def sleep_watching_disk(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        st = os.statvfs(mc.WORK)
        if st.f_bavail * st.f_frsize < MIN_FREE:
            return time.monotonic() - (end - seconds)
        time.sleep(min(0.25, max(0.0, end - time.monotonic())))
    return seconds


class StackTrace(mc.Trace):
    """mc.Trace with event filters and the stacktrace trigger on sched_switch."""

    def __init__(self, path, buffer_kb=BUFFER_KB):
        self.path, self.events = path, list(EVENTS)
        os.mkdir(mc.INSTANCE)
        mc.write(mc.INSTANCE + '/tracing_on', 0)
        mc.write(mc.INSTANCE + '/buffer_size_kb', buffer_kb)
        for e, flt in EVENTS.items():
            if flt:
                mc.write(mc.INSTANCE + '/events/' + e + '/filter', flt)
            mc.write(mc.INSTANCE + '/events/' + e + '/enable', 1)
        mc.write(mc.INSTANCE + '/events/sched/sched_switch/trigger', TRIGGER)
        mc.write(mc.INSTANCE + '/tracing_on', 1)

    def stop(self):
        mc.write(mc.INSTANCE + '/tracing_on', 0)
        # Read once the run is over: a reader of trace_pipe during the run is woken as the
        # buffer fills and takes the CPU from the writers (a first version did that: `cat`
        # preempted the dd 55,000 times in 30 s).
        with open(self.path, 'w') as out, open(mc.INSTANCE + '/trace') as src:
            while True:
                block = src.read(1 << 20)
                if not block:
                    break
                out.write(block)
        lost = {}
        for cpu in sorted(os.listdir(mc.INSTANCE + '/per_cpu')):
            stats = mc.read(mc.INSTANCE + '/per_cpu/' + cpu + '/stats')
            lost[cpu] = {k: int(v) for k, v in re.findall(r'(overrun|dropped events|entries): (\d+)', stats)}
        mc.write(mc.INSTANCE + '/events/sched/sched_switch/trigger', '!stacktrace')
        for e, flt in EVENTS.items():
            mc.write(mc.INSTANCE + '/events/' + e + '/enable', 0)
            if flt:
                mc.write(mc.INSTANCE + '/events/' + e + '/filter', 0)
        os.rmdir(mc.INSTANCE)
        return lost


def capture(out, n, bs):
    quiet = {'loadavg': mc.read('/proc/loadavg').strip(),
             'pressure_cpu': mc.read('/proc/pressure/cpu')}
    mc.fresh_work()
    mc.sysctl('dirty_bytes', 64 << 20)
    mc.sysctl('dirty_background_bytes', 32 << 20)
    tr = StackTrace(out + '.trace.txt')
    procs = []
    try:
        t0 = time.monotonic()
        a = mc.snapshot()
        procs = mc.start_dd(n, bs, mc.WORK + '/f')
        time.sleep(0.2)
        sa = tasks_sched(procs)
        ta = time.monotonic()
        ran = sleep_watching_disk(SECONDS)
        sb = tasks_sched(procs)
        tb = time.monotonic()
        for p in procs:
            p.terminate()
        tasks = mc.finish(procs)
        procs = []
        b = mc.snapshot()
        t1 = time.monotonic()
    finally:
        for p in procs:
            try:
                p.send_signal(signal.SIGKILL)
                p.wait()
            except OSError:
                pass
        lost = tr.stop()
    return {'writers': n, 'bs': bs, 'seconds': SECONDS, 'ran_s': ran, 'start': t0, 'end': t1,
            'sched_window': [ta, tb], 'sched_before': sa, 'sched_after': sb,
            'before': a, 'after': b, 'tasks': tasks, 'events': EVENTS, 'trigger': TRIGGER,
            'overrun': lost, 'before_run': quiet, 'uname': os.uname().release}


def main():
    if os.geteuid() != 0:
        sys.exit('wait_capture.py: run as root (it changes vm.dirty_* and tracing)')
    out_dir = sys.argv[1]
    runs = sys.argv[2:] or ['1x1M', '10x1M', '100x1M', '1x4k', '10x4k', '100x4k']
    os.makedirs(out_dir, exist_ok=True)

    def body(saved):
        for spec in runs:
            n, bs = spec.split('x')
            print('wait_capture.py: %s dd bs=%s for %d s' % (n, bs, SECONDS), flush=True)
            out = os.path.join(out_dir, 'waits-%s-%s' % (n, bs))
            result = capture(out, int(n), bs)
            mc.restore_settings(saved)
            result['started'] = time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())
            mc.write(out + '.json', json.dumps(result, indent=1))
    mc.guarded('wait_capture.py', body)


if __name__ == '__main__':
    main()
