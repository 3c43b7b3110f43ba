#!/bin/sh
# tests/import/ort_oracle.sh PLANWRAP SRC_DIR WORK_DIR [MODEL[:SIZE]...]
# The ONNX Runtime oracle (not part of `make test`: `make oracle`).  For
# each torchvision model (exported at opset 13): every value is made a
# graph output, ONNX Runtime (npm onnxruntime-node, CPU, installed into
# WORK_DIR with --ignore-scripts) runs it, and the type and dims it
# observed for every value are written into the model's value_info; then
# `planwrap import` must accept that model: it cross-checks every
# value_info against its own inference and fails on any difference.
set -u
pw=$1 src=$2 work=$3
shift 3
models=${*:-resnet18 mobilenet_v2 squeezenet1_0 densenet121:64 vit_b_16 swin_t}
mkdir -p "$work"
if [ ! -d "$work/node_modules/onnxruntime-node" ]; then
    (cd "$work" && npm install onnxruntime-node --ignore-scripts --no-audit \
        --no-fund >npm.log 2>&1) || {
        echo "oracle: npm install onnxruntime-node failed:"; tail "$work/npm.log"
        exit 1
    }
fi
# shellcheck disable=SC2086
/usr/bin/python3 "$src/tests/import/export_torchvision.py" "$work" $models \
    >"$work/export.log" 2>&1 || { tail -3 "$work/export.log"; exit 1; }
fail=0
for spec in $models; do
    m=${spec%%:*}
    py="/usr/bin/python3 $src/tests/import/ort_oracle.py"
    $py expose "$work/$m.onnx" "$work/$m.all.onnx" "$work/$m.inputs.json" &&
        NODE_PATH="$work/node_modules" node "$src/tests/import/ort_shapes.js" \
            "$work/$m.all.onnx" "$work/$m.inputs.json" "$work/$m.ort.json" &&
        $py annotate "$work/$m.onnx" "$work/$m.ort.json" \
            "$work/$m.ort.onnx" || { echo "FAIL $m: oracle run"; fail=1; continue; }
    if "$pw" import "$work/$m.ort.onnx" -o "$work/$m.ort.pw"; then
        echo "$m: every value has ONNX Runtime's type and dims"
    else
        echo "FAIL $m: planwrap's shapes differ from ONNX Runtime's"
        fail=1
    fi
    rm -f "$work/$m.all.onnx" "$work/$m.ort.onnx"
done
exit $fail
