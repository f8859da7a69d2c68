#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Where the writers of a wait_capture.py run spent their time, from its trace.

  tools/kernel-measure/wait_figures.py [--json OUT.json] waits-N-BS.trace.txt[.xz] ...

For every dd (and every unbound kworker that ran wb_writeback(), the flusher) it follows the
sched_switch events: a switch away starts an off-CPU spell, with the kernel stack the
`stacktrace` trigger recorded and the task's state (R = preempted, still runnable; D/S = it
slept); a sched_waking of it ends the sleep; the switch back ends the spell (the time from the
waking, or from a preemption, to the switch back is run-queue time). Each sleep is named by its
stack (the rules in CATEGORIES: the first that matches, read from the innermost frame outwards).

It prints, per run: the writers' time on the CPU, in the run queue and in each kind of sleep (as
a share of their time, with the count, the median and p90 length, and who woke them), the same
for the flusher, the flusher's passes (writeback_queue_io to writeback_queue_io: inodes written,
pages, length), the write requests' sizes, the time between two of a writer's
balance_dirty_pages() calls split the same way, what the CPUs ran (the writers, the flusher's
workers, idle, everything else: how quiet the machine was), and, from the run's .json beside
the trace, the writers' CPU per page written (schedstat run time over write() bytes).
"""
import bisect
import collections
import json
import lzma
import re
import statistics
import sys

EVENT = re.compile(r'^\s*(?P<comm>.*?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+\S+\s+'
                   r'(?P<ts>\d+\.\d+): (?P<event>\w+): ?(?P<rest>.*)$')
STACK_HEAD = re.compile(r'^\s*(?P<comm>.*?)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+\S+\s+'
                        r'(?P<ts>\d+\.\d+): <stack trace>')
KV = re.compile(r'(\w+)=(\S+)')

# The kinds of sleep, by the frames of the stack the task left the CPU from (first match wins,
# each rule a set of function names of which any one must be in the stack, and optionally a
# second set of which one must be in it too).
CATEGORIES = [
    ('throttle pause (balance_dirty_pages)', {'balance_dirty_pages'}),
    ('reclaim throttle (reclaim_throttle)', {'reclaim_throttle'}),
    ('direct reclaim / allocation', {'__alloc_pages_slowpath', 'try_to_free_pages',
                                     '__alloc_pages_direct_reclaim', 'shrink_node'}),
    ('memory cgroup charge', {'try_charge_memcg', 'mem_cgroup_handle_over_high'}),
    ('folio under writeback (folio_wait_writeback/stable)', {'folio_wait_writeback',
                                                             'folio_wait_stable'}),
    ('folio lock (__folio_lock)', {'__folio_lock', '__folio_lock_killable', 'folio_lock'}),
    ('journal (jbd2)', {'start_this_handle', 'wait_transaction_locked',
                        'jbd2_log_wait_commit', 'jbd2__journal_start'}),
    # ext4's i_data_sem: a writer's delayed-allocation reservation (ext4_da_get_block_prep())
    # against the end-io worker converting unwritten extents (ext4_end_io_end() ->
    # ext4_convert_unwritten_extents() -> ext4_map_blocks()), and the flusher's mapping
    ('ext4 i_data_sem (ext4_da_get_block_prep / ext4_map_blocks)',
     {'ext4_da_get_block_prep', 'ext4_da_map_blocks', 'ext4_map_blocks'},
     {'rwsem_down_write_slowpath', 'rwsem_down_read_slowpath'}),
    ('inode lock (i_rwsem) or other rwsem', {'rwsem_down_write_slowpath',
                                             'rwsem_down_read_slowpath'}),
    ('mutex', {'__mutex_lock', 'mutex_lock'}),
    ('block-layer writeback throttle (wbt)', {'wbt_wait', 'rq_qos_wait'}),
    ('request tag (blk_mq_get_tag)', {'blk_mq_get_tag'}),
    ('ext4 block bitmap read (ext4_wait_block_bitmap, mballoc)', {'ext4_wait_block_bitmap'}),
    ('ext4 metadata read (buffer)', {'__wait_on_buffer', 'bit_wait_io', 'out_of_line_wait_on_bit'}),
    ('flusher waits for an inode (inode_wait_for_writeback)', {'inode_wait_for_writeback',
                                                               '__inode_wait_for_writeback'}),
    ('worker idle (worker_thread)', {'worker_thread'}),
    ('cond_resched in the kernel', {'__cond_resched'}),
    ('preempted returning to user (exit_to_user_mode)', {'exit_to_user_mode_loop',
                                                         'irqentry_exit_to_user_mode',
                                                         'syscall_exit_to_user_mode'}),
    ('process start/exit', {'do_exit', 'bprm_execve', 'do_group_exit', 'do_wait',
                            'kernel_clone', 'load_elf_binary'}),
]
SKIP = {'trace_event_raw_event_sched_switch', '__traceiter_sched_switch', '__schedule',
        'schedule', 'io_schedule', 'schedule_timeout', 'io_schedule_timeout',
        'schedule_preempt_disabled', 'preempt_schedule_common', 'schedule_hrtimeout_range',
        'schedule_hrtimeout_range_clock'}


def category(stack):
    names = set(stack)
    for name, fns, *also in CATEGORIES:
        if names & fns and (not also or names & also[0]):
            return name
    for f in stack:
        if f not in SKIP:
            return 'other: ' + f
    return 'other'


def open_text(path):
    if path == '-':
        return sys.stdin
    if path.endswith('.xz'):
        return lzma.open(path, 'rt', errors='replace')
    return open(path, errors='replace')


def pct(xs, q):
    if not xs:
        return float('nan')
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


class Task:
    def __init__(self, pid, comm):
        self.pid, self.comm = pid, comm
        self.first = None
        self.last = None
        self.on_since = None       # on the CPU since
        self.off = None            # (start, state, stack list) of the current spell
        self.woken = None          # (ts, waker comm)
        self.on_cpu = 0.0
        self.spells = []           # (start, end, kind, sleep_s, runq_s, waker)
        self.flusher = False
        self.records = []          # global_dirty_state times
        self.bdp = []              # (ts, pause ms, dirtied)


def parse(path):
    tasks = {}
    pending = {}               # cpu -> task whose switch-away waits for its stack
    requests = []              # (ts, sectors, rwbs) of completed writes
    issues = []
    passes = []                # writeback_queue_io times
    inodes = []                # (ts, wrote, to_write)
    starts = []
    on_cpu = {}                # cpu -> (since, comm) from the last traced switch on it
    ran = collections.Counter()  # comm -> CPU-seconds, from the traced switches
    first_ts = last_ts = None
    stack_of = None
    stack = []

    def task(pid, comm):
        t = tasks.get(pid)
        if t is None:
            t = tasks[pid] = Task(pid, comm)
        return t

    def close_stack():
        nonlocal stack_of, stack
        if stack_of is not None and stack_of.off is not None and stack_of.off[2] is None:
            stack_of.off = (stack_of.off[0], stack_of.off[1], stack)
            if 'wb_writeback' in stack:
                stack_of.flusher = True
        stack_of, stack = None, []

    with open_text(path) as f:
        for line in f:
            if line.startswith(' =>'):
                stack.append(line[4:].strip().split('+')[0].split(' ')[0])
                continue
            if line.startswith('#') or not line.strip():
                continue
            m = STACK_HEAD.match(line)
            if m:
                close_stack()
                stack_of = pending.pop(m.group('cpu'), None)
                continue
            m = EVENT.match(line)
            if not m:
                continue
            close_stack()
            ts = float(m.group('ts'))
            ev = m.group('event')
            first_ts = ts if first_ts is None else first_ts
            last_ts = ts
            rest = m.group('rest')
            if ev == 'sched_switch':
                kv = dict(KV.findall(rest.replace(' ==> ', ' ')))
                prev = int(kv['prev_pid'])
                nxt = int(kv['next_pid'])
                pc, nc = kv['prev_comm'], kv['next_comm']
                # Every traced switch has a writer or a flusher on one side, so what ran on a
                # CPU from one traced switch to the next is the next_comm of the first (other
                # processes switching among themselves in between are counted under the first).
                cpu = m.group('cpu')
                if cpu in on_cpu:
                    ran[on_cpu[cpu][1]] += ts - on_cpu[cpu][0]
                on_cpu[cpu] = (ts, 'kworker/u' if nc.startswith('kworker/u') else nc)
                if pc == 'dd' or pc.startswith('kworker/u'):
                    t = task(prev, pc)
                    if t.on_since is not None:
                        t.on_cpu += ts - t.on_since
                    t.on_since = None
                    t.off = (ts, kv['prev_state'], None)
                    t.woken = None
                    pending[m.group('cpu')] = t
                if nc == 'dd' or nc.startswith('kworker/u'):
                    t = task(nxt, nc)
                    t.first = ts if t.first is None else t.first
                    if t.off is not None:
                        start, state, stk = t.off
                        stk = stk or []
                        if state.startswith('R'):
                            kind = category(stk) if stk else 'preempted'
                            kind = 'run queue: ' + kind
                            sleep, runq, waker = 0.0, ts - start, None
                        else:
                            kind = category(stk)
                            if t.woken is not None and t.woken[0] >= start:
                                sleep, runq, waker = t.woken[0] - start, ts - t.woken[0], t.woken[1]
                            else:
                                sleep, runq, waker = ts - start, 0.0, None
                        t.spells.append((start, ts, kind, sleep, runq, waker))
                    t.off = None
                    t.on_since = ts
            elif ev == 'sched_waking':
                kv = dict(KV.findall(rest))
                t = tasks.get(int(kv['pid']))
                if t is not None and t.off is not None and t.woken is None:
                    t.woken = (ts, m.group('comm').split('/')[0])
            elif ev == 'global_dirty_state':
                if m.group('comm') == 'dd':
                    task(int(m.group('pid')), 'dd').records.append(ts)
            elif ev == 'balance_dirty_pages':
                kv = dict(KV.findall(rest))
                if m.group('comm') == 'dd':
                    task(int(m.group('pid')), 'dd').bdp.append(
                        (ts, int(kv['pause']), int(kv['dirtied'])))
            elif ev == 'block_rq_complete':
                p = rest.split()
                # 254,0 W () 137109504 + 6144 be,0,4 [0]
                if len(p) >= 6 and 'W' in p[1] and p[5].isdigit():
                    requests.append((ts, int(p[5]), p[1]))
            elif ev == 'block_rq_issue':
                p = rest.split()
                # 254,0 W 3145728 () 137109504 + 6144 be,0,4 [kworker/u8:1]
                if len(p) >= 7 and 'W' in p[1] and p[6].isdigit():
                    issues.append((ts, int(p[6]), p[1]))
            elif ev == 'writeback_queue_io':
                kv = dict(KV.findall(rest))
                passes.append((ts, int(kv['enqueue']), kv.get('reason')))
            elif ev == 'writeback_single_inode':
                kv = dict(KV.findall(rest))
                inodes.append((ts, int(kv['wrote']), int(kv['to_write']), kv['ino']))
            elif ev == 'writeback_start':
                kv = dict(KV.findall(rest))
                starts.append((ts, kv.get('reason')))
    close_stack()
    return {'tasks': tasks, 'ran': ran, 'requests': requests, 'issues': issues, 'passes': passes,
            'inodes': inodes, 'starts': starts, 'span': (first_ts, last_ts)}


def waits_table(group, span_s, label):
    """The share of the group's time in each state, with counts and lengths."""
    rows = collections.defaultdict(lambda: {'n': 0, 'sleep': 0.0, 'runq': 0.0, 'lens': [],
                                            'wakers': collections.Counter()})
    oncpu = 0.0
    total = 0.0
    for t in group:
        oncpu += t.on_cpu
        for (start, end, kind, sleep, runq, waker) in t.spells:
            r = rows[kind]
            r['n'] += 1
            r['sleep'] += sleep
            r['runq'] += runq
            r['lens'].append(end - start)
            if waker:
                r['wakers'][waker] += 1
        if t.spells or t.on_cpu:
            begin = min(x for x in (t.first, t.spells[0][0] if t.spells else None) if x)
            total += span_s[1] - begin
    out = []
    lines = ['%s: %d tasks, %.1f task-seconds traced' % (label, len(group), total),
             '| where | spells | share of the tasks\' time (asleep + run queue after) | median / p90 length (ms) | woken by |',
             '|---|---:|---:|---:|---|']
    lines.append('| on a CPU | | %.1f %% | | |' % (100 * oncpu / total if total else 0))
    for kind, r in sorted(rows.items(), key=lambda kv: -(kv[1]['sleep'] + kv[1]['runq'])):
        share = 100 * (r['sleep'] + r['runq']) / total if total else 0
        if share < 0.05 and r['n'] < 20:
            continue
        wak = ', '.join('%s %d' % (w, c) for w, c in r['wakers'].most_common(3))
        lines.append('| %s | %d | %.1f %% (%.1f + %.1f) | %.3f / %.3f | %s |' % (
            kind, r['n'], share, 100 * r['sleep'] / total, 100 * r['runq'] / total,
            1e3 * pct(r['lens'], 0.5), 1e3 * pct(r['lens'], 0.9), wak))
        out.append({'kind': kind, 'spells': r['n'], 'sleep_s': r['sleep'], 'runq_s': r['runq'],
                    'share': share, 'p50_ms': 1e3 * pct(r['lens'], 0.5),
                    'p90_ms': 1e3 * pct(r['lens'], 0.9), 'wakers': dict(r['wakers'])})
    return lines, {'tasks': len(group), 'task_seconds': total, 'on_cpu_share':
                   100 * oncpu / total if total else 0, 'rows': out}


def between_calls(writers):
    """The time from one of a writer's global_dirty_state records to its next, when the first
    did not pause (the interval Eq. 69 reads the copy speed from), split by where it went."""
    spans = collections.Counter()
    n = 0
    lens = []
    for t in writers:
        paused_at = set(ts for ts, pause, _ in t.bdp if pause > 0)
        starts = [s for s in t.spells]
        keys = [s[0] for s in starts]
        recs = t.records
        for a, b in zip(recs, recs[1:]):
            # the bdp record of a pause comes right after its global_dirty_state
            if any(a <= p <= a + 1e-3 for p in paused_at):
                continue
            n += 1
            lens.append(b - a)
            i = bisect.bisect_left(keys, a)
            inside = 0.0
            while i < len(starts) and starts[i][0] < b:
                s, e, kind, sleep, runq, _ = starts[i]
                d = min(e, b) - s
                inside += d
                spans[kind] += d
                i += 1
            spans['on a CPU'] += (b - a) - inside
    total = sum(spans.values())
    lines = ['intervals between two records without a pause: %d, median %.3f ms, p10 %.3f ms, '
             'p90 %.3f ms' % (n, 1e3 * pct(lens, 0.5), 1e3 * pct(lens, 0.1), 1e3 * pct(lens, 0.9))]
    for kind, s in spans.most_common(8):
        lines.append('  %-60s %5.1f %%' % (kind, 100 * s / total if total else 0))
    return lines, {'n': n, 'p10_ms': 1e3 * pct(lens, 0.1), 'p50_ms': 1e3 * pct(lens, 0.5),
                   'split': {k: v / total for k, v in spans.items()} if total else {}}


def flusher_passes(d):
    """A pass: writeback_queue_io refills b_io (enqueue = inodes moved), the inodes written
    until the next one."""
    passes, inodes = d['passes'], d['inodes']
    keys = [p[0] for p in passes]
    per = collections.defaultdict(lambda: [0, 0])
    for ts, wrote, to_write, ino in inodes:
        i = bisect.bisect_right(keys, ts) - 1
        if i >= 0:
            per[i][0] += 1
            per[i][1] += wrote
    bg = [i for i, p in enumerate(passes) if p[2] == 'background' and p[1] > 0]
    lens = [passes[i + 1][0] - passes[i][0] for i in bg if i + 1 < len(passes)]
    n_in = [per[i][0] for i in bg]
    wrote = [per[i][1] for i in bg]
    chunk = [w for _, w, _, _ in inodes if w > 0]
    towrite = [tw for _, w, tw, _ in inodes if w > 0]
    lines = ['flusher: %d background queue_io with inodes (enqueue median %s), inodes written '
             'per pass median %s (p90 %s), pages per pass median %s, pass length median %.1f ms '
             '(p90 %.1f); pages per inode visit median %s (p90 %s), nr_to_write median %s' % (
                 len(bg), pct([passes[i][1] for i in bg], 0.5), pct(n_in, 0.5), pct(n_in, 0.9),
                 pct(wrote, 0.5), 1e3 * pct(lens, 0.5), 1e3 * pct(lens, 0.9), pct(chunk, 0.5),
                 pct(chunk, 0.9), pct(towrite, 0.5))]
    return lines, {'background_passes': len(bg), 'inodes_per_pass_p50': pct(n_in, 0.5),
                   'pages_per_pass_p50': pct(wrote, 0.5), 'pass_ms_p50': 1e3 * pct(lens, 0.5),
                   'pages_per_visit_p50': pct(chunk, 0.5), 'to_write_p50': pct(towrite, 0.5)}


def who_ran(d):
    """The CPUs' time by what ran on them: the writers, the flusher's workers, idle (swapper)
    and every other process, which a quiet capture keeps small."""
    span = d['span'][1] - d['span'][0]
    ran = d['ran']
    others = sum(t for c, t in ran.items() if c not in ('dd', 'kworker/u') and
                 not c.startswith('swapper'))
    idle = sum(t for c, t in ran.items() if c.startswith('swapper'))
    top = ', '.join('%s %.2f' % (c, t / span) for c, t in ran.most_common(8))
    lines = ['CPUs (of %d s x CPUs): writers %.2f CPU, flusher workers %.2f, idle %.2f, everything '
             'else %.2f (%s)' % (round(span), ran['dd'] / span, ran['kworker/u'] / span,
                                 idle / span, others / span, top)]
    return lines, {'writers_cpu': ran['dd'] / span, 'flusher_cpu': ran['kworker/u'] / span,
                   'idle_cpu': idle / span, 'others_cpu': others / span}


def from_json(path):
    """The writers' run time (/proc/PID/schedstat) per page of write() (wchar) over the
    window wait_capture.py read them in, from the .json beside the trace."""
    base = path[:-len('.xz')] if path.endswith('.xz') else path
    base = base[:-len('.trace.txt')] if base.endswith('.trace.txt') else base
    try:
        with open(base + '.json') as f:
            run = json.load(f)
    except (OSError, ValueError):
        return ['no %s.json: writers\' CPU per page not known' % base], {}
    a, b = run['sched_before'], run['sched_after']
    pids = [p for p in a if a[p] and b.get(p)]
    window = run['sched_window'][1] - run['sched_window'][0]
    pages = sum(b[p]['wchar'] - a[p]['wchar'] for p in pids) / 4096
    cpu = sum(b[p]['run_ns'] - a[p]['run_ns'] for p in pids) / 1e9
    runq = sum(b[p]['runq_wait_ns'] - a[p]['runq_wait_ns'] for p in pids) / 1e9
    vol = sum(b[p]['nr_voluntary_switches'] - a[p]['nr_voluntary_switches'] for p in pids)
    inv = sum(b[p]['nr_involuntary_switches'] - a[p]['nr_involuntary_switches'] for p in pids)
    lines = ['writers over %.1f s (schedstat): %.0f MB/s written, %.2f CPU, %.2f us of CPU per '
             'page, run queue %.2f task-s per s, %.0f voluntary and %.0f involuntary switches '
             'per s' % (window, pages * 4096 / window / 1e6, cpu / window,
                        1e6 * cpu / pages if pages else float('nan'), runq / window,
                        vol / window, inv / window)]
    return lines, {'mb_s': pages * 4096 / window / 1e6, 'cpu': cpu / window,
                   'us_per_page': 1e6 * cpu / pages if pages else None,
                   'switches_s': (vol + inv) / window}


def request_sizes(d):
    sizes = [s for _, s, _ in d['requests']]
    if not sizes:
        return ['no write completions'], {}
    span = d['span'][1] - d['span'][0]
    lines = ['write requests completed: %d, mean %.1f sectors (avgrq-sz), median %d, p10 %d, '
             'p90 %d, max %d; %.0f MB/s' % (len(sizes), statistics.mean(sizes), pct(sizes, 0.5),
                                          pct(sizes, 0.1), pct(sizes, 0.9), max(sizes),
                                          sum(sizes) * 512 / span / 1e6)]
    return lines, {'n': len(sizes), 'mean_sectors': statistics.mean(sizes),
                   'p50_sectors': pct(sizes, 0.5), 'max_sectors': max(sizes)}


def main():
    args = sys.argv[1:]
    json_out = None
    if args[:1] == ['--json']:
        json_out, args = args[1], args[2:]
    everything = {}
    for path in args:
        d = parse(path)
        span = d['span']
        tasks = d['tasks'].values()
        writers = [t for t in tasks if t.comm == 'dd' and (t.records or t.spells)]
        flushers = [t for t in tasks if t.flusher]
        print('## %s (%.1f s traced)' % (path, span[1] - span[0]))
        print()
        res = {}
        lines, res['writers'] = waits_table(writers, span, 'writers (dd)')
        print('\n'.join(lines))
        print()
        lines, res['flusher'] = waits_table(flushers, span, 'flusher (kworker in wb_writeback)')
        print('\n'.join(lines))
        print()
        for fn, key in ((between_calls, 'between_calls'),):
            lines, res[key] = fn(writers)
            print('\n'.join(lines))
        lines, res['passes'] = flusher_passes(d)
        print('\n'.join(lines))
        lines, res['cpus'] = who_ran(d)
        print('\n'.join(lines))
        lines, res['schedstat'] = from_json(path)
        print('\n'.join(lines))
        lines, res['requests'] = request_sizes(d)
        print('\n'.join(lines))
        print()
        everything[path] = res
    if json_out:
        with open(json_out, 'w') as f:
            json.dump(everything, f, indent=1)


if __name__ == '__main__':
    main()
