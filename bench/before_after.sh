#!/bin/sh
# bench/before_after.sh OLD_COMMIT [BUILD_DIR] - times this tree's
# planwrap against the planwrap of an older commit, in one run, on the
# same inputs (issue 9: "make bench shows no slowdown"):
#   check  parse+check of a synthetic program of 10^6 statements
#          (bench/ir/gen_ir; `planwrap check`, reading included)
#   plan   bestfit at 10^6 buffers (a sparse synthetic minimalloc
#          instance from bench_planner gen; `planwrap plan --csv --algo
#          bestfit`: reading, lower bound and naive size included)
#   gen    `planwrap gen --target c --algo bestfit` of 10,000 kernels
#          (bench/codegen/bench_codegen_model)
# OLD_COMMIT is exported with `git archive` into a temporary folder and
# built there (Release, the planwrap target only; a few minutes on 2
# cores); set PW_BENCH_OLD_BUILD to the build folder of an earlier run to
# reuse it.  Each workload runs ROUNDS times (PW_BENCH_ROUNDS, default 5),
# old and new alternating; the best CPU time (user + system) of each is
# kept, and the ratio new/old printed (<= 1.05: no slowdown beyond noise).
set -eu
if [ $# -lt 1 ]; then
    echo "usage: bench/before_after.sh OLD_COMMIT [BUILD_DIR]" >&2
    exit 2
fi
old=$1
build=${2:-build/release}
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=${PW_BENCH_ROUNDS:-5}
new_pw=$build/planwrap
rusage=$build/bench/codegen/bench_rusage
for f in "$new_pw" "$build/bench/ir/gen_ir" \
    "$build/bench/planner/bench_planner" \
    "$build/bench/codegen/bench_codegen_model" "$rusage"; do
    if [ ! -x "$f" ]; then
        echo "bench/before_after.sh: $f is missing (cmake --build $build)" >&2
        exit 1
    fi
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pw-before-after.XXXXXX")
trap 'rm -rf "$tmp"' EXIT HUP INT TERM
if [ -n "${PW_BENCH_OLD_BUILD:-}" ]; then
    old_build=$PW_BENCH_OLD_BUILD
else
    echo "building $old in $tmp/old ..."
    mkdir "$tmp/old"
    git -C "$root" archive "$old" | tar -x -C "$tmp/old"
    cmake -S "$tmp/old" -B "$tmp/old/build" -DCMAKE_BUILD_TYPE=Release \
        >"$tmp/old.log" 2>&1 &&
        cmake --build "$tmp/old/build" --target planwrap -j2 \
            >>"$tmp/old.log" 2>&1 || {
        cat "$tmp/old.log" >&2
        exit 1
    }
    old_build=$tmp/old/build
fi
old_pw=$old_build/planwrap
"$build/bench/ir/gen_ir" 1000000 >"$tmp/big.pw"
"$build/bench/planner/bench_planner" gen sparse 1000000 1 >"$tmp/big.csv"
"$build/bench/codegen/bench_codegen_model" 10000 >"$tmp/synth.pw"

# cpu_of PLANWRAP ARGS...: CPU seconds (user + system) of one run
cpu_of() {
    pw=$1
    shift
    rm -rf "$tmp/out"
    "$rusage" "$tmp/cpu" "$pw" "$@" >/dev/null
    awk '{ printf "%.3f", $3 }' "$tmp/cpu"
}

# measure NAME ARGS...: best of $rounds for old and new, alternating
measure() {
    name=$1
    shift
    bo=""
    bn=""
    i=0
    while [ "$i" -lt "$rounds" ]; do
        o=$(cpu_of "$old_pw" "$@")
        n=$(cpu_of "$new_pw" "$@")
        if [ -z "$bo" ] || awk "BEGIN{exit !($o < $bo)}"; then bo=$o; fi
        if [ -z "$bn" ] || awk "BEGIN{exit !($n < $bn)}"; then bn=$n; fi
        i=$((i + 1))
    done
    awk -v name="$name" -v o="$bo" -v n="$bn" 'BEGIN {
        r = o > 0 ? n / o : 0
        printf "%-6s old %.3f s  new %.3f s  new/old %.2f %s\n", name, o, n,
               r, (r <= 1.05 ? "ok" : "SLOWER")
    }'
}

echo "before/after: old $old ($(git -C "$root" rev-parse --short "$old")), new $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD -- 2>/dev/null || echo ' + changes')"
echo "CPU time (user + system), best of $rounds, old and new alternating:"
measure check check "$tmp/big.pw"
measure plan plan --csv "$tmp/big.csv" --algo bestfit
measure gen gen "$tmp/synth.pw" --target c --algo bestfit -o "$tmp/out"
