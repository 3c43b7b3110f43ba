#!/usr/bin/python3
"""Writes examples' tiny ONNX model (a small CNN with a residual add and a
dynamic batch dim) to the path given: the input of examples/onnx.sh.
Needs python3-onnx (Debian); random weights."""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper as h, numpy_helper as nh

rng = np.random.default_rng(0)


def w(name, *shape):
    return nh.from_array(rng.standard_normal(shape).astype(np.float32), name)


nodes = [
    h.make_node("Conv", ["image", "w1", "b1"], ["c1"], name="conv1",
                pads=[1, 1, 1, 1]),
    h.make_node("Relu", ["c1"], ["r1"], name="relu1"),
    h.make_node("Conv", ["r1", "w2", "b2"], ["c2"], name="conv2",
                pads=[1, 1, 1, 1]),
    h.make_node("Add", ["c2", "r1"], ["s"], name="residual"),
    h.make_node("Relu", ["s"], ["r2"], name="relu2"),
    h.make_node("GlobalAveragePool", ["r2"], ["p"], name="pool"),
    h.make_node("Flatten", ["p"], ["f"], name="flatten"),
    h.make_node("Gemm", ["f", "wfc", "bfc"], ["logits"], name="fc",
                transB=1),
]
graph = h.make_graph(
    nodes, "tiny",
    [h.make_tensor_value_info("image", TensorProto.FLOAT,
                              ["batch", 3, 32, 32])],
    [h.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 10])],
    [w("w1", 8, 3, 3, 3), w("b1", 8), w("w2", 8, 8, 3, 3), w("b2", 8),
     w("wfc", 10, 8), w("bfc", 10)])
model = h.make_model(graph, opset_imports=[h.make_opsetid("", 13)])
model.ir_version = 8
onnx.checker.check_model(model)
onnx.save(model, sys.argv[1])
