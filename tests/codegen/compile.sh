#!/bin/sh
# compile.sh PLANWRAP ROOT TARGET
#   TARGET c:    every generated C file compiles clean with gcc and clang
#                (those found), -std=c99 and -std=c11, -Wall -Wextra -Werror
#                -pedantic -Wcast-align; with the runtime's checks and
#                tracker off and on, and without static pools.
#   TARGET cuda: every generated .cu compiles with `nvcc -c` when nvcc is
#                found (PATH, $CUDA_HOME/bin, /usr/local/cuda/bin); skipped
#                with a message otherwise.
# Models: tests/data/models/*.pw and tests/codegen/models/*.pw, plus the
# small ones with --kernel-status, every memory-pool mode and algorithm.
set -u
pw=$1
root=$2
target=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
count=0

ccs=""
for cc in gcc clang; do
    command -v "$cc" >/dev/null 2>&1 && ccs="$ccs $cc"
done
. "$root/tests/nvcc.sh"
pw_find_nvcc
if [ "$target" = c ] && [ -z "$ccs" ]; then
    echo "compile: no C compiler (gcc, clang) found"
    exit 1
fi
if [ "$target" = cuda ] && [ -z "$nvcc" ]; then
    echo "compile: SKIPPED: nvcc not found (PATH, \$CUDA_HOME/bin," \
        "/usr/local/cuda/bin)"
    exit 0
fi

# cc_one CC STD DEFS DIR MODEL
cc_one() {
    # shellcheck disable=SC2086
    if ! $1 -std=$2 -Wall -Wextra -Werror -pedantic -Wcast-align $3 \
        -I"$4" -I"$root/runtime" -c "$4/$5.c" -o "$tmp/x.o" 2>"$tmp/err"
    then
        echo "FAIL: $1 -std=$2 $3 $4/$5.c"
        head -20 "$tmp/err"
        fail=1
    fi
    count=$((count + 1))
}

# gen NAME MODEL FULL [planwrap options...]: FULL=1 compiles every
# configuration, FULL=0 two of them.
gen() {
    name=$1 model=$2 full=$3
    shift 3
    d=$tmp/$name
    # --target c refuses buffers on a cuda device
    [ "$target" = cuda ] || ! grep -q 'cuda:' "$model" || return
    if ! "$pw" gen "$model" --target "$target" -o "$d" "$@" 2>"$tmp/gen.err"; then
        cat "$tmp/gen.err"
        echo "FAIL: planwrap gen $model --target $target $*"
        fail=1
        return
    fi
    m=$(basename "$model" .pw)
    if [ "$target" = cuda ]; then
        # compiled in batches by nvcc_batch (nvcc starts slowly)
        batch="$batch $d/$m.cu"
        return
    fi
    if [ "$full" = 1 ]; then
        for cc in $ccs; do
            for std in c99 c11; do
                cc_one "$cc" $std "" "$d" "$m"
                cc_one "$cc" $std "-DPW_RT_CHECKS -DPW_RT_TRACK" "$d" "$m"
                cc_one "$cc" $std "-D${m}_NO_STATIC_POOLS" "$d" "$m"
            done
        done
    else
        first=${ccs# }
        first=${first%% *}
        last=${ccs##* }
        cc_one "$first" c99 "" "$d" "$m"
        cc_one "$last" c11 "-DPW_RT_CHECKS -DPW_RT_TRACK" "$d" "$m"
    fi
}

# nvcc_batch: one nvcc run over the .cu files in $batch (their base names
# differ; each includes its own headers by the "" rule).
batch=""
nvcc_batch() {
    [ "$target" = cuda ] && [ -n "$batch" ] || return
    mkdir -p "$tmp/obj"
    # shellcheck disable=SC2086
    if ! (cd "$tmp/obj" && "$nvcc" -c -I"$root/runtime" $batch) \
        2>"$tmp/err"; then
        echo "FAIL: nvcc -c $batch"
        head -40 "$tmp/err"
        fail=1
    fi
    count=$((count + $(echo $batch | wc -w)))
    rm -rf "$tmp/obj"
    batch=""
}

for model in "$root"/tests/data/models/*.pw "$root"/tests/codegen/models/*.pw; do
    gen "$(basename "$model" .pw)" "$model" 1
done
# gcc's GNU modes predefine linux and unix: the names model in gnu11 too
if [ "$target" = c ] && command -v gcc >/dev/null 2>&1; then
    cc_one gcc gnu11 "-DPW_RT_CHECKS" "$tmp/cnames" cnames
fi
nvcc_batch
for model in "$root"/tests/codegen/models/*.pw; do
    m=$(basename "$model" .pw)
    # CUDA: nvcc is slow; the stream model carries --kernel-status
    [ "$target" = c ] || [ "$m" = streams ] || continue
    gen "$m-status" "$model" 0 --kernel-status
done
for mp in none outputs combined; do
    for model in "$root"/tests/codegen/models/*.pw; do
        m=$(basename "$model" .pw)
        # CUDA: one model for modes none and combined
        [ "$target" = c ] || { [ "$m" = views ] && [ "$mp" != outputs ]; } ||
            continue
        gen "$m-$mp" "$model" 0 --memory-pool "$mp"
    done
done
nvcc_batch
# CUDA graphs (--cuda-graphs): every model on one stream
for model in "$root"/tests/codegen/models/*.pw; do
    m=$(basename "$model" .pw)
    [ "$target" = cuda ] && [ "$m" != streams ] || continue
    gen "$m-graphs" "$model" 0 --cuda-graphs
done
nvcc_batch
for algo in naive reuse tree search; do
    [ "$target" = c ] || break
    for model in "$root"/tests/codegen/models/*.pw; do
        m=$(basename "$model" .pw)
        gen "$m-$algo" "$model" 0 --algo "$algo"
    done
done
[ $fail -eq 0 ] && echo "compile ($target): $count compilations, all clean"
exit $fail
