#!/usr/bin/env python3
"""Generate a synthetic transformer program of N layers for benchmarks.

Usage:
  python3 scripts/gen_synthetic.py N_LAYERS OUT_DIR [options]
  python3 scripts/gen_synthetic.py --nodes 1000|10000|100000 OUT_DIR [options]
options:
  --hidden H        model width (default 16)       --heads N   attention heads (default 2)
  --seq T           sequence length (default 4)    --batch B   batch size (default 1)
  --mlp M           MLP width (default 2*H)        --no-metadata  omit node metadata strings
  --check           run scripts/check_fixtures.py on the result (slow for 100k nodes)

The program is a stack of the tests/fixtures/programs/transformer_block block (same nodes:
native_layer_norm, view/permute/addmm linears, head split with clone + view, bmm, mul,
_softmax, gelu, residual adds — 49 nodes per layer) in core-ATen form, written as an unpacked
PT2 archive folder (models/model.json, data/weights/..., archive_format, ...) that
scripts/make_pt2.py can pack. Weights have their real sizes (small widths keep the files small)
and distinct deterministic values per tensor. Prints the node count. With --nodes, the layer
count is ceil(nodes / 49), so the program has at least that many nodes.
"""

import argparse
import math
import os
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gen_fixtures as G  # noqa: E402
import pt2_builder as B  # noqa: E402

NODES_PER_LAYER = 49

STACK_SRC = G.TRANSFORMER_SRC + '''

class TransformerStack(torch.nn.Module):
    def __init__(self, layers, dim, heads, hidden):
        super().__init__()
        self.blocks = torch.nn.ModuleList(
            [TransformerBlock(dim, heads, hidden) for _ in range(layers)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
'''


class WeightPool:
    """Deterministic float32 values served as byte slices of a few precomputed pools."""

    def __init__(self, max_elems):
        self.size = max(1 << 16, 2 * max_elems)
        self.pools = {}
        self.counter = 0

    def _pool(self, key, lo, hi):
        if key not in self.pools:
            rng = G.Lcg(len(self.pools) + 7)   # pools are created in a fixed order
            vals = [lo + (hi - lo) * rng.uniform() for _ in range(self.size)]
            self.pools[key] = struct.pack("<%df" % len(vals), *vals)
        return self.pools[key]

    def take(self, n, lo, hi):
        pool = self._pool((lo, hi), lo, hi)
        self.counter += 1
        start = (self.counter * 7919) % (self.size - n + 1)
        return pool[4 * start:4 * (start + n)]


def build(layers, hidden, heads, seq, batch, mlp, metadata=True):
    if hidden % heads:
        raise SystemExit("--hidden must be a multiple of --heads")
    prog = B.Program("__main__.TransformerStack", STACK_SRC,
                     "/home/dev/pteforge_fixtures/synthetic_transformer.py", metadata=metadata)
    prog.module("blocks", "torch.nn.modules.container.ModuleList")
    for i in range(layers):
        prog.module("blocks.%d" % i, "__main__.TransformerBlock")
        for sub, t in G.BLOCK_MODULES:
            prog.module("blocks.%d.%s" % (i, sub), t)
    pool = WeightPool(max(hidden * mlp, hidden * hidden))

    def weight_fn(fqn, n, fan_in):
        if fan_in == 0:
            return pool.take(n, 0.9, 1.1)
        if fan_in == -1:
            return pool.take(n, -0.1, 0.1)
        b = 1.0 / math.sqrt(fan_in)
        return pool.take(n, -b, b)

    params = [G.block_params(prog, "blocks.%d." % i, hidden, mlp, weight_fn)
              for i in range(layers)]
    x = prog.user_input("x", [batch, seq, hidden])
    for i in range(layers):
        x = G.transformer_block_nodes(prog, x, params[i], batch, seq, hidden, heads,
                                      frames_outer=["x = block(x)"],
                                      mod_prefix="blocks.%d." % i)
    prog.output(x)
    return prog


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("layers", nargs="?", type=int)
    ap.add_argument("out_dir")
    ap.add_argument("--nodes", type=int)
    ap.add_argument("--hidden", type=int, default=16)
    ap.add_argument("--heads", type=int, default=2)
    ap.add_argument("--seq", type=int, default=4)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--mlp", type=int)
    ap.add_argument("--no-metadata", action="store_true")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args(argv)
    if (a.layers is None) == (a.nodes is None):
        ap.error("give N_LAYERS or --nodes")
    layers = a.layers if a.layers is not None else -(-a.nodes // NODES_PER_LAYER)
    if layers < 1:
        ap.error("need at least one layer")
    t0 = time.time()
    prog = build(layers, a.hidden, a.heads, a.seq, a.batch, a.mlp or 2 * a.hidden,
                 not a.no_metadata)
    arch = B.Archive()
    arch.add("model", prog)
    recs = arch.write(a.out_dir)
    weight_bytes = sum(len(d) for n, d in recs if n.startswith("data/weights/weight_"))
    json_bytes = sum(len(d) for n, d in recs if n.startswith("models/"))
    print("%d nodes, %d layers, %d parameters (%d bytes), program JSON %d bytes, %.1f s -> %s" % (
        len(prog.nodes), layers, len(prog.params), weight_bytes, json_bytes, time.time() - t0,
        a.out_dir))
    if a.check:
        import check_fixtures
        rep, _ = check_fixtures.check_archive_dir(os.path.abspath(a.out_dir))
        for e in rep.errors[:20]:
            print("error: " + e)
        print("check: %d error(s)" % len(rep.errors))
        return 1 if rep.errors else 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
