#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs the Debian 12 packages ThrottleLab needs to build, test and run.
# Idempotent: when everything is present it installs nothing and says so.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  # Links in a fifth of GNU ld's time; the build falls back to GNU ld without it.
  lld
  qt6-base-dev qt6-base-dev-tools qt6-svg-dev qt6-qpa-plugins libgl-dev
  libqcustomplot-dev
  libboost-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  xvfb xauth imagemagick fonts-dejavu-core
  # The fuzz preset: clang 16 (Debian 12's clang 14 lacks C++20 parenthesised aggregate
  # initialisation, which traceio uses), its libFuzzer and sanitizer runtimes, and
  # llvm-symbolizer for readable stack traces.
  clang-16 libclang-rt-16-dev llvm-16
  # Packaging: icons rendered from the SVG, the man page from --help, the .deb and its checks.
  librsvg2-bin help2man dpkg-dev file desktop-file-utils appstream
  # The source format (tools/format.sh; CI checks it): clang-format 14. The function-length
  # check (tools/long-functions.sh, the test style.function_length) reads ctags' tags.
  clang-format universal-ctags
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup-deps: all ${#packages[@]} packages are installed"
  exit 0
fi

echo "setup-deps: installing ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  SUDO=()
elif command -v sudo >/dev/null 2>&1; then
  SUDO=(sudo)
else
  echo "setup-deps: need root (or sudo) to install: ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -qq
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
