#!/bin/bash
# Installs the Debian packages listed in tools/debian-packages.txt that are
# not installed yet.  Quiet and quick when nothing is missing.
#   install-deps.sh            the packages every build and test needs
#   install-deps.sh bench      also those marked "@bench" (make bench only)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
list=$here/debian-packages.txt
group=${1:-}
# plain lines always; "@GROUP name" lines only for that group
mapfile -t wanted < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$list" |
                      awk -v g="@$group" '$1 !~ /^@/ { print $1 } $1 == g { print $2 }')
missing=()
for p in "${wanted[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
    [ "$status" = installed ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "install-deps: installing ${missing[*]}"
if [ "$(id -u)" != 0 ]; then
    echo "install-deps: missing packages and not root: ${missing[*]}" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends -o Dpkg::Options::=--force-confold "${missing[@]}" >/dev/null
