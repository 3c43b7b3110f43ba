#!/bin/sh
# Search planner benchmarks: bench/search/run.sh BUILD_DIR
#  1. the 11 minimalloc instances at capacity 1048576 (default budget;
#     60 s time limit as a safety stop): fits?, time, lower bound;
#     target: all 11 fit, total < 36 s
#  2. minimisation on D and J (best known 1031168 and 1041408)
#  3. real models: search never worse than bestfit
set -eu
build=${1:-build/release}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin="$build/bench/search/bench_search"
if [ ! -x "$bin" ]; then
    cmake --build "$build" --target bench_search -j2 >/dev/null
fi
data="$root/bench/data/minimalloc"
echo "-- capacity 1048576 (default budget, 60 s safety stop)"
"$bin" fit 1048576 0 60 "$data"/*.csv
echo
echo "-- minimisation, budget 1500000 steps (60 s safety stop)"
echo "   best known here: D 1031168 (lower bound 986112), J 1041408 (989184)"
"$bin" min 1500000 60 "$data/D.1048576.csv" "$data/J.1048576.csv"
echo
echo "-- models: search (default budget) vs bestfit, per pool"
"$bin" models 0 "$root"/tests/data/models/*.pw "$root"/bench/planner/models/*.pw
