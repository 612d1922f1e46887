#!/usr/bin/env python3
"""Generate the hand-written fixture programs in tests/fixtures/programs/.

Usage: python3 scripts/gen_fixtures.py [--check] [--out DIR] [NAME ...]
  (no names: all fixtures; --check: run scripts/check_fixtures.py afterwards;
   --out: write somewhere else than tests/fixtures/programs, e.g. to compare)

Each fixture is an unpacked PT2 archive folder tests/fixtures/programs/<name>/ (records only:
models/, data/, archive_format, archive_version, byteorder, .data/) plus three siblings:
  <name>.expected.json  facts a test can assert (recomputed from the files by the checker)
  <name>.io.json        example inputs and expected outputs (corpus io.json format, values
                        inline), computed in float64 from the model definition below —
                        independently of the serialized graph — and rounded to float32
  <name>.model.py.txt   the PyTorch code the program stands for (stack traces point into it)

The programs are written by hand in core-ATen form, the way torch.export + run_decompositions()
leaves them (see tests/fixtures/README.md). Deterministic: weights and inputs come from a
fixed-seed LCG; no timestamps.
"""

import json
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import check_fixtures  # noqa: E402
import pt2_builder as B  # noqa: E402
import pt2_schema as S  # noqa: E402

OUT = os.path.join(S.REPO, "tests", "fixtures", "programs")
SRC_DIR = "/home/dev/pteforge_fixtures"

A = "torch.ops.aten."
PERMUTE = A + "permute.default"
ADDMM = A + "addmm.default"
MM = A + "mm.default"
BMM = A + "bmm.default"
VIEW = A + "view.default"
RELU = A + "relu.default"
GELU = A + "gelu.default"
ADD = A + "add.Tensor"
SUB = A + "sub.Tensor"
MUL = A + "mul.Tensor"
POW = A + "pow.Tensor_Scalar"
MEAN = A + "mean.default"
MEAN_DIM = A + "mean.dim"
SUM_DIM = A + "sum.dim_IntList"
SOFTMAX = A + "_softmax.default"
LAYER_NORM = A + "native_layer_norm.default"
CLONE = A + "clone.default"
CONV = A + "convolution.default"
BN = A + "_native_batch_norm_legit_no_training.default"
MAXPOOL = A + "max_pool2d_with_indices.default"
FULL = A + "full.default"
FULL_LIKE = A + "full_like.default"
WHERE = A + "where.self"
LE = A + "le.Scalar"
SYM_SIZE = A + "sym_size.int"

LINEAR_T = "torch.nn.modules.linear.Linear"
LINEAR_FN = ("linear", "builtin_function_or_method.linear")


# ---------------------------------------------------------------------------------------------
# Deterministic numbers
# ---------------------------------------------------------------------------------------------

class Lcg:
    """64-bit LCG (Knuth's MMIX constants); uniform() has 24-bit resolution."""

    def __init__(self, seed):
        self.state = (seed * 2654435761 + 1) & 0xFFFFFFFFFFFFFFFF

    def uniform(self):
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) \
            & 0xFFFFFFFFFFFFFFFF
        return (self.state >> 40) / float(1 << 24)

    def uniforms(self, n, bound):
        return [B.f32((2.0 * self.uniform() - 1.0) * bound) for _ in range(n)]

    def normals(self, n, scale=1.0):
        out = []
        while len(out) < n:
            u1 = max(self.uniform(), 1e-7)
            u2 = self.uniform()
            r = math.sqrt(-2.0 * math.log(u1))
            out.append(B.f32(scale * r * math.cos(2 * math.pi * u2)))
            out.append(B.f32(scale * r * math.sin(2 * math.pi * u2)))
        return out[:n]


def numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def nest(flat, shape):
    if not shape:
        return flat[0]
    step = numel(shape[1:])
    return [nest(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def flatten(x):
    if isinstance(x, list):
        out = []
        for e in x:
            out += flatten(e)
        return out
    return [x]


# ---------------------------------------------------------------------------------------------
# Model-level float64 reference math (independent of the serialized graphs)
# ---------------------------------------------------------------------------------------------

def m_linear(rows, W, b):
    """rows: list of input vectors; W: [out][in]; b: [out] or None."""
    return [[sum(r[k] * wo[k] for k in range(len(r))) + (b[o] if b else 0.0)
             for o, wo in enumerate(W)] for r in rows]


def m_relu(v):
    return v if v > 0 else 0.0


def m_gelu(v, approximate="none"):
    if approximate == "tanh":
        return 0.5 * v * (1 + math.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3)))
    return 0.5 * v * (1 + math.erf(v / math.sqrt(2)))


def m_layer_norm(v, w, b, eps=1e-5):
    mu = sum(v) / len(v)
    var = sum((e - mu) ** 2 for e in v) / len(v)
    rs = 1 / math.sqrt(var + eps)
    return [(e - mu) * rs * w[i] + b[i] for i, e in enumerate(v)], mu, rs


def m_softmax(v):
    mx = max(v)
    es = [math.exp(e - mx) for e in v]
    s = sum(es)
    return [e / s for e in es]


def apply_rows(rows, fn):
    return [[fn(e) for e in r] for r in rows]


# ---------------------------------------------------------------------------------------------
# Fixture framework
# ---------------------------------------------------------------------------------------------

class Fixture:
    """One fixture: an Archive of programs plus its io.json content and description."""

    def __init__(self, name, title, source, exercises):
        self.name = name
        self.title = title
        self.source = source.strip("\n") + "\n"
        self.exercises = exercises
        self.archive = B.Archive()
        self.runs = []
        self.sequences = []
        self.notes = []
        self.extra = {}
        self.expected_extra = {}

    def program(self, model, root_type, **kw):
        p = B.Program(root_type, self.source, "%s/%s.py" % (SRC_DIR, self.name), **kw)
        return self.archive.add(model, p)

    def run(self, method, inputs, outputs, **extra):
        """inputs: [(name, dtype, shape, values)]; outputs: [(name, kind, target, dtype,
        shape, float64 values)]."""
        r = {"method": method, "inputs": [_io_tensor(*i) for i in inputs],
             "outputs": [_io_out(*o) for o in outputs]}
        r.update(extra)
        self.runs.append(r)


def _io_tensor(name, dtype, shape, values):
    return {"name": name, "dtype": dtype, "shape": list(shape), "values": _rounded(dtype, values)}


def _io_out(name, kind, target, dtype, shape, values):
    d = {"name": name, "kind": kind}
    if target is not None:
        d["target"] = target
    d.update({"dtype": dtype, "shape": list(shape), "values": _rounded(dtype, values)})
    return d


def _rounded(dtype, values):
    if dtype == "float32":
        return [B.f32(float(v)) for v in values]
    if dtype == "bool":
        return [bool(v) for v in values]
    return [int(v) for v in values]


def linear_params(P, rng, prefix, n_in, n_out, bias=True):
    bound = 1.0 / math.sqrt(n_in)
    w = rng.uniforms(n_out * n_in, bound)
    b = rng.uniforms(n_out, bound) if bias else None
    wr = P.parameter(prefix + ".weight", [n_out, n_in], w)
    br = P.parameter(prefix + ".bias", [n_out], b) if bias else None
    return (wr, br), (nest(w, [n_out, n_in]), b)


def core_linear(P, x, w, b):
    """nn.Linear in core-ATen form: permute + addmm (2-D) or view/permute/addmm/view (N-D)."""
    shape = x.shape
    if len(shape) == 2:
        wt = P.call(PERMUTE, w, [1, 0])
        return P.call(ADDMM, b, x, wt)
    lead = list(shape[:-1])
    v = P.call(VIEW, x, [numel(lead), shape[-1]])
    wt = P.call(PERMUTE, w, [1, 0])
    mm = P.call(ADDMM, b, v, wt)
    return P.call(VIEW, mm, lead + [w.shape[0]])


def module_list(P, entries):
    for fqn, t in entries:
        P.module(fqn, t)


HEADER = "import torch\nimport torch.nn.functional as F\n\n"


# ---------------------------------------------------------------------------------------------
# 1. mlp
# ---------------------------------------------------------------------------------------------

def fx_mlp():
    src = HEADER + '''
class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(16, 32)
        self.fc2 = torch.nn.Linear(32, 8)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


ep = torch.export.export(MLP().eval(), (torch.randn(4, 16),)).run_decompositions()
torch.export.save(ep, "mlp.pt2")
'''
    f = Fixture("mlp", "x[4,16] -> Linear(16,32) -> relu -> Linear(32,8)", src, [
        "two 2-D linears in core form: permute(w, [1, 0]) + addmm(b, x, wt)",
        "relu between them; four parameters in data/weights",
    ])
    P = f.program("model", "__main__.MLP")
    module_list(P, [("fc1", LINEAR_T), ("fc2", LINEAR_T)])
    rng = Lcg(1)
    (w1, b1), (W1, B1) = linear_params(P, rng, "fc1", 16, 32)
    (w2, b2), (W2, B2) = linear_params(P, rng, "fc2", 32, 8)
    x = P.user_input("x", [4, 16])
    line = "return self.fc2(torch.relu(self.fc1(x)))"
    P.at(line, ["fc1"], ("fc1", LINEAR_T), LINEAR_FN)
    h = core_linear(P, x, w1, b1)
    P.at(line, [], ("relu", "torch.relu"), ("relu", "builtin_function_or_method.relu"))
    r = P.call(RELU, h)
    P.at(line, ["fc2"], ("fc2", LINEAR_T), LINEAR_FN)
    y = core_linear(P, r, w2, b2)
    P.output(y)
    for seed in (11, 12):
        xv = Lcg(seed).normals(64)
        out = m_linear(apply_rows(m_linear(nest(xv, [4, 16]), W1, B1), m_relu), W2, B2)
        f.run("forward", [("x", "float32", [4, 16], xv)],
              [(y.name, "user_output", None, "float32", [4, 8], flatten(out))])
    return f


# ---------------------------------------------------------------------------------------------
# 2. small_cnn
# ---------------------------------------------------------------------------------------------

def fx_small_cnn():
    src = HEADER + '''
class SmallCNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, kernel_size=3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.pool = torch.nn.MaxPool2d(2)
        self.fc = torch.nn.Linear(8 * 8 * 8, 10)

    def forward(self, x):
        x = torch.relu(self.bn(self.conv(x)))
        x = self.pool(x)
        x = torch.flatten(x, 1)
        return self.fc(x)


m = SmallCNN().eval()   # running statistics and num_batches_tracked come from training
ep = torch.export.export(m, (torch.randn(1, 3, 16, 16),)).run_decompositions()
torch.export.save(ep, "small_cnn.pt2")
'''
    f = Fixture("small_cnn", "x[1,3,16,16] -> Conv2d(3->8,k3,pad1) -> BatchNorm2d (eval) -> "
                "relu -> MaxPool2d(2) -> flatten -> Linear(512,10)", src, [
                    "convolution with all nine arguments (padding [1, 1])",
                    "_native_batch_norm_legit_no_training: 3 outputs, only getitem 0 used; "
                    "outputs 1 and 2 are empty [0] tensors on CPU",
                    "max_pool2d_with_indices(x, [2, 2], [2, 2]) (padding, dilation, ceil_mode "
                    "stripped): output 0 used, int64 indices unused",
                    "view(x, [1, 512]) as the core form of torch.flatten",
                    "int64 0-d buffer bn.num_batches_tracked (lifted, unused); weights config "
                    "in state_dict order (params and buffers interleaved), signature order "
                    "parameters then buffers",
                ])
    P = f.program("model", "__main__.SmallCNN")
    module_list(P, [("conv", "torch.nn.modules.conv.Conv2d"),
                    ("bn", "torch.nn.modules.batchnorm.BatchNorm2d"),
                    ("pool", "torch.nn.modules.pooling.MaxPool2d"),
                    ("fc", LINEAR_T)])
    rng = Lcg(2)
    bound = 1 / math.sqrt(27)
    cw = rng.uniforms(8 * 3 * 9, bound)
    cb = rng.uniforms(8, bound)
    conv_w = P.parameter("conv.weight", [8, 3, 3, 3], cw)
    conv_b = P.parameter("conv.bias", [8], cb)
    gw = [B.f32(1.0 + 0.1 * v) for v in rng.uniforms(8, 1.0)]
    gb = rng.uniforms(8, 0.1)
    bn_w = P.parameter("bn.weight", [8], gw)
    bn_b = P.parameter("bn.bias", [8], gb)
    rm = rng.uniforms(8, 0.2)
    rv = [B.f32(0.5 + u) for u in rng.uniforms(8, 0.4)]
    bn_rm = P.buffer("bn.running_mean", [8], rm)
    bn_rv = P.buffer("bn.running_var", [8], rv)
    P.buffer("bn.num_batches_tracked", [], [100], S.LONG)
    (fw, fb), (FW, FB) = linear_params(P, rng, "fc", 512, 10)
    x = P.user_input("x", [1, 3, 16, 16])
    l1 = "x = torch.relu(self.bn(self.conv(x)))"
    P.at(l1, ["conv"], ("conv", "torch.nn.modules.conv.Conv2d"),
         ("conv2d", "builtin_function_or_method.conv2d"))
    c = P.call(CONV, x, conv_w, conv_b, [1, 1], [1, 1], [1, 1], False, [0, 0], 1)
    P.at(l1, ["bn"], ("bn", "torch.nn.modules.batchnorm.BatchNorm2d"),
         ("batch_norm", "function.batch_norm"))
    bn = P.call(BN, c, bn_w, bn_b, bn_rm, bn_rv, 0.1, 1e-05, used=[0])[0]
    P.at(l1, [], ("relu", "torch.relu"), ("relu", "builtin_function_or_method.relu"))
    r = P.call(RELU, bn)
    P.at("x = self.pool(x)", ["pool"], ("pool", "torch.nn.modules.pooling.MaxPool2d"),
         ("max_pool2d", "builtin_function_or_method.max_pool2d"))
    pooled = P.call(MAXPOOL, r, [2, 2], [2, 2], used=[0])[0]
    P.at("x = torch.flatten(x, 1)", [], ("flatten", "torch.flatten"),
         ("flatten", "builtin_function_or_method.flatten"))
    flat = P.call(VIEW, pooled, [1, 512])
    P.at("return self.fc(x)", ["fc"], ("fc", LINEAR_T), LINEAR_FN)
    y = core_linear(P, flat, fw, fb)
    P.output(y)

    CW = nest(cw, [8, 3, 3, 3])

    def model(xv):
        X = nest(xv, [3, 16, 16])
        feat = []
        for co in range(8):
            plane = [[0.0] * 16 for _ in range(16)]
            for i in range(16):
                for j in range(16):
                    acc = cb[co]
                    for ci in range(3):
                        for ki in range(3):
                            for kj in range(3):
                                ii, jj = i + ki - 1, j + kj - 1
                                if 0 <= ii < 16 and 0 <= jj < 16:
                                    acc += X[ci][ii][jj] * CW[co][ci][ki][kj]
                    v = (acc - rm[co]) / math.sqrt(rv[co] + 1e-5) * gw[co] + gb[co]
                    plane[i][j] = m_relu(v)
            pooled_ = [[max(plane[2 * i][2 * j], plane[2 * i][2 * j + 1],
                            plane[2 * i + 1][2 * j], plane[2 * i + 1][2 * j + 1])
                        for j in range(8)] for i in range(8)]
            feat += flatten(pooled_)
        return m_linear([feat], FW, FB)[0]

    for seed in (21, 22):
        xv = Lcg(seed).normals(3 * 16 * 16)
        f.run("forward", [("x", "float32", [1, 3, 16, 16], xv)],
              [(y.name, "user_output", None, "float32", [1, 10], model(xv))])
    return f


# ---------------------------------------------------------------------------------------------
# 3. transformer_block (also the block of scripts/gen_synthetic.py)
# ---------------------------------------------------------------------------------------------

TRANSFORMER_SRC = HEADER + '''
class TransformerBlock(torch.nn.Module):
    def __init__(self, dim=32, heads=4, hidden=64):
        super().__init__()
        self.heads = heads
        self.ln1 = torch.nn.LayerNorm(dim)
        self.q_proj = torch.nn.Linear(dim, dim)
        self.k_proj = torch.nn.Linear(dim, dim)
        self.v_proj = torch.nn.Linear(dim, dim)
        self.out_proj = torch.nn.Linear(dim, dim)
        self.ln2 = torch.nn.LayerNorm(dim)
        self.fc1 = torch.nn.Linear(dim, hidden)
        self.act = torch.nn.GELU()
        self.fc2 = torch.nn.Linear(hidden, dim)

    def forward(self, x):
        b, t, d = x.shape
        h = self.ln1(x)
        q = self.q_proj(h).view(b, t, self.heads, -1).permute(0, 2, 1, 3).reshape(b * self.heads, t, -1)
        k = self.k_proj(h).view(b, t, self.heads, -1).permute(0, 2, 3, 1).reshape(b * self.heads, -1, t)
        v = self.v_proj(h).view(b, t, self.heads, -1).permute(0, 2, 1, 3).reshape(b * self.heads, t, -1)
        scores = torch.bmm(q, k) * (d // self.heads) ** -0.5
        attn = torch.softmax(scores, dim=-1)
        ctx = torch.bmm(attn, v).view(b, self.heads, t, -1).permute(0, 2, 1, 3).reshape(b, t, d)
        x = x + self.out_proj(ctx)
        x = x + self.fc2(self.act(self.fc1(self.ln2(x))))
        return x
'''

BLOCK_MODULES = [("ln1", "torch.nn.modules.normalization.LayerNorm"),
                 ("q_proj", LINEAR_T), ("k_proj", LINEAR_T), ("v_proj", LINEAR_T),
                 ("out_proj", LINEAR_T),
                 ("ln2", "torch.nn.modules.normalization.LayerNorm"),
                 ("fc1", LINEAR_T), ("act", "torch.nn.modules.activation.GELU"),
                 ("fc2", LINEAR_T)]


def block_params(P, prefix, dim, hidden, weight_fn):
    """Parameters of one TransformerBlock in state_dict order; weight_fn(fqn, n, fan_in)."""
    p = {}

    def ln(name):
        p[name + ".weight"] = P.parameter(prefix + name + ".weight", [dim],
                                          weight_fn(prefix + name + ".weight", dim, 0))
        p[name + ".bias"] = P.parameter(prefix + name + ".bias", [dim],
                                        weight_fn(prefix + name + ".bias", dim, -1))

    def lin(name, n_in, n_out):
        p[name + ".weight"] = P.parameter(prefix + name + ".weight", [n_out, n_in],
                                          weight_fn(prefix + name + ".weight", n_out * n_in, n_in))
        p[name + ".bias"] = P.parameter(prefix + name + ".bias", [n_out],
                                        weight_fn(prefix + name + ".bias", n_out, n_in))
    ln("ln1")
    for n in ("q_proj", "k_proj", "v_proj", "out_proj"):
        lin(n, dim, dim)
    ln("ln2")
    lin("fc1", dim, hidden)
    lin("fc2", hidden, dim)
    return p


def transformer_block_nodes(P, x, p, batch, seq, dim, heads, frames_outer=(), mod_prefix=""):
    """Emit the core-ATen nodes of TransformerBlock.forward; returns the output Ref.

    frames_outer: source lines of enclosing frames (outermost first); mod_prefix: FQN prefix
    of the block ('' for the root module, 'blocks.3.' inside a stack).
    """
    hd = dim // heads
    fo = list(frames_outer)
    mods = [mod_prefix[:-1]] if mod_prefix else []

    def at(line, sub=None, source_fn=None, torch_fn=None):
        m = mods + ([mod_prefix + sub] if sub else [])
        P.at(fo + [line], m, source_fn, torch_fn)

    def method_ctx(line, name):
        at(line, None, (name, name), (name, "method_descriptor." + name))

    ln_t = ("torch.nn.modules.normalization.LayerNorm")
    at("h = self.ln1(x)", "ln1", ("ln1", ln_t), ("layer_norm", "function.layer_norm"))
    h = P.call(LAYER_NORM, x, [dim], p["ln1.weight"], p["ln1.bias"], 1e-05, used=[0])[0]

    heads_out = {}
    for name, perm in (("q", [0, 2, 1, 3]), ("k", [0, 2, 3, 1]), ("v", [0, 2, 1, 3])):
        line = {"q": "q = self.q_proj(h).view(b, t, self.heads, -1).permute(0, 2, 1, 3)"
                     ".reshape(b * self.heads, t, -1)",
                "k": "k = self.k_proj(h).view(b, t, self.heads, -1).permute(0, 2, 3, 1)"
                     ".reshape(b * self.heads, -1, t)",
                "v": "v = self.v_proj(h).view(b, t, self.heads, -1).permute(0, 2, 1, 3)"
                     ".reshape(b * self.heads, t, -1)"}[name]
        proj = name + "_proj"
        at(line, proj, (proj, LINEAR_T), LINEAR_FN)
        y = core_linear(P, h, p[proj + ".weight"], p[proj + ".bias"])
        method_ctx(line, "view")
        y = P.call(VIEW, y, [batch, seq, heads, -1])
        method_ctx(line, "permute")
        y = P.call(PERMUTE, y, perm)
        method_ctx(line, "reshape")
        y = P.call(CLONE, y, memory_format=B.CONTIGUOUS_FORMAT)
        y = P.call(VIEW, y, [batch * heads, seq, hd] if name != "k" else
                   [batch * heads, hd, seq])
        heads_out[name] = y
    line = "scores = torch.bmm(q, k) * (d // self.heads) ** -0.5"
    at(line, None, ("bmm", "torch.bmm"), ("bmm", "builtin_function_or_method.bmm"))
    s = P.call(BMM, heads_out["q"], heads_out["k"])
    at(line, None, ("mul", "_operator.mul"), ("__mul__", "method_descriptor.__mul__"))
    s = P.call(MUL, s, float(hd) ** -0.5)
    at("attn = torch.softmax(scores, dim=-1)", None, ("softmax", "torch.softmax"),
       ("softmax", "builtin_function_or_method.softmax"))
    a = P.call(SOFTMAX, s, -1, False)
    line = ("ctx = torch.bmm(attn, v).view(b, self.heads, t, -1).permute(0, 2, 1, 3)"
            ".reshape(b, t, d)")
    at(line, None, ("bmm", "torch.bmm"), ("bmm", "builtin_function_or_method.bmm"))
    c = P.call(BMM, a, heads_out["v"])
    method_ctx(line, "view")
    c = P.call(VIEW, c, [batch, heads, seq, -1])
    method_ctx(line, "permute")
    c = P.call(PERMUTE, c, [0, 2, 1, 3])
    method_ctx(line, "reshape")
    c = P.call(CLONE, c, memory_format=B.CONTIGUOUS_FORMAT)
    c = P.call(VIEW, c, [batch, seq, dim])
    line = "x = x + self.out_proj(ctx)"
    at(line, "out_proj", ("out_proj", LINEAR_T), LINEAR_FN)
    o = core_linear(P, c, p["out_proj.weight"], p["out_proj.bias"])
    at(line, None, ("add", "_operator.add"), ("__add__", "method_descriptor.__add__"))
    x1 = P.call(ADD, x, o)
    line = "x = x + self.fc2(self.act(self.fc1(self.ln2(x))))"
    at(line, "ln2", ("ln2", ln_t), ("layer_norm", "function.layer_norm"))
    h2 = P.call(LAYER_NORM, x1, [dim], p["ln2.weight"], p["ln2.bias"], 1e-05, used=[0])[0]
    at(line, "fc1", ("fc1", LINEAR_T), LINEAR_FN)
    f1 = core_linear(P, h2, p["fc1.weight"], p["fc1.bias"])
    at(line, "act", ("act", "torch.nn.modules.activation.GELU"),
       ("gelu", "builtin_function_or_method.gelu"))
    g = P.call(GELU, f1)
    at(line, "fc2", ("fc2", LINEAR_T), LINEAR_FN)
    f2 = core_linear(P, g, p["fc2.weight"], p["fc2.bias"])
    at(line, None, ("add", "_operator.add"), ("__add__", "method_descriptor.__add__"))
    return P.call(ADD, x1, f2)


def m_transformer(X, W, batch, seq, dim, heads):
    """Model-level reference of TransformerBlock (loops over batch, head, position)."""
    hd = dim // heads

    def lin(rows, name):
        return m_linear(rows, W[name + ".weight"], W[name + ".bias"])
    out = []
    for bi in range(batch):
        xs = X[bi]
        h = [m_layer_norm(r, W["ln1.weight"], W["ln1.bias"])[0] for r in xs]
        q, k, v = lin(h, "q_proj"), lin(h, "k_proj"), lin(h, "v_proj")
        ctx = [[0.0] * dim for _ in range(seq)]
        for hh in range(heads):
            sl = slice(hh * hd, (hh + 1) * hd)
            for i in range(seq):
                sc = [sum(a * b for a, b in zip(q[i][sl], k[j][sl])) * hd ** -0.5
                      for j in range(seq)]
                p = m_softmax(sc)
                for d in range(hd):
                    ctx[i][hh * hd + d] = sum(p[j] * v[j][hh * hd + d] for j in range(seq))
        x1 = [[a + b for a, b in zip(r, o)] for r, o in zip(xs, lin(ctx, "out_proj"))]
        h2 = [m_layer_norm(r, W["ln2.weight"], W["ln2.bias"])[0] for r in x1]
        f = lin(apply_rows(lin(h2, "fc1"), m_gelu), "fc2")
        out.append([[a + b for a, b in zip(r, o)] for r, o in zip(x1, f)])
    return out


def fx_transformer_block():
    f = Fixture("transformer_block", "x[2,8,32] -> pre-norm transformer block (4 heads, "
                "MLP 64, GELU)", TRANSFORMER_SRC + '''

ep = torch.export.export(TransformerBlock().eval(), (torch.randn(2, 8, 32),)).run_decompositions()
torch.export.save(ep, "transformer_block.pt2")
''', [
        "native_layer_norm twice (only getitem 0 used)",
        "3-D linears in core form (view [16, 32] / permute / addmm / view back)",
        "head split: view with -1 ([2, 8, 4, -1]), permute, then reshape of a non-contiguous "
        "tensor = clone(memory_format=torch.contiguous_format) + view",
        "bmm for scores and context, mul.Tensor by a Python float scale, _softmax(x, -1, False)",
        "gelu with approximate='none' stripped; two residual add.Tensor",
    ])
    P = f.program("model", "__main__.TransformerBlock")
    module_list(P, BLOCK_MODULES)
    rng = Lcg(3)
    vals = {}

    def weight_fn(fqn, n, fan_in):
        if fan_in == 0:
            v = [B.f32(1.0 + w) for w in rng.uniforms(n, 0.1)]
        elif fan_in == -1:
            v = rng.uniforms(n, 0.1)
        else:
            v = rng.uniforms(n, 1 / math.sqrt(fan_in))
        vals[fqn] = v
        return v
    p = block_params(P, "", 32, 64, weight_fn)
    x = P.user_input("x", [2, 8, 32])
    y = transformer_block_nodes(P, x, p, 2, 8, 32, 4)
    P.output(y)
    W = {}
    for fqn, v in vals.items():
        if fqn.endswith(".weight") and not fqn.startswith("ln"):
            n_out = P.state[fqn]["sizes"][0]
            W[fqn] = nest(v, [n_out, len(v) // n_out])
        else:
            W[fqn] = v
    for seed in (31, 32):
        xv = Lcg(seed).normals(2 * 8 * 32)
        out = m_transformer(nest(xv, [2, 8, 32]), W, 2, 8, 32, 4)
        f.run("forward", [("x", "float32", [2, 8, 32], xv)],
              [(y.name, "user_output", None, "float32", [2, 8, 32], flatten(out))])
    return f


# ---------------------------------------------------------------------------------------------
# 4. buffer_mutation
# ---------------------------------------------------------------------------------------------

def fx_buffer_mutation():
    src = HEADER + '''
class RunningMean(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("running_mean", torch.tensor([0.5, -0.25, 1.0, 0.0]))
        self.register_buffer("steps", torch.tensor(7))

    def forward(self, x):
        self.running_mean.mul_(0.9).add_(0.1 * x.mean(0))
        self.steps.add_(1)
        return x - self.running_mean


ep = torch.export.export(RunningMean(), (torch.randn(3, 4),)).run_decompositions()
torch.export.save(ep, "buffer_mutation.pt2")
'''
    f = Fixture("buffer_mutation", "running mean: mean = 0.9*mean + 0.1*x.mean(0); steps += 1; "
                "return x - mean", src, [
                    "two persistent buffers mutated in place: float32 running_mean[4] and int64 "
                    "0-d steps; two BUFFER_MUTATION outputs (in buffer order) before the user "
                    "output",
                    "the user output reads the updated buffer value (sub(x, add))",
                    "mean.dim(x, [0]) with keepdim stripped; mul.Tensor with Python floats; "
                    "add.Tensor(b_steps, 1) on int64",
                ])
    f.notes.append("runs[] start from the saved buffers (running_mean [0.5, -0.25, 1.0, 0.0], "
                   "steps 7). sequences[] calls one loaded method three times; the buffer "
                   "write-back changes later outputs.")
    P = f.program("model", "__main__.RunningMean")
    rm0 = [0.5, -0.25, 1.0, 0.0]
    rm = P.buffer("running_mean", [4], rm0)
    steps = P.buffer("steps", [], [7], S.LONG)
    x = P.user_input("x", [3, 4])
    line = "self.running_mean.mul_(0.9).add_(0.1 * x.mean(0))"
    P.at(line, [], ("mul_", "mul_"), ("mul_", "method_descriptor.mul_"))
    m1 = P.call(MUL, rm, 0.9)
    P.at(line, [], ("mean", "mean"), ("mean", "method_descriptor.mean"))
    mean = P.call(MEAN_DIM, x, [0])
    P.at(line, [], ("mul", "_operator.mul"), ("__rmul__", "method_descriptor.__rmul__"))
    m2 = P.call(MUL, mean, 0.1)
    P.at(line, [], ("add_", "add_"), ("add_", "method_descriptor.add_"))
    new_rm = P.call(ADD, m1, m2)
    P.at("self.steps.add_(1)", [], ("add_", "add_"), ("add_", "method_descriptor.add_"))
    new_steps = P.call(ADD, steps, 1)
    P.at("return x - self.running_mean", [], ("sub", "_operator.sub"),
         ("__sub__", "method_descriptor.__sub__"))
    y = P.call(SUB, x, new_rm)
    P.output(new_rm, "buffer_mutation", "running_mean")
    P.output(new_steps, "buffer_mutation", "steps")
    P.output(y)

    def step(state, xv):
        X = nest(xv, [3, 4])
        colmean = [sum(X[i][j] for i in range(3)) / 3 for j in range(4)]
        new = [B.f32(0.9 * state[j]) + B.f32(0.1 * colmean[j]) for j in range(4)]
        # the runtime keeps the buffer in float32 between calls
        new = [B.f32(v) for v in new]
        exact = [0.9 * state[j] + 0.1 * colmean[j] for j in range(4)]
        return new, [X[i][j] - exact[j] for i in range(3) for j in range(4)]

    for seed in (41, 42):
        xv = Lcg(seed).normals(12)
        _, out = step(rm0, xv)
        f.run("forward", [("x", "float32", [3, 4], xv)],
              [(y.name, "user_output", None, "float32", [3, 4], out)])
    state = list(rm0)
    steps_ = []
    for seed in (43, 44, 45):
        xv = Lcg(seed).normals(12)
        new, out = step(state, xv)
        steps_.append({"inputs": [_io_tensor("x", "float32", [3, 4], xv)],
                       "outputs": [_io_out(y.name, "user_output", None, "float32", [3, 4],
                                           out)]})
        state = new
    f.sequences.append({"method": "forward", "note": "three calls on one loaded method: "
                        "running_mean is written back (float32) after every call", "steps": steps_})
    return f


# ---------------------------------------------------------------------------------------------
# 5. joint_training
# ---------------------------------------------------------------------------------------------

def fx_joint_training():
    src = HEADER + '''
class TwoLayerRegressor(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(4, 8)
        self.fc2 = torch.nn.Linear(8, 2)

    def forward(self, x, target):
        return (F.mse_loss(self.fc2(torch.relu(self.fc1(x))), target),)


ep = torch.export.export(TwoLayerRegressor(), (torch.randn(5, 4), torch.randn(5, 2)))
joint = torch.export.experimental._export_forward_backward(ep, joint_loss_index=0)
torch.export.save(joint, "joint_training.pt2")
'''
    f = Fixture("joint_training", "joint forward+backward of Linear(4,8) -> relu -> Linear(8,2) "
                "+ F.mse_loss", src, [
                    "LOSS_OUTPUT (0-d mean) then four GRADIENT_TO_PARAMETER outputs in "
                    "parameter order (fc1.weight, fc1.bias, fc2.weight, fc2.bias)",
                    "backward seeded in the graph by full_like(mean, 1, pin_memory=False, "
                    "memory_format=torch.preserve_format)",
                    "relu backward in core form: le.Scalar(relu, 0) (bool) + full([], 0.0, "
                    "dtype, layout, device, pin_memory) + where.self",
                    "addmm backward: mm / permute chains, sum.dim_IntList(g, [0], True) + view",
                ])
    f.notes.append("ExecuTorch's weights_to_outputs_pass may append the four trainable "
                   "parameters after the gradients; extra_outputs lists them.")
    P = f.program("model", "__main__.TwoLayerRegressor")
    module_list(P, [("fc1", LINEAR_T), ("fc2", LINEAR_T)])
    rng = Lcg(5)
    (w1, b1), (W1, B1) = linear_params(P, rng, "fc1", 4, 8)
    (w2, b2), (W2, B2) = linear_params(P, rng, "fc2", 8, 2)
    x = P.user_input("x", [5, 4])
    t = P.user_input("target", [5, 2])
    line = "return (F.mse_loss(self.fc2(torch.relu(self.fc1(x))), target),)"
    fc1_ctx = (line, ["fc1"], ("fc1", LINEAR_T), LINEAR_FN)
    relu_ctx = (line, [], ("relu", "torch.relu"), ("relu", "builtin_function_or_method.relu"))
    fc2_ctx = (line, ["fc2"], ("fc2", LINEAR_T), LINEAR_FN)
    mse_ctx = (line, [], ("mse_loss", "torch.nn.functional.mse_loss"),
               ("mse_loss", "function.mse_loss"))
    P.at(*fc1_ctx)
    pt1 = P.call(PERMUTE, w1, [1, 0])
    a1 = P.call(ADDMM, b1, x, pt1)
    P.at(*relu_ctx)
    r = P.call(RELU, a1)
    P.at(*fc2_ctx)
    pt2 = P.call(PERMUTE, w2, [1, 0])
    a2 = P.call(ADDMM, b2, r, pt2)
    P.at(*mse_ctx)
    d = P.call(SUB, a2, t)
    sq = P.call(POW, d, 2)
    loss = P.call(MEAN, sq)
    P.grad_enabled = False
    ones = P.call(FULL_LIKE, loss, 1, pin_memory=False, memory_format=B.PRESERVE_FORMAT)
    d2 = P.call(SUB, a2, t)
    g = P.call(MUL, d2, 0.2)
    g = P.call(MUL, g, ones)
    P.at(*fc2_ctx)
    w2t_t = P.call(PERMUTE, pt2, [1, 0])
    g_r = P.call(MM, g, w2t_t)
    g_t = P.call(PERMUTE, g, [1, 0])
    g_w2t = P.call(MM, g_t, r)
    g_w2t = P.call(PERMUTE, g_w2t, [1, 0])
    g_b2 = P.call(SUM_DIM, g, [0], True)
    g_b2 = P.call(VIEW, g_b2, [2])
    g_w2 = P.call(PERMUTE, g_w2t, [1, 0])
    P.at(*relu_ctx)
    le = P.call(LE, r, 0)
    zero = P.call(FULL, [], 0.0, dtype=B.F32, layout=B.STRIDED, device=B.CPU, pin_memory=False,
                  name="full_default")
    g_a1 = P.call(WHERE, le, zero, g_r)
    P.at(*fc1_ctx)
    g_t1 = P.call(PERMUTE, g_a1, [1, 0])
    g_w1t = P.call(MM, g_t1, x)
    g_w1t = P.call(PERMUTE, g_w1t, [1, 0])
    g_b1 = P.call(SUM_DIM, g_a1, [0], True)
    g_b1 = P.call(VIEW, g_b1, [8])
    g_w1 = P.call(PERMUTE, g_w1t, [1, 0])
    P.output(loss, "loss_output")
    P.output(g_w1, "gradient_to_parameter", "fc1.weight")
    P.output(g_b1, "gradient_to_parameter", "fc1.bias")
    P.output(g_w2, "gradient_to_parameter", "fc2.weight")
    P.output(g_b2, "gradient_to_parameter", "fc2.bias")
    P.out_spec = B.treespec_text(B.treespec_tuple([B.treespec_leaf()]))

    def model(xv, tv):
        X, T = nest(xv, [5, 4]), nest(tv, [5, 2])
        pre = m_linear(X, W1, B1)
        h = apply_rows(pre, m_relu)
        y = m_linear(h, W2, B2)
        loss_ = sum((y[i][j] - T[i][j]) ** 2 for i in range(5) for j in range(2)) / 10
        dy = [[2 * (y[i][j] - T[i][j]) / 10 for j in range(2)] for i in range(5)]
        dW2 = [[sum(dy[i][o] * h[i][k] for i in range(5)) for k in range(8)] for o in range(2)]
        db2 = [sum(dy[i][o] for i in range(5)) for o in range(2)]
        dh = [[sum(dy[i][o] * W2[o][k] for o in range(2)) * (1.0 if pre[i][k] > 0 else 0.0)
               for k in range(8)] for i in range(5)]
        dW1 = [[sum(dh[i][o] * X[i][k] for i in range(5)) for k in range(4)] for o in range(8)]
        db1 = [sum(dh[i][o] for i in range(5)) for o in range(8)]
        return loss_, dW1, db1, dW2, db2

    for seed in (51, 52):
        r_ = Lcg(seed)
        xv, tv = r_.normals(20), r_.normals(10)
        loss_, dW1, db1, dW2, db2 = model(xv, tv)
        f.run("forward", [("x", "float32", [5, 4], xv), ("target", "float32", [5, 2], tv)], [
            (loss.name, "loss_output", None, "float32", [], [loss_]),
            (g_w1.name, "gradient_to_parameter", "fc1.weight", "float32", [8, 4], flatten(dW1)),
            (g_b1.name, "gradient_to_parameter", "fc1.bias", "float32", [8], db1),
            (g_w2.name, "gradient_to_parameter", "fc2.weight", "float32", [2, 8], flatten(dW2)),
            (g_b2.name, "gradient_to_parameter", "fc2.bias", "float32", [2], db2)])
    f.extra["extra_outputs"] = {
        "policy": "optional trailing outputs; if present they must equal these tensors, in order",
        "tensors": [{"name": fqn, "dtype": "float32", "shape": P.state[fqn]["sizes"],
                     "values": P.state[fqn]["data"]}
                    for fqn in ("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias")]}
    return f


# ---------------------------------------------------------------------------------------------
# 6. dynamic_batch / dynamic_batch_plain
# ---------------------------------------------------------------------------------------------

def fx_dynamic_batch(style):
    name = "dynamic_batch" if style == "srepr" else "dynamic_batch_plain"
    src = HEADER + '''
class DynamicBatch(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 6)

    def forward(self, x):
        return torch.relu(self.fc(x))


batch = torch.export.Dim("batch", min=2, max=32)
ep = torch.export.export(DynamicBatch(), (torch.randn(3, 4, 8),),
                         dynamic_shapes={"x": {0: batch}}).run_decompositions()
torch.export.save(ep, "%s.pt2")
''' % name
    form = ("Symbol('s0', integer=True, positive=True) / Mul(Integer(4), Symbol(...))"
            if style == "srepr" else "plain 's0' / '4*s0' (older str() form)")
    f = Fixture(name, "x[s0,4,8], s0 in [2,32] (example 3) -> Linear(8,6) -> relu; "
                "expr_str in %s form" % ("srepr" if style == "srepr" else "plain"), src, [
                    "dynamic leading dimension s0 with range_constraints "
                    "{'s0': {'min_val': 2, 'max_val': 32}}; symbolic sizes written as " + form,
                    "sym_size.int(x, 0) -> sym_size_int_1; _operator.mul(sym_size_int_1, 4) "
                    "-> mul (a SymInt node, args a/b); view sizes as as_sym_ints mixing "
                    "as_name and as_int",
                    "twin of %s: identical graph, only the expr_str syntax differs" % (
                        "dynamic_batch_plain" if style == "srepr" else "dynamic_batch"),
                ])
    P = f.program("model", "__main__.DynamicBatch", expr_style=style)
    P.module("fc", LINEAR_T)
    s0 = P.symbol("s0", 3, 2, 32)
    P.guards = ["L['x'].size()[0] <= 32", "L['x'].size()[1] == 4", "L['x'].size()[2] == 8"]
    rng = Lcg(6)
    (w, b), (W, Bv) = linear_params(P, rng, "fc", 8, 6)
    x = P.user_input("x", [s0, 4, 8])
    line = "return torch.relu(self.fc(x))"
    P.at(line, ["fc"], ("fc", LINEAR_T), LINEAR_FN)
    n = P.call(SYM_SIZE, x, 0)
    n4 = P.call("_operator.mul", n, 4)
    v = P.call(VIEW, x, [n4, 8])
    wt = P.call(PERMUTE, w, [1, 0])
    mm = P.call(ADDMM, b, v, wt)
    v2 = P.call(VIEW, mm, [n, 4, 6])
    P.at(line, [], ("relu", "torch.relu"), ("relu", "builtin_function_or_method.relu"))
    y = P.call(RELU, v2)
    P.output(y)
    for seed, batch in ((61, 3), (62, 2), (63, 32)):
        xv = Lcg(seed).normals(batch * 32)
        rows = nest(xv, [batch * 4, 8])
        out = apply_rows(m_linear(rows, W, Bv), m_relu)
        f.run("forward", [("x", "float32", [batch, 4, 8], xv)],
              [(y.name, "user_output", None, "float32", [batch, 4, 6], flatten(out))],
              input_shapes={"0": [batch, 4, 8]})
    f.notes.append("runs at the example size (3), the minimum (2) and the maximum (32); size "
                   "buffers from max_val")
    return f


# ---------------------------------------------------------------------------------------------
# 7. multi_output
# ---------------------------------------------------------------------------------------------

def fx_multi_output():
    src = HEADER + '''
class LayerNormStats(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(8))
        self.bias = torch.nn.Parameter(torch.zeros(8))

    def forward(self, x):
        out, mean, rstd = torch.native_layer_norm(x, [8], self.weight, self.bias, 1e-05)
        return torch.relu(out), mean, rstd


ep = torch.export.export(LayerNormStats(), (torch.randn(2, 3, 8),)).run_decompositions()
torch.export.save(ep, "multi_output.pt2")
'''
    f = Fixture("multi_output", "native_layer_norm with all three outputs used: "
                "(relu(out), mean, rstd)", src, [
                    "one node defining three values getitem, getitem_1, getitem_2 (node name "
                    "native_layer_norm is not a value)",
                    "mean and rstd ([2, 3, 1]) returned as user outputs next to relu(out); "
                    "out_spec is a 3-tuple",
                    "parameters registered on the root module (FQNs 'weight', 'bias')",
                ])
    P = f.program("model", "__main__.LayerNormStats")
    rng = Lcg(7)
    wv = [B.f32(1.0 + v) for v in rng.uniforms(8, 0.2)]
    bv = rng.uniforms(8, 0.2)
    w = P.parameter("weight", [8], wv)
    b = P.parameter("bias", [8], bv)
    x = P.user_input("x", [2, 3, 8])
    line = "out, mean, rstd = torch.native_layer_norm(x, [8], self.weight, self.bias, 1e-05)"
    P.at(line, [], ("native_layer_norm", "torch.native_layer_norm"),
         ("native_layer_norm", "builtin_function_or_method.native_layer_norm"))
    out, mean, rstd = P.call(LAYER_NORM, x, [8], w, b, 1e-05)
    P.at("return torch.relu(out), mean, rstd", [], ("relu", "torch.relu"),
         ("relu", "builtin_function_or_method.relu"))
    r = P.call(RELU, out)
    P.output(r)
    P.output(mean)
    P.output(rstd)
    for seed in (71, 72):
        xv = Lcg(seed).normals(48, 2.0)
        rows = nest(xv, [6, 8])
        res = [m_layer_norm(rw, wv, bv) for rw in rows]
        f.run("forward", [("x", "float32", [2, 3, 8], xv)], [
            (r.name, "user_output", None, "float32", [2, 3, 8],
             [m_relu(v) for o, _, _ in res for v in o]),
            (mean.name, "user_output", None, "float32", [2, 3, 1], [mu for _, mu, _ in res]),
            (rstd.name, "user_output", None, "float32", [2, 3, 1], [rs for _, _, rs in res])])
    return f


# ---------------------------------------------------------------------------------------------
# 8. neg_inf_mask / neg_inf_mask_bare
# ---------------------------------------------------------------------------------------------

def fx_neg_inf_mask(bare):
    name = "neg_inf_mask_bare" if bare else "neg_inf_mask"
    src = HEADER + '''
class MaskedSoftmax(torch.nn.Module):
    def forward(self, scores, mask):
        return torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)


ep = torch.export.export(MaskedSoftmax(), (torch.randn(2, 5), torch.rand(2, 5) > 0.5)).run_decompositions()
torch.export.save(ep, "%s.pt2")
''' % name
    f = Fixture(name, "softmax(scores.masked_fill(mask, -inf)) with a bool mask input; -inf "
                "written as %s" % ("the bare token -Infinity (non-standard JSON)" if bare else
                                   'the JSON string "-Infinity"'), src, [
        "a non-finite float argument: full([], -inf, dtype=torch.float32, layout=torch.strided, "
        "device=cpu, pin_memory=False) written as " + (
            "the bare token -Infinity (what Python's json writes with allow_nan=True; not "
            "standard JSON)" if bare else 'the string "-Infinity" (torch.export\'s rule)'),
        "masked_fill.Scalar in core form: where.self(mask, full_default, scores)",
        "a bool (ScalarType 12) user input",
        "twin of %s: identical except for the -inf spelling" % (
            "neg_inf_mask" if bare else "neg_inf_mask_bare"),
    ])
    P = f.program("model", "__main__.MaskedSoftmax", nonfinite="bare" if bare else "string")
    s = P.user_input("scores", [2, 5])
    m = P.user_input("mask", [2, 5], S.BOOL)
    line = 'return torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)'
    P.at(line, [], ("masked_fill", "masked_fill"), ("masked_fill", "method_descriptor.masked_fill"))
    full = P.call(FULL, [], float("-inf"), dtype=B.F32, layout=B.STRIDED, device=B.CPU,
                  pin_memory=False, name="full_default")
    w = P.call(WHERE, m, full, s)
    P.at(line, [], ("softmax", "torch.softmax"), ("softmax", "builtin_function_or_method.softmax"))
    y = P.call(SOFTMAX, w, -1, False)
    P.output(y)
    masks = ([False, True, False, True, True, True, True, False, False, True],
             [True, True, True, True, False, False, False, False, False, False])
    for seed, mask in zip((81, 82), masks):
        sv = Lcg(seed).normals(10)
        out = []
        for i in range(2):
            row = [float("-inf") if mask[i * 5 + j] else sv[i * 5 + j] for j in range(5)]
            out += m_softmax(row)
        f.run("forward", [("scores", "float32", [2, 5], sv), ("mask", "bool", [2, 5], mask)],
              [(y.name, "user_output", None, "float32", [2, 5], out)])
    return f


# ---------------------------------------------------------------------------------------------
# 9. nested_modules
# ---------------------------------------------------------------------------------------------

def fx_nested_modules():
    src = HEADER + '''
class MLPLayer(torch.nn.Module):
    def __init__(self, dim, approximate="none"):
        super().__init__()
        self.fc = torch.nn.Linear(dim, dim)
        self.act = torch.nn.GELU(approximate=approximate)

    def forward(self, x):
        return self.act(self.fc(x))


class Encoder(torch.nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.layer = torch.nn.ModuleList([MLPLayer(dim), MLPLayer(dim, approximate="tanh")])

    def forward(self, x):
        for layer in self.layer:
            x = layer(x)
        return x


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder(8)
        self.head = torch.nn.Linear(8, 3)

    def forward(self, x):
        return self.head(self.encoder(x))


ep = torch.export.export(Model(), (torch.randn(4, 8),), preserve_module_call_signature=(
    "encoder", "encoder.layer.0", "encoder.layer.1")).run_decompositions()
torch.export.save(ep, "nested_modules.pt2")
'''
    f = Fixture("nested_modules", "Model(encoder=Encoder(layer=[MLPLayer, MLPLayer(tanh GELU)]), "
                "head=Linear(8,3)); signatures of encoder, encoder.layer.0, encoder.layer.1 "
                "preserved", src, [
                    "three nested preserved module call signatures (encoder, encoder.layer.0, "
                    "encoder.layer.1) with inputs/outputs naming graph values; the others null",
                    "module_call_graph in named_modules order, including the never-called "
                    "ModuleList encoder.layer",
                    "nn_module_stack with four entries (root, encoder, encoder.layer.N, "
                    "encoder.layer.N.fc/act) and three-frame stack traces",
                    "gelu(x, approximate='tanh') as a keyword-only argument (kind 2) next to "
                    "a gelu with the default stripped",
                ])
    P = f.program("model", "__main__.Model")
    module_list(P, [("encoder", "__main__.Encoder"),
                    ("encoder.layer", "torch.nn.modules.container.ModuleList"),
                    ("encoder.layer.0", "__main__.MLPLayer"),
                    ("encoder.layer.0.fc", LINEAR_T),
                    ("encoder.layer.0.act", "torch.nn.modules.activation.GELU"),
                    ("encoder.layer.1", "__main__.MLPLayer"),
                    ("encoder.layer.1.fc", LINEAR_T),
                    ("encoder.layer.1.act", "torch.nn.modules.activation.GELU"),
                    ("head", LINEAR_T)])
    rng = Lcg(9)
    (w0, b0), (W0, B0) = linear_params(P, rng, "encoder.layer.0.fc", 8, 8)
    (w1, b1), (W1, B1) = linear_params(P, rng, "encoder.layer.1.fc", 8, 8)
    (wh, bh), (WH, BH) = linear_params(P, rng, "head", 8, 3)
    x = P.user_input("x", [4, 8])
    root_l = "return self.head(self.encoder(x))"
    enc_l = "x = layer(x)"
    layer_l = "return self.act(self.fc(x))"
    outs = []
    h = x
    for i, (w, b, approx) in enumerate(((w0, b0, "none"), (w1, b1, "tanh"))):
        lay = "encoder.layer.%d" % i
        P.at([root_l, enc_l, layer_l], ["encoder", lay, lay + ".fc"], ("fc", LINEAR_T),
             LINEAR_FN)
        a = core_linear(P, h, w, b)
        P.at([root_l, enc_l, layer_l], ["encoder", lay, lay + ".act"],
             ("act", "torch.nn.modules.activation.GELU"),
             ("gelu", "builtin_function_or_method.gelu"))
        g = P.call(GELU, a) if approx == "none" else P.call(GELU, a, approximate=approx)
        P.preserve(lay, [h], [g])
        outs.append(g)
        h = g
    P.preserve("encoder", [x], [h])
    P.at(root_l, ["head"], ("head", LINEAR_T), LINEAR_FN)
    y = core_linear(P, h, wh, bh)
    P.output(y)
    for seed in (91, 92):
        xv = Lcg(seed).normals(32)
        a = apply_rows(m_linear(nest(xv, [4, 8]), W0, B0), m_gelu)
        a = apply_rows(m_linear(a, W1, B1), lambda v: m_gelu(v, "tanh"))
        out = m_linear(a, WH, BH)
        f.run("forward", [("x", "float32", [4, 8], xv)],
              [(y.name, "user_output", None, "float32", [4, 3], flatten(out))])
    return f


# ---------------------------------------------------------------------------------------------
# 10. two_method
# ---------------------------------------------------------------------------------------------

def fx_two_method():
    src = HEADER + '''
class Projector(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(4, 5)

    def forward(self, x):
        return self.proj(x)


class Encoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = torch.nn.Linear(6, 3)

    def forward(self, x):
        return self.enc(x)


from torch.export.pt2_archive._package import package_pt2
package_pt2("two_method.pt2", exported_programs={
    "forward": torch.export.export(Projector(), (torch.randn(2, 4),)).run_decompositions(),
    "encode": torch.export.export(Encoder(), (torch.randn(3, 6),)).run_decompositions(),
})
'''
    f = Fixture("two_method", "two methods in one archive: forward(x[2,4]) = Linear(4,5), "
                "encode(x[3,6]) = Linear(6,3), no shared weights", src, [
                    "models/forward.json + models/encode.json, each with its own "
                    "<model>_weights_config.json / <model>_constants_config.json",
                    "weight file numbering shared across the models (forward: weight_0/1, "
                    "encode: weight_2/3)",
                    "ExecuTorch orders execution plans by name: encode, forward",
                ])
    for model, root, fqn, n_in, n_out, seed, shape, line in (
            ("forward", "__main__.Projector", "proj", 4, 5, 101, [2, 4], "return self.proj(x)"),
            ("encode", "__main__.Encoder", "enc", 6, 3, 102, [3, 6], "return self.enc(x)")):
        P = f.program(model, root)
        P.module(fqn, LINEAR_T)
        (w, b), (W, Bv) = linear_params(P, Lcg(seed), fqn, n_in, n_out)
        x = P.user_input("x", shape)
        P.at(line, [fqn], (fqn, LINEAR_T), LINEAR_FN)
        y = core_linear(P, x, w, b)
        P.output(y)
        for k in range(2):
            xv = Lcg(seed * 10 + k).normals(numel(shape))
            f.run(model, [("x", "float32", shape, xv)],
                  [(y.name, "user_output", None, "float32", [shape[0], n_out],
                    flatten(m_linear(nest(xv, shape), W, Bv)))])
    return f


# ---------------------------------------------------------------------------------------------
# 11. ExecuTorch-reference-equivalent programs (executorch-pipeline.md §7)
# ---------------------------------------------------------------------------------------------

def fx_ref_arduino_add():
    src = HEADER + '''
class AddOne(torch.nn.Module):
    def forward(self, x):
        return x + 1.0


ep = torch.export.export(AddOne(), (torch.tensor([1.0, 2.0, 3.0]),))
# ExecuTorch: to_edge(ep).to_executorch() -> arduino_add_model.pte
'''
    f = Fixture("ref_arduino_add", "x + 1.0 on float32[3] (the program behind "
                "arduino_add_model.pte)", src, [
                    "add.Tensor(x, 1.0): a Python float in a Tensor slot (as_float), alpha "
                    "stripped; ExecuTorch lifts 1.0 to a 0-d float32 constant placed before x "
                    "and emits aten::add.out(x, c, alpha=1, out)",
                    "conformance: converting this program must reproduce "
                    "tests/data/reference/pte/arduino_add_model.pte",
                ])
    f.expected_extra = {"reference_pte": "tests/data/reference/pte/arduino_add_model.pte"}
    P = f.program("model", "__main__.AddOne")
    x = P.user_input("x", [3])
    P.at("return x + 1.0", [], ("add", "_operator.add"), ("__add__", "method_descriptor.__add__"))
    y = P.call(ADD, x, 1.0)
    P.output(y)
    for xv in ([1.0, 2.0, 3.0], Lcg(111).normals(3)):
        f.run("forward", [("x", "float32", [3], xv)],
              [(y.name, "user_output", None, "float32", [3], [v + 1.0 for v in xv])])
    return f


def fx_ref_module_linear():
    src = HEADER + '''
class ModuleLinear(torch.nn.Module):
    def __init__(self):
        super().__init__()
        # plain tensor attributes (not parameters, not buffers): export lifts them as
        # tensor constants c_a, c_b
        self.a = 3 * torch.ones(2, 2, dtype=torch.float)
        self.b = 2 * torch.ones(2, 2, dtype=torch.float)

    def forward(self, x):
        scaled = torch.mul(self.a, x)
        return torch.add(scaled, self.b)


ep = torch.export.export(ModuleLinear(), (torch.ones(2, 2),))
# ExecuTorch (old toolchain, no constant segment) -> module_linear_no_constant_segment.pte
'''
    f = Fixture("ref_module_linear", "a * x + b with 2x2 tensor attributes a = 3*ones, "
                "b = 2*ones (the program behind module_linear_no_constant_segment.pte)", src, [
                    "two lifted tensor constants (tensor_constant specs 'a', 'b', placeholders "
                    "c_a, c_b, data/constants/tensor_0 and tensor_1) placed before the user "
                    "input, in that order",
                    "mul.Tensor(c_a, x) then add.Tensor(mul, c_b)",
                    "conformance: values 0/1 = a/b (constant buffers 1/2), value 2 = x; "
                    "compare with tests/data/reference/pte/module_linear_no_constant_segment.pte",
                ])
    f.notes.append("a and b are plain tensor attributes of the module in ExecuTorch's test "
                   "model, so torch.export lifts them as tensor constants (not parameters or "
                   "buffers); all three kinds become constant data in the .pte, in placeholder "
                   "order.")
    f.expected_extra = {"reference_pte":
                        "tests/data/reference/pte/module_linear_no_constant_segment.pte"}
    P = f.program("model", "__main__.ModuleLinear")
    a = P.tensor_constant("a", [2, 2], [3.0] * 4)
    b = P.tensor_constant("b", [2, 2], [2.0] * 4)
    x = P.user_input("x", [2, 2])
    P.at("scaled = torch.mul(self.a, x)", [], ("mul", "torch.mul"),
         ("mul", "builtin_function_or_method.mul"))
    m = P.call(MUL, a, x)
    P.at("return torch.add(scaled, self.b)", [], ("add", "torch.add"),
         ("add", "builtin_function_or_method.add"))
    y = P.call(ADD, m, b)
    P.output(y)
    for xv in ([1.0] * 4, Lcg(121).normals(4)):
        f.run("forward", [("x", "float32", [2, 2], xv)],
              [(y.name, "user_output", None, "float32", [2, 2], [3.0 * v + 2.0 for v in xv])])
    return f


def fx_ref_add():
    src = HEADER + '''
class Add(torch.nn.Module):
    def forward(self, x, y):
        return x + y


ep = torch.export.export(Add(), (torch.ones(1), torch.ones(1)))
# ExecuTorch -> add.pte
'''
    f = Fixture("ref_add", "x + y on float32[1] (the program behind add.pte)", src, [
        "two user inputs, no state: add.Tensor(x, y)",
        "conformance: compare with tests/data/reference/pte/add.pte (values x, y, out, Int 1)",
    ])
    f.expected_extra = {"reference_pte": "tests/data/reference/pte/add.pte"}
    P = f.program("model", "__main__.Add")
    x = P.user_input("x", [1])
    y_ = P.user_input("y", [1])
    P.at("return x + y", [], ("add", "_operator.add"), ("__add__", "method_descriptor.__add__"))
    y = P.call(ADD, x, y_)
    P.output(y)
    for xv, yv in (([1.0], [1.0]), (Lcg(131).normals(1), Lcg(132).normals(1))):
        f.run("forward", [("x", "float32", [1], xv), ("y", "float32", [1], yv)],
              [(y.name, "user_output", None, "float32", [1], [xv[0] + yv[0]])])
    return f


FIXTURES = [
    ("mlp", fx_mlp),
    ("small_cnn", fx_small_cnn),
    ("transformer_block", fx_transformer_block),
    ("buffer_mutation", fx_buffer_mutation),
    ("joint_training", fx_joint_training),
    ("dynamic_batch", lambda: fx_dynamic_batch("srepr")),
    ("dynamic_batch_plain", lambda: fx_dynamic_batch("plain")),
    ("multi_output", fx_multi_output),
    ("neg_inf_mask", lambda: fx_neg_inf_mask(False)),
    ("neg_inf_mask_bare", lambda: fx_neg_inf_mask(True)),
    ("nested_modules", fx_nested_modules),
    ("two_method", fx_two_method),
    ("ref_arduino_add", fx_ref_arduino_add),
    ("ref_module_linear", fx_ref_module_linear),
    ("ref_add", fx_ref_add),
]


def write_fixture(f, out_dir=OUT):
    root = os.path.join(out_dir, f.name)
    f.archive.write(root)
    # torch.export.save stores the forward method as models/model.json
    models = {("forward" if m == "model" else m): "models/%s.json" % m
              for m, _ in f.archive.programs}
    io = {"case": f.name, "title": f.title, "models": models, "methods": sorted(models),
          "rtol": 1e-05, "atol": 1e-06, "exercises": f.exercises, "notes": f.notes,
          "runs": f.runs}
    if f.sequences:
        io["sequences"] = f.sequences
    io.update(f.extra)
    with open(root + ".io.json", "w") as fh:
        fh.write(json.dumps(io, indent=1) + "\n")
    with open(root + ".model.py.txt", "w") as fh:
        fh.write(f.source)
    rep, facts = check_fixtures.check_archive_dir(root)
    exp = {"name": f.name, "title": f.title}
    exp.update(check_fixtures.expected_facts(root, facts))
    exp.update(f.expected_extra)
    with open(root + ".expected.json", "w") as fh:
        fh.write(json.dumps(exp, indent=1) + "\n")
    return rep


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
        print("wrote %-22s %s" % (name, "ok" if not rep.errors else "%d error(s)" %
                                  len(rep.errors)))
        for e in rep.errors:
            print("   error: " + e)
        bad += len(rep.errors)
    if "--check" in argv:
        return subprocess.call([sys.executable, os.path.join(os.path.dirname(__file__),
                                                             "check_fixtures.py"), "--quiet"])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
