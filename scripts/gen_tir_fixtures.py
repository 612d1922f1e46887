#!/usr/bin/env python3
"""Generate training-IR fixture programs in tests/fixtures/tir/ (the decompose pass's inputs).

Usage: python3 scripts/gen_tir_fixtures.py [--out DIR] [--check] [NAME ...]
  --check: validate the written folders with scripts/check_fixtures.py's archive checks
  (schema 8.20 structure, names, argument encoding, metadata; output shapes re-derived with
  the inference below). The checker's expected.json / io.json parts do not apply here.

Each fixture is an unpacked PT2 archive folder tests/fixtures/tir/<name>/ (models/model.json,
data/weights, data/constants, archive records) plus <name>.model.py.txt, the PyTorch code the
program stands for. The programs are written by hand in the form torch.export.export leaves
them WITHOUT run_decompositions() (verifier "TRAINING"): non-core ops such as linear, conv2d,
batch_norm, layer_norm, rms_norm, scaled_dot_product_attention, hardswish, silu, chunk and the
in-place ops of the modules (relu_, hardswish_, add_, index_copy_, copy_) stay in the graph, and
buffer mutations are not yet outputs (functionalization happens in decompose).

Like tests/fixtures/programs (scripts/gen_fixtures.py), these files were constructed, not
exported: shapes, dtypes, strides, argument encoding and weights are exact; FX names and
metadata strings are plausible but not what a real export would write. Deterministic.

The builder (scripts/pt2_builder.py) infers output metadata through scripts/pt2_schema.py;
this script extends that inference with the training-IR ops it uses (tir_infer below).
"""

import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pt2_builder as B  # noqa: E402
import pt2_schema as S  # noqa: E402

OUT = os.path.join(S.REPO, "tests", "fixtures", "tir")
A = "torch.ops.aten."
SRC_DIR = "/home/dev/pteforge_tir"

# ---------------------------------------------------------------------------------------------
# Metadata inference for training-IR ops (on top of pt2_schema.infer)
# ---------------------------------------------------------------------------------------------

_base_infer = S.infer
LIST_OPS = {"chunk", "split", "unbind", "split_with_sizes"}


def _meta_like(m, sizes=None, strides=None, rg=None, dtype=None):
    sizes = list(m.sizes) if sizes is None else sizes
    return S.Meta(m.dtype if dtype is None else dtype, sizes,
                  list(m.strides) if strides is None and sizes == m.sizes else strides,
                  m.requires_grad if rg is None else rg)


def tir_infer(target, a):
    if not target.startswith(A):
        return _base_infer(target, a)
    op, _, ov = target[len(A):].rpartition(".")
    rg = any(isinstance(v, S.Meta) and v.requires_grad for v in a.values()) or any(
        isinstance(v, list) and any(isinstance(e, S.Meta) and e.requires_grad for e in v)
        for v in a.values())

    def out(dtype, sizes, strides=None):
        return S.Meta(dtype, sizes, strides, rg if S.DTYPES[dtype][0].startswith("float") else False)

    if op == "squeeze" and ov == "dim":
        s = a["self"]
        d = S._norm_dim(a["dim"], len(s.sizes))
        if s.sizes[d] != 1:
            return [S.Meta(s.dtype, s.sizes, s.strides, s.requires_grad)]
        return [S.Meta(s.dtype, s.sizes[:d] + s.sizes[d + 1:], s.strides[:d] + s.strides[d + 1:],
                       s.requires_grad)]
    if op == "reshape":
        return _base_infer(target, dict(a, size=a["shape"]))
    if op == "index" and ov == "Tensor":
        s, idx = a["self"], a["indices"]
        return [out(s.dtype, idx[0].sizes + s.sizes[1:])]
    if op == "linear":
        x, w = a["input"], a["weight"]
        return [out(x.dtype, x.sizes[:-1] + [w.sizes[0]])]
    if op in ("conv1d", "conv2d"):
        x, w = a["input"], a["weight"]
        n = 1 if op == "conv1d" else 2
        st, pd, dl = (list(a[k]) * (n if len(list(a[k])) == 1 else 1)
                      for k in ("stride", "padding", "dilation"))
        sp = [S._conv_out(x.sizes[2 + i], w.sizes[2 + i], st[i], pd[i], dl[i]) for i in range(n)]
        return [out(x.dtype, [x.sizes[0], w.sizes[0]] + sp)]
    if op in ("batch_norm", "layer_norm", "rms_norm", "group_norm"):
        x = a["input"]
        return [out(x.dtype, x.sizes)]
    if op.endswith("_") and not op.startswith("_"):
        s = a["self"]
        return [S.Meta(s.dtype, s.sizes, s.strides, s.requires_grad or rg)]
    if op in ("hardswish", "hardsigmoid", "silu", "relu6", "dropout", "neg", "rsqrt", "sin", "cos"):
        s = a.get("self", a.get("input"))
        return [out(s.dtype, s.sizes, S._pointwise_layout([s], s.sizes))]
    if op == "matmul":
        x, y = a["self"], a["other"]
        batch = S._broadcast([x.sizes[:-2], y.sizes[:-2]]) if len(x.sizes) > 2 or len(y.sizes) > 2 \
            else []
        return [out(x.dtype, batch + [x.sizes[-2], y.sizes[-1]])]
    if op == "scaled_dot_product_attention":
        q, v = a["query"], a["value"]
        return [out(q.dtype, q.sizes[:-1] + [v.sizes[-1]])]
    if op == "embedding":
        w, i = a["weight"], a["indices"]
        return [out(w.dtype, i.sizes + [w.sizes[1]])]
    if op == "transpose":
        s = a["self"]
        d0, d1 = S._norm_dim(a["dim0"], len(s.sizes)), S._norm_dim(a["dim1"], len(s.sizes))
        sz, st = list(s.sizes), list(s.strides)
        sz[d0], sz[d1] = sz[d1], sz[d0]
        st[d0], st[d1] = st[d1], st[d0]
        return [S.Meta(s.dtype, sz, st, s.requires_grad)]
    if op == "unsqueeze":
        s = a["self"]
        d = S._norm_dim(a["dim"], len(s.sizes) + 1)
        sz, st = list(s.sizes), list(s.strides)
        stride = 1 if d >= len(s.sizes) else S.smul(st[d], sz[d])
        sz.insert(d, 1)
        st.insert(d, stride)
        return [S.Meta(s.dtype, sz, st, s.requires_grad)]
    if op == "slice":
        s = a["self"]
        d = S._norm_dim(a["dim"], len(s.sizes))
        n = s.sizes[d]
        start = a.get("start") or 0
        end = a.get("end")
        end = n if end is None or (isinstance(end, int) and isinstance(n, int) and end > n) else end
        if start < 0:
            start += n
        if isinstance(end, int) and end < 0:
            end += n
        sz = list(s.sizes)
        sz[d] = end - start
        return [S.Meta(s.dtype, sz, list(s.strides), s.requires_grad)]
    if op == "select":
        s = a["self"]
        d = S._norm_dim(a["dim"], len(s.sizes))
        return [S.Meta(s.dtype, s.sizes[:d] + s.sizes[d + 1:], s.strides[:d] + s.strides[d + 1:],
                       s.requires_grad)]
    if op == "cat":
        ts = a["tensors"]
        d = S._norm_dim(a["dim"], len(ts[0].sizes))
        sz = list(ts[0].sizes)
        sz[d] = sum(t.sizes[d] for t in ts)
        return [out(ts[0].dtype, sz)]
    if op == "stack":
        ts = a["tensors"]
        d = S._norm_dim(a["dim"], len(ts[0].sizes) + 1)
        sz = list(ts[0].sizes)
        sz.insert(d, len(ts))
        return [out(ts[0].dtype, sz)]
    if op == "contiguous":
        s = a["self"]
        return [out(s.dtype, s.sizes)]
    if op in ("chunk", "split"):
        s = a["self"]
        d = S._norm_dim(a["dim"], len(s.sizes))
        n = s.sizes[d]
        size = (n + a["chunks"] - 1) // a["chunks"] if op == "chunk" else a["split_size"]
        res, left = [], n
        while left > 0:
            sz = list(s.sizes)
            sz[d] = min(size, left)
            left -= sz[d]
            res.append(S.Meta(s.dtype, sz, list(s.strides), s.requires_grad))
        return res
    if op == "unbind":
        s = a["self"]
        d = S._norm_dim(a["dim"], len(s.sizes))
        return [S.Meta(s.dtype, s.sizes[:d] + s.sizes[d + 1:], s.strides[:d] + s.strides[d + 1:],
                       s.requires_grad) for _ in range(s.sizes[d])]
    if op == "lstm":
        x = a["input"]
        h0, c0 = a["hx"]
        hid = h0.sizes[-1]
        d = 2 if a["bidirectional"] else 1
        osz = (x.sizes[:2] if a["batch_first"] else x.sizes[:2]) + [hid * d]
        return [out(x.dtype, osz), out(h0.dtype, h0.sizes), out(c0.dtype, c0.sizes)]
    if op == "gru":
        x, h0 = a["input"], a["hx"]
        d = 2 if a["bidirectional"] else 1
        return [out(x.dtype, x.sizes[:2] + [h0.sizes[-1] * d]), out(h0.dtype, h0.sizes)]
    return _base_infer(target, a)


S.infer = tir_infer

_base_pointwise_layout = S._pointwise_layout


def _pointwise_layout(tensors, shape):
    """TensorIterator-like: the first full-shape input decides (its dense layout is kept,
    a non-dense input gives a contiguous result)."""
    try:
        return _base_pointwise_layout(tensors, shape)
    except S.Unsupported:
        full = [t for t in tensors if t.sizes == shape]
        first = full[0]
        if S._dense(first) and not S.is_contiguous(first):
            order = sorted(range(len(shape)), key=lambda i: (-first.strides[i], i))
            st, acc = [0] * len(shape), 1
            for i in reversed(order):
                st[i] = acc
                acc = S.smul(acc, shape[i] if isinstance(shape[i], S.Sym) else max(shape[i], 1))
            return st
        return S.contiguous_strides(shape)


S._pointwise_layout = _pointwise_layout


def _ordered_tensor_values(self, inputs):
    """tensor_values in graph order, including the elements of as_tensors outputs."""
    out = {}
    for a in inputs:
        n = a["as_tensor"]["name"]
        out[n] = self.tensor_values[n]
    for node in self.nodes:
        for o in node["outputs"]:
            names = [o["as_tensor"]["name"]] if "as_tensor" in o else \
                [t["name"] for t in o.get("as_tensors", [])]
            for n in names:
                out[n] = self.tensor_values[n]
    return out


B.Program._ordered_tensor_values = _ordered_tensor_values

# ---------------------------------------------------------------------------------------------
# Building helpers
# ---------------------------------------------------------------------------------------------

class Lcg:
    """64-bit LCG; uniform() has 24-bit resolution (same constants as gen_fixtures.py)."""

    def __init__(self, seed):
        self.state = (seed * 2654435761 + 1) & 0xFFFFFFFFFFFFFFFF

    def uniform(self):
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) \
            & 0xFFFFFFFFFFFFFFFF
        return (self.state >> 40) / float(1 << 24)

    def uniforms(self, n, bound):
        return [B.f32((2.0 * self.uniform() - 1.0) * bound) for _ in range(n)]


def numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


class Tir:
    """A training-IR Program with one helper per nn module / functional call."""

    def __init__(self, name, root, source, seed):
        self.name = name
        self.source = source
        self.P = B.Program(root, source, "%s/%s.py" % (SRC_DIR, name), verifiers=("TRAINING",))
        self.rng = Lcg(seed)
        self.modules = set()

    def module(self, fqn, type_):
        parts = fqn.split(".")
        for i in range(1, len(parts) + 1):
            f = ".".join(parts[:i])
            if f not in self.modules:
                self.modules.add(f)
                self.P.module(f, type_ if i == len(parts) else "torch.nn.modules.container.Sequential")

    def at(self, line, modules=(), source_fn=None, torch_fn=None):
        self.P.at(line, list(modules), source_fn, torch_fn)

    def param(self, fqn, shape, bound):
        return self.P.parameter(fqn, shape, self.rng.uniforms(numel(shape), bound))

    def call(self, op, *args, **kw):
        return self.P.call(A + op, *args, **kw)

    def call_list(self, op, *args, **kw):
        """A Tensor[]-returning op: outputs written as one as_tensors list."""
        refs = self.P.call(A + op, *args, **kw)
        node = self.P.nodes[-1]
        node["outputs"] = [{"as_tensors": [{"name": r.name} for r in refs]}]
        return refs

    # ---- modules ----
    def linear(self, line, fqn, x, n_in, n_out, bias=True, outer=()):
        self.module(fqn, "torch.nn.modules.linear.Linear")
        w = self.param(fqn + ".weight", [n_out, n_in], 1 / math.sqrt(n_in))
        b = self.param(fqn + ".bias", [n_out], 1 / math.sqrt(n_in)) if bias else None
        self.at(line, list(outer) + [fqn], (fqn.split(".")[-1], "torch.nn.modules.linear.Linear"),
                ("linear", "builtin_function_or_method.linear"))
        return self.call("linear.default", x, w, b) if bias else self.call("linear.default", x, w)

    def conv2d(self, line, fqn, x, c_in, c_out, k, stride=1, padding=0, groups=1, bias=True,
               outer=()):
        self.module(fqn, "torch.nn.modules.conv.Conv2d")
        fan = c_in // groups * k * k
        w = self.param(fqn + ".weight", [c_out, c_in // groups, k, k], 1 / math.sqrt(fan))
        b = self.param(fqn + ".bias", [c_out], 1 / math.sqrt(fan)) if bias else None
        self.at(line, list(outer) + [fqn], (fqn.split(".")[-1], "torch.nn.modules.conv.Conv2d"),
                ("conv2d", "builtin_function_or_method.conv2d"))
        # Trailing arguments equal to their defaults are left out, as the tracer does.
        args = [x, w, b, [stride, stride], [padding, padding], [1, 1], groups]
        defaults = [None, None, None, [1, 1], [0, 0], [1, 1], 1]
        while len(args) > 2 and args[-1] == defaults[len(args) - 1]:
            args.pop()
        return self.call("conv2d.default", *args)

    def bn(self, line, fqn, x, c, outer=()):
        self.module(fqn, "torch.nn.modules.batchnorm.BatchNorm2d")
        g = self.P.parameter(fqn + ".weight", [c], [B.f32(1.0 + v) for v in self.rng.uniforms(c, 0.1)])
        b = self.param(fqn + ".bias", [c], 0.1)
        rm = self.P.buffer(fqn + ".running_mean", [c], self.rng.uniforms(c, 0.2))
        rv = self.P.buffer(fqn + ".running_var", [c], [B.f32(0.5 + u) for u in self.rng.uniforms(c, 0.4)])
        self.P.buffer(fqn + ".num_batches_tracked", [], [100], S.LONG)
        self.at(line, list(outer) + [fqn], (fqn.split(".")[-1], "torch.nn.modules.batchnorm.BatchNorm2d"),
                ("batch_norm", "function.batch_norm"))
        return self.call("batch_norm.default", x, g, b, rm, rv, False, 0.1, 1e-05, True)

    def layer_norm(self, line, fqn, x, dim, outer=()):
        self.module(fqn, "torch.nn.modules.normalization.LayerNorm")
        g = self.P.parameter(fqn + ".weight", [dim], [B.f32(1.0 + v) for v in self.rng.uniforms(dim, 0.1)])
        b = self.param(fqn + ".bias", [dim], 0.1)
        self.at(line, list(outer) + [fqn], (fqn.split(".")[-1], "torch.nn.modules.normalization.LayerNorm"),
                ("layer_norm", "function.layer_norm"))
        return self.call("layer_norm.default", x, [dim], g, b)

    def fn(self, line, op, *args, modules=(), name=None, **kw):
        short = op.split(".")[0].rstrip("_") or op
        self.at(line, modules, (short, "torch." + short), (short, "builtin_function_or_method." + short))
        return self.call(op, *args, **kw)

    def write(self, out_dir):
        ar = B.Archive()
        ar.add("model", self.P)
        ar.write(os.path.join(out_dir, self.name))
        with open(os.path.join(out_dir, self.name + ".model.py.txt"), "w") as f:
            f.write(self.source)


HEADER = "import torch\nimport torch.nn.functional as F\n\n"


# ---------------------------------------------------------------------------------------------
# The fixtures
# ---------------------------------------------------------------------------------------------

def tir_resnet_block():
    src = HEADER + '''
class ResNetBlock(torch.nn.Module):  # torchvision resnet stem + BasicBlock + head
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=False)
        self.bn1 = torch.nn.BatchNorm2d(8)
        self.relu = torch.nn.ReLU(inplace=True)
        self.maxpool = torch.nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.b_conv1 = torch.nn.Conv2d(8, 8, 3, padding=1, bias=False)
        self.b_bn1 = torch.nn.BatchNorm2d(8)
        self.b_conv2 = torch.nn.Conv2d(8, 8, 3, padding=1, bias=False)
        self.b_bn2 = torch.nn.BatchNorm2d(8)
        self.avgpool = torch.nn.AdaptiveAvgPool2d((1, 1))
        self.fc = torch.nn.Linear(8, 10)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        identity = x
        out = self.relu(self.b_bn1(self.b_conv1(x)))
        out = self.b_bn2(self.b_conv2(out))
        out += identity
        out = self.relu(out)
        out = torch.flatten(self.avgpool(out), 1)
        return self.fc(out)


ep = torch.export.export(ResNetBlock().eval(), (torch.randn(1, 3, 16, 16),))
torch.export.save(ep, "tir_resnet_block.pt2")
'''
    t = Tir("tir_resnet_block", "__main__.ResNetBlock", src, 101)
    x = t.P.user_input("x", [1, 3, 16, 16])
    l1 = "x = self.maxpool(self.relu(self.bn1(self.conv1(x))))"
    c = t.conv2d(l1, "conv1", x, 3, 8, 3, stride=2, padding=1, bias=False)
    b = t.bn(l1, "bn1", c, 8)
    t.module("relu", "torch.nn.modules.activation.ReLU")
    t.at(l1, ["relu"], ("relu", "torch.nn.modules.activation.ReLU"), ("relu_", "builtin_function_or_method.relu_"))
    r = t.call("relu_.default", b)
    t.module("maxpool", "torch.nn.modules.pooling.MaxPool2d")
    t.at(l1, ["maxpool"], ("maxpool", "torch.nn.modules.pooling.MaxPool2d"),
         ("max_pool2d", "builtin_function_or_method.max_pool2d"))
    p = t.call("max_pool2d.default", r, [3, 3], [2, 2], [1, 1])
    l2 = "out = self.relu(self.b_bn1(self.b_conv1(x)))"
    o = t.conv2d(l2, "b_conv1", p, 8, 8, 3, padding=1, bias=False)
    o = t.bn(l2, "b_bn1", o, 8)
    t.at(l2, ["relu"], ("relu", "torch.nn.modules.activation.ReLU"), ("relu_", "builtin_function_or_method.relu_"))
    o = t.call("relu_.default", o)
    l3 = "out = self.b_bn2(self.b_conv2(out))"
    o = t.conv2d(l3, "b_conv2", o, 8, 8, 3, padding=1, bias=False)
    o = t.bn(l3, "b_bn2", o, 8)
    t.at("out += identity", [], ("iadd", "<built-in function iadd>"), ("add_", "method_descriptor.add_"))
    o = t.call("add_.Tensor", o, p)
    t.at("out = self.relu(out)", ["relu"], ("relu", "torch.nn.modules.activation.ReLU"),
         ("relu_", "builtin_function_or_method.relu_"))
    o = t.call("relu_.default", o)
    l4 = "out = torch.flatten(self.avgpool(out), 1)"
    t.module("avgpool", "torch.nn.modules.pooling.AdaptiveAvgPool2d")
    t.at(l4, ["avgpool"], ("avgpool", "torch.nn.modules.pooling.AdaptiveAvgPool2d"),
         ("adaptive_avg_pool2d", "function.adaptive_avg_pool2d"))
    o = t.call("adaptive_avg_pool2d.default", o, [1, 1])
    t.at(l4, [], ("flatten", "torch.flatten"), ("flatten", "builtin_function_or_method.flatten"))
    o = t.call("flatten.using_ints", o, 1)
    y = t.linear("return self.fc(out)", "fc", o, 8, 10)
    t.P.output(y)
    return t


def tir_mobilenet_v3_block():
    src = HEADER + '''
class MobileNetV3Block(torch.nn.Module):  # torchvision mobilenet_v3: stem, SE inverted residual, head
    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=False)
        self.stem_bn = torch.nn.BatchNorm2d(8)
        self.act = torch.nn.Hardswish(inplace=True)
        self.expand = torch.nn.Conv2d(8, 16, 1, bias=False)
        self.expand_bn = torch.nn.BatchNorm2d(16)
        self.relu = torch.nn.ReLU(inplace=True)
        self.dw = torch.nn.Conv2d(16, 16, 3, padding=1, groups=16, bias=False)
        self.dw_bn = torch.nn.BatchNorm2d(16)
        self.se_fc1 = torch.nn.Conv2d(16, 8, 1)
        self.se_fc2 = torch.nn.Conv2d(8, 16, 1)
        self.project = torch.nn.Conv2d(16, 8, 1, bias=False)
        self.project_bn = torch.nn.BatchNorm2d(8)
        self.fc1 = torch.nn.Linear(8, 12)
        self.drop = torch.nn.Dropout(p=0.2, inplace=True)
        self.fc2 = torch.nn.Linear(12, 10)

    def forward(self, x):
        x = self.act(self.stem_bn(self.stem(x)))
        h = self.relu(self.expand_bn(self.expand(x)))
        h = self.act(self.dw_bn(self.dw(h)))
        s = F.adaptive_avg_pool2d(h, 1)
        s = F.relu(self.se_fc1(s))
        s = F.hardsigmoid(self.se_fc2(s))
        h = s * h
        h = self.project_bn(self.project(h))
        h += x
        y = torch.flatten(F.adaptive_avg_pool2d(h, 1), 1)
        y = self.drop(self.act(self.fc1(y)))
        return self.fc2(y)


ep = torch.export.export(MobileNetV3Block().eval(), (torch.randn(1, 3, 16, 16),))
torch.export.save(ep, "tir_mobilenet_v3_block.pt2")
'''
    t = Tir("tir_mobilenet_v3_block", "__main__.MobileNetV3Block", src, 102)
    x = t.P.user_input("x", [1, 3, 16, 16])
    l = "x = self.act(self.stem_bn(self.stem(x)))"
    h = t.conv2d(l, "stem", x, 3, 8, 3, stride=2, padding=1, bias=False)
    h = t.bn(l, "stem_bn", h, 8)
    t.module("act", "torch.nn.modules.activation.Hardswish")
    hs = ("act", "torch.nn.modules.activation.Hardswish")
    t.at(l, ["act"], hs, ("hardswish", "function.hardswish"))
    x1 = t.call("hardswish_.default", h)
    l = "h = self.relu(self.expand_bn(self.expand(x)))"
    h = t.conv2d(l, "expand", x1, 8, 16, 1, bias=False)
    h = t.bn(l, "expand_bn", h, 16)
    t.module("relu", "torch.nn.modules.activation.ReLU")
    t.at(l, ["relu"], ("relu", "torch.nn.modules.activation.ReLU"), ("relu_", "builtin_function_or_method.relu_"))
    h = t.call("relu_.default", h)
    l = "h = self.act(self.dw_bn(self.dw(h)))"
    h = t.conv2d(l, "dw", h, 16, 16, 3, padding=1, groups=16, bias=False)
    h = t.bn(l, "dw_bn", h, 16)
    t.at(l, ["act"], hs, ("hardswish", "function.hardswish"))
    h = t.call("hardswish_.default", h)
    s = t.fn("s = F.adaptive_avg_pool2d(h, 1)", "adaptive_avg_pool2d.default", h, [1, 1])
    l = "s = F.relu(self.se_fc1(s))"
    s = t.conv2d(l, "se_fc1", s, 16, 8, 1)
    s = t.fn(l, "relu.default", s)
    l = "s = F.hardsigmoid(self.se_fc2(s))"
    s = t.conv2d(l, "se_fc2", s, 8, 16, 1)
    s = t.fn(l, "hardsigmoid.default", s)
    h = t.fn("h = s * h", "mul.Tensor", s, h)
    l = "h = self.project_bn(self.project(h))"
    h = t.conv2d(l, "project", h, 16, 8, 1, bias=False)
    h = t.bn(l, "project_bn", h, 8)
    h = t.fn("h += x", "add_.Tensor", h, x1)
    l = "y = torch.flatten(F.adaptive_avg_pool2d(h, 1), 1)"
    y = t.fn(l, "adaptive_avg_pool2d.default", h, [1, 1])
    y = t.fn(l, "flatten.using_ints", y, 1)
    l = "y = self.drop(self.act(self.fc1(y)))"
    y = t.linear(l, "fc1", y, 8, 12)
    t.at(l, ["act"], hs, ("hardswish", "function.hardswish"))
    y = t.call("hardswish_.default", y)
    t.module("drop", "torch.nn.modules.dropout.Dropout")
    t.at(l, ["drop"], ("drop", "torch.nn.modules.dropout.Dropout"), ("dropout", "function.dropout"))
    y = t.call("dropout_.default", y, 0.2, False)
    out = t.linear("return self.fc2(y)", "fc2", y, 12, 10)
    t.P.output(out)
    return t


def tir_efficientnet_block():
    src = HEADER + '''
class EfficientNetBlock(torch.nn.Module):  # torchvision efficientnet: stem, MBConv with SE, head
    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=False)
        self.stem_bn = torch.nn.BatchNorm2d(8)
        self.act = torch.nn.SiLU(inplace=True)
        self.expand = torch.nn.Conv2d(8, 32, 1, bias=False)
        self.expand_bn = torch.nn.BatchNorm2d(32)
        self.dw = torch.nn.Conv2d(32, 32, 3, padding=1, groups=32, bias=False)
        self.dw_bn = torch.nn.BatchNorm2d(32)
        self.se_reduce = torch.nn.Conv2d(32, 8, 1)
        self.se_expand = torch.nn.Conv2d(8, 32, 1)
        self.project = torch.nn.Conv2d(32, 8, 1, bias=False)
        self.project_bn = torch.nn.BatchNorm2d(8)
        self.head = torch.nn.Conv2d(8, 16, 1, bias=False)
        self.head_bn = torch.nn.BatchNorm2d(16)
        self.drop = torch.nn.Dropout(p=0.2, inplace=True)
        self.fc = torch.nn.Linear(16, 10)

    def forward(self, x):
        x = self.act(self.stem_bn(self.stem(x)))
        h = self.act(self.expand_bn(self.expand(x)))
        h = self.act(self.dw_bn(self.dw(h)))
        s = F.adaptive_avg_pool2d(h, 1)
        s = torch.sigmoid(self.se_expand(F.silu(self.se_reduce(s))))
        h = self.project_bn(self.project(h * s))
        h += x
        h = self.act(self.head_bn(self.head(h)))
        y = torch.flatten(F.adaptive_avg_pool2d(h, 1), 1)
        return self.fc(self.drop(y))


ep = torch.export.export(EfficientNetBlock().eval(), (torch.randn(1, 3, 16, 16),))
torch.export.save(ep, "tir_efficientnet_block.pt2")
'''
    t = Tir("tir_efficientnet_block", "__main__.EfficientNetBlock", src, 103)
    x = t.P.user_input("x", [1, 3, 16, 16])
    t.module("act", "torch.nn.modules.activation.SiLU")
    act = ("act", "torch.nn.modules.activation.SiLU")
    l = "x = self.act(self.stem_bn(self.stem(x)))"
    h = t.bn(l, "stem_bn", t.conv2d(l, "stem", x, 3, 8, 3, stride=2, padding=1, bias=False), 8)
    t.at(l, ["act"], act, ("silu", "function.silu"))
    x1 = t.call("silu_.default", h)
    l = "h = self.act(self.expand_bn(self.expand(x)))"
    h = t.bn(l, "expand_bn", t.conv2d(l, "expand", x1, 8, 32, 1, bias=False), 32)
    t.at(l, ["act"], act, ("silu", "function.silu"))
    h = t.call("silu_.default", h)
    l = "h = self.act(self.dw_bn(self.dw(h)))"
    h = t.bn(l, "dw_bn", t.conv2d(l, "dw", h, 32, 32, 3, padding=1, groups=32, bias=False), 32)
    t.at(l, ["act"], act, ("silu", "function.silu"))
    h = t.call("silu_.default", h)
    s = t.fn("s = F.adaptive_avg_pool2d(h, 1)", "adaptive_avg_pool2d.default", h, [1, 1])
    l = "s = torch.sigmoid(self.se_expand(F.silu(self.se_reduce(s))))"
    s = t.conv2d(l, "se_reduce", s, 32, 8, 1)
    s = t.fn(l, "silu.default", s)
    s = t.conv2d(l, "se_expand", s, 8, 32, 1)
    s = t.fn(l, "sigmoid.default", s)
    l = "h = self.project_bn(self.project(h * s))"
    h = t.fn(l, "mul.Tensor", h, s)
    h = t.bn(l, "project_bn", t.conv2d(l, "project", h, 32, 8, 1, bias=False), 8)
    h = t.fn("h += x", "add_.Tensor", h, x1)
    l = "h = self.act(self.head_bn(self.head(h)))"
    h = t.bn(l, "head_bn", t.conv2d(l, "head", h, 8, 16, 1, bias=False), 16)
    t.at(l, ["act"], act, ("silu", "function.silu"))
    h = t.call("silu_.default", h)
    l = "y = torch.flatten(F.adaptive_avg_pool2d(h, 1), 1)"
    y = t.fn(l, "adaptive_avg_pool2d.default", h, [1, 1])
    y = t.fn(l, "flatten.using_ints", y, 1)
    t.module("drop", "torch.nn.modules.dropout.Dropout")
    l = "return self.fc(self.drop(y))"
    t.at(l, ["drop"], ("drop", "torch.nn.modules.dropout.Dropout"), ("dropout", "function.dropout"))
    y = t.call("dropout_.default", y, 0.2, False)
    t.P.output(t.linear(l, "fc", y, 16, 10))
    return t


def tir_vit_block():
    src = HEADER + '''
class ViTBlock(torch.nn.Module):  # patch embedding + one pre-norm encoder block + head
    def __init__(self, dim=16, heads=2):
        super().__init__()
        self.heads = heads
        self.patch = torch.nn.Conv2d(3, dim, 8, stride=8)
        self.cls = torch.nn.Parameter(torch.zeros(1, 1, dim))
        self.pos = torch.nn.Parameter(torch.zeros(1, 5, dim))
        self.ln1 = torch.nn.LayerNorm(dim)
        self.qkv = torch.nn.Linear(dim, 3 * dim)
        self.proj = torch.nn.Linear(dim, dim)
        self.ln2 = torch.nn.LayerNorm(dim)
        self.fc1 = torch.nn.Linear(dim, 32)
        self.fc2 = torch.nn.Linear(32, dim)
        self.ln = torch.nn.LayerNorm(dim)
        self.head = torch.nn.Linear(dim, 10)

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1) + self.pos
        b, n, c = x.shape
        qkv = self.qkv(self.ln1(x)).reshape(b, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        a = F.scaled_dot_product_attention(q, k, v)
        x = x + self.proj(a.transpose(1, 2).reshape(b, n, c))
        x = x + self.fc2(F.gelu(self.fc1(self.ln2(x))))
        return self.head(self.ln(x)[:, 0])


ep = torch.export.export(ViTBlock().eval(), (torch.randn(1, 3, 16, 16),))
torch.export.save(ep, "tir_vit_block.pt2")
'''
    t = Tir("tir_vit_block", "__main__.ViTBlock", src, 104)
    cls = t.param("cls", [1, 1, 16], 0.02)
    pos = t.param("pos", [1, 5, 16], 0.02)
    x = t.P.user_input("x", [1, 3, 16, 16])
    l = "x = self.patch(x).flatten(2).transpose(1, 2)"
    h = t.conv2d(l, "patch", x, 3, 16, 8, stride=8)
    h = t.fn(l, "flatten.using_ints", h, 2)
    h = t.fn(l, "transpose.int", h, 1, 2)
    l = "x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1) + self.pos"
    e = t.fn(l, "expand.default", cls, [1, -1, -1])
    h = t.fn(l, "cat.default", [e, h], 1)
    h = t.fn(l, "add.Tensor", h, pos)
    l = "qkv = self.qkv(self.ln1(x)).reshape(b, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)"
    n1 = t.layer_norm(l, "ln1", h, 16)
    qkv = t.linear(l, "qkv", n1, 16, 48)
    qkv = t.fn(l, "reshape.default", qkv, [1, 5, 3, 2, 8])
    qkv = t.fn(l, "permute.default", qkv, [2, 0, 3, 1, 4])
    q, k, v = t.P.call(A + "unbind.int", qkv)
    t.P.nodes[-1]["outputs"] = [{"as_tensors": [{"name": r.name} for r in (q, k, v)]}]
    a = t.fn("a = F.scaled_dot_product_attention(q, k, v)", "scaled_dot_product_attention.default", q, k, v)
    l = "x = x + self.proj(a.transpose(1, 2).reshape(b, n, c))"
    a = t.fn(l, "transpose.int", a, 1, 2)
    a = t.fn(l, "reshape.default", a, [1, 5, 16])
    a = t.linear(l, "proj", a, 16, 16)
    h = t.fn(l, "add.Tensor", h, a)
    l = "x = x + self.fc2(F.gelu(self.fc1(self.ln2(x))))"
    m = t.layer_norm(l, "ln2", h, 16)
    m = t.linear(l, "fc1", m, 16, 32)
    m = t.fn(l, "gelu.default", m)
    m = t.linear(l, "fc2", m, 32, 16)
    h = t.fn(l, "add.Tensor", h, m)
    l = "return self.head(self.ln(x)[:, 0])"
    h = t.layer_norm(l, "ln", h, 16)
    h = t.fn(l, "select.int", h, 1, 0)
    t.P.output(t.linear(l, "head", h, 16, 10))
    return t


def tir_llama_decoder():
    src = HEADER + '''
class LlamaLayer(torch.nn.Module):  # embedding, RMSNorm, RoPE, KV cache, SDPA, SwiGLU MLP
    def __init__(self, vocab=32, dim=16, heads=2, max_seq=8):
        super().__init__()
        self.heads, self.hd = heads, dim // heads
        self.tok = torch.nn.Embedding(vocab, dim)
        self.norm1 = torch.nn.RMSNorm(dim, eps=1e-5)
        self.wq = torch.nn.Linear(dim, dim, bias=False)
        self.wk = torch.nn.Linear(dim, dim, bias=False)
        self.wv = torch.nn.Linear(dim, dim, bias=False)
        self.wo = torch.nn.Linear(dim, dim, bias=False)
        self.norm2 = torch.nn.RMSNorm(dim, eps=1e-5)
        self.w1 = torch.nn.Linear(dim, 32, bias=False)
        self.w3 = torch.nn.Linear(dim, 32, bias=False)
        self.w2 = torch.nn.Linear(32, dim, bias=False)
        self.register_buffer("cos", torch.randn(max_seq, self.hd))
        self.register_buffer("sin", torch.randn(max_seq, self.hd))
        self.register_buffer("mask", torch.ones(max_seq, max_seq, dtype=torch.bool).tril())
        self.register_buffer("k_cache", torch.zeros(1, heads, max_seq, self.hd))
        self.register_buffer("v_cache", torch.zeros(1, heads, max_seq, self.hd))

    def rope(self, x, cos, sin):
        x1 = x[..., : self.hd // 2]
        x2 = x[..., self.hd // 2 :]
        return x * cos + torch.cat((-x2, x1), dim=-1) * sin

    def forward(self, tokens, input_pos):
        h = self.tok(tokens)
        x = self.norm1(h)
        q = self.wq(x).view(1, 4, self.heads, self.hd).transpose(1, 2)
        k = self.wk(x).view(1, 4, self.heads, self.hd).transpose(1, 2)
        v = self.wv(x).view(1, 4, self.heads, self.hd).transpose(1, 2)
        cos, sin = self.cos[input_pos], self.sin[input_pos]
        q, k = self.rope(q, cos, sin), self.rope(k, cos, sin)
        self.k_cache.index_copy_(2, input_pos, k)
        self.v_cache[:, :, :4] = v
        mask = self.mask[input_pos]
        a = F.scaled_dot_product_attention(q, self.k_cache, self.v_cache, attn_mask=mask)
        h = h + self.wo(a.transpose(1, 2).contiguous().view(1, 4, -1))
        x = self.norm2(h)
        return h + self.w2(F.silu(self.w1(x)) * self.w3(x))


m = LlamaLayer().eval()
ep = torch.export.export(m, (torch.tensor([[1, 5, 7, 2]]), torch.arange(4)))
torch.export.save(ep, "tir_llama_decoder.pt2")
'''
    t = Tir("tir_llama_decoder", "__main__.LlamaLayer", src, 105)
    t.module("tok", "torch.nn.modules.sparse.Embedding")
    emb = t.param("tok.weight", [32, 16], 1.0)
    t.module("norm1", "torch.nn.modules.normalization.RMSNorm")
    n1w = t.P.parameter("norm1.weight", [16], [B.f32(1.0 + v) for v in t.rng.uniforms(16, 0.1)])
    t.module("norm2", "torch.nn.modules.normalization.RMSNorm")
    n2w = t.P.parameter("norm2.weight", [16], [B.f32(1.0 + v) for v in t.rng.uniforms(16, 0.1)])
    cos = t.P.buffer("cos", [8, 8], t.rng.uniforms(64, 1.0))
    sin = t.P.buffer("sin", [8, 8], t.rng.uniforms(64, 1.0))
    mask = t.P.buffer("mask", [8, 8], [i >= j for i in range(8) for j in range(8)], S.BOOL)
    kc = t.P.buffer("k_cache", [1, 2, 8, 8], [0.0] * 128)
    vc = t.P.buffer("v_cache", [1, 2, 8, 8], [0.0] * 128)
    tokens = t.P.user_input("tokens", [1, 4], S.LONG)
    pos = t.P.user_input("input_pos", [4], S.LONG)
    t.at("h = self.tok(tokens)", ["tok"], ("tok", "torch.nn.modules.sparse.Embedding"), ("embedding", "function.embedding"))
    h = t.call("embedding.default", emb, tokens)
    t.at("x = self.norm1(h)", ["norm1"], ("norm1", "torch.nn.modules.normalization.RMSNorm"), ("rms_norm", "function.rms_norm"))
    x = t.call("rms_norm.default", h, [16], n1w, 1e-05)
    heads = []
    for nm, line in (("wq", "q = self.wq(x).view(1, 4, self.heads, self.hd).transpose(1, 2)"),
                     ("wk", "k = self.wk(x).view(1, 4, self.heads, self.hd).transpose(1, 2)"),
                     ("wv", "v = self.wv(x).view(1, 4, self.heads, self.hd).transpose(1, 2)")):
        y = t.linear(line, nm, x, 16, 16, bias=False)
        y = t.fn(line, "view.default", y, [1, 4, 2, 8])
        heads.append(t.fn(line, "transpose.int", y, 1, 2))
    q, k, v = heads
    l = "cos, sin = self.cos[input_pos], self.sin[input_pos]"
    c = t.fn(l, "index.Tensor", cos, [pos])
    s = t.fn(l, "index.Tensor", sin, [pos])

    def rope(z):
        z1 = t.fn("x1 = x[..., : self.hd // 2]", "slice.Tensor", z, 3, 0, 4)
        z2 = t.fn("x2 = x[..., self.hd // 2 :]", "slice.Tensor", z, 3, 4, 9223372036854775807)
        l2 = "return x * cos + torch.cat((-x2, x1), dim=-1) * sin"
        a1 = t.fn(l2, "mul.Tensor", z, c)
        ng = t.fn(l2, "neg.default", z2)
        ct = t.fn(l2, "cat.default", [ng, z1], -1)
        a2 = t.fn(l2, "mul.Tensor", ct, s)
        return t.fn(l2, "add.Tensor", a1, a2)

    q, k = rope(q), rope(k)
    t.fn("self.k_cache.index_copy_(2, input_pos, k)", "index_copy_.default", kc, 2, pos, k)
    l = "self.v_cache[:, :, :4] = v"
    vs = t.fn(l, "slice.Tensor", vc, 2, 0, 4)
    t.fn(l, "copy_.default", vs, v)
    m = t.fn("mask = self.mask[input_pos]", "index.Tensor", mask, [pos])
    a = t.fn("a = F.scaled_dot_product_attention(q, self.k_cache, self.v_cache, attn_mask=mask)",
             "scaled_dot_product_attention.default", q, kc, vc, m)
    l = "h = h + self.wo(a.transpose(1, 2).contiguous().view(1, 4, -1))"
    a = t.fn(l, "transpose.int", a, 1, 2)
    a = t.fn(l, "contiguous.default", a)
    a = t.fn(l, "view.default", a, [1, 4, -1])
    a = t.linear(l, "wo", a, 16, 16, bias=False)
    h = t.fn(l, "add.Tensor", h, a)
    t.at("x = self.norm2(h)", ["norm2"], ("norm2", "torch.nn.modules.normalization.RMSNorm"), ("rms_norm", "function.rms_norm"))
    x = t.call("rms_norm.default", h, [16], n2w, 1e-05)
    l = "return h + self.w2(F.silu(self.w1(x)) * self.w3(x))"
    g = t.linear(l, "w1", x, 16, 32, bias=False)
    g = t.fn(l, "silu.default", g)
    u = t.linear(l, "w3", x, 16, 32, bias=False)
    g = t.fn(l, "mul.Tensor", g, u)
    g = t.linear(l, "w2", g, 32, 16, bias=False)
    t.P.output(t.fn(l, "add.Tensor", h, g))
    return t


def tir_gpt2_block():
    src = HEADER + '''
class GPT2Block(torch.nn.Module):  # pre-norm causal self-attention + GELU(tanh) MLP
    def __init__(self, dim=16, heads=2):
        super().__init__()
        self.heads = heads
        self.ln_1 = torch.nn.LayerNorm(dim)
        self.c_attn = torch.nn.Linear(dim, 3 * dim)
        self.c_proj = torch.nn.Linear(dim, dim)
        self.ln_2 = torch.nn.LayerNorm(dim)
        self.c_fc = torch.nn.Linear(dim, 4 * dim)
        self.mlp_proj = torch.nn.Linear(4 * dim, dim)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.c_attn(self.ln_1(x)).split(c, dim=2)
        q = q.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        k = k.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.c_proj(y.transpose(1, 2).contiguous().view(b, t, c))
        return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))


ep = torch.export.export(GPT2Block().eval(), (torch.randn(1, 4, 16),))
torch.export.save(ep, "tir_gpt2_block.pt2")
'''
    t = Tir("tir_gpt2_block", "__main__.GPT2Block", src, 106)
    x = t.P.user_input("x", [1, 4, 16])
    l = "q, k, v = self.c_attn(self.ln_1(x)).split(c, dim=2)"
    n = t.layer_norm(l, "ln_1", x, 16)
    qkv = t.linear(l, "c_attn", n, 16, 48)
    t.at(l, [], ("split", "torch.Tensor.split"), ("split", "method_descriptor.split"))
    q, k, v = t.call_list("split.Tensor", qkv, 16, 2)
    hs = []
    for z, line in ((q, "q = q.view(b, t, self.heads, c // self.heads).transpose(1, 2)"),
                    (k, "k = k.view(b, t, self.heads, c // self.heads).transpose(1, 2)"),
                    (v, "v = v.view(b, t, self.heads, c // self.heads).transpose(1, 2)")):
        z = t.fn(line, "view.default", z, [1, 4, 2, 8])
        hs.append(t.fn(line, "transpose.int", z, 1, 2))
    y = t.fn("y = F.scaled_dot_product_attention(q, k, v, is_causal=True)",
             "scaled_dot_product_attention.default", hs[0], hs[1], hs[2], None, 0.0, True)
    l = "x = x + self.c_proj(y.transpose(1, 2).contiguous().view(b, t, c))"
    y = t.fn(l, "transpose.int", y, 1, 2)
    y = t.fn(l, "contiguous.default", y)
    y = t.fn(l, "view.default", y, [1, 4, 16])
    y = t.linear(l, "c_proj", y, 16, 16)
    x2 = t.fn(l, "add.Tensor", x, y)
    l = 'return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))'
    m = t.layer_norm(l, "ln_2", x2, 16)
    m = t.linear(l, "c_fc", m, 16, 64)
    m = t.fn(l, "gelu.default", m, approximate="tanh")
    m = t.linear(l, "mlp_proj", m, 64, 16)
    t.P.output(t.fn(l, "add.Tensor", x2, m))
    return t


def tir_lstm_cell():
    src = HEADER + '''
class LSTMCellUnrolled(torch.nn.Module):  # an LSTM layer as its training IR shows it decomposed
    def __init__(self, n_in=4, hidden=5):
        super().__init__()
        self.ih = torch.nn.Linear(n_in, 4 * hidden)
        self.hh = torch.nn.Linear(hidden, 4 * hidden)

    def forward(self, x, h, c):  # x: [T, B, n_in]; h, c: [1, B, hidden]
        steps = []
        for xt in self.ih(x):
            gates = self.hh(h) + xt
            i, f, g, o = gates.chunk(4, 2)
            c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
            h = torch.sigmoid(o) * torch.tanh(c)
            steps.append(h)
        return torch.cat(steps, 0), torch.stack([h.squeeze(0), c.squeeze(0)], 0)


ep = torch.export.export(LSTMCellUnrolled().eval(), (torch.randn(3, 1, 4), torch.zeros(1, 1, 5), torch.zeros(1, 1, 5)))
torch.export.save(ep, "tir_lstm_cell.pt2")
'''
    t = Tir("tir_lstm_cell", "__main__.LSTMCellUnrolled", src, 107)
    x = t.P.user_input("x", [3, 1, 4])
    h = t.P.user_input("h", [1, 1, 5])
    c = t.P.user_input("c", [1, 1, 5])
    pre = t.linear("for xt in self.ih(x):", "ih", x, 4, 20)
    t.at("for xt in self.ih(x):", [], ("unbind", "torch.Tensor.unbind"), ("unbind", "method_descriptor.unbind"))
    xs = t.call_list("unbind.int", pre)
    steps = []
    for xt in xs:
        g = t.linear("gates = self.hh(h) + xt", "hh", h, 5, 20) if not steps else \
            t.call("linear.default", h, t.P.state["hh.weight"]["ref"], t.P.state["hh.bias"]["ref"])
        g = t.fn("gates = self.hh(h) + xt", "add.Tensor", g, xt)
        t.at("i, f, g, o = gates.chunk(4, 2)", [], ("chunk", "torch.Tensor.chunk"), ("chunk", "method_descriptor.chunk"))
        i, f, gg, o = t.call_list("chunk.default", g, 4, 2)
        l = "c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)"
        sf = t.fn(l, "sigmoid.default", f)
        a = t.fn(l, "mul.Tensor", sf, c)
        si = t.fn(l, "sigmoid.default", i)
        tg = t.fn(l, "tanh.default", gg)
        b = t.fn(l, "mul.Tensor", si, tg)
        c = t.fn(l, "add.Tensor", a, b)
        l = "h = torch.sigmoid(o) * torch.tanh(c)"
        so = t.fn(l, "sigmoid.default", o)
        tc = t.fn(l, "tanh.default", c)
        h = t.fn(l, "mul.Tensor", so, tc)
        steps.append(h)
    l = "return torch.cat(steps, 0), torch.stack([h.squeeze(0), c.squeeze(0)], 0)"
    out = t.fn(l, "cat.default", steps)
    hs = t.fn(l, "squeeze.dim", h, 0)
    cs = t.fn(l, "squeeze.dim", c, 0)
    st = t.fn(l, "stack.default", [hs, cs])
    t.P.output(out)
    t.P.output(st)
    return t


def tir_rnn_ops():
    src = HEADER + '''
class Recurrent(torch.nn.Module):  # nn.LSTM and nn.GRU as aten.lstm.input / aten.gru.input nodes
    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(4, 5, batch_first=True)
        self.gru = torch.nn.GRU(5, 3, bidirectional=True)

    def forward(self, x, h0, c0, g0):  # x: [B=1, T=3, 4]
        y, (h, c) = self.lstm(x, (h0, c0))
        z, g = self.gru(y.transpose(0, 1), g0)
        return z, h, c, g


ep = torch.export.export(Recurrent().eval(), (torch.randn(1, 3, 4), torch.zeros(1, 1, 5), torch.zeros(1, 1, 5), torch.zeros(2, 1, 3)))
torch.export.save(ep, "tir_rnn_ops.pt2")
'''
    t = Tir("tir_rnn_ops", "__main__.Recurrent", src, 108)
    t.module("lstm", "torch.nn.modules.rnn.LSTM")
    lp = [t.param("lstm.weight_ih_l0", [20, 4], 0.4), t.param("lstm.weight_hh_l0", [20, 5], 0.4),
          t.param("lstm.bias_ih_l0", [20], 0.4), t.param("lstm.bias_hh_l0", [20], 0.4)]
    t.module("gru", "torch.nn.modules.rnn.GRU")
    gp = []
    for sfx in ("l0", "l0_reverse"):
        gp += [t.param("gru.weight_ih_" + sfx, [9, 5], 0.5), t.param("gru.weight_hh_" + sfx, [9, 3], 0.5),
               t.param("gru.bias_ih_" + sfx, [9], 0.5), t.param("gru.bias_hh_" + sfx, [9], 0.5)]
    x = t.P.user_input("x", [1, 3, 4])
    h0 = t.P.user_input("h0", [1, 1, 5])
    c0 = t.P.user_input("c0", [1, 1, 5])
    g0 = t.P.user_input("g0", [2, 1, 3])
    t.at("y, (h, c) = self.lstm(x, (h0, c0))", ["lstm"], ("lstm", "torch.nn.modules.rnn.LSTM"), ("lstm", "builtin_function_or_method.lstm"))
    y, h, c = t.call("lstm.input", x, [h0, c0], lp, True, 1, 0.0, False, False, True)
    l = "z, g = self.gru(y.transpose(0, 1), g0)"
    yt = t.fn(l, "transpose.int", y, 0, 1)
    t.at(l, ["gru"], ("gru", "torch.nn.modules.rnn.GRU"), ("gru", "builtin_function_or_method.gru"))
    z, g = t.call("gru.input", yt, g0, gp, True, 1, 0.0, False, True, False)
    for r in (z, h, c, g):
        t.P.output(r)
    return t


def tir_dynamic_batch():
    src = HEADER + '''
class DynamicBatch(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 6)
        self.w = torch.nn.Parameter(torch.randn(6, 3))

    def forward(self, x):
        return torch.matmul(torch.relu(self.fc(x)), self.w)


batch = torch.export.Dim("batch", min=2, max=32)
ep = torch.export.export(DynamicBatch().eval(), (torch.randn(3, 4, 8),), dynamic_shapes={"x": {0: batch}})
torch.export.save(ep, "tir_dynamic_batch.pt2")
'''
    t = Tir("tir_dynamic_batch", "__main__.DynamicBatch", src, 109)
    s0 = t.P.symbol("s0", 3, 2, 32)
    w = t.param("w", [6, 3], 0.4)
    x = t.P.user_input("x", [s0, 4, 8])
    l = "return torch.matmul(torch.relu(self.fc(x)), self.w)"
    y = t.linear(l, "fc", x, 8, 6)
    y = t.fn(l, "relu.default", y)
    t.P.output(t.fn(l, "matmul.default", y, w))
    return t


FIXTURES = [
    ("tir_resnet_block", tir_resnet_block),
    ("tir_mobilenet_v3_block", tir_mobilenet_v3_block),
    ("tir_efficientnet_block", tir_efficientnet_block),
    ("tir_vit_block", tir_vit_block),
    ("tir_gpt2_block", tir_gpt2_block),
    ("tir_llama_decoder", tir_llama_decoder),
    ("tir_lstm_cell", tir_lstm_cell),
    ("tir_rnn_ops", tir_rnn_ops),
    ("tir_dynamic_batch", tir_dynamic_batch),
]


def check(out, names):
    """Archive-level checks of scripts/check_fixtures.py on the written folders."""
    import check_fixtures
    errors = 0
    for name in names:
        rep, _ = check_fixtures.check_archive_dir(os.path.join(out, name))
        # The checker expects every single-output node to define its own name; a Tensor[]
        # output (split, unbind, chunk) defines getitem names instead (torch-export-format.md
        # §5.3), so that rule does not apply to these nodes.
        errs = [e for e in rep.errors if "single-output node" not in e]
        errors += len(errs)
        print("%-4s %s" % ("FAIL" if errs else "ok", rep.where))
        for e in errs:
            print("     error: " + e)
        for n in rep.notes:
            print("     note: " + n)
    return errors


def main(argv):
    out = OUT
    names = []
    do_check = False
    i = 0
    while i < len(argv):
        if argv[i] == "--out":
            out = argv[i + 1]
            i += 2
            continue
        if argv[i] == "--check":
            do_check = True
        else:
            names.append(argv[i])
        i += 1
    os.makedirs(out, exist_ok=True)
    written = []
    for name, fn in FIXTURES:
        if names and name not in names:
            continue
        fn().write(out)
        written.append(name)
        print("wrote", os.path.join(out, name))
    if do_check and check(out, written):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
