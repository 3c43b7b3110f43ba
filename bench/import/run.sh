#!/bin/sh
# bench/import/run.sh BUILD_DIR - the ONNX importer on torchvision models
# exported here (opset 13, random weights; cached in BUILD_DIR/bench-import,
# never committed).  Needs python3-torch/torchvision (skipped otherwise).
#
# - import time of the largest model (by IR lines): the best of 5 runs in
#   process CPU time, the file already read: target < 0.5 s;
# - planned bytes per model with the memory options on, off, and the
#   literal reference: every non-view value its own buffer, live from its
#   producer to its last consumer, outputs to the end.  That is exactly the
#   import with --no-inplace --no-concat-elim, planned by the same planner
#   (bestfit), so "off" and the reference are one figure.  Target: geomean
#   of on / reference <= 0.70.
set -eu
build=${1:-build/release}
here=$(cd "$(dirname "$0")" && pwd)
pw=$build/planwrap
work=$build/bench-import
mkdir -p "$work"
models="resnet18 mobilenet_v2 squeezenet1_0 densenet121 vit_b_16 swin_t"
# shellcheck disable=SC2086
if ! /usr/bin/python3 "$here/../../tests/import/export_torchvision.py" \
    "$work" $models >"$work/export.log" 2>&1; then
    echo "import bench: SKIPPED: $(tail -1 "$work/export.log")"
    exit 0
fi
plan_size() {
    "$pw" plan "$1" | sed -n 's/^pool cpu: size \([0-9]*\),.*/\1/p' |
        awk '{s += $1} END {print s + 0}'
}
largest="" most=0
printf '%-14s %7s %12s %12s %7s\n' model lines on off/ref on/ref
ratios=""
for m in $models; do
    "$pw" import "$work/$m.onnx" -o "$work/$m.pw"
    "$pw" import "$work/$m.onnx" --no-inplace --no-concat-elim \
        -o "$work/$m.off.pw"
    lines=$(wc -l <"$work/$m.pw")
    if [ "$lines" -gt "$most" ]; then most=$lines largest=$m; fi
    on=$(plan_size "$work/$m.pw") off=$(plan_size "$work/$m.off.pw")
    r=$(awk -v a="$on" -v b="$off" 'BEGIN {printf "%.3f", a / b}')
    ratios="$ratios $r"
    printf '%-14s %7d %12d %12d %7s\n' "$m" "$lines" "$on" "$off" "$r"
done
echo "$ratios" | awk '{p = 0; for (i = 1; i <= NF; i++) p += log($i);
    g = exp(p / NF);
    printf "memory: geomean on/ref %.3f over %d models (target <= 0.70: " \
        "ratio %.2f)\n", g, NF, g / 0.70}'
set -- $("$build/bench/import/bench_import" "$work/$largest.onnx" 5)
awk -v t="$1" -v m="$largest" -v l="$2" 'BEGIN {printf "import time: " \
    "%s (%d IR lines) %.3f s, file read excluded (target < 0.5 s: " \
    "ratio %.2f)\n", m, l, t, t / 0.5}'
