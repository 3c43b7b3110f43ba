#!/bin/sh
# errors_once.sh PLANWRAP ROOT - an error is reported once: a write error
# (/dev/full), a directory that cannot be made, a file that cannot be read
# and a usage error each give exactly the expected lines on stderr and a
# non-zero exit status, never a second, generic line after the first
# (docs/architecture.md, "The error path").
set -u
pw=$1
root=$2
model=$root/examples/lenet.pw
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# expect NAME STATUS WANTED-STDERR cmd... : exit status and whole stderr
expect() {
    name=$1 status=$2 want=$3
    shift 3
    timeout 60 "$@" >/dev/null 2>"$tmp/err" </dev/null
    rc=$?
    got=$(cat "$tmp/err")
    if [ "$rc" -ne "$status" ] || [ "$got" != "$want" ]; then
        echo "FAIL: $name: exit $rc (want $status)"
        echo "  got:  $got"
        echo "  want: $want"
        fail=1
    fi
}

full="planwrap: error: cannot write /dev/full: No space left on device"
if [ -w /dev/full ]; then
    expect fmt-full 1 "$full" "$pw" fmt "$model" -o /dev/full
    expect plan-full 1 "$full" "$pw" plan "$model" -o /dev/full
    expect plan-view-full 1 "$full" "$pw" plan "$model" --emit view -o /dev/full
    expect plan-compare-full 1 "$full" \
        "$pw" plan "$model" --compare --emit plan-json -o /dev/full
    expect plan-svg-full 1 "$full" "$pw" plan "$model" --emit svg -o /dev/full
    expect schedule-full 1 "$full" "$pw" schedule "$model" -o /dev/full
    echo '{}' >"$tmp/d.json"
    echo 'x' >"$tmp/t.mustache"
    expect render-full 1 "$full" \
        "$pw" render "$tmp/t.mustache" --data "$tmp/d.json" -o /dev/full
fi
expect gen-mkdir 1 \
    "planwrap: error: cannot create directory /dev/null/x: Not a directory" \
    "$pw" gen "$model" -o /dev/null/x
expect check-missing 1 \
    "planwrap: error: cannot read $tmp/none.pw: No such file or directory" \
    "$pw" check "$tmp/none.pw"
expect plan-csv-missing 1 \
    "planwrap: error: cannot read $tmp/none.csv: No such file or directory" \
    "$pw" plan --csv "$tmp/none.csv"
expect render-data-missing 1 \
    "planwrap: error: cannot read $tmp/none.json: No such file or directory" \
    "$pw" render "$root/tests/codegen/models/tiny.pw" --data "$tmp/none.json"
expect plan-bad-algo 2 "planwrap: error: invalid value 'x' for --algo: expected naive, reuse, tree, bestfit, search or auto
Run 'planwrap plan --help' for usage." "$pw" plan --algo x "$model"
expect unknown-command 2 "planwrap: error: unknown command 'frob'
Run 'planwrap --help' for the list of commands." "$pw" frob

[ "$fail" -eq 0 ] && echo "errors_once: every error reported once"
exit "$fail"
