#!/bin/sh
# cuda_link.sh PLANWRAP SRC_ROOT WORK_DIR - links the CUDA wrapper of
# tests/e2e/cuda/comm.pw with the runtime and its CUDA defaults, with and
# without PW_WITH_NCCL, and runs tests/e2e/cuda/comm_main.c (see there).
# Needs nvcc (found as tests/nvcc.sh says): exits 77 (skipped) without it.
set -eu
pw=$1
root=$2
work=$3
here=$root/tests/e2e/cuda
. "$root/tests/nvcc.sh"
pw_find_nvcc
if [ -z "$nvcc" ]; then
    echo "skip: nvcc not found (PATH, \$CUDA_HOME/bin, /usr/local/cuda/bin)"
    exit 77
fi
echo "nvcc: $nvcc"
cc=${CC:-cc}
# comm_main.c includes the generated comm_kernels.h, which includes
# <cuda_runtime.h>: the host compiler needs the toolkit's include directory.
cudainc=$(pw_cuda_include)
flags="-Wall -Wextra -Werror"
rm -rf "$work"
mkdir -p "$work"
"$pw" gen --target cuda -o "$work/gen" "$here/comm.pw"
# shellcheck disable=SC2086
"$nvcc" -I "$work/gen" -I "$root/runtime" -Xcompiler -Wall,-Wextra,-Werror \
    -c "$work/gen/comm.cu" -o "$work/comm.o"
# shellcheck disable=SC2086
$cc -std=c11 $flags -pedantic -I "$work/gen" -I "$root/runtime" \
    -I "$cudainc" -c "$here/comm_main.c" -o "$work/main.o"
# shellcheck disable=SC2086
$cc -std=c11 $flags -pedantic -I "$root/runtime" \
    -c "$root/runtime/planwrap_rt.c" -o "$work/rt.o"

status=0
for nccl in 0 1; do
    defs=""
    libs=""
    what=cudaMalloc
    if [ $nccl -eq 1 ]; then
        defs=-DPW_WITH_NCCL
        libs=-lnccl
        what=ncclMemAlloc
    fi
    # shellcheck disable=SC2086
    "$nvcc" $defs -I "$root/runtime" -Xcompiler -Wall,-Wextra,-Werror \
        -c "$root/runtime/planwrap_rt_cuda.cu" -o "$work/rt_cuda$nccl.o"
    # shellcheck disable=SC2086
    "$nvcc" "$work/main.o" "$work/comm.o" "$work/rt.o" "$work/rt_cuda$nccl.o" \
        $libs -o "$work/comm_main$nccl"
    "$work/comm_main$nccl" hooks || status=1
    "$work/comm_main$nccl" default >"$work/default$nccl.txt" \
        2>"$work/default$nccl.err" || status=1
    if grep -q "init: 0" "$work/default$nccl.txt"; then
        echo "ok: default hooks ($what): init succeeded (GPU)"
    elif grep -q "planwrap runtime: $what" "$work/default$nccl.err"; then
        echo "ok: default hooks ($what) linked: $(head -n1 "$work/default$nccl.err")"
    else
        echo "FAIL: the $what default was not used:"
        cat "$work/default$nccl.txt" "$work/default$nccl.err"
        status=1
    fi
done
exit $status
