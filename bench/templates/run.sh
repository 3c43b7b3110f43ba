#!/bin/sh
# bench/templates/run.sh BUILD_DIR - mustache render throughput and the
# compile + render time of a template set for a 10,000-kernel view.
# Figures are measured now; targets and ratios (>= 1 meets it) follow.
set -eu
build=${1:-build/release}
exe=$build/bench/templates/bench_mustache
if [ ! -x "$exe" ]; then
    echo "bench_mustache not built in $build (cmake --build $build --target bench_mustache)" >&2
    exit 1
fi
"$exe" 5
"$build/bench/templates/bench_builtin" 5
