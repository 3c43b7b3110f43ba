#!/usr/bin/python3
"""Exports torchvision classifiers to ONNX (opset 13) for the import tests
and the import benchmark.  Weights are random (no download): only shapes
matter to planwrap.

usage: export_torchvision.py OUT_DIR MODEL[:SIZE[:dyn]] ...
  SIZE is the input's height and width (default 224); `dyn` exports
  MODEL_dyn.onnx with a dynamic batch dim ("batch"), as third-party
  exports often have.
Exit status 3 when torch or torchvision is missing (the caller skips).
"""
import os
import sys

try:
    import torch
    import torchvision
except ImportError as e:  # the test is skipped with this message
    print(f"skipped: python3-torch/python3-torchvision missing ({e})")
    sys.exit(3)


def export(name, size, dyn, path):
    ctor = getattr(torchvision.models, name)
    model = ctor(weights=None).eval()
    x = torch.randn(1, 3, size, size)
    axes = {"image": {0: "batch"}, "logits": {0: "batch"}} if dyn else None
    torch.onnx.export(model, x, path, opset_version=13,
                      input_names=["image"], output_names=["logits"],
                      do_constant_folding=True, dynamic_axes=axes)


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(0)
    for spec in sys.argv[2:]:
        name, size, dyn = (spec.split(":") + ["", ""])[:3]
        path = os.path.join(out_dir, name + ("_dyn" if dyn else "") + ".onnx")
        if not os.path.exists(path):
            export(name, int(size or 224), dyn == "dyn", path)
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
