#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# cold-build-times.sh [OUTDIR]: times the README's two commands from fresh clones of this
# repository's HEAD, without the compiler cache (CCACHE_DISABLE=1), each in a clone of its own
# under /tmp. Command 1 is timed to its build's end and then the window opening under Xvfb
# (--quit); command 2's build (the cold full build) and its tests are timed apart. Each timing
# is /usr/bin/time -v (wall, user and system time) with the load average before and after in
# OUTDIR/*.load, so figures from a shared machine can be judged.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-/tmp/cold-build-times}
mkdir -p "$out"
export CCACHE_DISABLE=1
unset DISPLAY
command_n() { awk -v n="$1" '/^```/{f=!f; next} f && NF {if (++i == n) {print; exit}}' "$src/README.md"; }
cmd1=$(command_n 1) cmd2=$(command_n 2)
timed() { # NAME COMMAND
  { uptime; date -u +%T; } >>"$out/$1.load"
  /usr/bin/time -v -o "$out/$1.time" bash -c "$2" >"$out/$1.log" 2>&1
  { uptime; date -u +%T; } >>"$out/$1.load"
}
for n in 1 2; do
  rm -rf "/tmp/cold-build-clone-$n"
  git clone -q "$src" "/tmp/cold-build-clone-$n"
done
cd /tmp/cold-build-clone-1
timed command1-build "${cmd1% && ./build/app/throttlelab*}"
timed command1-window 'timeout 120 xvfb-run -a -s "-screen 0 1280x720x24" ./build/app/throttlelab --quit'
cd /tmp/cold-build-clone-2
timed command2-build "${cmd2%% && ctest*}"
timed command2-tests "ctest${cmd2#* && ctest}"
grep -H -E 'Elapsed|User time|System time' "$out"/*.time
