#!/usr/bin/env python3
"""Writes the wrong-argument program fixtures of tests/fixtures/shape_errors/.

Each fixture is the program JSON of tests/fixtures/programs/small_cnn
(convolution -> batch norm -> relu -> max pool -> view -> addmm, Core ATen)
with one operator argument or one tensor metadata entry changed so that the
program can no longer run: torch.export would never write it, and ExecuTorch's
kernels would reject the call. A test replaces models/model.json of the
small_cnn folder with each fixture and expects the error the verify_shapes pass
gives; the expected errors are listed by hand in
tests/fixtures/shape_errors/cases.json.

The first seven cases are the ones a new-user review found converting without
complaint before verify_shapes existed.

Usage: python3 scripts/make_shape_error_fixtures.py [--out DIR]
(default DIR: tests/fixtures/shape_errors)
"""
import argparse
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASE = os.path.join(ROOT, "tests/fixtures/programs/small_cnn/models/model.json")
OUT = os.path.join(ROOT, "tests/fixtures/shape_errors")

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)


def base():
    with open(BASE) as f:
        return json.load(f)


def graph(p):
    return p["graph_module"]["graph"]


def node(p, name):
    for n in graph(p)["nodes"]:
        if n["name"] == name:
            return n
    raise KeyError(name)


def set_arg(p, node_name, arg_name, value):
    """Sets (or adds) the argument `arg_name` of node `node_name`."""
    n = node(p, node_name)
    for a in n["inputs"]:
        if a["name"] == arg_name:
            a["arg"] = value
            return
    n["inputs"].append({"name": arg_name, "arg": value, "kind": 1})


def set_meta(p, value_name, sizes=None, dtype=None):
    """Changes the sizes (and the matching contiguous strides) or the dtype of a tensor value."""
    tm = graph(p)["tensor_values"][value_name]
    if sizes is not None:
        tm["sizes"] = [{"as_int": s} for s in sizes]
        strides, acc = [], 1
        for s in reversed(sizes):
            strides.insert(0, {"as_int": acc})
            acc *= max(s, 1)
        tm["strides"] = strides
    if dtype is not None:
        tm["dtype"] = dtype


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=OUT, help="folder to write the fixtures to")
    out = ap.parse_args().out
    os.makedirs(out, exist_ok=True)

    def write(name, fn):
        p = base()
        fn(p)
        with open(os.path.join(out, name + ".json"), "w") as f:
            json.dump(p, f)

    # --- the new-user review's cases
    write("conv_stride_zero", lambda p: set_arg(p, "convolution", "stride", {"as_ints": [0, 0]}))
    write("conv_padding_int64_max",
          lambda p: set_arg(p, "convolution", "padding", {"as_ints": [INT64_MAX, INT64_MAX]}))
    write("conv_dilation_2_62", lambda p: set_arg(p, "convolution", "dilation", {"as_ints": [2**62, 2**62]}))
    write("conv_groups_zero", lambda p: set_arg(p, "convolution", "groups", {"as_int": 0}))
    write("pool_kernel_int64_max",
          lambda p: set_arg(p, "max_pool2d_with_indices", "kernel_size", {"as_ints": [INT64_MAX, INT64_MAX]}))
    write("pool_stride_int64_min",
          lambda p: set_arg(p, "max_pool2d_with_indices", "stride", {"as_ints": [INT64_MIN, INT64_MIN]}))
    write("input_five_channels", lambda p: set_meta(p, "x", sizes=[1, 5, 16, 16]))
    # --- more arguments and metadata
    write("conv_groups_three", lambda p: set_arg(p, "convolution", "groups", {"as_int": 3}))
    write("pool_padding_over_half",
          lambda p: set_arg(p, "max_pool2d_with_indices", "padding", {"as_ints": [2, 2]}))
    write("view_numel_changes", lambda p: (set_arg(p, "view", "size", {"as_ints": [1, 500]}),
                                           set_meta(p, "view", sizes=[1, 500])))
    # the weight [10, 512] itself instead of its transpose
    write("addmm_inner_mismatch", lambda p: set_arg(p, "addmm", "mat2", {"as_tensor": {"name": "p_fc_weight"}}))
    write("declared_shape_wrong", lambda p: set_meta(p, "convolution", sizes=[1, 8, 15, 15]))
    write("declared_dtype_wrong", lambda p: set_meta(p, "relu", dtype=4))  # 4 = int32


if __name__ == "__main__":
    main()
