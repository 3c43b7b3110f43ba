#!/bin/sh
# Runs every benchmark: bench/*/run.sh BUILD_DIR.  Figures are measured in
# this run; targets are printed next to them as ratios.
set -eu
build=${1:-build/release}
here=$(dirname "$0")
for s in "$here"/*/run.sh; do
    [ -f "$s" ] || continue
    echo "== $(basename "$(dirname "$s")")"
    sh "$s" "$build"
    echo
done
