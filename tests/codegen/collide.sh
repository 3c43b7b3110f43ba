#!/bin/sh
# collide.sh PLANWRAP ROOT - the wrapper of models/collide.pw (IR names
# that are C library, runtime and generated names) compiles with -Werror,
# renames the kernels whose names C has taken, links with kernels and the
# runtime, and computes what the same calls compute on plain arrays, with
# the runtime's checks and lifetime tracker on and off.
set -u
pw=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
cc=${CC:-cc}
"$pw" gen "$root/tests/codegen/models/collide.pw" -o "$tmp/gen" || exit 1
# Kernels named like C library / runtime / API names are renamed...
for k in collide_k_exp collide_k_collide_run collide_k_alloc_from_pool; do
    grep -q "^void $k(" "$tmp/gen/collide_kernels.h" || {
        echo "FAIL: no prototype for $k"
        fail=1
    }
done
# ...the others keep their names, and locals never shadow them.
for k in add in b_index; do
    grep -q "^void $k(" "$tmp/gen/collide_kernels.h" || {
        echo "FAIL: kernel $k was renamed"
        fail=1
    }
done
for defs in "" "-DPW_RT_CHECKS -DPW_RT_TRACK"; do
    # shellcheck disable=SC2086
    if ! $cc -std=c99 -Wall -Wextra -Werror -pedantic $defs \
        -I"$tmp/gen" -I"$root/runtime" -o "$tmp/run" "$tmp/gen/collide.c" \
        "$root/tests/codegen/collide_main.c" "$root"/runtime/*.c; then
        echo "FAIL: build ($defs)"
        fail=1
        continue
    fi
    "$tmp/run" || fail=1
done
exit $fail
