#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# command_line_doc_test.sh EXE DOC: every option that `EXE --help` names is documented in DOC
# (docs/command-line.md), so the help and the page cannot part.
set -euo pipefail
exe=$1 doc=$2
[ -s "$doc" ] || { echo "FAIL: no $doc"; exit 1; }
# An option, or a family of them written --export-*.
options=$("$exe" --help | grep -oE -- '--[a-z][a-z-]*[a-z](-\*)?' | sort -u)
[ "$(wc -l <<<"$options")" -ge 10 ] || { echo "FAIL: --help names too few options: $options"; exit 1; }
missing=0
while read -r opt; do
  pattern=${opt//\*/\\*}
  grep -qE -- "(^|[^a-z-])$pattern([^a-z-]|\$)" "$doc" || {
    echo "FAIL: $opt is in --help but not in $doc"
    missing=1
  }
done <<<"$options"
[ $missing -eq 0 ] || exit 1
echo "PASS: $doc documents all $(wc -l <<<"$options") options of --help"
