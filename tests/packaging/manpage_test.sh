#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# manpage_test.sh EXE PAGE.1.gz VERSION: the man page built from --help names every option
# that --help names, and the version that --version prints.
set -euo pipefail
exe=$1 page=$2 version=$3
[ -s "$page" ] || { echo "FAIL: no man page at $page"; exit 1; }
# roff writes - as \- and fonts as \fB..\fR; undo both to compare with the plain help text.
text=$(gzip -dc "$page" | sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g')
grep -q '^\.TH THROTTLELAB "1"' <<<"$text" || { echo "FAIL: $page has no .TH THROTTLELAB 1 header"; exit 1; }
grep -qF "throttlelab $version" <<<"$text" || { echo "FAIL: $page does not name version $version"; exit 1; }
options=$("$exe" --help | grep -oE -- '--[a-z][a-z-]*' | sort -u)
[ "$(wc -l <<<"$options")" -ge 10 ] || { echo "FAIL: --help names too few options: $options"; exit 1; }
missing=0
while read -r opt; do
  grep -qE -- "(^|[^a-z-])$opt([^a-z-]|\$)" <<<"$text" || { echo "FAIL: $opt is in --help but not in $page"; missing=1; }
done <<<"$options"
[ $missing -eq 0 ] || exit 1
echo "PASS: $page documents all $(wc -l <<<"$options") options of --help"
