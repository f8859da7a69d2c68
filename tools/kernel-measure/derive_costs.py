#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Turns the raw counters of measure_costs.py into the per-page CPU costs of the cost model.

  tools/kernel-measure/derive_costs.py RAW_DIR > costs.md

Every figure is printed with the experiment it comes from, the median over the repetitions
and the spread (min-max), so that engine/src/cost_model.h can cite it.
"""
import glob
import lzma
import json
import os
import statistics
import sys

PAGE = 4096


def load(raw, name):
    """Every repetition of an experiment: NAME.json, or NAME.1.json, NAME.2.json, ..."""
    paths = sorted(glob.glob(os.path.join(raw, name + '.json')) +
                   glob.glob(os.path.join(raw, name + '.[0-9]*.json')))
    return [json.load(open(p)) for p in paths]


def cpu(a, b, *keys):
    return sum(b['stat'][k] - a['stat'][k] for k in keys)


def vm(a, b, key):
    return b['vmstat'][key] - a['vmstat'][key]


def kthread(a, b, group):
    return b['kthreads'].get(group, 0.0) - a['kthreads'].get(group, 0.0)


def fmt(values, scale=1e6, unit='µs'):
    values = [v * scale for v in values]
    med = statistics.median(values)
    if len(values) == 1:
        return '%.3g %s' % (med, unit)
    return '%.3g %s (%.3g–%.3g, n=%d)' % (med, unit, min(values), max(values), len(values))


def idle_rate(raw):
    """Background CPU of the machine with nothing of ours running, CPU-seconds per second."""
    runs = load(raw, 'idle')
    if not runs:
        return 0.0
    r = runs[0]
    busy = cpu(r['before'], r['after'], 'user', 'nice', 'system', 'irq', 'softirq')
    return busy / (r['after']['time'] - r['before']['time'])


def bdp_records(path, skip_s):
    """balance_dirty_pages fields of a trace, from skip_s after its first event."""
    out, first = [], None
    if not os.path.exists(path) and os.path.exists(path + '.xz'):
        path += '.xz'
    opener = (lambda p: lzma.open(p, 'rt', errors='replace')) if path.endswith('.xz') else \
        (lambda p: open(p, errors='replace'))
    for line in opener(path):
        if 'balance_dirty_pages:' not in line:
            continue
        head, _, body = line.partition('balance_dirty_pages:')
        t = float(head.split()[-1].rstrip(':'))
        first = t if first is None else first
        if t - first < skip_s:
            continue
        fields = dict(kv.split('=') for kv in body.split() if '=' in kv)
        fields['pid'] = head.split('[')[0].rsplit('-', 1)[-1].strip()
        fields['t'] = t
        out.append(fields)
    return out


def pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float('nan')


def steady_state(raw):
    """The real side of the model-against-kernel table: what n throttled dd did, measured over
    the window after the warm-up."""
    print('| run | dd MB/s (sum) | disk MB/s | avgrq-sz (sectors) | %system | %user | '
          'dd system s per page | dirty p50 (pages) | limit | setpoint | pause p50/p90 (ms) | '
          'dirty_ratelimit p50 (KB/s) | dirtied_pause p50 | dirtied p50 | records/s |')
    print('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
    for name in ('throttled-1', 'throttled-10', 'throttled-100', 'throttled-10-4k'):
        for r in load(raw, name):
            a, b = r['before'], r['after']
            dt = b['time'] - a['time']
            sys_s = user_s = wchar = 0
            for pid, t in b['tasks'].items():
                ta = a['tasks'].get(pid)
                if t['cpu'] and ta and ta['cpu']:
                    user_s += t['cpu'][0] - ta['cpu'][0]
                    sys_s += t['cpu'][1] - ta['cpu'][1]
                    wchar += t['wchar'] - ta['wchar']
            total = 2 * dt  # CPU-seconds available on this 2-CPU machine
            disk = b['disk']['write_sectors'] - a['disk']['write_sectors']
            ios = b['disk']['writes'] - a['disk']['writes']
            recs = bdp_records(os.path.join(raw, name + '.trace.txt'), r['warm'])
            num = lambda k: [float(x[k]) for x in recs if k in x]
            print('| %s | %.0f | %.0f | %.0f | %.1f | %.1f | %.2f µs | %.0f | %.0f | %.0f | %.0f/%.0f '
                  '| %.0f | %.0f | %.0f | %.1f |' % (
                      name, wchar / dt / 1e6, disk * 512 / dt / 1e6, disk / max(ios, 1),
                      100 * cpu(a, b, 'system', 'irq', 'softirq') / total,
                      100 * cpu(a, b, 'user', 'nice') / total,
                      1e6 * sys_s / max(wchar / PAGE, 1),
                      pct(num('dirty'), .5), pct(num('limit'), .5), pct(num('setpoint'), .5),
                      pct(num('pause'), .5), pct(num('pause'), .9),
                      pct(num('dirty_ratelimit'), .5), pct(num('dirtied_pause'), .5),
                      pct(num('dirtied'), .5), len(recs) / max(r['seconds'] - r['warm'], 1)))


def main():
    raw = sys.argv[1]
    rows = []
    background = idle_rate(raw)

    def row(name, value, source, note=''):
        rows.append((name, value, source, note))

    for bs in ('1M', '4k'):
        runs = load(raw, 'unthrottled-' + bs)
        if not runs:
            continue
        per_page = [r['tasks'][0]['system_s'] / (r['bytes'] / PAGE) for r in runs]
        user = [r['tasks'][0]['user_s'] / (r['bytes'] / PAGE) for r in runs]
        speed = [r['bytes'] / (r['written']['time'] - r['before']['time']) for r in runs]
        row('dirtying a page, bs=%s (read from /dev/zero, copy, page cache, accounting)' % bs,
            fmt(per_page), 'unthrottled-%s: dd system time / pages' % bs)
        row('dd user time per page, bs=%s' % bs, fmt(user), 'unthrottled-%s' % bs)
        row('copy speed of one dd with a whole CPU, bs=%s' % bs,
            fmt(speed, 1e-6, 'MB/s'), 'unthrottled-%s: bytes / wall time' % bs)
        wb = []
        flush = []
        for r in runs:
            a, b = r['written'], r['synced']
            dt = b['time'] - a['time']
            pages = vm(a, b, 'nr_written')
            wb.append((cpu(a, b, 'user', 'nice', 'system', 'irq', 'softirq') - background * dt)
                      / pages)
            flush.append((kthread(a, b, 'kworker-flush') + kthread(a, b, 'kworker')) / pages)
        row('writing back a page, after bs=%s (all CPU during sync, less the background)' % bs,
            fmt(wb), 'unthrottled-%s: sync phase / nr_written' % bs)
        row('writing back a page, kernel worker threads only, after bs=%s' % bs, fmt(flush),
            'unthrottled-%s: CPU of every kworker / nr_written' % bs)

    runs = load(raw, 'tmpfs-1M')
    if runs:
        row('dirtying a tmpfs page, bs=1M', fmt([r['tasks'][0]['system_s'] / (r['bytes'] / PAGE)
                                                  for r in runs]), 'tmpfs-1M')

    runs = load(raw, 'reclaim')
    if runs:
        costs = []
        for r in runs:
            freed = vm(r['cgroup']['before'], r['cgroup']['after'], 'pgsteal_file')
            extra = r['cgroup']['tasks'][0]['system_s'] - r['free']['tasks'][0]['system_s']
            costs.append(extra / freed)
        row('reclaiming a clean page-cache page (memory-cgroup limit reclaim)', fmt(costs),
            'reclaim: (reader system time in a 256 MiB cgroup - without) / pgsteal_file')

    for name in ('throttled-10', 'throttled-100', 'perf-100'):
        for r in load(raw, name):
            a, b = r['before'], r['after']
            stolen = vm(a, b, 'pgsteal_kswapd')
            if stolen > 100000:
                row('reclaiming a page, kswapd (%s)' % name,
                    fmt([kthread(a, b, 'kswapd0') / stolen]),
                    '%s: kswapd0 CPU / pgsteal_kswapd' % name,
                    'pages scanned per page reclaimed: %.3f' % (vm(a, b, 'pgscan_kswapd') / stolen))

    runs = load(raw, 'anon')
    if runs:
        fault, swapout, swapin = [], [], []
        for r in runs:
            free = [l.split() for l in r['free_run'].splitlines()]
            boxed = [l.split() for l in r['cgroup_run'].splitlines()]
            pages = r['pages']
            f0 = float(free[0][5])
            fault.append(f0 / pages)
            out = vm(r['before'], r['after'], 'pswpout')
            inn = vm(r['before'], r['after'], 'pswpin')
            b0, b1 = float(boxed[0][5]), float(boxed[1][5])
            if out:
                swapout.append((b0 - f0) / out)
            if inn:
                swapin.append((b1 - b0) / inn)
        row('faulting in a fresh anonymous page', fmt(fault), 'anon: touch_anon pass 0, no limit')
        if swapout:
            row('swapping a page out (reclaim + swap write set-up), in a cgroup', fmt(swapout),
                'anon: (pass 0 in a 256 MiB cgroup - pass 0 free) / pswpout')
        if swapin:
            row('swapping a page in (fault, read, map) while others go out', fmt(swapin),
                'anon: pass 1 in the cgroup / pswpin', 'includes the swap-out it causes')

    # One balance_dirty_pages() call: its CPU in perf-100 (children: everything under it,
    # the sleep's context switch included; self: the function alone) over the calls a run of
    # the same shape makes (throttled-100: a record per call, since with 100 dd every call is
    # past freerun).
    perf_runs, traced = load(raw, 'perf-100'), load(raw, 'throttled-100')
    children_path = os.path.join(raw, 'perf-100.perf-children.txt')
    if perf_runs and traced and os.path.exists(children_path):
        events = share_children = share_self = None
        for line in open(children_path):
            if line.startswith('# Event count'):
                events = float(line.split(':')[1]) * 1e-9  # cpu-clock: nanoseconds
            f = line.split()
            if len(f) == 4 and f[3] == 'balance_dirty_pages':
                share_children, share_self = float(f[0][:-1]) / 100, float(f[1][:-1]) / 100
        t = traced[0]
        recs = bdp_records(os.path.join(raw, 'throttled-100.trace.txt'), t['warm'])
        calls_per_s = len(recs) / max(t['seconds'] - t['warm'], 1)
        p = perf_runs[0]
        calls = calls_per_s * (p['seconds'] - p['warm'])
        if events and share_children is not None and calls > 0:
            row('one balance_dirty_pages() call, everything under it (the sleep\'s schedule() '
                'included)', fmt([share_children * events / calls]),
                'perf-100 children CPU / (throttled-100 records per s x perf-100 seconds)',
                '%.0f calls/s' % calls_per_s)
            row('one balance_dirty_pages() call, the function itself', fmt([share_self * events / calls]),
                'perf-100 self CPU / the same calls')

    for bs in ('4k', '64k', '1M'):
        for r in load(raw, 'folio-' + bs):
            orders = ', '.join('order %s: %d' % kv for kv in sorted(r['orders'].items(),
                                                                      key=lambda kv: int(kv[0])))
            row('folios added to the page cache by dd bs=%s of 256 MiB' % bs, orders,
                'folio-%s: mm_filemap_add_to_page_cache' % bs,
                'other files add a few order-0 folios meanwhile')

    print('| figure | value | from | note |')
    print('|---|---|---|---|')
    for name, value, source, note in rows:
        print('| %s | %s | %s | %s |' % (name, value, source, note))
    print()
    steady_state(raw)
    print()
    print('Background CPU of the idle machine: %.3f CPU-seconds per second (subtracted where '
          'said).' % background)


if __name__ == '__main__':
    main()
