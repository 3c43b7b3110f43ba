#!/bin/sh
# guard.sh PLANWRAP ROOT - gen --guard-bytes: a kernel that writes past its
# buffer (tests/runtime/guard/main.c, GUARD_OVERRUN) is caught after the
# call under PW_RT_CHECKS, naming the buffer, the kernel and the IR line;
# without guards the same overrun goes unnoticed.
set -u
pw=$1
root=$2
cc=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
model=$root/tests/runtime/guard/g.pw
"$pw" gen "$model" -o "$tmp/plain" --algo naive || exit 1
"$pw" gen "$model" -o "$tmp/guard" --algo naive --guard-bytes 8 --verify ||
    exit 1
build() { # NAME GENDIR flags...
    name=$1 dir=$2
    shift 2
    $cc -std=c11 -Wall -Wextra -Werror -pedantic -I "$dir" \
        -I "$root/runtime" "$@" -o "$tmp/$name" "$dir/g.c" \
        "$root/tests/runtime/guard/main.c" "$root/runtime/planwrap_rt.c" ||
        fail=1
}
build ok "$tmp/guard" -DPW_RT_CHECKS
build bad "$tmp/guard" -DPW_RT_CHECKS -DGUARD_OVERRUN
build bad_off "$tmp/guard" -DGUARD_OVERRUN
build bad_plain "$tmp/plain" -DPW_RT_CHECKS -DGUARD_OVERRUN
[ "$fail" -eq 0 ] || exit 1
expect() { # BIN STATUS TEXT
    "$tmp/$1" >"$tmp/out" 2>&1
    rc=$?
    if [ "$rc" -ne "$2" ] || ! grep -qF "$3" "$tmp/out"; then
        echo "FAIL: $1: exit $rc (want $2), output:"
        cat "$tmp/out"
        echo "  want: $3"
        fail=1
    fi
}
expect ok 0 "rc 0 b 2 3 4 5"
expect bad 134 "planwrap runtime: guard byte 0 after the buffer overwritten by kernel 'fill' (IR line 10): buffer 'a' in pool 'cpu'"
# without the checks, or without guards, the overrun is silent
expect bad_off 0 "rc 0"
expect bad_plain 0 "rc 0"
# CUDA cannot check guards from the host: refused
"$pw" gen "$model" -o "$tmp/cu" --target cuda --guard-bytes 8 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "needs --target c" "$tmp/err" || {
    echo "FAIL: --target cuda --guard-bytes not refused"
    fail=1
}
[ "$fail" -eq 0 ] && echo "guard: overrun caught with buffer, kernel and line"
exit "$fail"
