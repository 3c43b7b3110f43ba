#!/usr/bin/python3
"""Helpers of tests/import/ort_oracle.sh (python3-onnx).

  ort_oracle.py expose MODEL.onnx ALL.onnx INPUTS.json
      ALL.onnx: MODEL with every node output also a graph output;
      INPUTS.json: the graph inputs' ORT types and dims.
  ort_oracle.py annotate MODEL.onnx SHAPES.json OUT.onnx
      OUT.onnx: MODEL with a value_info per value ONNX Runtime produced,
      holding the type and dims it observed (planwrap import cross-checks
      value_info, so importing OUT.onnx compares every value).
"""
import json
import sys

import onnx
from onnx import TensorProto, helper

ORT = {TensorProto.FLOAT: "float32", TensorProto.DOUBLE: "float64",
       TensorProto.INT64: "int64", TensorProto.INT32: "int32",
       TensorProto.INT16: "int16", TensorProto.INT8: "int8",
       TensorProto.UINT8: "uint8", TensorProto.BOOL: "bool",
       TensorProto.FLOAT16: "float16"}
BACK = {v: k for k, v in ORT.items()}


def expose(src, dst, inputs_json):
    m = onnx.load(src)
    g = m.graph
    inits = {t.name for t in g.initializer}
    have = {o.name for o in g.output}
    for n in g.node:
        for o in n.output:
            if o and o not in have:
                g.output.append(onnx.ValueInfoProto(name=o))
                have.add(o)
    inputs = {}
    for i in g.input:
        if i.name in inits:
            continue
        tt = i.type.tensor_type
        inputs[i.name] = {"type": ORT[tt.elem_type],
                          "dims": [d.dim_value for d in tt.shape.dim]}
    onnx.save(m, dst)
    with open(inputs_json, "w") as f:
        json.dump(inputs, f)


def annotate(src, shapes_json, dst):
    m = onnx.load(src)
    with open(shapes_json) as f:
        shapes = json.load(f)
    del m.graph.value_info[:]
    outs = {o.name for o in m.graph.output}
    for name, s in sorted(shapes.items()):
        if name not in outs and s["type"] in BACK:
            m.graph.value_info.append(helper.make_tensor_value_info(
                name, BACK[s["type"]], s["dims"]))
    onnx.save(m, dst)
    print(f"{len(m.graph.value_info)} value_info entries from ONNX Runtime")


if __name__ == "__main__":
    {"expose": expose, "annotate": annotate}[sys.argv[1]](*sys.argv[2:])
