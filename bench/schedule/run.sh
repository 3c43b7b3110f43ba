#!/bin/sh
# Operator-ordering benchmarks: bench/schedule/run.sh BUILD_DIR
#  1. random irregular graphs (RandWire-style small worlds, NAS-style
#     cells, fused-read chains) of 100, 1,000 and 10,000 calls, two seeds
#     each, in breadth-first order: peak of every order and time of best.
#     Targets (ratios printed): best <= 0.90 x the best of the four
#     baselines (geomean), never above any of them; 1,000 calls < 1 s,
#     10,000 < 10 s.
#  2. the traced models, in their given order, then rewritten in
#     breadth-first order (as a naive exporter writes them).
set -eu
build=${1:-build/release}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin="$build/bench/schedule/bench_schedule"
if [ ! -x "$bin" ]; then
    cmake --build "$build" --target bench_schedule -j2 >/dev/null
fi
echo "-- random irregular graphs, breadth-first order"
"$bin" graphs 2 100 1000 10000
echo
echo "-- traced models, given order"
models="$root/tests/data/models/*.pw"
# the shared copies, when they differ from the repository's
for m in /work/shared/models/*.pw; do
    [ -f "$m" ] || continue
    cmp -s "$m" "$root/tests/data/models/$(basename "$m")" || models="$models $m"
done
# shellcheck disable=SC2086
"$bin" models $models "$root"/bench/planner/models/*.pw
echo
echo "-- the same models in breadth-first order"
# shellcheck disable=SC2086
"$bin" models-bfs $models "$root"/bench/planner/models/*.pw
