#!/bin/bash
# check-completion.sh VNUMACTL COMPLETION -- the bash completion completes
# commands, options and option values of the built vnumactl.
# Exit 77 when bash-completion is not installed.
set -u
vnumactl=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
completion=$2
bc=/usr/share/bash-completion/bash_completion
[ -r "$bc" ] || { echo "bash-completion not installed: skipped"; exit 77; }

# shellcheck disable=SC1090
source "$bc"
source "$completion"
fail=0

# complete LINE: COMPREPLY for the command line LINE (cursor at its end)
complete_line() {
    COMP_LINE=$vnumactl${1#vnumactl}   # as typed with the full path
    COMP_POINT=${#COMP_LINE}
    read -r -a COMP_WORDS <<<"$COMP_LINE"
    [[ $COMP_LINE == *" " ]] && COMP_WORDS+=("")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    _vnumactl vnumactl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
    printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' '
}

expect() {  # expect LINE WORD...: every WORD is among the completions
    local line=$1 got
    shift
    got=" $(complete_line "$line")"
    for w in "$@"; do
        if [[ $got != *" $w "* ]]; then
            echo "FAIL: '$line' does not offer '$w' (got:$got)"
            fail=1
        fi
    done
}

expect "vnumactl sim" simulate
expect "vnumactl " topology plan simulate status log trace-gen
expect "vnumactl simulate --tr" --trace
expect "vnumactl simulate --policy " vnuma first-fit most-free round-robin no-pinning
expect "vnumactl plan --smt " prefer isolate require
expect "vnumactl plan --cel" --cell --cells
expect "vnumactl status --" --json --state-dir --sysroot --topology
expect "vnumactl help sta" status
expect "vnumactl trace-gen --" --vms --seed --hours --output
# every command of the table is offered
for c in $("$vnumactl" help | awk '/^Commands:/ { on = 1; next } on && NF && $1 !~ /^\x27/ { print $1 }'); do
    expect "vnumactl " "$c"
done
[ $fail = 0 ] && echo "completion: ok"
exit $fail
