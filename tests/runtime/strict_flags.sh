#!/bin/sh
# strict_flags.sh RUNTIME_DIR WORK_DIR - the runtime compiles clean with gcc
# and clang (those found), -std=c99 and -std=c11, with and without the
# checks and the tracker, under -Wall -Wextra -Werror -pedantic
# -Wcast-align.  (planwrap_rt_cuda.cu is compiled, with and without
# PW_WITH_NCCL, and linked by the e2e_cuda_link test.)
set -eu
rt=$1
work=$2
flags="-Wall -Wextra -Werror -pedantic -Wcast-align -Wshadow -Wundef \
-Wstrict-prototypes -Wmissing-prototypes -Wvla -Wformat=2"
n=0
for cc in gcc clang; do
    command -v $cc >/dev/null 2>&1 || { echo "skip: $cc not found"; continue; }
    for std in c99 c11; do
        for defs in "" "-DPW_RT_CHECKS -DPW_RT_TRACK" "-DPW_RT_TRACK_ALWAYS"; do
            for src in "$rt"/*.c; do
                # shellcheck disable=SC2086
                $cc -std=$std $flags $defs -I "$rt" -c "$src" \
                    -o "$work/strict.o" || {
                    echo "FAIL: $cc -std=$std $defs $src"
                    exit 1
                }
                n=$((n + 1))
            done
        done
    done
done
[ "$n" -gt 0 ] || { echo "FAIL: no compiler found"; exit 1; }
echo "ok: $n strict compilations"
