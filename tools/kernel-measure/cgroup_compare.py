#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Measured against simulated for the cgroup capture (cgroup_v1_capture.sh).

  tools/kernel-measure/cgroup_compare.py CAPTURE_DIR SIM_CSV SIM_TRACE [SIM_CSV_V2 SIM_TRACE_V2]

CAPTURE_DIR holds memstat.csv, trace.txt, dd-box.txt, dd-host.txt and run.txt; SIM_CSV and
SIM_TRACE are `throttlelab --headless --csv --trace-out` of the same set-up (cgroup "box").
Prints one markdown table: the cgroup's dirty and writeback pages while dd-box ran (median
and peak), the balance_dirty_pages records and pauses of each writer, their cgroup_ino, and
how far off each simulated figure is.
"""
import csv
import re
import statistics
import sys

PAGE = 4096


def pct(values, q):
    if not values:
        return 0
    v = sorted(values)
    return v[min(len(v) - 1, int(q * (len(v) - 1) + 0.5))]


def trace_records(path):
    """balance_dirty_pages records: comm, pid, pause ms, cgroup_ino."""
    out = []
    pat = re.compile(r'^\s*(.+?)-(\d+)\s+\[\d+\].*balance_dirty_pages:.*? pause=(-?\d+).*?cgroup_ino=(\d+)')
    for line in open(path, errors='replace'):
        m = pat.match(line)
        if m:
            out.append((m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4))))
    return out


def writers(records, names=None):
    """Per writer (comm, or names[pid] when given): records, pauses > 0, the cgroup_inos."""
    per = {}
    for comm, pid, pause, ino in records:
        if names is not None:
            comm = names.get(pid, comm)
        w = per.setdefault(comm, {'records': 0, 'pauses': [], 'inos': set()})
        w['records'] += 1
        if pause > 0:
            w['pauses'].append(pause)
        w['inos'].add(ino)
    return per


def measured(capture):
    rows = list(csv.DictReader(open(capture + '/memstat.csv')))
    run = dict(l.split(None, 1) for l in open(capture + '/run.txt') if ' ' in l)
    span = float(run['box_end']) - float(run['start'])
    busy = [r for r in rows if float(r['t_s']) <= span]
    dirty = [int(r['cg_dirty_bytes']) / PAGE for r in busy]
    wb = [int(r['cg_writeback_bytes']) / PAGE for r in busy]
    cache = [int(r['cg_cache_bytes']) / PAGE for r in busy]
    gdirty = [(int(r['nr_dirty']) + int(r['nr_writeback'])) for r in busy]

    def rate(name):
        text = open(capture + '/dd-%s.txt' % name).read()
        m = re.search(r'copied, ([\d.]+) s, ([\d.]+) ([MG])B/s', text)
        return float(m.group(2)) * (1000 if m.group(3) == 'G' else 1) if m else 0

    return {'dirty': dirty, 'wb': wb, 'cache': cache, 'gdirty': gdirty,
            'box_mbps': rate('box'), 'host_mbps': rate('host'),
            'writers': writers(trace_records(capture + '/trace.txt'),
                               {int(run['box_pid']): 'dd-box', int(run['host_pid']): 'dd-host'})}


def simulated(csv_path, trace_path, box_end_s):
    lines = [l for l in open(csv_path) if not l.startswith('#')]
    rows = list(csv.DictReader(lines))
    busy = [r for r in rows if float(r['time_s']) <= box_end_s]
    return {'dirty': [float(r['cgroup_box_dirty_pages']) for r in busy],
            'wb': [float(r['cgroup_box_writeback_pages']) for r in busy],
            'cache': [float(r['cgroup_box_file_pages']) for r in busy],
            'gdirty': [float(r['dirty_pages']) + float(r['writeback_pages']) for r in busy],
            'writers': writers(trace_records(trace_path))}


def off(sim, real):
    if real == 0:
        return '—' if sim else '0 %'
    return '%+.0f %%' % ((sim - real) / abs(real) * 100)


def main():
    capture, sim_csv, sim_trace = sys.argv[1:4]
    run = dict(l.split(None, 1) for l in open(capture + '/run.txt') if ' ' in l)
    box_s = float(run['box_end']) - float(run['start'])
    m = measured(capture)
    sims = [('v1', simulated(sim_csv, sim_trace, box_s))]
    if len(sys.argv) >= 6:
        sims.append(('v2', simulated(sys.argv[4], sys.argv[5], box_s)))
    head = '| | real (v1) | ' + ' | '.join('simulated %s | off' % n for n, _ in sims) + ' |'
    print(head)
    print('|---|---:|' + '---:|---:|' * len(sims))

    def row(label, f, fmt='%.0f', compare=True):
        real = f(m)
        cells = []
        for _n, s in sims:
            v = f(s)
            cells.append(fmt % v)
            cells.append(off(v, real) if compare else '')
        print('| %s | %s | %s |' % (label, fmt % real, ' | '.join(cells)))

    row('cgroup dirty pages p50', lambda d: statistics.median(d['dirty']) if d['dirty'] else 0)
    row('cgroup dirty pages max', lambda d: max(d['dirty'], default=0))
    row('cgroup writeback pages p50', lambda d: statistics.median(d['wb']) if d['wb'] else 0)
    row('cgroup page cache max', lambda d: max(d['cache'], default=0))
    row('machine dirty + writeback max', lambda d: max(d['gdirty'], default=0))
    for comm in ('dd-box', 'dd-host', 'dd'):
        if comm not in m['writers'] and not any(comm in s['writers'] for _n, s in sims):
            continue
        row('%s balance_dirty_pages records' % comm,
            lambda d, c=comm: d['writers'].get(c, {}).get('records', 0))
        row('%s pauses > 0' % comm, lambda d, c=comm: len(d['writers'].get(c, {}).get('pauses', [])))
        row('%s pause p50 (ms)' % comm,
            lambda d, c=comm: pct(d['writers'].get(c, {}).get('pauses', []), 0.5))
        row('%s cgroup_ino' % comm,
            lambda d, c=comm: max(d['writers'].get(c, {}).get('inos', {0})), compare=False)
    print()
    print('real dd rates: box %.0f MB/s, host %.0f MB/s; dd-box ran %.2f s' %
          (m['box_mbps'], m['host_mbps'], box_s))


if __name__ == '__main__':
    main()
