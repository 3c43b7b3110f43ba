#!/bin/sh
# oom.sh PLANWRAP - running out of memory is an error like any other: one
# message on stderr and exit status 1, never a signal (abort's 134).  Each
# command runs on a 300,000-buffer model under several `ulimit -v` limits,
# so that allocation fails in different phases.  Skipped (77) in a
# sanitizer build, whose shadow memory cannot run under ulimit -v.
set -u
pw=$1
case "${PW_SANITIZE:-}" in
ON | on | 1) echo "oom: SKIPPED in a sanitizer build"; exit 77 ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk 'BEGIN { print "model big";
             for (i = 0; i < 300000; i++)
                 printf "alloc b%d f32[16]\ncall k(b%d)\nfree b%d\n", i, i, i }' \
    >"$tmp/big.pw"
fail=0
n=0
for limit in 20000 40000 60000 100000 160000; do
    for cmd in "check" "fmt" "plan" "gen -o $tmp/out"; do
        # shellcheck disable=SC2086
        (ulimit -v $limit && exec "$pw" $cmd "$tmp/big.pw") \
            >/dev/null 2>"$tmp/err"
        rc=$?
        [ $rc -eq 0 ] && continue
        n=$((n + 1))
        if [ $rc -ne 1 ] || ! grep -q 'out of memory' "$tmp/err" ||
            [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
            echo "FAIL: ulimit -v $limit: planwrap $cmd: exit $rc:"
            head -3 "$tmp/err"
            fail=1
        fi
        # gen writes its files as it renders: none may be left half done
        if [ -d "$tmp/out" ] && [ "$(ls -A "$tmp/out" | grep -c tmp)" -ne 0 ]; then
            echo "FAIL: ulimit -v $limit: planwrap $cmd: temporary files left"
            fail=1
        fi
    done
done
if [ $n -eq 0 ]; then
    echo "oom: no run ran out of memory: the test proves nothing"
    exit 1
fi
[ $fail -eq 0 ] && echo "oom: $n runs out of memory, each exit 1 with one message"
exit $fail
