#!/bin/sh
# plan_stdout.sh PLANWRAP - `plan` to standard output that fails while
# being written: every --emit to /dev/full, and --emit view (streamed)
# into a pipe whose reader stops after 1000 bytes (SIGPIPE ignored, so
# that the write fails with EPIPE instead of the signal ending the
# process).  Each must exit 1 with the error and the note that standard
# output keeps what it received, and nothing else on stderr; the pipe's
# reader has the first 1000 bytes of the view.
set -u
pw=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk 'BEGIN { print "model wide";
             for (i = 0; i < 2000; i++)
                 printf "alloc b%d f32[16]\ncall k(b%d)\nfree b%d\n", i, i, i }' \
    >"$tmp/m.pw"
note="planwrap: note: standard output keeps what it received before the error (a pipe or a terminal cannot be rolled back)"
fail=0
# expect NAME REASON: $tmp/rc and $tmp/err hold the run's status and stderr
expect() {
    printf 'planwrap: error: cannot write standard output: %s\n%s\n' \
        "$2" "$note" >"$tmp/want"
    if [ "$(cat "$tmp/rc")" != 1 ] || ! cmp -s "$tmp/want" "$tmp/err"; then
        echo "FAIL: $1: exit $(cat "$tmp/rc"), stderr:"
        cat "$tmp/err"
        fail=1
    fi
}
if [ -w /dev/full ]; then
    for e in summary plan-json lines view svg html; do
        "$pw" plan --emit $e "$tmp/m.pw" >/dev/full 2>"$tmp/err"
        echo $? >"$tmp/rc"
        expect "emit $e > /dev/full" "No space left on device"
    done
    "$pw" plan --emit view -o - "$tmp/m.pw" >/dev/full 2>"$tmp/err"
    echo $? >"$tmp/rc"
    expect "emit view -o - > /dev/full" "No space left on device"
else
    echo "plan_stdout: no writable /dev/full: that part skipped"
fi
# The view is far larger than a pipe's buffer: planwrap is still writing
# when head exits.
(
    trap '' PIPE
    "$pw" plan --emit view "$tmp/m.pw" 2>"$tmp/err"
    echo $? >"$tmp/rc"
) | head -c 1000 >"$tmp/head"
expect "emit view | head -c 1000" "Broken pipe"
if [ "$(wc -c <"$tmp/head")" -ne 1000 ] || [ "$(head -c 1 "$tmp/head")" != "{" ]; then
    echo "FAIL: the pipe's reader did not get the start of the view"
    fail=1
fi
[ $fail -eq 0 ] && echo "plan_stdout: every write error exit 1 with the error and the note"
exit $fail
