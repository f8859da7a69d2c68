#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# deb_test.sh CPACK CPackConfig.cmake WORKDIR VERSION DESKTOP_FILE_VALIDATE APPSTREAMCLI
# Makes the .deb of this build with `cpack -G DEB` in WORKDIR (emptied first), then checks its
# control fields (Depends filled in by dpkg-shlibdeps), unpacks it with dpkg-deb -x and checks
# what landed where, and runs the unpacked binary's --version.
set -euo pipefail
cpack=$1 config=$2 work=$3 version=$4 dfv=$5 appstreamcli=$6
app_id=org.throttlelab.ThrottleLab
fail() { echo "FAIL: $*"; exit 1; }

# WORKDIR belongs to this test (the build tree's tests/packaging/deb): refuse anything else.
case $work in */tests/packaging/deb) ;; *) fail "refusing to use $work as the work directory" ;; esac
rm -rf -- "$work"
mkdir -p -- "$work"
"$cpack" -G DEB --config "$config" -B "$work" > "$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log"; fail "cpack -G DEB failed"; }
debs=("$work"/throttlelab_*.deb)
[ ${#debs[@]} -eq 1 ] && [ -f "${debs[0]}" ] || fail "expected one throttlelab_*.deb in $work, got: ${debs[*]}"
deb=${debs[0]}
arch=$(dpkg --print-architecture)
[ "$(basename "$deb")" = "throttlelab_${version}_${arch}.deb" ] || fail "package file is $(basename "$deb")"

field() { dpkg-deb --field "$deb" "$1"; }
[ "$(field Package)" = throttlelab ] || fail "Package is '$(field Package)'"
[ "$(field Version)" = "$version" ] || fail "Version is '$(field Version)', the project's is $version"
depends=$(field Depends)
echo "Depends: $depends"
# The package names alone, one per line ("libc6 (>= 2.34), qt6-qpa-plugins" -> libc6, ...).
depends_names=$(tr ',' '\n' <<<"$depends" | sed -e 's/^ *//' -e 's/[ (].*//')
# dpkg-shlibdeps turns the binary's NEEDED libraries into packages; none of these is listed
# by hand, so finding them shows it ran. qt6-qpa-plugins is the one listed by hand.
for pkg in libc6 libstdc++6 libqt6core6 libqt6gui6 libqt6widgets6 qt6-qpa-plugins; do
  grep -qxF "$pkg" <<<"$depends_names" || fail "Depends lacks $pkg"
done

root=$work/root
dpkg-deb -x "$deb" "$root"
for f in usr/bin/throttlelab \
         usr/share/applications/$app_id.desktop \
         usr/share/metainfo/$app_id.metainfo.xml \
         usr/share/icons/hicolor/scalable/apps/$app_id.svg \
         usr/share/man/man1/throttlelab.1.gz \
         usr/share/doc/throttlelab/copyright; do
  [ -s "$root/$f" ] || fail "$f is not in the package"
done
for size in 16 22 24 32 48 64 128 256; do
  png=$root/usr/share/icons/hicolor/${size}x${size}/apps/$app_id.png
  [ -s "$png" ] || fail "no ${size}x${size} icon"
  file "$png" | grep -q "PNG image data, $size x $size" || fail "$(file "$png")"
done
gzip -t "$root/usr/share/man/man1/throttlelab.1.gz" || fail "the man page is not valid gzip"
# Nothing outside /usr, and no build-tree leftovers (static libraries, headers, tests).
stray=$(cd "$root" && find . -type f ! -path './usr/*' -o -type f \( -name '*.a' -o -name '*.h' -o -name '*_test' \) -print)
[ -z "$stray" ] || fail "unexpected files in the package: $stray"

"$dfv" "$root/usr/share/applications/$app_id.desktop" || fail "the packaged desktop file does not validate"
"$appstreamcli" validate --no-net --strict "$root/usr/share/metainfo/$app_id.metainfo.xml" ||
  fail "the packaged metainfo does not validate"

out=$(env -u LD_LIBRARY_PATH "$root/usr/bin/throttlelab" --version)
[ "$out" = "throttlelab $version" ] || fail "the packaged binary's --version printed '$out'"
echo "PASS: $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB): $out"
