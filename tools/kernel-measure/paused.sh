#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs COMMAND with the other sessions' builds and tests stopped (SIGSTOP), and lets them go on
# again (SIGCONT) when it ends, on errors and signals too. This machine has 2 CPUs shared by
# several sessions; a capture taken beside their compilers measures their run-queue waits and
# disk traffic, not the writers'. Keep COMMAND short (a few minutes at most).
#
#   tools/kernel-measure/paused.sh COMMAND [ARG ...]          (as root)
#
# Stopped: the build and test drivers and compilers by name (NAMES), and then, by pid, every
# other user-space process that used more than 2 % of a CPU over one second (test binaries,
# other sessions' scripts), except this script's own ancestors, pid 1 and the machine's agent.
# Those pids (and the names) are continued at the end. What is still busy is printed before
# COMMAND runs, with /proc/loadavg and /proc/pressure/cpu.
NAMES="ninja make ctest cmake cc1plus cc1 as ld clang clang++ clang-16 clang++-16 clang-tidy clang-tidy-16 throttlelab"
STOPPED=""
resume() {
  for n in $NAMES; do pkill -CONT -x "$n"; done
  for p in $STOPPED; do kill -CONT "$p" 2>/dev/null; done
}
trap resume EXIT INT TERM HUP
for n in $NAMES; do pkill -STOP -x "$n"; done
busy() {
  python3 - "$$" <<'PY'
import os, sys, time
def ancestors(pid):
    out = set()
    while pid > 1:
        out.add(pid)
        try:
            stat = open('/proc/%d/stat' % pid).read()
        except OSError:
            break
        pid = int(stat[stat.rindex(')') + 2:].split()[1])
    return out
mine = ancestors(int(sys.argv[1])) | ancestors(os.getpid()) | {1}
def cpu():
    out = {}
    for p in os.listdir('/proc'):
        if not p.isdigit():
            continue
        try:
            s = open('/proc/%s/stat' % p).read()
        except OSError:
            continue
        comm = s[s.index('(') + 1:s.rindex(')')]
        f = s[s.rindex(')') + 2:].split()
        if int(f[6]) & 0x00200000:      # a kernel thread
            continue
        out[int(p)] = (comm, int(f[11]) + int(f[12]))
    return out
a = cpu(); time.sleep(1); b = cpu()
tick = os.sysconf('SC_CLK_TCK')
for pid, (comm, t) in b.items():
    if pid in mine or comm.startswith('memfd:') or comm in ('process_api', 'line_io_tools'):
        continue
    if pid in a and (t - a[pid][1]) / tick > 0.02:
        print(pid)
PY
}
for round in 1 2; do
  for p in $(busy); do kill -STOP "$p" 2>/dev/null && STOPPED="$STOPPED $p"; done
done
sleep 3
echo "paused.sh: stopped $NAMES and pids:$STOPPED; busiest now:"
top -bn1 -w 160 | sed -n '7,12p'
echo "paused.sh: loadavg $(cat /proc/loadavg)"
echo "paused.sh: pressure/cpu $(head -1 /proc/pressure/cpu)"
"$@"
