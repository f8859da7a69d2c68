#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# validate.sh desktop TOOL FILE | validate.sh appstream TOOL FILE VERSION
# A desktop entry passes desktop-file-validate with nothing to say (a hint counts as a
# failure); AppStream metadata passes `appstreamcli validate --strict` without the network
# and names this version as a release.
set -euo pipefail
kind=$1 tool=$2 file=$3
case $kind in
  desktop)
    out=$("$tool" "$file" 2>&1) || { echo "$out"; echo "FAIL: desktop-file-validate rejects $file"; exit 1; }
    if [ -n "$out" ]; then echo "$out"; echo "FAIL: desktop-file-validate has remarks on $file"; exit 1; fi
    echo "PASS: $file" ;;
  appstream)
    version=$4
    "$tool" validate --no-net --strict "$file" || { echo "FAIL: appstreamcli rejects $file"; exit 1; }
    grep -q "<release version=\"$version\"" "$file" ||
      { echo "FAIL: $file has no <release version=\"$version\"> (the project's version)"; exit 1; }
    echo "PASS: $file" ;;
  *) echo "validate.sh: unknown kind $kind" >&2; exit 2 ;;
esac
