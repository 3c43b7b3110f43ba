#!/bin/sh
# Planner benchmarks: bench/planner/run.sh BUILD_DIR
#  1. minimalloc instances, per algorithm: size, size / lower bound, time;
#     auto's geometric mean (target 1.05x) and slowest instance (50 ms)
#  2. the CSV reader (target 100 MB/s); every algorithm on sparse and
#     dense synthetic data of 10^3..10^6 buffers, generated here (seeded),
#     timed against naive in the same run (targets: bestfit at 10^6 within
#     2.5x naive, tree at 10^5 within 5x, reuse at 10^6 within 5x), growth
#     exponents.  Every timed run is what `planwrap plan --csv` does
#     (reading the CSV, the lower bound, the plan), CPU time, in a child
#     process forked for it, so that no run inherits what an earlier one
#     left in the process; best of several, the algorithms alternating
#     (bench_planner ratio FILE.csv ALGO times the same way); auto against
#     bestfit at 10^4; 50,000 buffers all live at once (bestfit within 5x
#     naive, search --time-limit 1)
#  3. real and generated models: auto vs the lower bound (target: all at
#     the lower bound)
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
echo "-- scaling (synthetic; CPU time of read + lower bound + plan, each run"
echo "   in a fresh child process; /naive: against naive on the same instance)"
"$bin" scale
echo
echo "-- models (auto; every pool should be at its lower bound)"
shared=""
if [ -d /work/shared/models ]; then
    shared=$(ls /work/shared/models/*.pw 2>/dev/null || true)
fi
# shellcheck disable=SC2086
"$bin" models "$root"/tests/data/models/*.pw "$here"/models/*.pw $shared
