#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# window_export_test.sh offscreen|xvfb EXE OUT.png XVFB_RUN: the window runs ten simulated
# seconds of ten-dd and exports a PNG. Under a sanitizer any report aborts the process, so the
# exit status and the PNG tell whether the window's code ran clean.
set -euo pipefail
platform=$1 exe=$2 png=$3 xvfb_run=$4
rm -f -- "$png"
args=(--scenario ten-dd --run-for 10 --export-png "$png" --quit)
case $platform in
  offscreen) QT_QPA_PLATFORM=offscreen "$exe" "${args[@]}" ;;
  xvfb) env -u QT_QPA_PLATFORM "$xvfb_run" -a -s "-screen 0 1280x720x24" "$exe" "${args[@]}" ;;
  *) echo "window_export_test.sh: unknown platform $platform" >&2; exit 2 ;;
esac
[ -s "$png" ] || { echo "FAIL: no PNG at $png"; exit 1; }
file "$png" | grep -q "PNG image data" || { echo "FAIL: $(file "$png")"; exit 1; }
echo "PASS: $platform: $(file -b "$png")"
