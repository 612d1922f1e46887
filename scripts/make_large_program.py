#!/usr/bin/env python3
"""Writes a large, valid program JSON for import benchmarks.

The program chains N nodes (alternating aten.relu and aten.add with the graph
input x), each with the metadata of a corpus node, so that its JSON resembles
a real export (about 840 bytes per node).

Usage: python3 scripts/make_large_program.py N OUT.json
"""
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASE = os.path.join(ROOT, "tests/fixtures/corpus/layernorm_residual/json/models/model.json")


def main():
    n = int(sys.argv[1])
    with open(BASE) as f:
        program = json.load(f)
    graph = program["graph_module"]["graph"]
    metadata = next(node["metadata"] for node in graph["nodes"] if node["name"] == "relu")
    x_meta = graph["tensor_values"]["x"]
    values = {k: v for k, v in graph["tensor_values"].items() if k.startswith("p_") or k == "x"}
    nodes = []
    prev = "x"
    for i in range(n):
        if i % 2 == 0:
            name = "relu_%d" % i
            target = "torch.ops.aten.relu.default"
            inputs = [{"name": "self", "arg": {"as_tensor": {"name": prev}}, "kind": 1}]
        else:
            name = "add_%d" % i
            target = "torch.ops.aten.add.Tensor"
            inputs = [{"name": "self", "arg": {"as_tensor": {"name": prev}}, "kind": 1},
                      {"name": "other", "arg": {"as_tensor": {"name": "x"}}, "kind": 1}]
        nodes.append({"target": target, "inputs": inputs, "outputs": [{"as_tensor": {"name": name}}],
                      "metadata": metadata, "is_hop_single_tensor_return": None, "name": name})
        values[name] = x_meta
        prev = name
    graph["nodes"] = nodes
    graph["tensor_values"] = values
    graph["outputs"] = [{"as_tensor": {"name": prev}}]
    program["graph_module"]["signature"]["output_specs"] = [{"user_output": {"arg": {"as_tensor": {"name": prev}}}}]
    with open(sys.argv[2], "w") as f:
        f.write(json.dumps(program))


if __name__ == "__main__":
    main()
