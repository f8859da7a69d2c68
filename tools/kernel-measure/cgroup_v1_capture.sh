#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A dd in a 1 GiB memory cgroup beside an unconstrained dd, on this machine's kernel, with the
# memory controller where this machine has it (cgroup v1: /sys/fs/cgroup/memory). Records the
# writeback tracepoints from a private tracefs instance and the cgroup's memory.stat every
# 100 ms. Changes nothing global: no sysctl is written; the cgroup, the tracing instance and
# the dd files are removed at the end (and on every exit path), and that is checked.
#   tl-exclusive tools/kernel-measure/cgroup_v1_capture.sh OUTDIR [WORKDIR]
set -euo pipefail
out=${1:?usage: cgroup_v1_capture.sh OUTDIR [WORKDIR]}
work=${2:-/work/h16state/dd}
cg=/sys/fs/cgroup/memory/tl-h16-box
tracefs=/sys/kernel/tracing
inst=$tracefs/instances/tl-h16-$$
boxMiB=3072
hostMiB=2048

[ "$(id -u)" = 0 ] || { echo "needs root" >&2; exit 2; }
[ -f /sys/fs/cgroup/memory/memory.limit_in_bytes ] || { echo "no v1 memory controller" >&2; exit 2; }
mounted=0
[ ! -e "$cg" ] || { echo "$cg exists already; not touching it" >&2; exit 2; }
mkdir -p "$out" "$work"

sysctls() { for k in dirty_bytes dirty_ratio dirty_background_bytes dirty_background_ratio \
  dirty_expire_centisecs dirty_writeback_centisecs; do echo "vm.$k=$(cat /proc/sys/vm/$k)"; done; }
sysctls > "$out/sysctl-before.txt"
mount | grep -E " on $tracefs " > "$out/tracefs-before.txt" || true

sampler_pid=
box=
host=
cleanup() {
  set +e
  for p in $box $host; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
  box= host=
  [ -n "$sampler_pid" ] && kill "$sampler_pid" 2>/dev/null && wait "$sampler_pid" 2>/dev/null
  if [ -d "$inst" ]; then
    echo 0 > "$inst/tracing_on"
    for e in global_dirty_state bdi_dirty_ratelimit balance_dirty_pages; do
      echo 0 > "$inst/events/writeback/$e/enable"
    done
    rmdir "$inst"
  fi
  if [ -d "$cg" ]; then
    # Only our dd ran in it; they have exited. Anything left goes back to the root.
    while read -r p; do echo "$p" > /sys/fs/cgroup/memory/cgroup.procs; done < "$cg/cgroup.procs"
    rmdir "$cg"
  fi
  rm -f "$work/box" "$work/host"
  if [ "$mounted" = 1 ] && mountpoint -q "$tracefs"; then umount "$tracefs"; fi
  mounted=0
}
trap cleanup EXIT INT TERM HUP

# tracefs: used where it is mounted; otherwise mounted for the run and unmounted afterwards.
if [ ! -d "$tracefs/instances" ]; then
  grep -qw tracefs /proc/filesystems || { echo "this kernel has no tracefs" >&2; exit 2; }
  mount -t tracefs nodev "$tracefs"
  mounted=1
fi

mkdir "$cg"
echo $((1024 * 1024 * 1024)) > "$cg/memory.limit_in_bytes"
mkdir "$inst"
echo 65536 > "$inst/buffer_size_kb"
for e in global_dirty_state bdi_dirty_ratelimit balance_dirty_pages; do
  echo 1 > "$inst/events/writeback/$e/enable"
done
rm -f "$work/box" "$work/host"
sync
sleep 2

# memory.stat of the cgroup and the machine's dirty counters, every 100 ms.
(
  echo "t_s,cg_cache_bytes,cg_dirty_bytes,cg_writeback_bytes,cg_usage_bytes,cg_failcnt,nr_dirty,nr_writeback"
  t0=$(date +%s.%N)
  while :; do
    now=$(date +%s.%N)
    awk -v t="$(echo "$now - $t0" | bc)" -v u="$(cat "$cg/memory.usage_in_bytes")" \
        -v f="$(cat "$cg/memory.failcnt")" '
      FNR == NR { if ($1 == "cache") c = $2; if ($1 == "dirty") d = $2; if ($1 == "writeback") w = $2; next }
      $1 == "nr_dirty" { nd = $2 } $1 == "nr_writeback" { nw = $2 }
      END { printf "%.3f,%d,%d,%d,%d,%d,%d,%d\n", t, c, d, w, u, f, nd, nw }' \
      "$cg/memory.stat" /proc/vmstat
    sleep 0.1
  done
) > "$out/memstat.csv" &
sampler_pid=$!

echo 1 > "$inst/tracing_on"
start=$(date +%s.%N)
sh -c "echo \$\$ > $cg/cgroup.procs; exec dd if=/dev/zero of=$work/box bs=1M count=$boxMiB" \
  2> "$out/dd-box.txt" &
box=$!; boxPid=$box
dd if=/dev/zero of="$work/host" bs=1M count=$hostMiB 2> "$out/dd-host.txt" &
host=$!; hostPid=$host
wait "$host"; hostEnd=$(date +%s.%N); host=
wait "$box"; boxEnd=$(date +%s.%N); box=
sleep 2
echo 0 > "$inst/tracing_on"
kill "$sampler_pid"; wait "$sampler_pid" 2>/dev/null || true; sampler_pid=
cat "$inst/trace" > "$out/trace.txt"
{
  echo "start $start"; echo "host_end $hostEnd"; echo "box_end $boxEnd"
  echo "box_pid $boxPid"; echo "host_pid $hostPid"
  echo "box_failcnt $(cat "$cg/memory.failcnt")"
  echo "box_max_usage_bytes $(cat "$cg/memory.max_usage_in_bytes")"
  uname -r
} > "$out/run.txt"

cleanup
trap - EXIT INT TERM HUP
sysctls > "$out/sysctl-after.txt"
cmp "$out/sysctl-before.txt" "$out/sysctl-after.txt"
[ ! -e "$cg" ] && [ ! -e "$inst" ] && [ ! -e "$work/box" ] && [ ! -e "$work/host" ]
mount | grep -E " on $tracefs " > "$out/tracefs-after.txt" || true
cmp "$out/tracefs-before.txt" "$out/tracefs-after.txt"
echo "restored: sysctls unchanged; cgroup, tracing instance and dd files removed; tracefs as before"
