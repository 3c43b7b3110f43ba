#!/bin/sh
# bench/codegen/run.sh BUILD_DIR - `planwrap gen` end to end (read, check,
# plan, view, render, write) on a synthetic 10,000-kernel model, for the C
# and CUDA targets.  Target: under 200 ms.  Prints the best and median of
# 5 runs and the ratio target/best (>= 1 meets the target).
set -eu
build=${1:-build/release}
pw=$build/planwrap
model_exe=$build/bench/codegen/bench_codegen_model
for f in "$pw" "$model_exe"; do
    if [ ! -x "$f" ]; then
        echo "$f not built (cmake --build $build)" >&2
        exit 1
    fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$model_exe" 10000 >"$tmp/synth.pw"
ncalls=$(grep -c '^call' "$tmp/synth.pw")
nlines=$(wc -l <"$tmp/synth.pw")
echo "model: $ncalls kernel calls, $nlines IR lines"
target_ms=200
for t in c cuda; do
    runs=""
    for i in 1 2 3 4 5; do
        rm -rf "$tmp/out"
        s=$(date +%s%N)
        "$pw" gen "$tmp/synth.pw" --target $t -o "$tmp/out"
        e=$(date +%s%N)
        runs="$runs $(((e - s) / 1000))"
    done
    bytes=$(cat "$tmp/out"/* | wc -c)
    echo "$runs" | tr ' ' '\n' | sed '/^$/d' | sort -n | awk \
        -v t=$t -v target=$target_ms -v bytes="$bytes" '
        { v[NR] = $1 }
        END {
            best = v[1] / 1000; med = v[int((NR + 1) / 2)] / 1000
            printf "gen --target %-4s: best %.1f ms, median %.1f ms " \
                   "(target < %d ms, ratio %.2f), %d bytes written\n",
                   t, best, med, target, target / best, bytes
        }'
done
