#!/bin/bash
# validate.sh DIR: every example domain in DIR against libvirt's schema.
#   NAME.xml          must pass `virt-xml-validate FILE domain` (libvirt 9.0,
#                     the target) and `xmllint --relaxng` with the corpus
#                     schemas ($VN_CORPUS/libvirt-schemas; skipped if absent)
#   NAME-invalid.xml  must fail virt-xml-validate, and xmllint too unless the
#                     file says "upstream-valid" (valid for newer libvirt)
# TAP output; a TAP skip (empty plan, exit 0) when the validators are
# missing and cannot be installed here.
set -u
dir=${1:?usage: validate.sh DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v virt-xml-validate >/dev/null || ! command -v xmllint >/dev/null; then
    "$root/tools/install-deps.sh" >&2 || { echo "1..0 # SKIP validators missing"; exit 0; }
fi
rng=${VN_CORPUS:-$root/../shared/corpus}/libvirt-schemas/domain.rng
[ -f "$rng" ] || rng=
files=("$dir"/*.xml)
echo "1..${#files[@]}"
n=0 failed=0
for f in "${files[@]}"; do
    n=$((n + 1))
    name=$(basename "$f")
    virt-xml-validate "$f" domain >/tmp/vn-validate.$$ 2>&1; v=$?
    x=0
    [ -n "$rng" ] && { xmllint --noout --relaxng "$rng" "$f" >>/tmp/vn-validate.$$ 2>&1; x=$?; }
    case $name in
    *-invalid.xml)
        ok=1
        [ $v -ne 0 ] || ok=0
        if [ -n "$rng" ] && ! grep -q upstream-valid "$f"; then [ $x -ne 0 ] || ok=0; fi ;;
    *)
        ok=1
        [ $v -eq 0 ] && [ $x -eq 0 ] || ok=0 ;;
    esac
    if [ $ok = 1 ]; then
        echo "ok $n $name"
    else
        echo "not ok $n $name"
        sed 's/^/# /' /tmp/vn-validate.$$
        failed=1
    fi
done
rm -f /tmp/vn-validate.$$
exit $failed
