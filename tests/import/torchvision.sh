#!/bin/sh
# tests/import/torchvision.sh PLANWRAP SRC_DIR WORK_DIR CC
# Real models: exports torchvision classifiers at opset 13 (random weights)
# and for each one
#   - imports it, checks the IR, plans it with and without the memory
#     options (never larger with them), generates strict C that compiles;
#   - runs onnx's own shape inference over it and imports that copy too:
#     every value_info onnx could infer must agree with planwrap's shapes
#     (the importer cross-checks value_info and fails on a difference).
# Skipped (exit 77, shown as skipped by ctest), with a message, when
# python3-torch/torchvision/onnx is missing; tools/install-deps.sh installs
# them.
set -u
pw=$1 src=$2 work=$3 cc=$4
mkdir -p "$work"
models="resnet18 mobilenet_v2 squeezenet1_0 densenet121:64"
dynamic="resnet18:224:dyn"
# shellcheck disable=SC2086
/usr/bin/python3 "$src/tests/import/export_torchvision.py" "$work" $models \
    $dynamic \
    >"$work/export.log" 2>&1
case $? in
0) ;;
3) cat "$work/export.log"; exit 77 ;; # ctest: skipped
*) cat "$work/export.log"; echo "FAIL: export"; exit 1 ;;
esac
fail=0
plan_size() {
    "$pw" plan "$1" | sed -n 's/^pool cpu: size \([0-9]*\),.*/\1/p' |
        awk '{s += $1} END {print s + 0}'
}
for spec in $models; do
    m=${spec%%:*}
    onnx="$work/$m.onnx"
    if ! "$pw" import "$onnx" -o "$work/$m.pw" || ! "$pw" check "$work/$m.pw"
    then
        echo "FAIL $m: import or check"
        fail=1
        continue
    fi
    "$pw" import "$onnx" --no-inplace --no-concat-elim -o "$work/$m.off.pw"
    on=$(plan_size "$work/$m.pw") off=$(plan_size "$work/$m.off.pw")
    echo "$m: $on bytes planned with the memory options, $off without"
    [ "$on" -le "$off" ] || { echo "FAIL $m: larger with the options"; fail=1; }
    rm -rf "$work/$m.gen"
    if ! "$pw" gen "$work/$m.pw" -o "$work/$m.gen" --verify ||
        ! "$cc" -std=c11 -Wall -Wextra -Werror -pedantic -Wcast-align \
            -I"$work/$m.gen" -I"$src/runtime" -c "$work/$m.gen/$m.c" \
            -o "$work/$m.o"; then
        echo "FAIL $m: gen or the generated C does not compile"
        fail=1
    fi
    /usr/bin/python3 -c "
import sys, onnx, onnx.shape_inference as si
m = si.infer_shapes(onnx.load(sys.argv[1]))
onnx.save(m, sys.argv[2])
print(len(m.graph.value_info), 'values typed by onnx shape inference')
" "$onnx" "$work/$m.inferred.onnx" || { echo "FAIL $m: onnx"; fail=1; }
    if ! "$pw" import "$work/$m.inferred.onnx" -o "$work/$m.inferred.pw"; then
        echo "FAIL $m: planwrap's shapes differ from onnx shape inference"
        fail=1
    fi
    rm -f "$work/$m.inferred.onnx"
done
# A dynamic batch dim: refused with the option to add, then bound.
dyn="$work/resnet18_dyn.onnx"
want="$dyn: error: input 'image': dimension 0 ('batch') is not fixed; bind it with --input image=D0,3,224,224"
got=$("$pw" import "$dyn" 2>&1 >/dev/null)
[ "$got" = "$want" ] || { echo "FAIL dyn: got '$got'"; fail=1; }
if ! "$pw" import "$dyn" --input image=2,3,224,224 -o "$work/dyn.pw" ||
    ! "$pw" check "$work/dyn.pw" ||
    ! grep -q '^alloc  logits f32\[2,1000\]$' "$work/dyn.pw"; then
    echo "FAIL dyn: --input image=2,3,224,224 does not give logits f32[2,1000]"
    fail=1
fi
exit $fail
