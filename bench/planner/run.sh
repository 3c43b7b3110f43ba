#!/bin/sh
# Planner benchmarks: bench/planner/run.sh BUILD_DIR
#  1. minimalloc instances, per algorithm: size, size / lower bound, time
#  2. scaling of bestfit on synthetic instances, 10^3..10^6 buffers
#  3. real and generated models: bestfit vs the lower bound
set -eu
build=${1:-build/release}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin="$build/bench/planner/bench_planner"
if [ ! -x "$bin" ]; then
    cmake --build "$build" --target bench_planner -j2 >/dev/null
fi
echo "-- minimalloc instances (bench/data/minimalloc)"
"$bin" csv "$root"/bench/data/minimalloc/*.csv
echo
echo "-- scaling (synthetic, bestfit)"
"$bin" scale
echo
echo "-- models (bestfit; chain-shaped models must reach the lower bound)"
"$bin" models "$root"/tests/data/models/*.pw "$here"/models/*.pw
