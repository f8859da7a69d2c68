#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# links_test.sh SOURCE_DIR: every relative link of every Markdown file of the source tree (README,
# docs/, the READMEs of tests/data, fuzz/, tools/) leads to a file that exists and, with a
# #fragment, to a heading in it. Build directories are not part of the tree.
set -euo pipefail
src=$1
here=$(cd "$(dirname "$0")" && pwd)
cd "$src"
mapfile -t files < <(find . -name '*.md' -not -path './.git/*' -not -path './build*' \
  -not -path '*/build/*' | sed 's|^\./||' | sort)
[ ${#files[@]} -ge 5 ] || { echo "FAIL: only ${#files[@]} Markdown files found under $src"; exit 1; }
if perl "$here/check_links.pl" "${files[@]}"; then
  echo "PASS: the links of ${#files[@]} Markdown files lead somewhere"
else
  echo "FAIL: broken links above"
  exit 1
fi
