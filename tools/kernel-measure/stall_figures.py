#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""When the disk completed writes, from a trace of stall_capture.py (or any ftrace text with
block:block_rq_issue / block:block_rq_complete and writeback:global_dirty_state).

  tools/kernel-measure/stall_figures.py [--stalls MS] TRACE [TRACE ...]   (TRACE may be .xz)

For the block layer: write requests completed, their sizes, the time each spent at the device
(issue to completion), and the gaps between consecutive write completions while writes were
outstanding; the share of the time in gaps of at least 4, 8, 20 and 100 ms, and the spells
between such gaps. For the writeback counters: the same gaps measured as runs of
global_dirty_state records with an unchanged `written` while `writeback` > 0 (what the trace
import derives its stall timeline from, docs/model.md, Eq. 66).
With --stalls MS, the runs of
unchanged `written` of at least MS milliseconds are printed as a scenario's device.stalls
value (START+LENGTH in seconds from the first global_dirty_state record).
"""
import lzma
import re
import sys

RQ = re.compile(r'\s(\d+\.\d+): block_rq_(issue|complete): (\d+,\d+) (\S+) (?:\d+ )?\(\) (\d+) \+ (\d+)')
GDS = re.compile(r'\s(\d+\.\d+): global_dirty_state: dirty=(\d+) writeback=(\d+).*written=(\d+)')


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))] if v else 0


def describe(name, gaps, span):
    out = ['%s: %d gaps, p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms' % (
        name, len(gaps), 1e3 * pct(gaps, .5), 1e3 * pct(gaps, .9), 1e3 * pct(gaps, .99),
        1e3 * max(gaps, default=0))]
    for th in (0.004, 0.008, 0.020, 0.100):
        g = [x for x in gaps if x >= th]
        out.append('  gaps >= %3d ms: %5d, %4.1f %% of the %.1f s' % (
            th * 1e3, len(g), 100 * sum(g) / span, span))
    return out


def main():
    args = sys.argv[1:]
    stalls_ms = None
    if args[:1] == ['--stalls']:
        stalls_ms, args = float(args[1]), args[2:]
    for path in args:
        f = lzma.open(path, 'rt') if path.endswith('.xz') else open(path)
        issued, done, gds = {}, [], []
        for line in f:
            m = RQ.search(line)
            if m and 'W' in m[4]:
                t, kind, sector, n = float(m[1]), m[2], int(m[5]), int(m[6])
                if kind == 'issue':
                    issued[sector] = t
                else:
                    done.append((t, n, t - issued.pop(sector, t)))
                continue
            m = GDS.search(line)
            if m:
                gds.append((float(m[1]), int(m[3]), int(m[4])))
        done.sort()
        gds.sort()
        print(path)
        if done:
            span = done[-1][0] - done[0][0]
            sizes = [n * 512 / 1024 for _, n, _ in done]
            print('  block: %d write completions in %.1f s, %.0f MB/s; size p50 %.0f KiB, '
                  'max %.0f KiB; at the device p50 %.1f ms, p90 %.1f ms, max %.1f ms' % (
                      len(done), span, sum(n for _, n, _ in done) * 512 / 1e6 / span,
                      pct(sizes, .5), max(sizes), 1e3 * pct([d for *_, d in done], .5),
                      1e3 * pct([d for *_, d in done], .9), 1e3 * max(d for *_, d in done)))
            # Completion instants (several requests completing within 0.1 ms count as one).
            inst = [done[0][0]]
            for t, _, _ in done[1:]:
                if t - inst[-1] > 1e-4:
                    inst.append(t)
            gaps = [b - a for a, b in zip(inst, inst[1:])]
            for l in describe('  block completion instants', gaps, span):
                print('  ' + l)
            spells = []
            last = inst[0]
            for a, b in zip(inst, inst[1:]):
                if b - a >= 0.020:
                    spells.append(a - last)
                    last = b
            print('    spells between gaps >= 20 ms: p50 %.1f ms, p90 %.1f ms' % (
                1e3 * pct(spells, .5), 1e3 * pct(spells, .9)))
        if gds:
            span = gds[-1][0] - gds[0][0]
            # A run of one `written` value is a spell without completions from its first record
            # with pages under writeback (a completion can empty the device) to its last.
            runs, value, since, prev, spells = [], gds[0][2], None, gds[0], []
            for rec in gds:
                if rec[2] != value:
                    if since is not None:
                        runs.append(prev[0] - since)
                        spells.append((since - gds[0][0], prev[0] - since))
                    value, since = rec[2], None
                if since is None and rec[1] > 0:
                    since = rec[0]
                prev = rec
            if since is not None:
                runs.append(prev[0] - since)
            print('  written: %d pages in %.1f s (%.0f MB/s), %d records' % (
                gds[-1][2] - gds[0][2], span, (gds[-1][2] - gds[0][2]) * 4096 / 1e6 / span,
                len(gds)))
            for l in describe('  runs of unchanged written', runs, span):
                print('  ' + l)
            if stalls_ms is not None:
                # As a scenario's device.stalls: the runs of at least stalls_ms, in seconds
                # from the trace's first global_dirty_state record.
                long = [(a, n) for a, n in spells if n >= stalls_ms / 1e3]
                print('  stalls (runs >= %g ms, %.1f %% of the time): %s' % (
                    stalls_ms, 100 * sum(n for _, n in long) / span,
                    ' '.join('%.4f+%.4f' % sl for sl in long)))


if __name__ == '__main__':
    main()
