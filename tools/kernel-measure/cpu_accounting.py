#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Where the CPU of throttled writeback goes, counted three ways: /proc/stat's tick samples,
every thread's own run time (/proc/PID/task/TID/schedstat, nanoseconds, charged at each context
switch) and perf's cpu-clock samples (an hrtimer at 999 Hz, not the 250 Hz tick).

  tools/kernel-measure/cpu_accounting.py OUT_DIR [WRITERS|sync ...]   (as root, under tl-exclusive)

For each WRITERS (default 1, 10, 100): that many dd (bs=1M, no end) write into files on the
ext4 root under vm.dirty_bytes = 64 MiB and dirty_background_bytes = 32 MiB, as in
measure_costs.py's throttled-N. Counters are read at WARM s and WARM + WINDOW s, then perf
records the whole machine for PERF_S s (if perf works here). OUT_DIR gets
cpu-accounting-N.json (raw counters: /proc/stat per CPU, every thread's schedstat, utime and
stime, /proc/vmstat, /proc/interrupts, /proc/softirqs, the disk) and
cpu-accounting-N.perf-comm.txt (perf report by command). Every setting is saved, restored and
checked by measure_costs.py's guarded(). `sync` instead of a number: one dd of 4 GiB that is
never throttled, then the counters around a `sync` (cpu-accounting-sync.json), and the same
again with that sync under perf record -a. cpu_accounting_derive.py makes the table.
Mind the disk: n dd write at the disk's speed for WARM + WINDOW + PERF_S s.
"""
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure_costs as mc  # noqa: E402

WARM, WINDOW, PERF_S = 8, 12, 5
MIN_FREE = 16 << 30  # stop before the file system has less than this left (perf runs 5 s more)


def sleep_watching_disk(seconds):
    """Sleeps, but stops the experiment before the writers fill the file system."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        st = os.statvfs(mc.WORK)
        if st.f_bavail * st.f_frsize < MIN_FREE:
            raise RuntimeError('cpu_accounting.py: less than %d GiB left on %s; stopped'
                               % (MIN_FREE >> 30, mc.WORK))
        time.sleep(min(0.5, max(0.0, end - time.monotonic())))


def stat_lines():
    """Every cpu line of /proc/stat in ticks: user nice system idle iowait irq softirq steal."""
    out = {}
    for line in mc.read('/proc/stat').splitlines():
        if line.startswith('cpu'):
            f = line.split()
            out[f[0]] = [int(v) for v in f[1:9]]
    return out


def threads():
    """Every thread of the machine: comm, kernel thread or not, schedstat (run ns, wait ns,
    timeslices) and utime/stime ticks, keyed by tid."""
    out = {}
    for pid in os.listdir('/proc'):
        if not pid.isdigit():
            continue
        try:
            tids = os.listdir('/proc/%s/task' % pid)
        except OSError:
            continue
        for tid in tids:
            base = '/proc/%s/task/%s/' % (pid, tid)
            try:
                text = mc.read(base + 'stat')
                sched = [int(v) for v in mc.read(base + 'schedstat').split()]
            except OSError:
                continue
            f = text[text.rindex(')') + 2:].split()
            out[tid] = {'pid': int(pid), 'comm': text[text.index('(') + 1:text.rindex(')')],
                        'kthread': bool(int(f[6]) & 0x00200000), 'run_ns': sched[0],
                        'wait_ns': sched[1], 'slices': sched[2], 'utime': int(f[11]),
                        'stime': int(f[12])}
    return out


def irq_totals(path):
    """Per line of /proc/interrupts or /proc/softirqs: the sum over the CPUs."""
    out = {}
    for line in mc.read(path).splitlines()[1:]:
        name, _, rest = line.partition(':')
        counts = [int(v) for v in rest.split()[:os.cpu_count()] if v.isdigit()]
        out[name.strip()] = sum(counts)
    return out


def snap():
    return {'time': time.monotonic(), 'stat': stat_lines(), 'threads': threads(),
            'vmstat': mc.vmstat(), 'disk': mc.diskstats(),
            'interrupts': irq_totals('/proc/interrupts'), 'softirqs': irq_totals('/proc/softirqs')}


def perf_by_comm(out):
    """perf record -a cpu-clock for PERF_S s, reported by command (swapper is idle)."""
    if not shutil.which('perf'):
        return 'perf: not installed'
    data = out + '.perf.data'
    rec = subprocess.run(['perf', 'record', '-q', '-e', 'cpu-clock', '-F', '999', '-a', '-o',
                          data, '--', 'sleep', str(PERF_S)], capture_output=True, text=True)
    if rec.returncode != 0:
        return 'perf record failed: ' + rec.stderr
    return perf_report(data)


def perf_report(data):
    rep = subprocess.run(['perf', 'report', '-i', data, '--stdio', '--sort', 'comm',
                          '--percent-limit', '0.1'], capture_output=True, text=True).stdout
    syms = subprocess.run(['perf', 'report', '-i', data, '--stdio', '--sort', 'comm,sym',
                           '--percent-limit', '0.5'], capture_output=True, text=True).stdout
    os.remove(data)
    return rep + '\n# ---- by command and symbol\n' + syms


def dirty_4g():
    """One dd of 4 GiB under limits it never reaches, periodic writeback off (as
    measure_costs.py's unthrottled-1M): everything it wrote is dirty when it ends."""
    mc.fresh_work()
    mc.sysctl('dirty_bytes', 16 << 30)
    mc.sysctl('dirty_background_bytes', 12 << 30)
    mc.sysctl('dirty_expire_centisecs', 360000)
    mc.sysctl('dirty_writeback_centisecs', 0)
    mc.finish(mc.start_dd(1, '1M', mc.WORK + '/f', count=4096))


def sync_run(out):
    """What writing back 4 GiB costs while nothing else of ours runs: the counters around a
    `sync` (its own CPU from wait4), then the same again with sync under perf record -a."""
    dirty_4g()
    a = snap()
    p = subprocess.Popen(['sync'])
    _, _, ru = os.wait4(p.pid, 0)
    b = snap()
    perf = 'perf: not installed'
    if shutil.which('perf'):
        dirty_4g()
        data = out + '.perf.data'
        subprocess.run(['perf', 'record', '-q', '-e', 'cpu-clock', '-F', '999', '-a', '-o', data,
                        '--', 'sync'], check=True, capture_output=True)
        perf = perf_report(data)
    mc.write(out + '.perf-comm.txt', perf)
    return {'writers': 0, 'bs': '1M', 'dd_pids': [], 'cpus': os.cpu_count(), 'clk_tck': mc.TICK,
            'sync_user_s': ru.ru_utime, 'sync_system_s': ru.ru_stime, 'before': a, 'after': b}


def run(out, n):
    mc.fresh_work()
    mc.sysctl('dirty_bytes', 64 << 20)
    mc.sysctl('dirty_background_bytes', 32 << 20)
    procs = mc.start_dd(n, '1M', mc.WORK + '/f')
    try:
        sleep_watching_disk(WARM)
        a = snap()
        sleep_watching_disk(WINDOW)
        b = snap()
        perf = perf_by_comm(out)
        alive = [p.poll() is None for p in procs]
    finally:
        for p in procs:
            p.terminate()
            p.wait()  # a dd may have ended already (the disk full): not mc.finish()
    mc.write(out + '.perf-comm.txt', perf)
    return {'writers': n, 'bs': '1M', 'warm': WARM, 'window': WINDOW, 'perf_s': PERF_S,
            'dd_pids': [p.pid for p in procs], 'dd_alive_after_window': all(alive), 'cpus': os.cpu_count(),
            'clk_tck': mc.TICK, 'before': a, 'after': b}


def main():
    if os.geteuid() != 0:
        sys.exit('cpu_accounting.py: run as root (it changes vm.dirty_*)')
    out_dir = sys.argv[1]
    writers = sys.argv[2:] or ['1', '10', '100']
    os.makedirs(out_dir, exist_ok=True)

    def body(saved):
        for k, n in enumerate(writers):
            print('cpu_accounting.py: %s' % n, flush=True)
            again = writers[:k].count(n)  # a repetition gets NAME.2, NAME.3, ...
            out = os.path.join(out_dir, 'cpu-accounting-%s%s' % (n, '.%d' % (again + 1) if again else ''))
            result = sync_run(out) if n == 'sync' else run(out, int(n))
            mc.restore_settings(saved)
            result['started'] = time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())
            mc.write(out + '.json', json.dumps(result))
    mc.guarded('cpu_accounting.py', body)


if __name__ == '__main__':
    main()
