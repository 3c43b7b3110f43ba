#!/usr/bin/python3
"""The models of tests/import/weights.sh (planwrap import --weights).

weights.py make DIR: writes DIR/lin.onnx (a torch MLP, exported at opset
13) and DIR/lin_expect.h (its weights, an input and torch's output, for
the run in weights_main.c); DIR/types.onnx (initializers of every IR
dtype in raw_data and in the typed fields, Constant nodes); DIR/ext.onnx
with DIR/ext.data (types.onnx with its initializers in external data) and
DIR/ext_outside.onnx (a location outside the model's folder).  Exit 3
when python3-torch or python3-onnx is missing.

weights.py verify MODEL.onnx IR: every `const NAME TYPE data="F" at=N`
of IR must hold, at offset N (a multiple of 64) of F, the bytes of the
model's initializer or Constant NAME; the padding is zeros.  Exit 1 on
the first difference.
"""
import os
import re
import sys

try:
    import numpy as np
    import onnx
    import torch
    from onnx import TensorProto, helper as h, numpy_helper as nh
except ImportError:
    sys.exit(3)


def c_array(name, a):
    vals = ", ".join(repr(float(x)) + "f" for x in a.reshape(-1))
    return f"static const float {name}[{a.size}] = {{{vals}}};\n"


def make_lin(d):
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(),
                            torch.nn.Linear(16, 4))
    x = torch.randn(1, 8)
    torch.onnx.export(m, x, os.path.join(d, "lin.onnx"), opset_version=13,
                      input_names=["x"], output_names=["y"])
    with torch.no_grad():
        y = m(x)
    with open(os.path.join(d, "lin_expect.h"), "w") as f:
        f.write(c_array("expect_x", x.numpy()))
        f.write(c_array("expect_y", y.numpy()))
        for i, name in ((0, "v0"), (2, "v2")):
            f.write(c_array(name + "_weight", m[i].weight.detach().numpy()))
            f.write(c_array(name + "_bias", m[i].bias.detach().numpy()))


def typed(name, dt, vals, dims):
    return h.make_tensor(name, dt, dims, vals)  # typed fields, not raw


def make_types(d):
    rng = np.random.default_rng(1)
    inits = [
        nh.from_array(rng.standard_normal((3, 5)).astype(np.float32), "wraw"),
        typed("wf", TensorProto.FLOAT, [1.5, -2.25, 3.0], [3]),
        typed("wd", TensorProto.DOUBLE, [0.1, -7.0], [2]),
        typed("wi64", TensorProto.INT64, [1, -2, 1 << 40], [3]),
        typed("wi32", TensorProto.INT32, [7, -70000], [2]),
        typed("wi16", TensorProto.INT16, [-3, 300, 5], [3]),
        typed("wi8", TensorProto.INT8, [-128, 5, 127], [3]),
        typed("wu8", TensorProto.UINT8, [0, 200, 255], [3]),
        typed("wb", TensorProto.BOOL, [True, False, True], [3]),
        typed("wh", TensorProto.FLOAT16, np.array([1.0, -0.5, 65504.0],
                                                  np.float16), [3]),
        nh.from_array(np.arange(1000, dtype=np.int32), "wbig"),
    ]
    # Concat(input, weight): a call that reads the weight as a buffer
    # (a Cast of an initializer would be folded at import)
    nodes, ins, outs = [], [], []
    for t in inits:
        shape = [1] + list(t.dims[1:])
        ins.append(h.make_tensor_value_info("x_" + t.name, t.data_type, shape))
        nodes.append(h.make_node("Concat", ["x_" + t.name, t.name],
                                 ["y_" + t.name], axis=0))
        outs.append(("y_" + t.name, t.data_type))
    nodes.append(h.make_node("Constant", [], ["k"], value_floats=[2.0, 3.0,
                                                                  4.0]))
    nodes.append(h.make_node("Constant", [], ["kt"], value=nh.from_array(
        np.array([5, 6], np.int64), "kt")))
    nodes.append(h.make_node("Cast", ["kt"], ["kf"], to=1))  # folded
    nodes.append(h.make_node("Concat", ["x", "k", "kf"], ["y_k"], axis=0))
    ins.append(h.make_tensor_value_info("x", TensorProto.FLOAT, [3]))
    outs.append(("y_k", TensorProto.FLOAT))
    graph = h.make_graph(
        nodes, "types", ins,
        [h.make_tensor_value_info(o, dt, None) for o, dt in outs], inits)
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, os.path.join(d, "types.onnx"))
    onnx.save_model(model, os.path.join(d, "ext.onnx"),
                    save_as_external_data=True,
                    all_tensors_to_one_file=True, location="ext.data",
                    size_threshold=0)
    bad = onnx.load(os.path.join(d, "ext.onnx"), load_external_data=False)
    for t in bad.graph.initializer:
        for e in t.external_data:
            if e.key == "location":
                e.value = "../ext.data"
    onnx.save(bad, os.path.join(d, "ext_outside.onnx"))


def ident(name):
    """The IR name of an ONNX name (docs/import.md; no clashes here)."""
    s = re.sub(r"[^A-Za-z0-9_]", "_", name)
    return "v" + s if not s or s[0].isdigit() else s


def expected_bytes(model):
    """IR name -> the bytes of every initializer and Constant output."""
    out = {ident(t.name): nh.to_array(t).tobytes()
           for t in model.graph.initializer}
    for n in model.graph.node:
        if n.op_type != "Constant":
            continue
        a = n.attribute[0]
        if a.name == "value":
            out[n.output[0]] = nh.to_array(a.t).tobytes()
        elif a.name == "value_floats":
            out[n.output[0]] = np.array(a.floats, np.float32).tobytes()
    if "kt" in out:  # types.onnx: kf = Cast(kt), folded at import
        out["kf"] = np.frombuffer(out["kt"], np.int64).astype(
            np.float32).tobytes()
    return out


def verify(model_path, ir_path):
    model = onnx.load(model_path)  # external data loaded beside it
    want = expected_bytes(model)
    end = 0
    data = None
    seen = 0
    for line in open(ir_path):
        m = re.match(r'const\s+(\w+) \S+ data="([^"]*)" at=(\d+)', line)
        if not m:
            continue
        name, path, at = m.group(1), m.group(2), int(m.group(3))
        if data is None:
            path = os.path.join(os.path.dirname(ir_path), path)
            data = open(path, "rb").read()
        if at % 64 or at < end:
            sys.exit(f"{name}: offset {at} is not aligned or overlaps")
        if any(data[end:at]):
            sys.exit(f"{name}: the padding before it is not zeros")
        w = want.pop(name, None)
        if w is None or data[at:at + len(w)] != w:
            sys.exit(f"{name}: its bytes at {at} are not the model's")
        end = at + len(w)
        seen += 1
    if data is None or len(data) != end or seen == 0:
        sys.exit("the weights file has bytes past the last const")
    print(f"{ir_path}: {seen} consts, {end} bytes: the model's")


if sys.argv[1] == "make":
    make_lin(sys.argv[2])
    make_types(sys.argv[2])
else:
    verify(sys.argv[2], sys.argv[3])
