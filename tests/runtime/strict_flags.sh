#!/bin/sh
# strict_flags.sh RUNTIME_DIR WORK_DIR - the runtime compiles clean with gcc
# and clang (those found), -std=c99 and -std=c11, with and without the
# checks and the tracker, under -Wall -Wextra -Werror -pedantic
# -Wcast-align; and planwrap_rt_cuda.cu with nvcc when it is on PATH.
set -eu
rt=$1
work=$2
flags="-Wall -Wextra -Werror -pedantic -Wcast-align -Wshadow -Wundef \
-Wstrict-prototypes -Wmissing-prototypes -Wvla -Wformat=2"
n=0
for cc in gcc clang; do
    command -v $cc >/dev/null 2>&1 || { echo "skip: $cc not found"; continue; }
    for std in c99 c11; do
        for defs in "" "-DPW_RT_CHECKS" "-DPW_RT_TRACK" \
            "-DPW_RT_CHECKS -DPW_RT_TRACK" "-DPW_RT_TRACK_ALWAYS"; do
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
if command -v nvcc >/dev/null 2>&1; then
    for defs in "-DPW_WITH_NCCL" ""; do
        # shellcheck disable=SC2086
        nvcc $defs -I "$rt" -Xcompiler -Wall,-Wextra,-Werror \
            -c "$rt/planwrap_rt_cuda.cu" -o "$work/strict_cu.o" || {
            echo "FAIL: nvcc $defs planwrap_rt_cuda.cu"
            exit 1
        }
        n=$((n + 1))
    done
    # The .cu's strong defaults replace the weak C ones: without a GPU the
    # default alloc fails in cudaMalloc, not in the C-only default.
    cat >"$work/comm_main.c" <<'EOC'
#include "planwrap_rt.h"
int main(void) {
    void *p = 0;
    if (pw_comm_alloc(&p, 1024, "symm", "tp0") == 0)
        return pw_comm_free(p, 1024, "symm", "tp0") == 0 ? 0 : 1;
    return 2;
}
EOC
    cc -I "$rt" -c "$work/comm_main.c" -o "$work/comm_main.o"
    cc -I "$rt" -c "$rt/planwrap_rt.c" -o "$work/comm_rt.o"
    nvcc "$work/comm_main.o" "$work/comm_rt.o" "$work/strict_cu.o" \
        -o "$work/comm_main"
    rc=0
    "$work/comm_main" 2>"$work/comm_main.err" || rc=$?
    if [ $rc -eq 0 ]; then
        echo "ok: comm pool allocated through the CUDA default"
    elif [ $rc -eq 2 ] && grep -q cudaMalloc "$work/comm_main.err"; then
        echo "ok: the CUDA default is linked (no device: $(cat "$work/comm_main.err"))"
    else
        echo "FAIL: the CUDA default of the comm hooks is not used:"
        cat "$work/comm_main.err"
        exit 1
    fi
else
    echo "skip: nvcc not found"
fi
[ "$n" -gt 0 ] || { echo "FAIL: no compiler found"; exit 1; }
echo "ok: $n strict compilations"
