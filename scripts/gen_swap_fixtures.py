#!/usr/bin/env python3
"""Generate the module-swap replacement programs in tests/fixtures/swap/.

Usage: python3 scripts/gen_swap_fixtures.py [--out DIR] [NAME ...]

Each fixture is a standalone exported program (an unpacked PT2 archive folder
tests/fixtures/swap/<name>/, written with scripts/pt2_builder.py in core-ATen
form) meant to replace one preserved submodule of a base program from
tests/fixtures/programs/ (today: nested_modules), plus two siblings:
  <name>.io.json       swap: {base, module, command}; runs[]: the BASE program
                       after the swap, on the base program's io.json inputs,
                       expected outputs computed in float64 from the model
                       definitions (base weights read from the base archive,
                       replacement weights from this generator) and rounded to
                       float32; replacement_runs[]: the replacement on its own;
                       error: for replacements that must be rejected, the
                       error code and a phrase the message must contain
  <name>.model.py.txt  the PyTorch code the replacement stands for
and double_swap.io.json: expected outputs of nested_modules with two replacements at once.

Standard library only (plus the builder's PyYAML); deterministic (fixed-seed LCG).
"""

import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import check_fixtures  # noqa: E402
import gen_fixtures as G  # noqa: E402
import pt2_builder as B  # noqa: E402
import pt2_schema as S  # noqa: E402

OUT = os.path.join(S.REPO, "tests", "fixtures", "swap")
BASE = os.path.join(S.REPO, "tests", "fixtures", "programs", "nested_modules")
SRC_DIR = "/home/dev/pteforge_swap_fixtures"


# ---------------------------------------------------------------------------------------------
# The base program's weights and inputs (read from its files, not regenerated)
# ---------------------------------------------------------------------------------------------

def base_state():
    """{fqn: (shape, flat float list)} of nested_modules."""
    with open(os.path.join(BASE, "data", "weights", "model_weights_config.json")) as f:
        cfg = json.load(f)["config"]
    out = {}
    for fqn, meta in cfg.items():
        shape = [s["as_int"] for s in meta["tensor_meta"]["sizes"]]
        with open(os.path.join(BASE, "data", "weights", meta["path_name"]), "rb") as f:
            data = f.read()
        out[fqn] = (shape, list(struct.unpack("<%df" % G.numel(shape), data)))
    return out


def base_inputs():
    with open(BASE + ".io.json") as f:
        io = json.load(f)
    return [r["inputs"][0]["values"] for r in io["runs"]]


def linear_of(state, prefix):
    (wshape, w), (_, b) = state[prefix + ".weight"], state[prefix + ".bias"]
    return G.nest(w, wshape), b


# ---------------------------------------------------------------------------------------------
# Replacement programs
# ---------------------------------------------------------------------------------------------

class SwapFixture(G.Fixture):
    def __init__(self, name, title, source, exercises, module, root_type):
        super().__init__(name, title, source, exercises)
        self.module = module
        self.P = self.program("model", root_type)
        self.replacement_fn = None   # rows -> rows, in float64
        self.error = None

    def program(self, model, root_type, **kw):
        p = B.Program(root_type, self.source, "%s/%s.py" % (SRC_DIR, self.name), **kw)
        return self.archive.add(model, p)


LINEAR_T = G.LINEAR_T
LINEAR_FN = G.LINEAR_FN
GELU_T = "torch.nn.modules.activation.GELU"
RELU_T = "torch.nn.modules.activation.ReLU"


def fx_layer1_gelu():
    src = G.HEADER + '''
class MLPLayer(torch.nn.Module):
    """Same structure as nested_modules' encoder.layer.1 (Linear(8,8) + tanh GELU), new weights."""

    def __init__(self, dim=8):
        super().__init__()
        self.fc = torch.nn.Linear(dim, dim)
        self.act = torch.nn.GELU(approximate="tanh")

    def forward(self, x):
        return self.act(self.fc(x))


ep = torch.export.export(MLPLayer().eval(), (torch.randn(4, 8),)).run_decompositions()
torch.export.save(ep, "layer1_gelu.pt2")
# pteforge convert nested_modules.pt2 --swap encoder.layer.1=layer1_gelu.pt2 -o out.pte
'''
    f = SwapFixture("layer1_gelu", "MLPLayer(8, tanh GELU) with new weights: an equivalent block "
                    "for encoder.layer.1 of nested_modules", src,
                    ["same structure and call signature as the block it replaces, different "
                     "weights: the swapped program must use these weights (encoder.layer.1.fc.*)"],
                    "encoder.layer.1", "__main__.MLPLayer")
    P = f.P
    G.module_list(P, [("fc", LINEAR_T), ("act", GELU_T)])
    rng = G.Lcg(51)
    (w, b), (W, Bv) = G.linear_params(P, rng, "fc", 8, 8)
    x = P.user_input("x", [4, 8])
    line = "return self.act(self.fc(x))"
    P.at(line, ["fc"], ("fc", LINEAR_T), LINEAR_FN)
    a = G.core_linear(P, x, w, b)
    P.at(line, ["act"], ("act", GELU_T), ("gelu", "builtin_function_or_method.gelu"))
    y = P.call(G.GELU, a, approximate="tanh")
    P.output(y)
    f.replacement_fn = lambda rows: G.apply_rows(G.m_linear(rows, W, Bv), lambda v: G.m_gelu(v, "tanh"))
    return f


def fx_layer1_relu_mlp():
    src = G.HEADER + '''
class ReluMLP(torch.nn.Module):
    """A different block for encoder.layer.1 of nested_modules: Linear(8,16) -> ReLU -> Linear(16,8)."""

    def __init__(self, dim=8, hidden=16):
        super().__init__()
        self.up = torch.nn.Linear(dim, hidden)
        self.act = torch.nn.ReLU()
        self.down = torch.nn.Linear(hidden, dim)

    def forward(self, x):
        return self.down(self.act(self.up(x)))


ep = torch.export.export(ReluMLP().eval(), (torch.randn(4, 8),)).run_decompositions()
torch.export.save(ep, "layer1_relu_mlp.pt2")
# pteforge convert nested_modules.pt2 --swap encoder.layer.1=layer1_relu_mlp.pt2 -o out.pte
'''
    f = SwapFixture("layer1_relu_mlp", "ReluMLP = Linear(8,16) -> ReLU -> Linear(16,8): a block with "
                    "different ops (GELU -> ReLU) for encoder.layer.1 of nested_modules", src,
                    ["the swap changes the ops inside the block: gelu(approximate='tanh') goes, "
                     "relu and a second addmm come in; four parameters instead of two"],
                    "encoder.layer.1", "__main__.ReluMLP")
    P = f.P
    G.module_list(P, [("up", LINEAR_T), ("act", RELU_T), ("down", LINEAR_T)])
    rng = G.Lcg(52)
    (wu, bu), (WU, BU) = G.linear_params(P, rng, "up", 8, 16)
    (wd, bd), (WD, BD) = G.linear_params(P, rng, "down", 16, 8)
    x = P.user_input("x", [4, 8])
    line = "return self.down(self.act(self.up(x)))"
    P.at(line, ["up"], ("up", LINEAR_T), LINEAR_FN)
    h = G.core_linear(P, x, wu, bu)
    P.at(line, ["act"], ("act", RELU_T), ("relu", "builtin_function_or_method.relu"))
    r = P.call(G.RELU, h)
    P.at(line, ["down"], ("down", LINEAR_T), LINEAR_FN)
    y = G.core_linear(P, r, wd, bd)
    P.output(y)
    f.replacement_fn = lambda rows: G.m_linear(G.apply_rows(G.m_linear(rows, WU, BU), G.m_relu), WD, BD)
    return f


def fx_encoder_relu():
    src = G.HEADER + '''
class TinyEncoder(torch.nn.Module):
    """A replacement for the whole encoder of nested_modules: Linear(8,8) -> ReLU."""

    def __init__(self, dim=8):
        super().__init__()
        self.proj = torch.nn.Linear(dim, dim)

    def forward(self, x):
        return torch.relu(self.proj(x))


ep = torch.export.export(TinyEncoder().eval(), (torch.randn(4, 8),)).run_decompositions()
torch.export.save(ep, "encoder_relu.pt2")
# pteforge convert nested_modules.pt2 --swap encoder=encoder_relu.pt2 -o out.pte
'''
    f = SwapFixture("encoder_relu", "TinyEncoder = Linear(8,8) -> relu: a replacement for the whole "
                    "encoder of nested_modules (which contains two preserved layers)", src,
                    ["swapping a module that contains preserved submodules: encoder.layer.* and their "
                     "parameters go, encoder.proj.* comes in"],
                    "encoder", "__main__.TinyEncoder")
    P = f.P
    G.module_list(P, [("proj", LINEAR_T)])
    rng = G.Lcg(53)
    (w, b), (W, Bv) = G.linear_params(P, rng, "proj", 8, 8)
    x = P.user_input("x", [4, 8])
    line = "return torch.relu(self.proj(x))"
    P.at(line, ["proj"], ("proj", LINEAR_T), LINEAR_FN)
    a = G.core_linear(P, x, w, b)
    P.at(line, [], ("relu", "torch.relu"), ("relu", "builtin_function_or_method.relu"))
    y = P.call(G.RELU, a)
    P.output(y)
    f.replacement_fn = lambda rows: G.apply_rows(G.m_linear(rows, W, Bv), G.m_relu)
    return f


def fx_bad_shape():
    src = G.HEADER + '''
class Narrow(torch.nn.Module):
    """NOT a valid replacement for encoder.layer.1: returns [4, 3] where the block returns [4, 8]."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 3)

    def forward(self, x):
        return self.fc(x)


ep = torch.export.export(Narrow().eval(), (torch.randn(4, 8),)).run_decompositions()
torch.export.save(ep, "bad_shape.pt2")
'''
    f = SwapFixture("bad_shape", "Narrow = Linear(8,3): output shape [4,3] does not match "
                    "encoder.layer.1's [4,8]", src,
                    ["a replacement whose output shape differs must be rejected, naming the output "
                     "and both shapes"],
                    "encoder.layer.1", "__main__.Narrow")
    P = f.P
    G.module_list(P, [("fc", LINEAR_T)])
    rng = G.Lcg(54)
    (w, b), _ = G.linear_params(P, rng, "fc", 8, 3)
    x = P.user_input("x", [4, 8])
    P.at("return self.fc(x)", ["fc"], ("fc", LINEAR_T), LINEAR_FN)
    P.output(G.core_linear(P, x, w, b))
    f.error = {"code": "MODULE_SWAP",
               "contains": "output 0 ('gelu_1'): the module returns float32[4, 8] but the replacement "
                           "returns float32[4, 3]"}
    return f


def fx_two_inputs():
    src = G.HEADER + '''
class AddTwo(torch.nn.Module):
    """NOT a valid replacement for encoder.layer.1: takes two inputs."""

    def forward(self, x, y):
        return x + y


ep = torch.export.export(AddTwo(), (torch.randn(4, 8), torch.randn(4, 8))).run_decompositions()
torch.export.save(ep, "two_inputs.pt2")
'''
    f = SwapFixture("two_inputs", "AddTwo(x, y): its in_spec ((*, *), {}) does not match "
                    "encoder.layer.1's ((*,), {})", src,
                    ["a replacement with a different calling convention must be rejected, showing "
                     "both in_specs"],
                    "encoder.layer.1", "__main__.AddTwo")
    P = f.P
    x = P.user_input("x", [4, 8])
    y = P.user_input("y", [4, 8])
    P.at("return x + y", [], ("add", "_operator.add"), ("__add__", "method_descriptor.__add__"))
    P.output(P.call(G.ADD, x, y))
    f.error = {"code": "MODULE_SWAP",
               "contains": "in_spec differs: the module takes ((*,), {}) but the replacement takes "
                           "((*, *), {})"}
    return f


FIXTURES = [
    ("layer1_gelu", fx_layer1_gelu),
    ("layer1_relu_mlp", fx_layer1_relu_mlp),
    ("encoder_relu", fx_encoder_relu),
    ("bad_shape", fx_bad_shape),
    ("two_inputs", fx_two_inputs),
]


# ---------------------------------------------------------------------------------------------
# Expected outputs of the swapped base program (float64 model math)
# ---------------------------------------------------------------------------------------------

def swapped_nested_modules(f, state, rows):
    W0, B0 = linear_of(state, "encoder.layer.0.fc")
    W1, B1 = linear_of(state, "encoder.layer.1.fc")
    WH, BH = linear_of(state, "head")
    if f.module == "encoder":
        h = f.replacement_fn(rows)
    else:
        h = G.apply_rows(G.m_linear(rows, W0, B0), G.m_gelu)
        if f.module == "encoder.layer.1":
            h = f.replacement_fn(h)
        else:
            h = G.apply_rows(G.m_linear(h, W1, B1), lambda v: G.m_gelu(v, "tanh"))
    return G.m_linear(h, WH, BH)


def write_fixture(f, out_dir):
    root = os.path.join(out_dir, f.name)
    f.archive.write(root)
    rep, _ = check_fixtures.check_archive_dir(root)
    io = {"case": f.name, "title": f.title, "models": {"forward": "models/model.json"},
          "methods": ["forward"], "rtol": 1e-05, "atol": 1e-06, "exercises": f.exercises,
          "swap": {"base": "tests/fixtures/programs/nested_modules", "module": f.module,
                   "command": "pteforge convert nested_modules.pt2 --swap %s=%s.pt2 -o out.pte"
                              % (f.module, f.name)}}
    if f.error:
        io["error"] = f.error
    else:
        state = base_state()
        runs, rep_runs = [], []
        for xv in base_inputs():
            rows = G.nest(xv, [4, 8])
            out = swapped_nested_modules(f, state, rows)
            runs.append({"method": "forward", "inputs": [G._io_tensor("x", "float32", [4, 8], xv)],
                         "outputs": [G._io_out("addmm_2", "user_output", None, "float32", [4, 3],
                                               G.flatten(out))]})
            own = f.replacement_fn(rows)
            rep_runs.append({"method": "forward",
                             "inputs": [G._io_tensor("x", "float32", [4, 8], xv)],
                             "outputs": [G._io_out("out", "user_output", None, "float32",
                                                   [4, len(own[0])], G.flatten(own))]})
        io["runs"] = runs
        io["replacement_runs"] = rep_runs
    with open(root + ".io.json", "w") as fh:
        fh.write(json.dumps(io, indent=1) + "\n")
    with open(root + ".model.py.txt", "w") as fh:
        fh.write(f.source)
    return rep


def write_double_swap(out_dir):
    """double_swap.io.json: nested_modules with encoder.layer.0 <- layer1_relu_mlp and
    encoder.layer.1 <- layer1_gelu at once (two consecutive swapped module calls)."""
    layer0, layer1 = fx_layer1_relu_mlp(), fx_layer1_gelu()
    state = base_state()
    WH, BH = linear_of(state, "head")
    runs = []
    for xv in base_inputs():
        h = layer1.replacement_fn(layer0.replacement_fn(G.nest(xv, [4, 8])))
        out = G.m_linear(h, WH, BH)
        runs.append({"method": "forward", "inputs": [G._io_tensor("x", "float32", [4, 8], xv)],
                     "outputs": [G._io_out("addmm_2", "user_output", None, "float32", [4, 3],
                                           G.flatten(out))]})
    io = {"case": "double_swap",
          "title": "nested_modules with encoder.layer.0 <- layer1_relu_mlp and encoder.layer.1 <- "
                   "layer1_gelu",
          "rtol": 1e-05, "atol": 1e-06,
          "swap": {"base": "tests/fixtures/programs/nested_modules",
                   "modules": {"encoder.layer.0": "layer1_relu_mlp", "encoder.layer.1": "layer1_gelu"},
                   "command": "pteforge convert nested_modules.pt2 --swap encoder.layer.0=layer1_relu_mlp.pt2 "
                              "--swap encoder.layer.1=layer1_gelu.pt2 -o out.pte"},
          "runs": runs}
    with open(os.path.join(out_dir, "double_swap.io.json"), "w") as fh:
        fh.write(json.dumps(io, indent=1) + "\n")


README = """# Module swap fixtures

Replacement programs for module-swap tests, generated by `scripts/gen_swap_fixtures.py`
(do not edit by hand; `tests/cli/swap_fixtures.sh` checks that the files equal the
generator's output). Like `../programs/`, they were constructed, not exported.

Each `<name>/` is an unpacked PT2 archive of a standalone program meant to replace one
preserved submodule of `../programs/nested_modules`; `<name>.io.json` says which
(`swap.module`) and holds the base program's expected outputs after the swap (`runs`),
the replacement's own outputs (`replacement_runs`), or, for replacements that must be
rejected, the expected error (`error.code`, and `error.contains`, a phrase of the message).

| name | replaces | what it exercises |
|---|---|---|
| `layer1_gelu` | `encoder.layer.1` | same structure (Linear + tanh GELU), new weights |
| `layer1_relu_mlp` | `encoder.layer.1` | other ops: Linear(8,16) -> ReLU -> Linear(16,8) |
| `encoder_relu` | `encoder` | a module containing preserved submodules, replaced whole |
| `bad_shape` | `encoder.layer.1` | rejected: output [4,3] instead of [4,8] |
| `two_inputs` | `encoder.layer.1` | rejected: in_spec ((*, *), {}) instead of ((*,), {}) |

`double_swap.io.json`: nested_modules with `encoder.layer.0` <- `layer1_relu_mlp` and
`encoder.layer.1` <- `layer1_gelu` at once.
"""


def main(argv):
    out_dir = OUT
    if "--out" in argv:
        i = argv.index("--out")
        out_dir = os.path.abspath(argv[i + 1])
        argv = argv[:i] + argv[i + 2:]
    names = [a for a in argv if not a.startswith("--")]
    unknown = set(names) - {n for n, _ in FIXTURES}
    if unknown:
        print("unknown fixture(s): %s" % ", ".join(sorted(unknown)))
        return 2
    os.makedirs(out_dir, exist_ok=True)
    bad = 0
    for name, fn in FIXTURES:
        if names and name not in names:
            continue
        rep = write_fixture(fn(), out_dir)
        print("wrote %-18s %s" % (name, "ok" if not rep.errors else "%d error(s)" % len(rep.errors)))
        for e in rep.errors:
            print("   error: " + e)
        bad += len(rep.errors)
    if not names:
        write_double_swap(out_dir)
        with open(os.path.join(out_dir, "README.md"), "w") as fh:
            fh.write(README)
        print("wrote double_swap.io.json, README.md")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
