#!/bin/sh
# tests/e2e/firmware/run.sh PLANWRAP WORKDIR - planned inputs and state in
# generated C (acc.pw, acc_main.c), without and with the runtime checks
# and the lifetime tracker.  CC is honoured.
set -eu
pw=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
cc=${CC:-cc}
rm -rf "$out"
mkdir -p "$out"
"$pw" plan --emit lines "$here/acc.pw"
"$pw" gen "$here/acc.pw" -o "$out/gen"
for flags in "" "-DPW_RT_CHECKS -DPW_RT_TRACK"; do
    # shellcheck disable=SC2086
    $cc -std=c99 -O1 -Wall -Wextra -Werror -pedantic $flags \
        -I "$out/gen" -I "$root/runtime" "$out/gen/acc.c" \
        "$root/runtime/planwrap_rt.c" "$root/runtime/planwrap_rt_track.c" \
        "$here/acc_main.c" -o "$out/acc"
    "$out/acc"
done
