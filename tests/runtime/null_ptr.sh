#!/bin/sh
# null_ptr.sh PLANWRAP ROOT - under PW_RT_CHECKS, the generated run
# function names a NULL input, const, output, pool or struct pointer, and
# the failure goes where the user routes it: the default (stderr + abort),
# a hook (pw_rt_set_fail_hook), or a compile-time PW_RT_FAIL.
set -u
pw=$1
root=$2
cc=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$pw" gen "$root/tests/runtime/null/m.pw" -o "$tmp/gen" || exit 1
fail=0
build() { # NAME extra-flags...
    name=$1
    shift
    # shellcheck disable=SC2068
    $cc -std=c11 -Wall -Wextra -Werror -pedantic -I "$tmp/gen" \
        -I "$root/runtime" -DPW_RT_CHECKS "$@" -o "$tmp/$name" \
        "$tmp/gen/m.c" "$root/tests/runtime/null/main.c" \
        "$root"/runtime/planwrap_rt.c || fail=1
}
# expect BIN ARG STATUS TEXT: exit status and a line of its output
expect() {
    "$tmp/$1" "$2" >"$tmp/out" 2>&1
    rc=$?
    if [ "$rc" -ne "$3" ] || ! grep -qF "$4" "$tmp/out"; then
        echo "FAIL: $1 $2: exit $rc (want $3), output:"
        cat "$tmp/out"
        echo "  want: $4"
        fail=1
    fi
}
build plain
build hook -DUSE_HOOK
build myfail -DMY_FAIL \
    '-DPW_RT_FAIL(what,pool,off,n,name)=my_fail(what,name)' \
    -include "$root/tests/runtime/null/decl.h"
[ "$fail" -eq 0 ] || exit 1
expect plain none 0 "rc 0 y0 3"
expect plain input 134 "planwrap runtime: input is NULL: buffer 'x'"
expect plain const 134 "planwrap runtime: const is NULL: buffer 'w'"
expect plain output 134 "planwrap runtime: output is NULL: buffer 'y'"
expect plain pool 134 "planwrap runtime: pool is NULL: buffer 'cpu'"
expect plain inputs 134 "planwrap runtime: inputs struct is NULL"
expect hook input 3 "hook(user): planwrap runtime: input is NULL: buffer 'x'"
expect myfail const 4 "my_fail: const is NULL w"
[ "$fail" -eq 0 ] && echo "null_ptr: every NULL pointer named, each failure path taken"
exit "$fail"
