#!/bin/sh
# Spill benchmark: bench/firmware/run.sh BUILD_DIR
# planwrap's spill selection against a banked greedy in the manner of
# ExecuTorch's banked_greedy, fast memory at 25/50/75% of the pool.
set -eu
build=${1:-build/release}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin="$build/bench/firmware/bench_firmware"
if [ ! -x "$bin" ]; then
    cmake --build "$build" --target bench_firmware -j2 >/dev/null
fi
"$bin" "$root"/tests/data/models/*.pw "$root"/bench/planner/models/*.pw
