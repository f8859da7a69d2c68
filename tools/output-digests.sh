#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Digests of everything ThrottleLab writes for its built-in inputs: every built-in scenario
# under every policy (samples CSV, task CSV, trace lines, summary), the seed experiments'
# quick reports, and the CSVs imported from the shipped kernel traces. A change that is meant
# to preserve behaviour prints the same lines before and after:
#   tools/output-digests.sh build/app/throttlelab > before.txt   (on the old tree)
#   tools/output-digests.sh build/app/throttlelab > after.txt    (on the new tree)
#   diff before.txt after.txt
# Usage: tools/output-digests.sh [THROTTLELAB] [SECONDS]   (defaults: build/app/throttlelab, 20)
set -euo pipefail
exe=${1:-build/app/throttlelab}
seconds=${2:-20}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

digest() { sha256sum "$1" | cut -c1-16; }

scenarios=$("$exe" --list-scenarios | awk '{print $1}')
policies="ioless ioless-3.2 perbdi-2.6.24 legacy-2.6.0 legacy-2.6.0-rt-exempt legacy-2.6.0-rt-break legacy-2.6.0-rt-bonus none"
for s in $scenarios; do
  for p in $policies; do
    "$exe" --headless --scenario "$s" --policy "$p" --duration "$seconds" \
      --csv "$work/s.csv" --task-csv "$work/t.csv" --trace-out "$work/tr.txt" --summary \
      > "$work/summary.txt"
    printf '%-14s %-24s csv %s  tasks %s  trace %s  summary %s\n' "$s" "$p" \
      "$(digest "$work/s.csv")" "$(digest "$work/t.csv")" "$(digest "$work/tr.txt")" \
      "$(digest "$work/summary.txt")"
  done
done
for e in $("$exe" --experiment list | awk '{print $1}'); do
  "$exe" --experiment "$e" --quick --seeds 1 --report "$work/e.md" > /dev/null
  printf '%-14s %-24s report %s\n' experiment "$e" "$(digest "$work/e.md")"
done
for t in "$root"/tests/data/kernel-6.18/*.txt; do
  "$exe" --import-trace "$t" --csv "$work/i.csv" --task-csv "$work/it.csv" > "$work/i.txt"
  printf '%-14s %-24s csv %s  tasks %s  printed %s\n' import "$(basename "$t")" \
    "$(digest "$work/i.csv")" "$(digest "$work/it.csv")" "$(digest "$work/i.txt")"
done
