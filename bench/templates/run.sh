#!/bin/sh
# bench/templates/run.sh BUILD_DIR - mustache render throughput and the
# compile + render time of a template set for a 10,000-kernel view.
# Figures are measured now; targets and ratios (>= 1 meets it) follow.
# Times are process CPU time (the machine is shared), wall time next to
# them.  With PW_BENCH_INSTR=1 and valgrind on PATH, also the instructions
# of the render of 5,000 statements (callgrind, immune to load).
set -eu
build=${1:-build/release}
exe=$build/bench/templates/bench_mustache
if [ ! -x "$exe" ]; then
    echo "bench_mustache not built in $build (cmake --build $build --target bench_mustache)" >&2
    exit 1
fi
"$exe" 5
"$build/bench/templates/bench_builtin" 5
if [ "${PW_BENCH_INSTR:-0}" = 1 ] && command -v valgrind >/dev/null 2>&1; then
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    valgrind --tool=callgrind --toggle-collect=mst_render \
        --callgrind-out-file="$tmp/cg.out" "$exe" 1 5000 >/dev/null \
        2>"$tmp/cg.log"
    total=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$tmp/cg.log")
    echo "render instructions: $total for 5,000 statements" \
        "($((total / 5000)) per statement)"
fi
