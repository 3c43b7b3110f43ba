#!/bin/sh
# tests/e2e/firmware/run.sh PLANWRAP WORKDIR - planned inputs and state in
# generated C (acc.pw, acc_main.c) and a state ... next= pair (rnn.pw,
# rnn_main.c), without and with the runtime checks and the lifetime
# tracker.  CC is honoured.
set -eu
pw=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
cc=${CC:-cc}
rm -rf "$out"
mkdir -p "$out"
for m in acc rnn; do
    "$pw" plan --emit lines "$here/$m.pw"
    "$pw" gen "$here/$m.pw" -o "$out/$m"
    for flags in "" "-DPW_RT_CHECKS -DPW_RT_TRACK"; do
        # shellcheck disable=SC2086
        $cc -std=c99 -O1 -Wall -Wextra -Werror -pedantic $flags \
            -I "$out/$m" -I "$root/runtime" "$out/$m/$m.c" \
            "$root/runtime/planwrap_rt.c" "$root/runtime/planwrap_rt_track.c" \
            "$here/${m}_main.c" -o "$out/$m.bin"
        "$out/$m.bin"
    done
done
