"""A tiny float64 reference evaluator for torch.export graphs (the ops our fixtures use).

Pure Python, no NumPy: tensors are flat row-major lists of Python numbers plus a shape.
Floats are evaluated in float64; integer tensors stay Python ints; bool tensors are bools.

  load_state(root, model)            -> {placeholder name: Tensor} for params/buffers/constants
  run_method(root, model, inputs, state=None) -> (outputs, mutations)
  check_io(root, io_json_path)       -> (number of runs evaluated, [error strings])

It implements operator semantics from the ATen schemas (native_functions.yaml) — it does not
know anything about how a particular fixture was built, so it cross-checks the serialized graph
against expected outputs that were computed from the model definition.
"""

import json
import math
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pt2_schema as S  # noqa: E402

_STRUCT = {7: "f", 8: "d", 5: "q", 4: "i", 3: "h", 2: "b", 1: "B", 12: "?"}


class Tensor:
    __slots__ = ("shape", "data", "dtype")

    def __init__(self, shape, data, dtype):
        self.shape = list(shape)
        self.data = data
        self.dtype = dtype
        n = numel(self.shape)
        if len(data) != n:
            raise ValueError("tensor of shape %s needs %d values, got %d" % (shape, n, len(data)))

    def __repr__(self):
        return "Tensor(%s, %s)" % (self.shape, S.DTYPES[self.dtype][0])


def numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def cstrides(shape):
    st, acc = [], 1
    for s in reversed(shape):
        st.append(acc)
        acc *= s
    return list(reversed(st))


def _index_map(in_shape, in_strides, out_shape):
    """For every out flat index, the flat index into the input (strides may be 0)."""
    n = numel(out_shape)
    rank = len(out_shape)
    idx = [0] * n
    if rank == 0:
        return [0] * n
    ost = cstrides(out_shape)
    for flat in range(n):
        rem, off = flat, 0
        for d in range(rank):
            i, rem = divmod(rem, ost[d])
            off += i * in_strides[d]
        idx[flat] = off
    return idx


def _bcast_strides(shape, out_shape):
    lead = len(out_shape) - len(shape)
    st = cstrides(shape)
    return [0] * lead + [0 if shape[i] == 1 and out_shape[lead + i] != 1 else st[i]
                         for i in range(len(shape))]


def broadcast_shape(*shapes):
    rank = max(len(s) for s in shapes)
    out = []
    for i in range(rank):
        dims = {s[i - rank + len(s)] for s in shapes if i - rank + len(s) >= 0} - {1}
        if len(dims) > 1:
            raise ValueError("cannot broadcast %s" % (shapes,))
        out.append(dims.pop() if dims else 1)
    return out


def expand_to(t, shape):
    if t.shape == list(shape):
        return t.data
    m = _index_map(t.shape, _bcast_strides(t.shape, shape), shape)
    return [t.data[i] for i in m]


def _is_float(dt):
    return dt in S.FLOATING


def _promote(ts, scalars):
    dts = [t.dtype for t in ts if t.shape] or [t.dtype for t in ts]
    dt = dts[0]
    for d in dts[1:]:
        if d != dt:
            dt = d if _is_float(d) else dt
    if not _is_float(dt) and any(isinstance(s, float) for s in scalars):
        return S.FLOAT
    return dt


def _cast(v, dt):
    if dt == S.BOOL:
        return bool(v)
    if _is_float(dt):
        return float(v)
    return int(v)


def pointwise(fn, args, out_dtype=None):
    ts = [a for a in args if isinstance(a, Tensor)]
    shape = broadcast_shape(*[t.shape for t in ts])
    cols = [expand_to(a, shape) if isinstance(a, Tensor) else None for a in args]
    n = numel(shape)
    dt = out_dtype if out_dtype is not None else _promote(ts, [a for a in args
                                                               if not isinstance(a, Tensor)])
    out = []
    for i in range(n):
        vals = [c[i] if c is not None else a for c, a in zip(cols, args)]
        out.append(_cast(fn(*vals), dt))
    return Tensor(shape, out, dt)


def _matmul2(a, b, m, k, n, a_off=0, b_off=0):
    out = [0.0] * (m * n)
    for i in range(m):
        for p in range(k):
            av = a[a_off + i * k + p]
            if av == 0.0:
                continue
            row = b_off + p * n
            base = i * n
            for j in range(n):
                out[base + j] += av * b[row + j]
    return out


def permute(t, dims):
    dims = [d % len(t.shape) for d in dims] if t.shape else []
    st = cstrides(t.shape)
    shape = [t.shape[d] for d in dims]
    m = _index_map(shape, [st[d] for d in dims], shape)
    return Tensor(shape, [t.data[i] for i in m], t.dtype)


def reshape(t, size):
    size = list(size)
    if -1 in size:
        i = size.index(-1)
        rest = numel([s for j, s in enumerate(size) if j != i])
        size[i] = numel(t.shape) // rest
    return Tensor(size, list(t.data), t.dtype)


def _gelu(v, approximate):
    if approximate == "tanh":
        return 0.5 * v * (1.0 + math.tanh(math.sqrt(2.0 / math.pi) * (v + 0.044715 * v ** 3)))
    return 0.5 * v * (1.0 + math.erf(v / math.sqrt(2.0)))


def _sigmoid(v):
    if v >= 0:
        return 1.0 / (1.0 + math.exp(-v))
    e = math.exp(v)
    return e / (1.0 + e)


def softmax(t, dim):
    dim %= len(t.shape)
    outer = numel(t.shape[:dim])
    n = t.shape[dim]
    inner = numel(t.shape[dim + 1:])
    out = [0.0] * len(t.data)
    for o in range(outer):
        for i in range(inner):
            idx = [o * n * inner + k * inner + i for k in range(n)]
            mx = max(t.data[j] for j in idx)
            if mx == float("-inf"):
                for j in idx:
                    out[j] = float("nan")
                continue
            es = [math.exp(t.data[j] - mx) for j in idx]
            s = sum(es)
            for j, e in zip(idx, es):
                out[j] = e / s
    return Tensor(t.shape, out, t.dtype)


def reduce_dims(t, dims, keepdim, fn):
    rank = len(t.shape)
    dims = sorted({d % rank for d in dims}) if dims else list(range(rank))
    keep = [i for i in range(rank) if i not in dims]
    out_shape_keep = [t.shape[i] if i in keep else 1 for i in range(rank)]
    groups = {}
    st = cstrides(t.shape)
    for flat in range(len(t.data)):
        rem, key = flat, 0
        okey = []
        for d in range(rank):
            i, rem = divmod(rem, st[d])
            okey.append(i if d in keep else 0)
        ost = cstrides(out_shape_keep)
        key = sum(a * b for a, b in zip(okey, ost))
        groups.setdefault(key, []).append(t.data[flat])
    data = [fn(groups[k]) for k in range(numel(out_shape_keep))]
    shape = out_shape_keep if keepdim else [t.shape[i] for i in keep]
    return Tensor(shape, data, t.dtype)


def layer_norm(x, normalized_shape, w, b, eps):
    k = numel(normalized_shape)
    rows = len(x.data) // k
    out, means, rstds = [], [], []
    for r in range(rows):
        seg = x.data[r * k:(r + 1) * k]
        mu = sum(seg) / k
        var = sum((v - mu) ** 2 for v in seg) / k
        rs = 1.0 / math.sqrt(var + eps)
        means.append(mu)
        rstds.append(rs)
        for j, v in enumerate(seg):
            y = (v - mu) * rs
            if w is not None:
                y *= w.data[j]
            if b is not None:
                y += b.data[j]
            out.append(y)
    axis = len(x.shape) - len(normalized_shape)
    stat = x.shape[:axis] + [1] * len(normalized_shape)
    return [Tensor(x.shape, out, x.dtype), Tensor(stat, means, x.dtype),
            Tensor(stat, rstds, x.dtype)]


def batch_norm_eval(x, w, b, rm, rv, eps):
    c = x.shape[1]
    inner = numel(x.shape[2:])
    out = list(x.data)
    for i in range(len(out)):
        ch = (i // inner) % c
        y = (out[i] - rm.data[ch]) / math.sqrt(rv.data[ch] + eps)
        if w is not None:
            y *= w.data[ch]
        if b is not None:
            y += b.data[ch]
        out[i] = y
    return Tensor(x.shape, out, x.dtype)


def conv2d(x, w, bias, stride, padding, dilation, groups):
    n, cin, h, wd = x.shape
    cout, cpg, kh, kw = w.shape
    sh, sw = S._pair(stride)
    ph, pw = S._pair(padding)
    dh, dw = S._pair(dilation)
    oh = S._conv_out(h, kh, sh, ph, dh)
    ow = S._conv_out(wd, kw, sw, pw, dw)
    out = [0.0] * (n * cout * oh * ow)
    opg = cout // groups
    for b_ in range(n):
        for co in range(cout):
            g = co // opg
            for oy in range(oh):
                for ox in range(ow):
                    acc = bias.data[co] if bias is not None else 0.0
                    for ci in range(cpg):
                        cin_i = g * cpg + ci
                        for ky in range(kh):
                            iy = oy * sh - ph + ky * dh
                            if iy < 0 or iy >= h:
                                continue
                            for kx in range(kw):
                                ix = ox * sw - pw + kx * dw
                                if ix < 0 or ix >= wd:
                                    continue
                                acc += x.data[((b_ * cin + cin_i) * h + iy) * wd + ix] * \
                                    w.data[((co * cpg + ci) * kh + ky) * kw + kx]
                    out[((b_ * cout + co) * oh + oy) * ow + ox] = acc
    return Tensor([n, cout, oh, ow], out, x.dtype)


def pool2d(x, kernel, stride, padding, dilation, ceil_mode, mode, count_include_pad=True,
           divisor_override=None):
    kh, kw = S._pair(kernel)
    sh, sw = S._pair(stride) if stride else (kh, kw)
    ph, pw = S._pair(padding)
    dh, dw = S._pair(dilation)
    lead = x.shape[:-2]
    h, w = x.shape[-2:]
    oh = S._pool_out(h, kh, sh, ph, dh, ceil_mode)
    ow = S._pool_out(w, kw, sw, pw, dw, ceil_mode)
    planes = numel(lead)
    out, idx = [], []
    for p in range(planes):
        base = p * h * w
        for oy in range(oh):
            for ox in range(ow):
                vals = []
                cnt_pad = 0
                for ky in range(kh):
                    iy = oy * sh - ph + ky * dh
                    for kx in range(kw):
                        ix = ox * sw - pw + kx * dw
                        if mode == "avg" and -ph <= iy < h + ph and -pw <= ix < w + pw:
                            cnt_pad += 1
                        if 0 <= iy < h and 0 <= ix < w:
                            vals.append((x.data[base + iy * w + ix], iy * w + ix))
                if mode == "max":
                    best = None
                    for v, i in vals:
                        if best is None or v > best[0] or math.isnan(v):
                            best = (v, i)
                    out.append(best[0])
                    idx.append(best[1])
                else:
                    div = divisor_override or (cnt_pad if count_include_pad else len(vals))
                    out.append(sum(v for v, _ in vals) / div)
    shape = lead + [oh, ow]
    res = [Tensor(shape, out, x.dtype)]
    if mode == "max":
        res.append(Tensor(shape, idx, S.LONG))
    return res


def adaptive_avg_pool2d(x, output_size):
    oh, ow = output_size
    lead = x.shape[:-2]
    h, w = x.shape[-2:]
    out = []
    for p in range(numel(lead)):
        base = p * h * w
        for oy in range(oh):
            y0, y1 = (oy * h) // oh, -((-(oy + 1) * h) // oh)
            for ox in range(ow):
                x0, x1 = (ox * w) // ow, -((-(ox + 1) * w) // ow)
                vals = [x.data[base + iy * w + ix] for iy in range(y0, y1) for ix in range(x0, x1)]
                out.append(sum(vals) / len(vals))
    return Tensor(lead + [oh, ow], out, x.dtype)


# ---------------------------------------------------------------------------------------------
# Node dispatch
# ---------------------------------------------------------------------------------------------

def call(target, a):
    """Evaluate one node: `a` maps schema argument names to values (defaults filled)."""
    if target == "_operator.mul":
        return [a["a"] * a["b"]]
    if target == "_operator.add":
        return [a["a"] + a["b"]]
    if target == "_operator.floordiv":
        return [a["a"] // a["b"]]
    op, _, overload = target[len("torch.ops.aten."):].rpartition(".")
    if op == "sym_size":
        return [a["self"].shape[a["dim"]]]
    if op == "permute":
        return [permute(a["self"], a["dims"])]
    if op in ("view", "_unsafe_view", "reshape"):
        return [reshape(a["self"], a["size"])]
    if op == "flatten":
        t = a["self"]
        rank = len(t.shape)
        s, e = a["start_dim"] % rank, a["end_dim"] % rank
        return [reshape(t, t.shape[:s] + [numel(t.shape[s:e + 1])] + t.shape[e + 1:])]
    if op == "expand":
        t = a["self"]
        lead = len(a["size"]) - len(t.shape)
        shape = [t.shape[i - lead] if n == -1 else n for i, n in enumerate(a["size"])]
        return [Tensor(shape, expand_to(t, shape), t.dtype)]
    if op in ("clone", "alias"):
        t = a["self"]
        return [Tensor(t.shape, list(t.data), t.dtype)]
    if op == "dropout":
        if a["train"]:
            raise S.Unsupported("dropout in training mode")
        t = a["input"]
        return [Tensor(t.shape, list(t.data), t.dtype)]
    if op in ("addmm", "mm", "bmm", "linear"):
        if op == "bmm":
            x, y = a["self"], a["mat2"]
            b, m, k = x.shape
            n = y.shape[2]
            data = []
            for i in range(b):
                data += _matmul2(x.data, y.data, m, k, n, i * m * k, i * k * n)
            return [Tensor([b, m, n], data, x.dtype)]
        if op == "linear":
            x, w = a["input"], a["weight"]
            k = x.shape[-1]
            m = len(x.data) // k
            n = w.shape[0]
            wt = permute(w, [1, 0])
            data = _matmul2(x.data, wt.data, m, k, n)
            out = Tensor(x.shape[:-1] + [n], data, x.dtype)
            if a.get("bias") is not None:
                out = pointwise(lambda u, v: u + v, [out, a["bias"]])
            return [out]
        m1 = a["mat1"] if op == "addmm" else a["self"]
        m2 = a["mat2"]
        m, k = m1.shape
        n = m2.shape[1]
        out = Tensor([m, n], _matmul2(m1.data, m2.data, m, k, n), m1.dtype)
        if op == "addmm":
            beta, alpha = a["beta"], a["alpha"]
            out = pointwise(lambda s_, p: beta * s_ + alpha * p, [a["self"], out])
        return [out]
    unary = {
        "relu": lambda v: v if v > 0 else 0.0,
        "sigmoid": _sigmoid,
        "tanh": math.tanh,
        "exp": math.exp,
        "neg": lambda v: -v,
        "sqrt": math.sqrt,
        "rsqrt": lambda v: 1.0 / math.sqrt(v),
    }
    if op in unary:
        return [pointwise(unary[op], [a["self"]])]
    if op == "gelu":
        ap = a["approximate"]
        return [pointwise(lambda v: _gelu(v, ap), [a["self"]])]
    if op in ("add", "sub"):
        alpha = a["alpha"]
        sign = 1 if op == "add" else -1
        return [pointwise(lambda u, v: u + sign * alpha * v, [a["self"], a["other"]])]
    if op == "rsub":
        alpha = a["alpha"]
        return [pointwise(lambda u, v: v - alpha * u, [a["self"], a["other"]])]
    if op == "mul":
        return [pointwise(lambda u, v: u * v, [a["self"], a["other"]])]
    if op == "div":
        return [pointwise(lambda u, v: u / v, [a["self"], a["other"]])]
    if op == "pow":
        return [pointwise(lambda u, v: u ** v, [a["self"], a["exponent"]])]
    cmp = {"le": lambda u, v: u <= v, "lt": lambda u, v: u < v, "ge": lambda u, v: u >= v,
           "gt": lambda u, v: u > v, "eq": lambda u, v: u == v, "ne": lambda u, v: u != v}
    if op in cmp:
        return [pointwise(cmp[op], [a["self"], a["other"]], S.BOOL)]
    if op == "where":
        return [pointwise(lambda c, u, v: u if c else v, [a["condition"], a["self"], a["other"]],
                          _promote([t for t in (a["self"], a["other"]) if isinstance(t, Tensor)],
                                   []))]
    if op == "masked_fill":
        val = a["value"]
        return [pointwise(lambda u, m: val if m else u, [a["self"], a["mask"]], a["self"].dtype)]
    if op == "threshold_backward":
        th = a["threshold"]
        return [pointwise(lambda g, s_: 0.0 if s_ <= th else g, [a["grad_output"], a["self"]])]
    if op == "_softmax":
        return [softmax(a["self"], a["dim"])]
    if op == "native_layer_norm":
        return layer_norm(a["input"], a["normalized_shape"], a["weight"], a["bias"], a["eps"])
    if op == "_native_batch_norm_legit_no_training":
        x = a["input"]
        out = batch_norm_eval(x, a["weight"], a["bias"], a["running_mean"], a["running_var"],
                              a["eps"])
        return [out, Tensor([0], [], x.dtype), Tensor([0], [], x.dtype)]
    if op == "batch_norm":
        if a["training"]:
            raise S.Unsupported("batch_norm in training mode")
        return [batch_norm_eval(a["input"], a["weight"], a["bias"], a["running_mean"],
                                a["running_var"], a["eps"])]
    if op in ("convolution", "conv2d"):
        if op == "convolution" and a["transposed"]:
            raise S.Unsupported("transposed convolution")
        return [conv2d(a["input"], a["weight"], a.get("bias"), a["stride"], a["padding"],
                       a["dilation"], a["groups"])]
    if op == "max_pool2d_with_indices":
        return pool2d(a["self"], a["kernel_size"], a["stride"], a["padding"], a["dilation"],
                      a["ceil_mode"], "max")
    if op == "avg_pool2d":
        return pool2d(a["self"], a["kernel_size"], a["stride"], a["padding"], 1, a["ceil_mode"],
                      "avg", a["count_include_pad"], a["divisor_override"])[:1]
    if op in ("adaptive_avg_pool2d", "_adaptive_avg_pool2d"):
        return [adaptive_avg_pool2d(a["self"], a["output_size"])]
    if op == "mean":
        t = a["self"]
        if overload == "default":
            return [Tensor([], [sum(t.data) / len(t.data)], t.dtype)]
        return [reduce_dims(t, a["dim"], a["keepdim"], lambda v: sum(v) / len(v))]
    if op == "sum":
        t = a["self"]
        if overload == "default":
            return [Tensor([], [sum(t.data)], t.dtype)]
        return [reduce_dims(t, a["dim"], a["keepdim"], sum)]
    if op == "full":
        fill = a["fill_value"]
        dt = a["dtype"] if a.get("dtype") is not None else (
            S.FLOAT if isinstance(fill, float) else S.LONG)
        return [Tensor(a["size"], [_cast(fill, dt)] * numel(a["size"]), dt)]
    if op == "full_like":
        t = a["self"]
        dt = a["dtype"] if a.get("dtype") is not None else t.dtype
        return [Tensor(t.shape, [_cast(a["fill_value"], dt)] * len(t.data), dt)]
    raise S.Unsupported("no evaluator for " + target)


# ---------------------------------------------------------------------------------------------
# Programs
# ---------------------------------------------------------------------------------------------

def _decode(arg, env):
    tag, v = next(iter(arg.items()))
    if tag == "as_tensor":
        return env[v["name"]]
    if tag == "as_tensors":
        return [env[t["name"]] for t in v]
    if tag == "as_sym_int":
        return env[v["as_name"]] if "as_name" in v else v["as_int"]
    if tag == "as_sym_ints":
        return [env[e["as_name"]] if "as_name" in e else e["as_int"] for e in v]
    if tag == "as_float":
        return _to_float(v)
    if tag == "as_floats":
        return [_to_float(x) for x in v]
    if tag == "as_none":
        return None
    return v


def _to_float(v):
    if isinstance(v, str):
        return {"Infinity": float("inf"), "-Infinity": float("-inf"), "NaN": float("nan")}[v]
    return float(v)


def _load_json(path):
    with open(path) as f:
        return json.load(f)


def load_state(root, model):
    """Materialize every parameter/buffer/constant of a program as a contiguous Tensor."""
    ep = _load_json(os.path.join(root, "models", model + ".json"))
    cfgs = {}
    for kind in ("weights", "constants"):
        p = os.path.join(root, "data", kind, "%s_%s_config.json" % (model, kind))
        if os.path.exists(p):
            for fqn, pm in _load_json(p)["config"].items():
                cfgs[(kind, fqn)] = pm
    state = {}
    for spec in ep["graph_module"]["signature"]["input_specs"]:
        tag, body = next(iter(spec.items()))
        if tag == "parameter":
            key = ("weights", body["parameter_name"])
        elif tag == "buffer":
            key = ("weights" if body["persistent"] else "constants", body["buffer_name"])
        elif tag == "tensor_constant":
            key = ("constants", body["tensor_constant_name"])
        else:
            continue
        pm = cfgs[key]
        tm = pm["tensor_meta"]
        dt = tm["dtype"]
        sizes = [s["as_int"] for s in tm["sizes"]]
        strides = [s["as_int"] for s in tm["strides"]]
        off = tm["storage_offset"]["as_int"]
        with open(os.path.join(root, "data", key[0], pm["path_name"]), "rb") as f:
            raw = f.read()
        esize = S.DTYPES[dt][1]
        if raw:
            flat = list(struct.unpack("<%d%s" % (len(raw) // esize, _STRUCT[dt]), raw))
            m = _index_map(sizes, strides, sizes)
            data = [flat[off + i] for i in m]
        else:
            data = [_cast(0, dt)] * numel(sizes)
        if _is_float(dt):
            data = [float(v) for v in data]
        state[body["arg"]["name"]] = Tensor(sizes, data, dt)
    return state


def run_method(root, model, inputs, state=None):
    """Run one program; `inputs` = list of Tensors for the user inputs in order.

    Returns (outputs, mutations): outputs = [(spec kind, value name, target, Tensor)] for every
    non-mutation output in order; mutations = {state placeholder name: new Tensor}.
    """
    ep = _load_json(os.path.join(root, "models", model + ".json"))
    g = ep["graph_module"]["graph"]
    sig = ep["graph_module"]["signature"]
    if state is None:
        state = load_state(root, model)
    env = dict(state)
    user = iter(inputs)
    buf_placeholder = {}
    for arg, spec in zip(g["inputs"], sig["input_specs"]):
        tag, body = next(iter(spec.items()))
        if tag == "buffer":
            buf_placeholder[body["buffer_name"]] = body["arg"]["name"]
        if tag == "user_input":
            name = arg["as_tensor"]["name"]
            t = next(user)
            env[name] = t
            for s, n in zip(g["tensor_values"][name]["sizes"], t.shape):
                if "as_expr" in s:
                    sym = S.parse_expr(s["as_expr"]["expr_str"])
                    env["$" + sym.name] = n // sym.coef
    for node in g["nodes"]:
        schema = S.schema_for_target(node["target"])
        a = {}
        if schema is not None:
            for sa in schema.args:
                if sa.has_default:
                    d = sa.default
                    a[sa.name] = {"contiguous_format": 1, "preserve_format": 4}.get(
                        d[1], d) if isinstance(d, tuple) else d
        for na in node["inputs"]:
            a[na["name"]] = _decode(na["arg"], env)
        res = call(node["target"], a)
        for o, v in zip(node["outputs"], res):
            if "as_tensor" in o:
                env[o["as_tensor"]["name"]] = v
            elif "as_sym_int" in o:
                env[o["as_sym_int"]["as_name"]] = v
            elif "as_tensors" in o:
                for t, vv in zip(o["as_tensors"], v):
                    env[t["name"]] = vv
    outputs, mutations = [], {}
    for arg, spec in zip(g["outputs"], sig["output_specs"]):
        tag, body = next(iter(spec.items()))
        val = _decode(arg, env)
        if tag == "buffer_mutation":
            mutations[buf_placeholder[body["buffer_name"]]] = val
            continue
        target = body.get("parameter_name") or body.get("user_input_name")
        outputs.append((tag, (arg.get("as_tensor") or {}).get("name"), target, val))
    return outputs, mutations


def _tensor_from_io(e):
    dt = S.DTYPE_BY_NAME[e["dtype"]]
    vals = [_to_float(v) if _is_float(dt) else v for v in e["values"]]
    return Tensor(e["shape"], vals, dt)


def _compare(got, e, rtol, atol, where):
    errs = []
    dt = S.DTYPE_BY_NAME[e["dtype"]]
    if got.dtype != dt:
        errs.append("%s: dtype %s, expected %s" % (where, S.DTYPES[got.dtype][0], e["dtype"]))
    if got.shape != e["shape"]:
        return errs + ["%s: shape %s, expected %s" % (where, got.shape, e["shape"])]
    worst = 0.0
    for g_, w in zip(got.data, e["values"]):
        if _is_float(dt):
            w = _to_float(w)
            if math.isnan(w) or math.isnan(g_):
                if not (math.isnan(w) and math.isnan(g_)):
                    errs.append("%s: NaN mismatch" % where)
                    break
                continue
            if math.isinf(w) or math.isinf(g_):
                if g_ != w:
                    errs.append("%s: got %r, expected %r" % (where, g_, w))
                    break
                continue
            # expected values are float32-rounded; allow that rounding on top of rtol/atol
            tol = atol + rtol * abs(w) + 6e-8 * abs(w)
            worst = max(worst, abs(g_ - w) / tol)
            if abs(g_ - w) > tol:
                errs.append("%s: got %r, expected %r" % (where, g_, w))
                break
        elif g_ != w:
            errs.append("%s: got %r, expected %r" % (where, g_, w))
            break
    return errs


def check_io(root, io_path):
    """Evaluate every run (and sequence step) of an io.json; return (count, errors)."""
    io = _load_json(io_path)
    rtol, atol = io.get("rtol", 1e-5), io.get("atol", 1e-6)
    models = {m: os.path.splitext(os.path.basename(p))[0] for m, p in io["models"].items()}
    errs, count = [], 0
    runs = io.get("runs", [])
    if "swap" in io:
        runs = io.get("replacement_runs", [])
    for k, run in enumerate(runs):
        model = models[run.get("method", "forward")] if len(models) > 1 else \
            next(iter(models.values()))
        try:
            outs, _ = run_method(root, model, [_tensor_from_io(e) for e in run["inputs"]])
        except Exception as e:   # a broken program must give a report, not a crash
            return count, ["run %d: evaluation failed: %s: %s" % (k, type(e).__name__, e)]
        count += 1
        if len(outs) != len(run["outputs"]):
            errs.append("run %d: %d outputs, io.json lists %d" % (k, len(outs),
                                                                  len(run["outputs"])))
            continue
        for j, ((kind, name, target, val), e) in enumerate(zip(outs, run["outputs"])):
            where = "run %d output %d (%s)" % (k, j, name)
            if e.get("kind", kind) != kind or e.get("name", name) != name:
                errs.append("%s: io.json says %s/%s" % (where, e.get("kind"), e.get("name")))
            errs += _compare(val, e, rtol, atol, where)
    for q, seq in enumerate(io.get("sequences", [])):
        model = models[seq.get("method", "forward")]
        try:
            state = load_state(root, model)
        except Exception as e:
            return count, errs + ["sequence %d: evaluation failed: %s: %s" % (
                q, type(e).__name__, e)]
        for k, step in enumerate(seq["steps"]):
            try:
                outs, muts = run_method(root, model,
                                        [_tensor_from_io(e) for e in step["inputs"]], state)
            except Exception as e:
                return count, errs + ["sequence %d step %d: evaluation failed: %s: %s" % (
                    q, k, type(e).__name__, e)]
            count += 1
            state.update(muts)
            for j, ((_, _, _, val), e) in enumerate(zip(outs, step["outputs"])):
                errs += _compare(val, e, rtol, atol, "sequence %d step %d output %d" % (q, k, j))
    return count, errs
