#!/bin/sh
# bench/codegen/run.sh BUILD_DIR - `planwrap gen` end to end (read, check,
# plan, view, render, write) on a synthetic 10,000-kernel model, for the C
# and CUDA targets.  Target: under 200 ms.  Prints the best of 5 runs and
# the ratio best/target (below 1 meets the target, as in every other
# bench), then the CPU time of each phase of one more run (gen --times).
#
# With PW_BENCH_INSTR=1 and valgrind on PATH it also counts instructions
# per phase on a 2,000-kernel model with callgrind (immune to the load of
# a shared machine; ~20 s).
set -eu
build=${1:-build/release}
pw=$build/planwrap
model_exe=$build/bench/codegen/bench_codegen_model
rusage=$build/bench/codegen/bench_rusage
for f in "$pw" "$model_exe" "$rusage"; do
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
# Wall time (what the target is about) and CPU time (user + system, less
# sensitive to a loaded machine), best of 5 runs each, both from
# bench_rusage (to the microsecond).
for t in c cuda; do
    best_wall=""
    best_cpu=""
    for i in 1 2 3 4 5; do
        rm -rf "$tmp/out"
        "$rusage" "$tmp/t" "$pw" gen "$tmp/synth.pw" --target $t -o "$tmp/out"
        wall=$(awk '{ printf "%d", $1 * 1000000 }' "$tmp/t")
        cpu=$(awk '{ printf "%d", $3 * 1000000 }' "$tmp/t")
        if [ -z "$best_wall" ] || [ "$wall" -lt "$best_wall" ]; then
            best_wall=$wall
        fi
        if [ -z "$best_cpu" ] || [ "$cpu" -lt "$best_cpu" ]; then
            best_cpu=$cpu
        fi
    done
    bytes=$(cat "$tmp/out"/* | wc -c)
    awk -v t=$t -v target=$target_ms -v w="$best_wall" -v c="$best_cpu" \
        -v bytes="$bytes" 'BEGIN {
        printf "gen --target %-4s: wall %.1f ms (target < %d ms, ratio " \
               "%.2f), cpu %.1f ms (ratio %.2f), %d bytes written\n",
               t, w / 1000, target, (w / 1000) / target, c / 1000,
               (c / 1000) / target, bytes
    }'
done
echo "phases of one more run (--target c, CPU time):"
"$pw" gen "$tmp/synth.pw" --target c --times -o "$tmp/out" 2>&1 |
    sed -n 's/^planwrap: time: /    /p'
if [ "${PW_BENCH_INSTR:-0}" = 1 ] && command -v valgrind >/dev/null 2>&1 &&
    command -v callgrind_annotate >/dev/null 2>&1; then
    "$model_exe" 2000 >"$tmp/synth2k.pw"
    rm -rf "$tmp/out"
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" \
        "$pw" gen "$tmp/synth2k.pw" --target c -o "$tmp/out" \
        >/dev/null 2>"$tmp/cg.log"
    total=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$tmp/cg.log")
    echo "instructions, gen --target c on 2,000 kernels: $total in all"
    callgrind_annotate --inclusive=yes "$tmp/cg.out" 2>/dev/null |
        grep -v '=>' |
        grep -E ':(ir_load|plan_program|cg_build_view_opts|mst_render) ' |
        sed 's/^ */    /; s/ (.*:/ /; s/ \[.*//'
fi
# The streaming view (issue 12): peak memory and gen/check at 10^4 and
# 10^5 kernels, plan-json's memory; PW_BENCH_BEFORE=PLANWRAP adds the
# figures of another build measured in this run.
sh "$(dirname "$0")/stream.sh" "$build" "${PW_BENCH_BEFORE:-}"
