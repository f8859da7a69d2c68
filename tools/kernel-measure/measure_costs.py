#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""What writing costs on this machine's kernel, measured.

Runs, as root, a fixed list of experiments with dd (and touch_anon.c) and writes for each one
what the kernel counted: /proc/stat, /proc/vmstat, /proc/diskstats before and after, every
task's own CPU time (/proc/PID/stat) and bytes written (/proc/PID/io), memory-cgroup counters,
and tracepoint streams from a private ftrace instance. Every setting it changes (vm.dirty_*,
swap, a cgroup, a tracing instance) is saved first and restored at the end, on errors too, and
the restored values are compared with the saved ones.

  tools/kernel-measure/measure_costs.py OUT_DIR [EXPERIMENT ...]     (as root, on a quiet machine)

OUT_DIR receives one NAME.json per experiment (the raw counters) and NAME.trace.txt where a
trace was taken. derive_costs.py turns them into the per-page figures of the cost model.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

WORK = '/var/tmp/throttlelab-measure'     # on the ext4 root file system (not tmpfs)
TRACEFS = '/sys/kernel/tracing'
INSTANCE = TRACEFS + '/instances/throttlelab-measure'
MEMCG_ROOT = '/sys/fs/cgroup/memory'       # this machine's memory controller is cgroup v1
MEMCG = MEMCG_ROOT + '/throttlelab-measure'
SWAPFILE = WORK + '/swapfile'
DISK = 'vda'
HERE = os.path.dirname(os.path.abspath(__file__))
TICK = os.sysconf('SC_CLK_TCK')
PAGE = 4096
VM_KEYS = ['dirty_bytes', 'dirty_background_bytes', 'dirty_ratio', 'dirty_background_ratio',
           'dirty_expire_centisecs', 'dirty_writeback_centisecs', 'swappiness']


def read(path):
    with open(path) as f:
        return f.read()


def write(path, value):
    with open(path, 'w') as f:
        f.write(str(value))


def sysctl(name, value):
    write('/proc/sys/vm/' + name, value)


def proc_stat():
    """The aggregate cpu line, in seconds: user nice system idle iowait irq softirq steal."""
    fields = read('/proc/stat').splitlines()[0].split()[1:9]
    names = ['user', 'nice', 'system', 'idle', 'iowait', 'irq', 'softirq', 'steal']
    return {n: int(v) / TICK for n, v in zip(names, fields)}


def vmstat():
    return {k: int(v) for k, v in (l.split() for l in read('/proc/vmstat').splitlines())}


def diskstats():
    for line in read('/proc/diskstats').splitlines():
        f = line.split()
        if f[2] == DISK:
            return {'reads': int(f[3]), 'read_sectors': int(f[5]), 'writes': int(f[7]),
                    'write_merges': int(f[6 + 2]), 'write_sectors': int(f[9]),
                    'write_ms': int(f[10]), 'in_flight': int(f[11]), 'io_ms': int(f[12])}
    raise RuntimeError('no disk ' + DISK + ' in /proc/diskstats')


def task_cpu(pid):
    """(user s, system s) of one task from /proc/PID/stat; None once it is gone."""
    try:
        text = read('/proc/%d/stat' % pid)
    except OSError:
        return None
    f = text[text.rindex(')') + 2:].split()
    return int(f[11]) / TICK, int(f[12]) / TICK


def task_wchar(pid):
    try:
        for line in read('/proc/%d/io' % pid).splitlines():
            if line.startswith('wchar:'):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def kernel_threads():
    """CPU seconds of every kernel thread by name group (kworker, ksoftirqd, kswapd, jbd2...)."""
    groups = {}
    for pid in os.listdir('/proc'):
        if not pid.isdigit():
            continue
        try:
            text = read('/proc/%s/stat' % pid)
        except OSError:
            continue
        comm = text[text.index('(') + 1:text.rindex(')')]
        f = text[text.rindex(')') + 2:].split()
        if not int(f[6]) & 0x00200000:   # PF_KTHREAD
            continue
        group = comm.split('/')[0].split('-')[0]
        if comm.startswith('kworker') and 'flush' in comm:
            group = 'kworker-flush'
        groups[group] = groups.get(group, 0.0) + (int(f[11]) + int(f[12])) / TICK
    return groups


def snapshot(extra=None):
    s = {'time': time.monotonic(), 'stat': proc_stat(), 'vmstat': vmstat(),
         'disk': diskstats(), 'kthreads': kernel_threads()}
    if extra:
        s.update(extra())
    return s


# --- saved settings -----------------------------------------------------------------------

def save_settings():
    return {'vm': {k: read('/proc/sys/vm/' + k).strip() for k in VM_KEYS},
            'swaps': read('/proc/swaps'),
            'instances': sorted(os.listdir(TRACEFS + '/instances')),
            'memcg': sorted(d for d in os.listdir(MEMCG_ROOT)
                            if os.path.isdir(os.path.join(MEMCG_ROOT, d)))}


def restore_settings(saved):
    # Writing a ratio zeroes its bytes twin and the other way round: write the one in use last.
    vm = saved['vm']
    for k in ['dirty_expire_centisecs', 'dirty_writeback_centisecs', 'swappiness']:
        sysctl(k, vm[k])
    sysctl('dirty_ratio' if vm['dirty_bytes'] == '0' else 'dirty_bytes',
           vm['dirty_ratio'] if vm['dirty_bytes'] == '0' else vm['dirty_bytes'])
    sysctl('dirty_background_ratio' if vm['dirty_background_bytes'] == '0' else
           'dirty_background_bytes',
           vm['dirty_background_ratio'] if vm['dirty_background_bytes'] == '0' else
           vm['dirty_background_bytes'])
    if os.path.exists(SWAPFILE) and SWAPFILE in read('/proc/swaps'):
        subprocess.run(['swapoff', SWAPFILE], check=False)
    if os.path.isdir(MEMCG):
        for pid in read(MEMCG + '/cgroup.procs').split():
            try:
                os.kill(int(pid), signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.5)
        os.rmdir(MEMCG)
    if os.path.isdir(INSTANCE):
        os.rmdir(INSTANCE)
    shutil.rmtree(WORK, ignore_errors=True)
    now = save_settings()
    if now != saved:
        raise RuntimeError('settings differ after restoring: %r against %r' % (now, saved))


def guarded(tool, body):
    """Runs body(saved) with every setting saved first and restored and checked afterwards (on
    errors too); tracefs is mounted for it if it is not, and unmounted again at the end."""
    mounted_here = False
    if not os.path.isdir(TRACEFS + '/instances'):
        subprocess.run(['mount', '-t', 'tracefs', 'nodev', TRACEFS], check=True)
        mounted_here = True
    try:
        saved = save_settings()
        try:
            body(saved)
        finally:
            restore_settings(saved)
            print('%s: settings restored and checked: %s' % (tool, saved['vm']), flush=True)
    finally:
        if mounted_here:
            subprocess.run(['umount', TRACEFS], check=True)
            print('%s: tracefs unmounted again' % tool, flush=True)


# --- tracing into a private instance -------------------------------------------------------

class Trace:
    def __init__(self, path, events, buffer_kb=262144):
        self.path, self.events = path, events
        os.mkdir(INSTANCE)
        write(INSTANCE + '/buffer_size_kb', buffer_kb)
        for e in events:
            write(INSTANCE + '/events/' + e + '/enable', 1)
        self.out = open(path, 'w')
        self.reader = subprocess.Popen(['cat', INSTANCE + '/trace_pipe'], stdout=self.out)

    def stop(self):
        write(INSTANCE + '/tracing_on', 0)
        time.sleep(0.5)
        self.reader.terminate()
        self.reader.wait()
        # What the pipe had not yet handed over (trace_pipe consumes what it reads).
        self.out.write(read(INSTANCE + '/trace'))
        self.out.close()
        for e in self.events:
            write(INSTANCE + '/events/' + e + '/enable', 0)
        os.rmdir(INSTANCE)


# --- writers -------------------------------------------------------------------------------

def start_dd(n, bs, path_prefix, count=None, cgroup=None):
    procs = []
    for i in range(n):
        args = ['dd', 'if=/dev/zero', 'of=%s%d' % (path_prefix, i), 'bs=' + bs, 'status=none']
        if count:
            args.append('count=%d' % count)
        if cgroup:
            # The shell joins the cgroup, then becomes dd: every page dd dirties is charged there.
            args = ['sh', '-c', 'echo $$ > %s/cgroup.procs && exec "$@"' % cgroup, 'sh'] + args
        procs.append(subprocess.Popen(args))
    return procs


def finish(procs):
    """Waits for each, returning its own (user s, system s) from wait4's rusage."""
    out = []
    for p in procs:
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = status
        out.append({'pid': p.pid, 'user_s': ru.ru_utime, 'system_s': ru.ru_stime})
    return out


def per_task(procs):
    return {'tasks': {str(p.pid): {'cpu': task_cpu(p.pid), 'wchar': task_wchar(p.pid)}
                      for p in procs}}


def drop_caches():
    subprocess.run(['sync'], check=True)
    write('/proc/sys/vm/drop_caches', 3)


def fresh_work():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    drop_caches()


# --- experiments ---------------------------------------------------------------------------

def pretouch(out):
    """Touches all but 1 GiB of free memory once and frees it again. This machine is a virtual
    machine: the first time the guest uses a page of its memory the hypervisor must back it,
    which costs the guest several microseconds per page on top of the kernel's own work
    (measured here: 4 GiB written by dd took 7.6 s of system time on untouched memory and
    0.8 s once the memory had been used). Touching everything first keeps that cost, which a
    real kernel on real hardware does not pay, out of the figures below."""
    free_mib = int(read('/proc/meminfo').split('MemFree:')[1].split()[0]) // 1024
    exe = '/var/tmp/throttlelab-touch_anon'
    subprocess.run(['gcc', '-O2', '-o', exe, os.path.join(HERE, 'touch_anon.c')], check=True)
    a = snapshot()
    run = subprocess.run([exe, str(free_mib - 1024), '1'], check=True, capture_output=True,
                         text=True).stdout
    b = snapshot()
    os.remove(exe)
    return {'mib': free_mib - 1024, 'run': run, 'before': a, 'after': b}


def first_touch(out):
    """The hypervisor's share of a fresh page: touch_anon faulting in 2 GiB three times in a
    row (the later runs mostly get pages the host still backs), then again after 15 s idle
    (free page reporting has handed the freed memory back to the host meanwhile)."""
    exe = '/var/tmp/throttlelab-touch_anon'
    subprocess.run(['gcc', '-O2', '-o', exe, os.path.join(HERE, 'touch_anon.c')], check=True)
    runs = []
    for pause in (0, 0, 0, 15, 0, 15, 0):
        time.sleep(pause)
        text = subprocess.run([exe, '2048', '1'], check=True, capture_output=True,
                              text=True).stdout
        runs.append({'idle_before_s': pause, 'system_s': float(text.split()[5])})
    os.remove(exe)
    features = read('/sys/bus/virtio/drivers/virtio_balloon/virtio0/features').strip() \
        if os.path.exists('/sys/bus/virtio/drivers/virtio_balloon/virtio0/features') else ''
    return {'pages': (2048 << 20) // PAGE, 'runs': runs, 'virtio_balloon_features': features}


def idle(out):
    """What the machine does with nothing of ours running: the background to subtract."""
    a = snapshot()
    time.sleep(20)
    return {'before': a, 'after': snapshot()}


def unthrottled(bs, count):
    """One dd writing 4 GiB under limits it never reaches, then sync: the cost of dirtying a
    page (copy, page-cache insertion, accounting) with no throttling at all, and then of
    writing it back (sync is the only thing running)."""
    def run(out):
        fresh_work()
        sysctl('dirty_bytes', 16 << 30)
        sysctl('dirty_background_bytes', 12 << 30)
        sysctl('dirty_expire_centisecs', 360000)
        sysctl('dirty_writeback_centisecs', 0)
        a = snapshot()
        procs = start_dd(1, bs, WORK + '/f', count=count)
        tasks = finish(procs)
        b = snapshot()
        subprocess.run(['sync'], check=True)
        c = snapshot()
        return {'bs': bs, 'bytes': count * parse_size(bs), 'before': a, 'written': b,
                'synced': c, 'tasks': tasks}
    return run


def tmpfs_copy(out):
    """dd into tmpfs: copy and shmem page allocation, no block device."""
    a = snapshot()
    procs = start_dd(1, '1M', '/dev/shm/throttlelab-measure-', count=2048)
    tasks = finish(procs)
    b = snapshot()
    os.remove('/dev/shm/throttlelab-measure-0')
    return {'bytes': 2048 << 20, 'before': a, 'after': b, 'tasks': tasks}


def reclaim(out):
    """Reading a 1 GiB file with the whole machine, then inside a memory cgroup of 256 MiB,
    each read right after drop_caches (so both reuse pages the hypervisor still backs, see
    first_touch): the second read reclaims the cgroup's own clean page cache as it goes; the
    difference in the reader's system time per page reclaimed is the cost of reclaim."""
    fresh_work()
    subprocess.run(['dd', 'if=/dev/zero', 'of=' + WORK + '/big', 'bs=1M', 'count=1024',
                    'status=none'], check=True)
    drop_caches()
    result = {}
    for name, cgroup in (('warm-up', None), ('free', None), ('cgroup', MEMCG)):
        if cgroup:
            os.mkdir(MEMCG)
            write(MEMCG + '/memory.limit_in_bytes', 256 << 20)
        drop_caches()
        a = snapshot()
        args = ['dd', 'if=' + WORK + '/big', 'of=/dev/null', 'bs=1M', 'status=none']
        if cgroup:
            args = ['sh', '-c', 'echo $$ > %s/cgroup.procs && exec "$@"' % cgroup, 'sh'] + args
        tasks = finish([subprocess.Popen(args)])
        b = snapshot()
        result[name] = {'before': a, 'after': b, 'tasks': tasks}
        if cgroup:
            result[name]['memcg_stat'] = read(MEMCG + '/memory.stat')
            os.rmdir(MEMCG)
    result['bytes'] = 1024 << 20
    return result


def anon(out):
    """Anonymous faults, then swap: touch_anon in a 256 MiB memory cgroup touching 1 GiB
    twice, with a swap file on: pass 0 swaps out as it faults in, pass 1 swaps back in."""
    fresh_work()
    exe = WORK + '/touch_anon'
    subprocess.run(['gcc', '-O2', '-o', exe, os.path.join(HERE, 'touch_anon.c')], check=True)
    free = subprocess.run([exe, '1024', '2'], check=True, capture_output=True, text=True).stdout
    subprocess.run(['fallocate', '-l', '2G', SWAPFILE], check=True)
    os.chmod(SWAPFILE, 0o600)
    subprocess.run(['mkswap', SWAPFILE], check=True, capture_output=True)
    subprocess.run(['swapon', SWAPFILE], check=True)
    os.mkdir(MEMCG)
    write(MEMCG + '/memory.limit_in_bytes', 256 << 20)
    a = snapshot()
    p = subprocess.run(['sh', '-c', 'echo $$ > %s/cgroup.procs && exec "$@"' % MEMCG, 'sh',
                        exe, '1024', '2'], check=True, capture_output=True, text=True)
    b = snapshot()
    stat = read(MEMCG + '/memory.stat')
    os.rmdir(MEMCG)
    subprocess.run(['swapoff', SWAPFILE], check=True)
    os.remove(SWAPFILE)
    return {'pages': (1024 << 20) // PAGE, 'free_run': free, 'cgroup_run': p.stdout,
            'before': a, 'after': b, 'memcg_stat': stat}


def throttled(n, bs, seconds=30, warm=10, trace=True, perf=False):
    """n dd writing without end under vm.dirty_bytes = 64 MiB (background 32 MiB), as in the
    shipped traces: the writers are throttled all the time. Counters are read at `warm` s and
    at the end, so the figures are of the steady state."""
    def run(out):
        fresh_work()
        sysctl('dirty_bytes', 64 << 20)
        sysctl('dirty_background_bytes', 32 << 20)
        tr = None
        if trace:
            tr = Trace(out + '.trace.txt', ['writeback/balance_dirty_pages',
                                            'writeback/bdi_dirty_ratelimit',
                                            'writeback/global_dirty_state'])
        t0 = time.monotonic()
        procs = start_dd(n, bs, WORK + '/f')
        time.sleep(warm)
        perf_proc = None
        if perf:
            perf_proc = subprocess.Popen(['perf', 'record', '-q', '-e', 'cpu-clock', '-F', '999',
                                          '-a', '-g', '-o', out + '.perf.data', '--',
                                          'sleep', str(seconds - warm)])
        a = snapshot(lambda: per_task(procs))
        time.sleep(seconds - warm)
        b = snapshot(lambda: per_task(procs))
        if perf_proc:
            perf_proc.wait()
        for p in procs:
            p.terminate()
        tasks = finish(procs)
        t1 = time.monotonic()
        if tr:
            tr.stop()
        result = {'writers': n, 'bs': bs, 'seconds': seconds, 'warm': warm, 'start': t0,
                  'end': t1, 'before': a, 'after': b, 'tasks': tasks}
        if perf:
            report = subprocess.run(['perf', 'report', '-i', out + '.perf.data', '--stdio',
                                     '--no-children', '--sort', 'comm,sym', '-g', 'none',
                                     '--percent-limit', '0.2'],
                                    capture_output=True, text=True).stdout
            children = subprocess.run(['perf', 'report', '-i', out + '.perf.data', '--stdio',
                                       '--children', '--sort', 'sym', '-g', 'none',
                                       '--percent-limit', '0.5'],
                                      capture_output=True, text=True).stdout
            write(out + '.perf-self.txt', report)
            write(out + '.perf-children.txt', children)
            os.remove(out + '.perf.data')
        return result
    return run


def folio_orders(bs):
    """Which folio sizes a buffered write of `bs` gets on this kernel and file system: the
    order of every folio added to the page cache while one dd writes 256 MiB."""
    def run(out):
        fresh_work()
        tr = Trace(out + '.trace.txt', ['filemap/mm_filemap_add_to_page_cache'], 65536)
        procs = start_dd(1, bs, WORK + '/f', count=(256 << 20) // parse_size(bs))
        tasks = finish(procs)
        tr.stop()
        orders = {}
        for line in open(out + '.trace.txt'):
            if 'order=' in line:
                o = line.rsplit('order=', 1)[1].split()[0]
                orders[o] = orders.get(o, 0) + 1
        return {'bs': bs, 'orders': orders, 'tasks': tasks}
    return run


def requests(n):
    """Request sizes the block layer issued to the disk while n dd were throttled."""
    def run(out):
        fresh_work()
        sysctl('dirty_bytes', 64 << 20)
        sysctl('dirty_background_bytes', 32 << 20)
        procs = start_dd(n, '1M', WORK + '/f')
        time.sleep(5)
        tr = Trace(out + '.trace.txt', ['block/block_rq_issue'], 65536)
        a = snapshot()
        time.sleep(5)
        b = snapshot()
        tr.stop()
        for p in procs:
            p.terminate()
        finish(procs)
        return {'writers': n, 'before': a, 'after': b}
    return run


def container(out):
    """A dd in a 1 GiB memory cgroup beside an unconstrained dd, default dirty ratios. On
    this machine the memory controller is on the cgroup v1 hierarchy, where the kernel keeps
    no per-cgroup dirty domain (cgroup writeback needs v2): this records what v1 does."""
    fresh_work()
    sysctl('dirty_ratio', 20)
    sysctl('dirty_background_ratio', 10)
    os.mkdir(MEMCG)
    write(MEMCG + '/memory.limit_in_bytes', 1 << 30)
    ino = os.stat(MEMCG).st_ino
    tr = Trace(out + '.trace.txt', ['writeback/balance_dirty_pages',
                                    'writeback/bdi_dirty_ratelimit',
                                    'vmscan/mm_vmscan_throttled'])
    boxed = start_dd(1, '1M', WORK + '/box', cgroup=MEMCG)
    host = start_dd(1, '1M', WORK + '/host')
    samples = []
    t0 = time.monotonic()
    while time.monotonic() - t0 < 30:
        stat = dict(l.split() for l in read(MEMCG + '/memory.stat').splitlines())
        vm = vmstat()
        samples.append({'t': time.monotonic() - t0,
                        'box_wchar': task_wchar(boxed[0].pid), 'host_wchar': task_wchar(host[0].pid),
                        'box_cpu': task_cpu(boxed[0].pid), 'host_cpu': task_cpu(host[0].pid),
                        'box_dirty': int(stat['dirty']), 'box_writeback': int(stat['writeback']),
                        'box_cache': int(stat['cache']),
                        'box_usage': int(read(MEMCG + '/memory.usage_in_bytes')),
                        'nr_dirty': vm['nr_dirty'], 'nr_writeback': vm['nr_writeback']})
        time.sleep(0.25)
    for p in boxed + host:
        p.terminate()
    tasks = finish(boxed + host)
    tr.stop()
    os.rmdir(MEMCG)
    return {'cgroup_ino': ino, 'box_pid': boxed[0].pid, 'host_pid': host[0].pid,
            'memory_limit': 1 << 30, 'samples': samples, 'tasks': tasks}


def parse_size(s):
    return int(s[:-1]) * {'k': 1 << 10, 'K': 1 << 10, 'M': 1 << 20}[s[-1]]


EXPERIMENTS = {
    'pretouch': pretouch,
    'idle': idle,
    'first-touch': first_touch,
    'unthrottled-1M': unthrottled('1M', 4096),
    'unthrottled-4k': unthrottled('4k', 1 << 20),
    'tmpfs-1M': tmpfs_copy,
    'reclaim': reclaim,
    'anon': anon,
    'folio-4k': folio_orders('4k'),
    'folio-64k': folio_orders('64k'),
    'folio-1M': folio_orders('1M'),
    'throttled-1': throttled(1, '1M'),
    'throttled-10': throttled(10, '1M'),
    'throttled-100': throttled(100, '1M'),
    'throttled-10-4k': throttled(10, '4k'),
    'perf-100': throttled(100, '1M', seconds=25, trace=False, perf=True),
    'perf-1-4k': throttled(1, '4k', seconds=25, trace=False, perf=True),
    'requests-1': requests(1),
    'requests-100': requests(100),
    'container': container,
}


# Short experiments are repeated (the machine is shared and noisy: take medians); the 30 s
# steady-state runs are taken once.
DEFAULT_RUN = (['pretouch', 'idle', 'first-touch'] + ['unthrottled-1M', 'unthrottled-4k', 'tmpfs-1M'] * 5 +
               ['reclaim', 'anon'] * 3 + ['folio-4k', 'folio-64k', 'folio-1M'] +
               ['throttled-1', 'throttled-10', 'throttled-100', 'throttled-10-4k', 'perf-100',
                'perf-1-4k', 'requests-1', 'requests-100', 'container'])


def main():
    if os.geteuid() != 0:
        sys.exit('measure_costs.py: run as root (it changes vm.dirty_* and tracing)')
    out_dir = sys.argv[1]
    names = sys.argv[2:] or DEFAULT_RUN
    unknown = [n for n in names if n not in EXPERIMENTS]
    if unknown:
        sys.exit('measure_costs.py: unknown experiment %s; known: %s' % (unknown, list(EXPERIMENTS)))
    if not os.path.isdir(TRACEFS + '/instances'):
        sys.exit('measure_costs.py: tracefs is not mounted at ' + TRACEFS)
    os.makedirs(out_dir, exist_ok=True)
    saved = save_settings()
    meta = {'uname': list(os.uname()), 'saved': saved, 'cpus': os.cpu_count(),
            'meminfo': read('/proc/meminfo').splitlines()[:3],
            'queue': {k: read('/sys/block/%s/queue/%s' % (DISK, k)).strip()
                      for k in ['scheduler', 'max_sectors_kb', 'nr_requests', 'rotational']}}
    write(os.path.join(out_dir, 'machine.json'), json.dumps(meta, indent=1))
    try:
        seen = {}
        for name in names:
            seen[name] = seen.get(name, 0) + 1
            label = name if names.count(name) == 1 else '%s.%d' % (name, seen[name])
            print('measure_costs.py: %s' % label, flush=True)
            out = os.path.join(out_dir, label)
            result = EXPERIMENTS[name](out)
            restore_settings(saved)
            result['started'] = time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())
            write(out + '.json', json.dumps(result, indent=1))
    finally:
        restore_settings(saved)
        print('measure_costs.py: settings restored and checked: %s' % saved['vm'], flush=True)


if __name__ == '__main__':
    main()
