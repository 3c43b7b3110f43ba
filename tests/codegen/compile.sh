#!/bin/sh
# compile.sh PLANWRAP ROOT - every generated C file compiles clean with gcc
# and clang (those found), -std=c99 and -std=c11, -Wall -Wextra -Werror
# -pedantic -Wcast-align, with the runtime's checks and tracker off and on
# and without static pools; every generated .cu compiles with `nvcc -c`
# when nvcc is found (PATH, $CUDA_HOME/bin, /usr/local/cuda/bin).
set -u
pw=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

ccs=""
for cc in gcc clang; do
    command -v "$cc" >/dev/null 2>&1 && ccs="$ccs $cc"
done
[ -n "$ccs" ] || { echo "compile: no C compiler found"; exit 1; }

nvcc=""
if command -v nvcc >/dev/null 2>&1; then
    nvcc=nvcc
elif [ -n "${CUDA_HOME:-}" ] && [ -x "$CUDA_HOME/bin/nvcc" ]; then
    nvcc=$CUDA_HOME/bin/nvcc
elif [ -x /usr/local/cuda/bin/nvcc ]; then
    nvcc=/usr/local/cuda/bin/nvcc
fi

# gen_c NAME MODEL [planwrap options...]
gen_c() {
    name=$1 model=$2
    shift 2
    d=$tmp/c/$name
    if ! "$pw" gen "$model" --target c -o "$d" "$@"; then
        echo "FAIL: planwrap gen $model $* (target c)"
        fail=1
        return
    fi
    m=$(basename "$model" .pw)
    for cc in $ccs; do
        for std in c99 c11; do
            for defs in "" "-DPW_RT_CHECKS -DPW_RT_TRACK" \
                "-D${m}_NO_STATIC_POOLS"; do
                # shellcheck disable=SC2086
                if ! $cc -std=$std -Wall -Wextra -Werror -pedantic \
                    -Wcast-align $defs -I"$d" -I"$root/runtime" \
                    -c "$d/$m.c" -o "$tmp/x.o" 2>"$tmp/err"; then
                    echo "FAIL: $cc -std=$std $defs $name ($*)"
                    head -20 "$tmp/err"
                    fail=1
                fi
            done
        done
    done
}

gen_cuda() {
    name=$1 model=$2
    shift 2
    d=$tmp/cuda/$name
    if ! "$pw" gen "$model" --target cuda -o "$d" "$@"; then
        echo "FAIL: planwrap gen $model $* (target cuda)"
        fail=1
        return
    fi
    [ -n "$nvcc" ] || return
    m=$(basename "$model" .pw)
    if ! "$nvcc" -c -I"$d" -I"$root/runtime" "$d/$m.cu" -o "$tmp/x.o" \
        2>"$tmp/err"; then
        echo "FAIL: nvcc $name ($*)"
        head -20 "$tmp/err"
        fail=1
    fi
}

n=0
for model in "$root"/tests/data/models/*.pw "$root"/tests/codegen/models/*.pw; do
    m=$(basename "$model" .pw)
    gen_c "$m" "$model"
    gen_cuda "$m" "$model"
    n=$((n + 1))
done
# Options that change the generated code, on the small examples.
for model in "$root"/tests/codegen/models/*.pw; do
    m=$(basename "$model" .pw)
    gen_c "$m-status" "$model" --kernel-status
    gen_cuda "$m-status" "$model" --kernel-status
    for mp in none outputs combined; do
        gen_c "$m-$mp" "$model" --memory-pool "$mp"
        gen_cuda "$m-$mp" "$model" --memory-pool "$mp"
    done
    for algo in naive reuse tree search; do
        gen_c "$m-$algo" "$model" --algo "$algo"
    done
done
if [ -z "$nvcc" ]; then
    echo "compile: nvcc not found (PATH, \$CUDA_HOME/bin, /usr/local/cuda/bin):" \
        "CUDA output generated but not compiled"
fi
[ $fail -eq 0 ] && echo "compile: $n models, all generated files compile"
exit $fail
