#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Keep the '#' header lines, then the contiguous slice of event lines (at most BUDGET bytes)
# that shows the most distinct writer pids, then a few bdi_dirty_ratelimit events
# (up to 3), then the most balance_dirty_pages events.
import re, sys
src, dst, budget = sys.argv[1], sys.argv[2], int(sys.argv[3])
lines = open(src, encoding='utf-8', errors='replace').read().splitlines(keepends=True)
head = [l for l in lines[:40] if l.startswith('#') or l.startswith('cpus=')]
body = lines[len(head):]
pid_re = re.compile(r'^\s*(.+?)[- ](\d+)\s+\[\d+\]')
def key(l):
    m = pid_re.match(l)
    return m.group(2) if m and m.group(1).strip().endswith('dd') else None
budget -= sum(len(l) for l in head)
best = None
step = max(1, len(body) // 400)
for s in range(0, len(body), step):
    size = 0; e = s; pids = set(); bdp = 0; bdr = 0
    while e < len(body) and size + len(body[e]) <= budget:
        size += len(body[e]); k = key(body[e])
        if k: pids.add(k)
        if 'balance_dirty_pages:' in body[e]: bdp += 1
        if 'bdi_dirty_ratelimit:' in body[e]: bdr += 1
        e += 1
    score = (len(pids), min(bdr, 3), bdp)
    if best is None or score > best[0]: best = (score, s, e)
    if e >= len(body): break
(score, s, e) = best
open(dst, 'w').writelines(head + body[s:e])
print(f"{dst}: lines {len(head)+s+1}..{len(head)+e} of {len(lines)}, {score[0]} dd pids, {score[2]} balance_dirty_pages")
