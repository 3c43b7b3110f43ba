#!/bin/sh
# Search planner benchmarks: bench/search/run.sh BUILD_DIR
#  1. `auto` (the default algorithm) on the 11 minimalloc instances: per
#     instance size / 1048576 (every instance fits in it), size / lower
#     bound, CPU and wall time (fastest of 3), which won; geometric mean
#     (target 1.05x of the lower bound) and slowest instance (target 50 ms
#     CPU); the same within budgets of 100,000 to 300,000 steps
#  2. `auto` against `bestfit` on dense and sparse synthetic instances of
#     10^4 buffers (bench_planner gen, seeded; target: clearly below)
#  3. real models: auto / lower bound per pool (target: all at it);
#     search and auto never worse than bestfit
#  4. the 11 minimalloc instances at capacity 1048576 (default budget;
#     60 s time limit as a safety stop): fits?, time, lower bound;
#     target: all 11 fit, total < 36 s
#  5. minimisation on D and J (best known 1031168 and 1041408)
set -eu
build=${1:-build/release}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin="$build/bench/search/bench_search"
gen="$build/bench/planner/bench_planner"
if [ ! -x "$bin" ] || [ ! -x "$gen" ]; then
    cmake --build "$build" --target bench_search bench_planner -j2 >/dev/null
fi
data="$root/bench/data/minimalloc"
echo "-- auto (default budget) on the minimalloc instances"
"$bin" auto "$data"/*.csv
echo
echo "-- auto within other budgets (--search-budget): size / lower bound"
for b in 100000 120000 200000 300000; do
    "$bin" auto-budget "$b" "$data"/*.csv
done
echo
echo "-- auto vs bestfit, synthetic 10^4 buffers (seed 1)"
work="$build/bench-search"
mkdir -p "$work"
for shape in dense sparse; do
    "$gen" gen "$shape" 10000 1 >"$work/$shape-10000.csv"
done
"$bin" vs "$work/dense-10000.csv" "$work/sparse-10000.csv"
echo
echo "-- models: auto / lower bound per pool; search (default budget) and"
echo "   auto vs bestfit"
shared=""
if [ -d /work/shared/models ]; then
    shared=$(ls /work/shared/models/*.pw 2>/dev/null || true)
fi
# shellcheck disable=SC2086
"$bin" models 0 "$root"/tests/data/models/*.pw \
    "$root"/bench/planner/models/*.pw $shared
echo
echo "-- capacity 1048576 (default budget, 60 s safety stop)"
"$bin" fit 1048576 0 60 "$data"/*.csv
echo
echo "-- minimisation, budget 12000000 steps (60 s safety stop)"
echo "   best known here: D 1025024 (lower bound 986112), J 1030144 (989184)"
"$bin" min 12000000 60 "$data/D.1048576.csv" "$data/J.1048576.csv"
