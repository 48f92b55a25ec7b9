#!/bin/bash
# build-deb.sh [OUT] -- the Debian packages (debian/), built with Debian's
# own tooling in a clean copy of the tree, then checked by lintian.
#
# The copy holds the files git knows (tracked, and new ones not ignored) as
# they are in the working tree, so what is built is what you are changing,
# and the checkout itself is never written to (no debian/vnuma, no
# obj-*/ left behind).  dpkg-source -b makes the (native) source package
# from the clean copy, for lintian only; dpkg-buildpackage -us -uc -b
# builds the binary packages.
# Both land in OUT (default build-deb/ in the checkout): vnuma*.deb and
# python3-vnuma-nova*.deb, *.changes, *.buildinfo, *.dsc, *.tar.xz, and
# lintian.txt.
#
# lintian fails the build on an error or on a warning not overridden (an
# override carries its reason: debian/source/lintian-overrides,
# debian/vnuma.lintian-overrides).  Exit 1 on a failed build or check.
# VN_DEB_NOCHECK=1 skips the test suites inside the package build
# (DEB_BUILD_OPTIONS=nocheck).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$src/build-deb}
mkdir -p "$out"
out=$(cd "$out" && pwd)

for t in git dpkg-buildpackage dpkg-source dh lintian; do
    command -v "$t" >/dev/null || { echo "build-deb: $t missing (make deps installs it)" >&2; exit 1; }
done
git -C "$src" rev-parse --git-dir >/dev/null 2>&1 ||
    { echo "build-deb: $src is not a git checkout: the clean copy is made from git's file list" >&2; exit 1; }

version=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vnuma-deb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
copy=$tmp/vnuma-$version
mkdir "$copy"
# tracked and new files, each only if it exists (a deleted file is gone)
git -C "$src" ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do
        if [ -e "$src/$f" ] || [ -L "$src/$f" ]; then printf '%s\0' "$f"; fi
    done | tar -C "$src" --null -T - -cf - | tar -C "$copy" -xf -

echo "build-deb: building vnuma $version in $copy"
(
    cd "$copy"
    if [ "${VN_DEB_NOCHECK:-0}" = 1 ]; then
        export DEB_BUILD_OPTIONS="nocheck ${DEB_BUILD_OPTIONS:-}"
    fi
    dpkg-source -b .
    dpkg-buildpackage -us -uc -b
) >"$out/build.log" 2>&1 || { tail -n 60 "$out/build.log" >&2; echo "build-deb: the build failed (log: $out/build.log)" >&2; exit 1; }

# what dpkg-buildpackage and dpkg-source wrote beside the copy
rm -f "$out"/vnuma[_-]* "$out"/python3-vnuma-nova_*
find "$tmp" -maxdepth 1 -type f -exec mv -t "$out" {} +
changes=$(ls "$out"/vnuma_"${version}"_*.changes)

rc=0
lintian --fail-on error,warning --info --display-info --show-overrides \
    "$out/vnuma_$version.dsc" "$changes" >"$out/lintian.txt" 2>&1 || rc=$?
cat "$out/lintian.txt"
if [ "$rc" != 0 ]; then
    echo "build-deb: lintian found errors or warnings that no override explains ($out/lintian.txt)" >&2
    exit 1
fi
echo "build-deb: packages in $out:"
ls -1 "$out"/*.deb
