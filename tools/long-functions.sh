#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Lists the production functions longer than LIMIT lines (default 150): the program's own code
# in engine/, traceio/, host/, ui/src/ and app/, not its tests, benchmarks or fuzzers. Exits 1
# when there is one, 0 when there is none, 77 when universal-ctags is not installed (a test
# skips then; packaging/setup-deps.sh installs it). A function is what ctags calls one, from
# its first line to its closing brace.
#   tools/long-functions.sh [LIMIT]
set -euo pipefail
limit=${1:-150}
cd "$(dirname "$0")/.."
if ! command -v ctags >/dev/null 2>&1 || ! ctags --version 2>/dev/null | grep -q Universal; then
  echo "long-functions: universal-ctags is not installed (packaging/setup-deps.sh installs it)"
  exit 77
fi
long=$(ctags -R --languages=C++ --kinds-C++=f --fields=+ne -x \
         --_xformat='%{end} %{line} %{input} %{scope} %{name}' \
         engine/src engine/include traceio/src traceio/include host/src host/include ui/src \
         ui/include app 2>/dev/null |
       awk -v limit="$limit" '$1 != "-" && $1 - $2 + 1 > limit {
         scope = ($4 == "-") ? "" : $4 "::"
         gsub(/__anon[0-9a-f]+/, "(anonymous)", scope)
         printf "%5d lines  %s:%d  %s%s\n", $1 - $2 + 1, $3, $2, scope, $5 }' | sort -rn)
if [ -n "$long" ]; then
  echo "long-functions: longer than $limit lines:"
  echo "$long"
  exit 1
fi
echo "long-functions: no production function is longer than $limit lines"
