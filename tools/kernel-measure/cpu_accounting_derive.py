#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The table of cpu_accounting.py's runs: the CPU of n throttled dd as /proc/stat counts it
(tick samples for user/system, the idle loop's own clock for idle/iowait) beside what every
thread ran by its own schedstat clock, and the per-page figures that follow.

  tools/kernel-measure/cpu_accounting_derive.py RAW_DIR > cpu-accounting.md
"""
import glob
import json
import os
import sys

STAT = ['user', 'nice', 'system', 'idle', 'iowait', 'irq', 'softirq', 'steal']


def group(t, dd):
    if t['pid'] in dd:
        return 'dd'
    if not t['kthread']:
        return 'other processes'
    comm = t['comm']
    if comm.startswith('kworker'):
        return 'kworker (flush)' if 'flush' in comm else 'kworker (other)'
    for name in ('kswapd', 'jbd2', 'ksoftirqd', 'kcompactd', 'kdamond'):
        if comm.startswith(name):
            return name
    return 'other kernel threads'


def derive(r):
    a, b = r['before'], r['after']
    dt = b['time'] - a['time']
    tick = r['clk_tck']
    cpus = r['cpus']
    stat = {k: (b['stat']['cpu'][i] - a['stat']['cpu'][i]) / tick / dt for i, k in enumerate(STAT)}
    dd = set(r['dd_pids'])
    run, ticks, flush_tids = {}, {}, 0
    for tid, t in b['threads'].items():
        t0 = a['threads'].get(tid)
        if not t0:
            continue
        # A kworker's name says which work it runs now; it flushed if it did at either end.
        g = group(t if 'flush' in t['comm'] or not t0['kthread'] else t0, dd)
        if g == 'kworker (flush)':
            flush_tids += 1
        run[g] = run.get(g, 0.0) + (t['run_ns'] - t0['run_ns']) / 1e9 / dt
        ticks[g] = ticks.get(g, 0.0) + (t['utime'] + t['stime'] - t0['utime'] - t0['stime']) / tick / dt
    vm = lambda k: (b['vmstat'][k] - a['vmstat'][k]) / dt
    irqs = sum(b['interrupts'].values()) - sum(a['interrupts'].values())
    soft = {k: (b['softirqs'][k] - a['softirqs'][k]) / dt for k in b['softirqs']}
    return {'dt': dt, 'cpus': cpus, 'stat': stat, 'run': run, 'ticks': ticks,
            'flush_tids': flush_tids, 'dirtied': vm('nr_dirtied'), 'written': vm('nr_written'),
            'pgsteal_kswapd': vm('pgsteal_kswapd'), 'irqs': irqs / dt, 'softirqs': soft}


def perf_idle(path):
    """The swapper (idle) share of perf's cpu-clock samples, or None."""
    if not os.path.exists(path):
        return None
    for line in open(path):
        f = line.split()
        if len(f) >= 2 and f[0].endswith('%') and f[1] == 'swapper':
            return float(f[0].rstrip('%'))
    return None


def main():
    raw = sys.argv[1]
    runs = []
    for path in sorted(glob.glob(os.path.join(raw, 'cpu-accounting-*.json')),
                       key=lambda p: json.load(open(p))['writers']):
        r = json.load(open(path))
        d = derive(r)
        d['writers'] = r['writers']
        d['run']['sync itself (wait4)'] = (r.get('sync_user_s', 0) + r.get('sync_system_s', 0)) / d['dt']
        d['perf_idle'] = perf_idle(path[:-len('.json')] + '.perf-comm.txt')
        runs.append(d)
    label = lambda d: '%d dd' % d['writers'] if d['writers'] else '`sync` of 4 GiB'
    head = '| CPUs (of 2), per second | ' + ' | '.join(label(d) for d in runs) + ' |'
    print(head)
    print('|---|' + '---:|' * len(runs))
    row = lambda name, f: print('| %s | %s |' % (name, ' | '.join(f(d) for d in runs)))
    for k in STAT:
        row('/proc/stat %s' % k, lambda d, k=k: '%.3f' % d['stat'][k])
    row('/proc/stat, all columns', lambda d: '%.3f' % sum(d['stat'].values()))
    row('**missing from /proc/stat** (2 less all columns)',
        lambda d: '**%.3f**' % (d['cpus'] - sum(d['stat'].values())))
    row('busy by the idle clock (2 less idle and iowait)',
        lambda d: '%.3f' % (d['cpus'] - d['stat']['idle'] - d['stat']['iowait']))
    row('busy by tick samples (user+nice+system+irq+softirq+steal)',
        lambda d: '%.3f' % sum(d['stat'][k] for k in STAT if k not in ('idle', 'iowait')))
    groups = sorted({g for d in runs for g in d['run']})
    for g in groups:
        row('run time (schedstat): %s' % g, lambda d, g=g: '%.3f' % d['run'].get(g, 0.0))
    row('run time (schedstat): all threads', lambda d: '%.3f' % sum(d['run'].values()))
    row('utime+stime (/proc/PID/stat): all threads', lambda d: '%.3f' % sum(d['ticks'].values()))
    row('perf cpu-clock, not idle (swapper) ×2',
        lambda d: '-' if d['perf_idle'] is None else '%.3f' % (d['cpus'] * (1 - d['perf_idle'] / 100)))
    row('kworker threads that flushed', lambda d: '%d' % d['flush_tids'])
    row('interrupts per s', lambda d: '{:,.0f}'.format(d['irqs']))
    for k in ('TIMER', 'BLOCK', 'SCHED', 'RCU'):
        row('softirq %s per s' % k, lambda d, k=k: '{:,.0f}'.format(d['softirqs'].get(k, 0)))
    row('nr_dirtied per s', lambda d: '{:,.0f}'.format(d['dirtied']))
    row('nr_written per s', lambda d: '{:,.0f}'.format(d['written']))
    us = lambda cpu, pages: '%.2f µs' % (1e6 * cpu / pages) if pages else '-'
    row('dd run time per page dirtied', lambda d: us(d['run'].get('dd', 0), d['dirtied']))
    row('flush kworkers per page written', lambda d: us(d['run'].get('kworker (flush)', 0), d['written']))
    row('all kworkers per page written',
        lambda d: us(d['run'].get('kworker (flush)', 0) + d['run'].get('kworker (other)', 0), d['written']))
    row('busy (idle clock) less dd, kswapd, other processes, per page written',
        lambda d: us(d['cpus'] - d['stat']['idle'] - d['stat']['iowait'] - d['run'].get('dd', 0)
                     - d['run'].get('kswapd', 0) - d['run'].get('other processes', 0), d['written']))
    row('kswapd per page reclaimed', lambda d: us(d['run'].get('kswapd', 0), d['pgsteal_kswapd']))

    throttled_clocks(raw)


def throttled_clocks(raw):
    """The same three clocks for measure_costs.py's throttled-N runs (2026-12-01), which kept
    /proc/stat, every dd's /proc/PID/stat and the kernel threads' CPU by name group (the sum
    over the groups is right; a kworker's group is its name at each end, so the split is not)."""
    rows = []
    for n in (1, 10, 100):
        path = os.path.join(raw, 'throttled-%d.json' % n)
        if not os.path.exists(path):
            continue
        r = json.load(open(path))
        a, b = r['before'], r['after']
        dt = b['time'] - a['time']
        st = {k: (b['stat'][k] - a['stat'][k]) / dt for k in b['stat']}
        dd = sum(t['cpu'][0] + t['cpu'][1] - a['tasks'][pid]['cpu'][0] - a['tasks'][pid]['cpu'][1]
                 for pid, t in b['tasks'].items() if t['cpu'] and a['tasks'].get(pid, {}).get('cpu'))
        kt = {k: b['kthreads'][k] - a['kthreads'].get(k, 0.0) for k in b['kthreads']}
        kswapd = kt.get('kswapd0', 0.0) / dt
        written = (b['vmstat']['nr_written'] - a['vmstat']['nr_written']) / dt
        busy = 2 - st['idle'] - st['iowait']
        rows.append((n, sum(st[k] for k in st if k not in ('idle', 'iowait')), busy,
                     dd / dt + sum(kt.values()) / dt, st['user'], dd / dt, kswapd,
                     (busy - dd / dt - kswapd - st['user']) / written * 1e6,
                     (kt.get('kworker', 0.0) + kt.get('kworker-flush', 0.0)) / dt / written * 1e6))
    if not rows:
        return
    print()
    print('measure_costs.py\'s throttled-N (2026-12-01), CPUs of 2:')
    print()
    print('| run | busy by tick samples | busy by the idle clock | dd + kernel threads | '
          '/proc/stat user | dd | kswapd | all but dd, kswapd, user per page written | '
          'kworkers per page written |')
    print('|---|' + '---:|' * 8)
    for n, ticks, busy, threads, user, dd, kswapd, per, kw in rows:
        print('| throttled-%d | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.2f µs | %.2f µs |' % (
            n, ticks, busy, threads, user, dd, kswapd, per, kw))


if __name__ == '__main__':
    main()
