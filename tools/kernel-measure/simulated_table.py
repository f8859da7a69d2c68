#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The simulated side of docs/real-kernel-check.md's table "1, 10 and 100 dd": the figures
derive_costs.py takes from a real throttled-N run, taken the same way from the model's own
outputs over the same window (10 s to 30 s).

  tools/kernel-measure/simulated_table.py THROTTLELAB SCENARIO [WRITERS ...] [-- --set K=V ...]

For each WRITERS (default 1, 10, 100) the scenario runs with tasks[0].count = WRITERS, once to
30 s with --csv and --trace-out, once to 10 s (the engine is deterministic, so the first 10 s
of both are the same run): dd's throughput and system time in the window are the difference
of the two summaries; %system, %user and the disk's rate are the means of the CSV's samples in
the window; the dirty level, pauses, dirty_ratelimit, dirtied_pause and dirtied are the
medians of the window's balance_dirty_pages records, as derive_costs.py reads the real ones.
Arguments after `--` go to every run (e.g. --set device.stalls=...).
"""
import csv
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import derive_costs as dc  # noqa: E402

WARM, END = 10, 30


def summary_tasks(text):
    """(MiB dirtied, system s) of all tasks, from --summary's 'all tasks' row."""
    for line in text.splitlines():
        if line.strip().startswith('all tasks'):
            f = line.split()
            return float(f[3]), float(f[-2])
    raise RuntimeError('no "all tasks" row in the summary')


def run(exe, scenario, n, extra, tmp):
    common = [exe, '--headless', '--scenario', scenario, '--set', 'tasks[0].count=%d' % n] + extra
    csv_path, trace_path = os.path.join(tmp, 's.csv'), os.path.join(tmp, 't.txt')
    full = subprocess.run(common + ['--duration', str(END), '--csv', csv_path, '--trace-out',
                                    trace_path, '--summary'],
                          check=True, capture_output=True, text=True).stdout
    warm = subprocess.run(common + ['--duration', str(WARM), '--summary'], check=True,
                          capture_output=True, text=True).stdout
    (mib1, sys1), (mib0, sys0) = summary_tasks(full), summary_tasks(warm)
    rows = [r for r in csv.DictReader(l for l in open(csv_path) if not l.startswith('#'))
            if WARM < float(r['time_s']) <= END]
    mean = lambda k: sum(float(r[k]) for r in rows) / len(rows)
    recs = [r for r in dc.bdp_records(trace_path, 0) if r['t'] >= WARM]
    num = lambda k: [float(x[k]) for x in recs if k in x]
    pages = (mib1 - mib0) * 256
    return {
        'dd MB/s (all)': '%.0f' % ((mib1 - mib0) * 1.048576 / (END - WARM)),
        'disk MB/s': '%.0f' % (mean('device_write_kbps') * 1.024 / 1000),
        '%system (of 2 CPUs)': '%.1f' % mean('system_pct'),
        '%user': '%.1f' % mean('user_pct'),
        'dd system time per page dirtied': '%.2f µs' % (1e6 * (sys1 - sys0) / max(pages, 1)),
        'pause p50 / p90 (ms)': '%.0f / %.0f' % (dc.pct(num('pause'), .5), dc.pct(num('pause'), .9)),
        'dirty + writeback p50 (pages)': '{:,.0f}'.format(dc.pct(num('dirty'), .5)),
        '`dirty_ratelimit` p50 (KB/s)': '{:,.0f}'.format(dc.pct(num('dirty_ratelimit'), .5)),
        '`dirtied_pause` p50 (pages)': '%.0f' % dc.pct(num('dirtied_pause'), .5),
        '`dirtied` p50 (pages)': '%.0f' % dc.pct(num('dirtied'), .5),
        'records/s': '%.1f' % (len(recs) / (END - WARM)),
    }


def main():
    args = sys.argv[1:]
    extra = args[args.index('--') + 1:] if '--' in args else []
    args = args[:args.index('--')] if '--' in args else args
    if len(args) < 2:
        sys.exit(__doc__)
    exe, scenario = args[0], args[1]
    writers = [int(w) for w in args[2:]] or [1, 10, 100]
    cols = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in writers:
            cols[n] = run(exe, scenario, n, extra, tmp)
    print('| | ' + ' | '.join('%d dd' % n for n in writers) + ' |')
    print('|---|' + '---:|' * len(writers))
    for key in cols[writers[0]]:
        print('| %s | %s |' % (key, ' | '.join(cols[n][key] for n in writers)))


if __name__ == '__main__':
    main()
