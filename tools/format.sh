#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Formats every tracked C++ file with the project's .clang-format (clang-format 14, Debian 12's
# `clang-format` package), or with --check says which files differ and exits 1 (CI runs that).
set -euo pipefail
cd "$(dirname "$0")/.."
formatter=${CLANG_FORMAT:-clang-format-14}
command -v "$formatter" >/dev/null || formatter=clang-format
mapfile -t files < <(git ls-files '*.cpp' '*.h')
if [ "${1:-}" = "--check" ]; then
  bad=()
  for f in "${files[@]}"; do
    "$formatter" --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
  done
  if [ ${#bad[@]} -gt 0 ]; then
    echo "format: ${#bad[@]} of ${#files[@]} files differ from .clang-format; run tools/format.sh:" >&2
    printf '  %s\n' "${bad[@]}" >&2
    exit 1
  fi
  echo "format: all ${#files[@]} C++ files follow .clang-format"
else
  "$formatter" -i "${files[@]}"
fi
