#!/usr/bin/python3
"""Writes the small hand-made ONNX models of tests/import into OUT_DIR
(python3-onnx helper API; nothing binary is committed).

usage: make_models.py OUT_DIR
Exit status 3 when python3-onnx is missing (the caller skips).
"""
import os
import sys

try:
    import numpy as np
    import onnx
    from onnx import TensorProto as T, helper as h, numpy_helper as nh
except ImportError as e:
    print(f"skipped: python3-onnx missing ({e})")
    sys.exit(3)


def model(name, nodes, inputs, outputs, inits=(), opset=13, value_info=()):
    g = h.make_graph(nodes, name, inputs, outputs, list(inits),
                     value_info=list(value_info))
    m = h.make_model(g, opset_imports=[h.make_opsetid("", opset)],
                     producer_name="planwrap-tests")
    m.ir_version = 8
    return m


def t(name, dims, dtype=T.FLOAT):
    return h.make_tensor_value_info(name, dtype, dims)


def w(name, shape, dtype=np.float32):
    return nh.from_array(np.zeros(shape, dtype=dtype), name)


def ints(name, values):
    return nh.from_array(np.array(values, dtype=np.int64), name)


def models():
    n = h.make_node
    yield "chain", model("chain", [
        n("Conv", ["x", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1]),
        n("Relu", ["c"], ["r"], name="relu"),
        n("Add", ["r", "x"], ["s"], name="add"),
        n("Sigmoid", ["s"], ["y"], name="sig"),
    ], [t("x", [1, 4, 8, 8])], [t("y", [1, 4, 8, 8])],
        [w("w", [4, 4, 3, 3]), w("b", [4])])
    # Shape -> Gather -> Unsqueeze -> Concat -> Reshape: folded at import.
    yield "shapes", model("shapes", [
        n("Shape", ["x"], ["s"]),
        n("Gather", ["s", "i0"], ["n0"], axis=0),
        n("Unsqueeze", ["n0", "ax"], ["n1"]),
        n("Concat", ["n1", "m1"], ["shape"], axis=0),
        n("Reshape", ["x", "shape"], ["flat"], name="flatten"),
        n("MatMul", ["flat", "wm"], ["y"], name="fc"),
    ], [t("x", ["batch", 2, 3, 4])], [t("y", ["batch", 5])],
        [ints("i0", 0), ints("ax", [0]), ints("m1", [-1]),
         w("wm", [24, 5])])
    # Dense-style concat: both producers write into the output.
    yield "concat", model("concat", [
        n("Conv", ["x", "w"], ["a"], name="conv_a"),
        n("Conv", ["x", "w"], ["b"], name="conv_b"),
        n("Concat", ["a", "b", "x"], ["c"], name="cat", axis=1),
        n("Relu", ["c"], ["y"], name="relu"),
    ], [t("x", [1, 4, 4, 4])], [t("y", [1, 12, 4, 4])],
        [w("w", [4, 4, 1, 1])])
    # DenseNet-style block: every feature goes to every later Concat; the
    # features are written into the last Concat, the earlier ones are views.
    yield "dense", model("dense", [
        n("Relu", ["x"], ["x0"], name="stem"),
        n("Concat", ["x0"], ["c1"], name="cat1", axis=1),
        n("Conv", ["c1", "w4"], ["f1"], name="conv1"),
        n("Concat", ["x0", "f1"], ["c2"], name="cat2", axis=1),
        n("Conv", ["c2", "w8"], ["f2"], name="conv2"),
        n("Concat", ["x0", "f1", "f2"], ["c3"], name="cat3", axis=1),
        n("Sigmoid", ["c3"], ["y"], name="head"),
    ], [t("x", [1, 4, 4, 4])], [t("y", [1, 12, 4, 4])],
        [w("w4", [4, 4, 1, 1]), w("w8", [4, 8, 1, 1])])
    # Names that collide after sanitising; a C keyword.
    yield "names", model("names", [
        n("Relu", ["in.put"], ["a.b"], name="first"),
        n("Relu", ["a.b"], ["a_b"], name="second"),
        n("Neg", ["a_b"], ["int"], name="third"),
    ], [t("in.put", [2])], [t("int", [2])])
    # Buffers whose dtype the first one does not fix: each kernel name
    # must keep one C signature (no `void *` in the generated header).
    yield "dtypes", model("dtypes", [
        n("Where", ["c", "a", "a"], ["wa"], name="where_f32"),
        n("Where", ["c", "i", "i"], ["wi"], name="where_i64"),
        n("Gather", ["a", "i"], ["ga"], name="gather_i64"),
        n("Gather", ["a", "j"], ["gj"], name="gather_i32"),
        n("GatherElements", ["a", "j"], ["ea"], name="elements_i32"),
        n("Pow", ["a", "a"], ["pa"], name="pow_f32"),
        n("Pow", ["a", "i"], ["pi"], name="pow_i64"),
    ], [t("c", [4], T.BOOL), t("a", [4]), t("i", [4], T.INT64),
        t("j", [4], T.INT32)],
        [t("wa", [4]), t("wi", [4], T.INT64), t("ga", [4]), t("gj", [4]),
         t("ea", [4]), t("pa", [4]), t("pi", [4])])
    yield "err_unsupported", model("bad", [
        n("NonZero", ["x"], ["y"], name="nonzero0"),
    ], [t("x", [2])], [t("y", [2])])
    yield "err_domain", model("bad", [
        h.make_node("FusedConv", ["x"], ["y"], name="fused",
                    domain="com.microsoft"),
    ], [t("x", [2])], [t("y", [2])])
    then = h.make_graph([n("Identity", ["x"], ["z"])], "then", [],
                        [t("z", [2])])
    yield "err_if", model("bad", [
        n("If", ["cond"], ["y"], name="branch", then_branch=then,
          else_branch=then),
    ], [t("cond", [], T.BOOL), t("x", [2])], [t("y", [2])])
    yield "err_opset", model("bad", [n("Relu", ["x"], ["y"])],
                             [t("x", [2])], [t("y", [2])], opset=18)
    yield "err_shape", model("bad", [
        n("Add", ["x", "z"], ["y"], name="add0"),
    ], [t("x", [2, 3]), t("z", [4])], [t("y", [2, 3])])
    yield "err_value_info", model("bad", [
        n("Relu", ["x"], ["r"], name="relu0"),
        n("Neg", ["r"], ["y"], name="neg0"),
    ], [t("x", [2, 3])], [t("y", [2, 3])], value_info=[t("r", [3, 2])])
    # --input on a weight listed as a graph input (IR version < 4).
    bound = model("bad", [n("Add", ["x", "w"], ["y"], name="add0")],
                  [t("x", [2]), t("w", [2])], [t("y", [2])], [w("w", [2])])
    yield "err_input_initializer", bound
    yield "err_missing", model("bad", [
        n("Add", ["x", "nowhere"], ["y"], name="add0"),
    ], [t("x", [2])], [t("y", [2])])


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    os.makedirs(sys.argv[1], exist_ok=True)
    for name, m in models():
        with open(os.path.join(sys.argv[1], name + ".onnx"), "wb") as f:
            f.write(m.SerializeToString())
    return 0


if __name__ == "__main__":
    sys.exit(main())
