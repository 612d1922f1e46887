"""Shared facts about torch.export's serialized format (schema 8.20) for the fixture scripts.

Operator schemas parsed from the ATen registry copy in core/ops/data/native_functions.yaml,
symbolic-size expressions (both `expr_str` syntaxes, torch-export-format.md §9.2), and
shape/stride/dtype inference ("meta") for the operators our fixtures and the corpus use.

Standard library + PyYAML only. Used by scripts/check_fixtures.py, scripts/pt2_builder.py and
scripts/ref_eval.py.
"""

import os
import re

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NATIVE_FUNCTIONS = os.path.join(REPO, "core", "ops", "data", "native_functions.yaml")

# Serialization ScalarType numbering (torch-export-format.md §3.1): number -> (name, bytes).
DTYPES = {
    1: ("uint8", 1), 2: ("int8", 1), 3: ("int16", 2), 4: ("int32", 4), 5: ("int64", 8),
    6: ("float16", 2), 7: ("float32", 4), 8: ("float64", 8), 9: ("complex32", 4),
    10: ("complex64", 8), 11: ("complex128", 16), 12: ("bool", 1), 13: ("bfloat16", 2),
    28: ("uint16", 2), 29: ("float8_e4m3fn", 1), 30: ("float8_e5m2", 1),
    31: ("float8_e4m3fnuz", 1), 32: ("float8_e5m2fnuz", 1), 33: ("float8_e8m0fnu", 1),
    34: ("uint32", 4), 35: ("uint64", 8),
}
DTYPE_BY_NAME = {name: num for num, (name, _) in DTYPES.items()}
FLOAT, LONG, BOOL = 7, 5, 12
FLOATING = {6, 7, 8, 13, 29, 30, 31, 32, 33}
INTEGRAL = {1, 2, 3, 4, 5, 28, 34, 35}

# Field order of every struct of schema 8.20 that a fixture contains (§3).
STRUCT_FIELDS = {
    "ExportedProgram": ["graph_module", "opset_version", "range_constraints", "schema_version",
                        "verifiers", "torch_version", "guards_code"],
    "GraphModule": ["graph", "signature", "module_call_graph", "metadata",
                    "treespec_namedtuple_fields"],
    "Graph": ["inputs", "outputs", "nodes", "tensor_values", "sym_int_values",
              "sym_bool_values", "is_single_tensor_return", "custom_obj_values",
              "sym_float_values"],
    "Node": ["target", "inputs", "outputs", "metadata", "is_hop_single_tensor_return", "name"],
    "NamedArgument": ["name", "arg", "kind"],
    "TensorMeta": ["dtype", "sizes", "requires_grad", "device", "strides", "storage_offset",
                   "layout"],
    "Device": ["type", "index"],
    "SymExpr": ["expr_str", "hint"],
    "GraphSignature": ["input_specs", "output_specs"],
    "ModuleCallEntry": ["fqn", "signature"],
    "ModuleCallSignature": ["inputs", "outputs", "in_spec", "out_spec", "forward_arg_names"],
    "RangeConstraint": ["min_val", "max_val"],
    "SchemaVersion": ["major", "minor"],
    "PayloadConfig": ["config"],
    "PayloadMeta": ["path_name", "is_param", "use_pickle", "tensor_meta"],
}
INPUT_SPEC_FIELDS = {
    "user_input": ["arg"],
    "parameter": ["arg", "parameter_name"],
    "buffer": ["arg", "buffer_name", "persistent"],
    "tensor_constant": ["arg", "tensor_constant_name"],
    "custom_obj": ["arg", "custom_obj_name"],
    "constant_input": ["name", "value"],
    "token": ["arg"],
}
OUTPUT_SPEC_FIELDS = {
    "user_output": ["arg"],
    "loss_output": ["arg"],
    "buffer_mutation": ["arg", "buffer_name"],
    "gradient_to_parameter": ["arg", "parameter_name"],
    "gradient_to_user_input": ["arg", "user_input_name"],
    "user_input_mutation": ["arg", "user_input_name"],
    "token": ["arg"],
    "parameter_mutation": ["arg", "parameter_name"],
}
ARGUMENT_TAGS = {
    "as_none", "as_tensor", "as_tensors", "as_int", "as_ints", "as_float", "as_floats",
    "as_string", "as_strings", "as_sym_int", "as_sym_ints", "as_scalar_type",
    "as_memory_format", "as_layout", "as_device", "as_bool", "as_bools", "as_sym_bool",
    "as_sym_bools", "as_optional_tensors", "as_graph", "as_custom_obj", "as_operator",
    "as_sym_float", "as_sym_floats", "as_optional_tensor", "as_complex", "as_nested_tensors",
    "as_int_lists", "as_string_to_argument", "as_float_lists",
}


# ---------------------------------------------------------------------------------------------
# Operator schemas (native_functions.yaml `func:` strings, OPS.md §2 grammar)
# ---------------------------------------------------------------------------------------------

class SchemaArg:
    """One schema argument: type text, name, parsed default (NO_DEFAULT if none), kwarg-only."""

    def __init__(self, type_, name, default, kwarg_only):
        self.type = type_
        self.name = name
        self.default = default
        self.kwarg_only = kwarg_only

    @property
    def has_default(self):
        return self.default is not NO_DEFAULT

    def base_type(self):
        """Type without alias annotation, e.g. 'Tensor', 'int[]', 'SymInt[2]', 'Tensor?'."""
        return re.sub(r"\([^)]*\)", "", self.type)


class _NoDefault:
    def __repr__(self):
        return "NO_DEFAULT"


NO_DEFAULT = _NoDefault()


class OpSchema:
    def __init__(self, name, overload, args, returns, tags):
        self.name = name
        self.overload = overload
        self.args = args
        self.returns = returns          # list of return type strings
        self.tags = tags

    def arg(self, name):
        for a in self.args:
            if a.name == name:
                return a
        return None


def _split_top(text):
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def _parse_default(text, type_):
    t = text.strip()
    if t == "None":
        return None
    if t == "True":
        return True
    if t == "False":
        return False
    if t.startswith("[") and t.endswith("]"):
        inner = t[1:-1].strip()
        return [_parse_default(x, "") for x in _split_top(inner)] if inner else []
    if (t.startswith("'") and t.endswith("'")) or (t.startswith('"') and t.endswith('"')):
        return t[1:-1]
    try:
        v = int(t)
    except ValueError:
        try:
            v = float(t)
        except ValueError:
            return ("enum", t)      # Mean, contiguous_format, long, ...
    # a scalar default of a sized list type broadcasts: int[2] padding=0 -> [0, 0]
    m = re.search(r"\[(\d+)\]\??$", re.sub(r"\([^)]*\)", "", type_))
    if m and isinstance(v, (int, float)):
        return [v] * int(m.group(1))
    return v


def parse_func(func, tags=None):
    m = re.match(r"^([\w.]+)\((.*)\)\s*->\s*(.*)$", func.strip())
    if not m:
        raise ValueError("cannot parse schema: " + func)
    full, argtext, rettext = m.groups()
    name, _, overload = full.partition(".")
    args, kwarg_only = [], False
    for part in _split_top(argtext):
        if part == "*":
            kwarg_only = True
            continue
        default = NO_DEFAULT
        depth, eq = 0, -1
        for i, ch in enumerate(part):
            if ch in "([":
                depth += 1
            elif ch in ")]":
                depth -= 1
            elif ch == "=" and depth == 0:
                eq = i
                break
        decl = part if eq < 0 else part[:eq]
        depth, sp = 0, -1
        for i, ch in enumerate(decl.rstrip()):
            if ch in "([":
                depth += 1
            elif ch in ")]":
                depth -= 1
            elif ch == " " and depth == 0:
                sp = i
        type_, aname = decl[:sp].strip(), decl[sp + 1:].strip()
        if eq >= 0:
            default = _parse_default(part[eq + 1:], type_)
        args.append(SchemaArg(type_, aname, default, kwarg_only))
    rettext = rettext.strip()
    if rettext.startswith("(") and rettext.endswith(")"):
        rets = [r.strip() for r in _split_top(rettext[1:-1])] if rettext != "()" else []
    else:
        rets = [rettext]
    return OpSchema(name, overload, args, rets, tags or [])


_SCHEMAS = None


def schemas():
    """Map 'name.overload' (overload 'default' for the unnamed one) -> OpSchema."""
    global _SCHEMAS
    if _SCHEMAS is None:
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        with open(NATIVE_FUNCTIONS) as f:
            entries = yaml.load(f, Loader=loader)
        out = {}
        for e in entries:
            tags = e.get("tags") or []
            if isinstance(tags, str):
                tags = [t.strip() for t in tags.split(",")]
            s = parse_func(e["func"], tags)
            out[s.name + "." + (s.overload or "default")] = s
        _SCHEMAS = out
    return _SCHEMAS


def schema_for_target(target):
    """OpSchema for a 'torch.ops.aten.<op>.<overload>' target, else None."""
    prefix = "torch.ops.aten."
    if not target.startswith(prefix):
        return None
    return schemas().get(target[len(prefix):])


# ---------------------------------------------------------------------------------------------
# Symbolic sizes: a monomial coef * symbol (enough for leading/middle dynamic dims)
# ---------------------------------------------------------------------------------------------

class Unsupported(Exception):
    """Raised when a shape or value cannot be inferred by these simple rules."""


class Sym:
    """coef * symbol; the only symbolic size form these scripts produce or check."""
    __slots__ = ("coef", "name")

    def __init__(self, coef, name):
        self.coef = coef
        self.name = name

    def __eq__(self, other):
        return isinstance(other, Sym) and other.coef == self.coef and other.name == self.name

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((self.coef, self.name))

    def __repr__(self):
        return self.plain()

    def plain(self):
        return self.name if self.coef == 1 else "%d*%s" % (self.coef, self.name)

    def srepr(self):
        s = "Symbol('%s', integer=True, positive=True)" % self.name
        return s if self.coef == 1 else "Mul(Integer(%d), %s)" % (self.coef, s)

    def value(self, env):
        return self.coef * env[self.name]


def smul(a, b):
    if isinstance(a, int) and isinstance(b, int):
        return a * b
    if isinstance(a, Sym) and isinstance(b, int):
        return Sym(a.coef * b, a.name) if b != 0 else 0
    if isinstance(a, int) and isinstance(b, Sym):
        return smul(b, a)
    raise Unsupported("product of two symbolic sizes")


def sprod(xs):
    p = 1
    for x in xs:
        p = smul(p, x)
    return p


def concrete(x, env):
    return x.value(env) if isinstance(x, Sym) else x


_SREPR_SYM = re.compile(r"^Symbol\('(\w+)'(?:, \w+=\w+)*\)$")
_SREPR_MUL = re.compile(r"^Mul\(Integer\((-?\d+)\), Symbol\('(\w+)'(?:, \w+=\w+)*\)\)$")
_PLAIN_SYM = re.compile(r"^([A-Za-z_]\w*)$")
_PLAIN_MUL = re.compile(r"^(-?\d+)\*([A-Za-z_]\w*)$")


def parse_expr(expr_str):
    """Parse an expr_str (srepr or plain form) into a Sym; raise Unsupported otherwise."""
    s = expr_str.strip()
    for rx, order in ((_SREPR_SYM, "s"), (_SREPR_MUL, "cs"), (_PLAIN_SYM, "s"), (_PLAIN_MUL, "cs")):
        m = rx.match(s)
        if m:
            if order == "s":
                return Sym(1, m.group(1))
            return Sym(int(m.group(1)), m.group(2))
    raise Unsupported("expression form not handled: " + expr_str)


def symint_from_json(v):
    """A SymInt union ({as_int} | {as_expr}) -> int or Sym (raises Unsupported)."""
    if "as_int" in v:
        return v["as_int"]
    return parse_expr(v["as_expr"]["expr_str"])


def symint_to_json(x, style, hint_env):
    """int or Sym -> SymInt JSON; style 'srepr' or 'plain'; hint from hint_env."""
    if isinstance(x, int):
        return {"as_int": x}
    text = x.srepr() if style == "srepr" else x.plain()
    return {"as_expr": {"expr_str": text, "hint": {"as_int": x.value(hint_env)}}}


# ---------------------------------------------------------------------------------------------
# Tensor meta and shape inference
# ---------------------------------------------------------------------------------------------

class Meta:
    """dtype (serialization number), sizes and strides (int or Sym), requires_grad."""
    __slots__ = ("dtype", "sizes", "strides", "requires_grad")

    def __init__(self, dtype, sizes, strides=None, requires_grad=False):
        self.dtype = dtype
        self.sizes = list(sizes)
        self.strides = list(strides) if strides is not None else contiguous_strides(sizes)
        self.requires_grad = requires_grad

    def __repr__(self):
        return "Meta(%s, %s, %s)" % (DTYPES[self.dtype][0], self.sizes, self.strides)

    def same_layout(self, other):
        return (self.dtype == other.dtype and self.sizes == other.sizes
                and self.strides == other.strides)


def contiguous_strides(sizes):
    strides, acc = [], 1
    for s in reversed(list(sizes)):
        strides.append(acc)
        acc = smul(acc, s if isinstance(s, Sym) else max(s, 1))
    return list(reversed(strides))


def meta_from_json(tm):
    return Meta(tm["dtype"], [symint_from_json(s) for s in tm["sizes"]],
                [symint_from_json(s) for s in tm["strides"]], tm["requires_grad"])


def meta_to_json(m, style, hint_env):
    return {
        "dtype": m.dtype,
        "sizes": [symint_to_json(s, style, hint_env) for s in m.sizes],
        "requires_grad": m.requires_grad,
        "device": {"type": "cpu", "index": None},
        "strides": [symint_to_json(s, style, hint_env) for s in m.strides],
        "storage_offset": {"as_int": 0},
        "layout": 7,
    }


def is_contiguous(m):
    try:
        want = contiguous_strides(m.sizes)
    except Unsupported:
        return False
    return all(a == b for a, b, n in zip(m.strides, want, m.sizes) if n != 1)


def _norm_dim(d, rank):
    if d < 0:
        d += rank
    if not 0 <= d < max(rank, 1):
        raise Unsupported("dim out of range")
    return d


def _broadcast(shapes):
    rank = max(len(s) for s in shapes)
    out = []
    for i in range(rank):
        dims = [s[i - rank + len(s)] for s in shapes if i - rank + len(s) >= 0]
        non1 = [d for d in dims if d != 1]
        if not non1:
            out.append(1)
            continue
        if any(d != non1[0] for d in non1):
            raise Unsupported("shapes do not broadcast: %s" % (shapes,))
        out.append(non1[0])
    return out


def _compute_view_strides(oldshape, oldstride, newshape):
    """PyTorch's view stride rule; None when the view is impossible without a copy."""
    if any(isinstance(x, Sym) for x in list(oldshape) + list(oldstride) + list(newshape)):
        if is_contiguous(Meta(FLOAT, oldshape, oldstride)):
            return contiguous_strides(newshape)
        raise Unsupported("symbolic view of a non-contiguous tensor")
    if not oldshape:
        return contiguous_strides(newshape)
    numel = sprod(oldshape)
    if numel == 0:
        return contiguous_strides(newshape)
    newstride = [0] * len(newshape)
    view_d = len(newshape) - 1
    chunk_base_stride = oldstride[-1]
    tensor_numel, view_numel = 1, 1
    for tensor_d in range(len(oldshape) - 1, -1, -1):
        tensor_numel *= oldshape[tensor_d]
        if tensor_d == 0 or (oldshape[tensor_d - 1] != 1 and
                             oldstride[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or newshape[view_d] == 1):
                newstride[view_d] = view_numel * chunk_base_stride
                view_numel *= newshape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = oldstride[tensor_d - 1]
                tensor_numel, view_numel = 1, 1
    if view_d != -1:
        return None
    return newstride


def _infer_size(size, numel):
    size = list(size)
    if -1 in size:
        i = size.index(-1)
        rest = sprod([s for j, s in enumerate(size) if j != i])
        if isinstance(numel, int) and isinstance(rest, int):
            size[i] = numel // rest
        elif isinstance(numel, Sym) and isinstance(rest, int) and numel.coef % rest == 0:
            size[i] = Sym(numel.coef // rest, numel.name)
        else:
            raise Unsupported("cannot infer -1 in view size")
    return size


def _pointwise_layout(tensors, shape):
    """Output strides of an elementwise op (TensorIterator keeps a dense input layout)."""
    full = [t for t in tensors if t.sizes == shape]
    if all(is_contiguous(t) for t in full):
        return contiguous_strides(shape)
    if len(full) == 1 and _dense(full[0]):
        return list(full[0].strides)
    raise Unsupported("elementwise op on mixed non-contiguous layouts")


def _dense(m):
    """Non-overlapping and dense: some permutation of the dims is contiguous."""
    try:
        order = sorted(range(len(m.sizes)), key=lambda i: (m.strides[i], -i))
        acc = 1
        for i in order:
            if m.sizes[i] != 1 and m.strides[i] != acc:
                return False
            acc = smul(acc, m.sizes[i])
        return True
    except (TypeError, Unsupported):
        return False


def _preserve_format(m):
    return list(m.strides) if _dense(m) else contiguous_strides(m.sizes)


def _result_dtype(tensors, scalars):
    """Type promotion for same-category inputs (what our graphs need)."""
    dims = [t for t in tensors if t.sizes]
    pool = dims or tensors
    dts = {t.dtype for t in pool}
    if len(dts) > 1:
        if dts <= FLOATING | INTEGRAL | {BOOL}:
            for cat in (FLOATING, INTEGRAL):
                inter = dts & cat
                if inter:
                    if len(inter) == 1:
                        return inter.pop()
                    raise Unsupported("mixed dtypes %s" % dts)
        raise Unsupported("mixed dtypes %s" % dts)
    dt = dts.pop()
    if dt not in FLOATING and any(isinstance(s, float) for s in scalars):
        return FLOAT
    if dt == BOOL and any(isinstance(s, int) and not isinstance(s, bool) for s in scalars):
        return LONG
    return dt


def _conv_out(n, k, s, p, d):
    return (n + 2 * p - d * (k - 1) - 1) // s + 1


def _pool_out(n, k, s, p, d, ceil_mode):
    num = n + 2 * p - d * (k - 1) - 1
    out = (num + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= n + p:
        out -= 1
    return out


def _pair(v):
    if isinstance(v, int):
        return [v, v]
    v = list(v)
    return v * 2 if len(v) == 1 else v


def _reduce(m, dims, keepdim):
    rank = len(m.sizes)
    if dims is None or dims == []:
        dims = list(range(rank))
    dims = {_norm_dim(d, rank) for d in dims}
    if keepdim:
        sizes = [1 if i in dims else s for i, s in enumerate(m.sizes)]
    else:
        sizes = [s for i, s in enumerate(m.sizes) if i not in dims]
    return sizes


UNARY_POINTWISE = {"relu", "gelu", "sigmoid", "tanh", "exp", "neg", "rsqrt", "sqrt", "abs",
                   "log", "sin", "cos", "erf", "hardtanh", "silu", "logical_not", "reciprocal"}
BINARY_POINTWISE = {"add", "sub", "mul", "div", "rsub", "pow", "maximum", "minimum",
                    "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or",
                    "masked_fill"}
COMPARISONS = {"eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_not"}


def infer(target, a):
    """Output metas (list) of an operator node.

    `a` maps schema argument names to values: Meta for tensors, int/float/bool/Sym for scalars,
    lists for list arguments, None for None; omitted arguments are filled with the schema
    default by the caller. Non-tensor outputs (SymInt) are returned as int/Sym values.
    Raises Unsupported for anything outside these rules.
    """
    if target == "_operator.mul":
        return [smul(a["a"], a["b"])]
    if target in ("_operator.add", "_operator.sub", "_operator.floordiv"):
        raise Unsupported(target)
    if not target.startswith("torch.ops.aten."):
        raise Unsupported(target)
    op, _, overload = target[len("torch.ops.aten."):].rpartition(".")
    rg = any(isinstance(v, Meta) and v.requires_grad for v in a.values())

    def out(dtype, sizes, strides=None, requires_grad=None):
        return Meta(dtype, sizes, strides, rg if requires_grad is None else requires_grad)

    if op == "sym_size":
        return [a["self"].sizes[_norm_dim(a["dim"], len(a["self"].sizes))]]
    if op == "permute":
        s = a["self"]
        dims = [_norm_dim(d, len(s.sizes)) for d in a["dims"]]
        return [out(s.dtype, [s.sizes[d] for d in dims], [s.strides[d] for d in dims])]
    if op in ("view", "_unsafe_view", "reshape", "flatten", "_reshape_alias"):
        s = a["self"]
        if op == "flatten":
            rank = len(s.sizes)
            st, en = _norm_dim(a["start_dim"], rank), _norm_dim(a["end_dim"], rank)
            size = s.sizes[:st] + [sprod(s.sizes[st:en + 1])] + s.sizes[en + 1:]
        else:
            size = _infer_size(a["size"], sprod(s.sizes))
        if sprod(size) != sprod(s.sizes):
            raise Unsupported("view changes the element count")
        strides = _compute_view_strides(s.sizes, s.strides, size)
        if strides is None:
            if op == "view":
                raise Unsupported("view of a non-viewable layout (needs a copy)")
            strides = contiguous_strides(size)
        return [out(s.dtype, size, strides)]
    if op == "expand":
        s = a["self"]
        size = list(a["size"])
        lead = len(size) - len(s.sizes)
        strides = []
        for i, n in enumerate(size):
            if i < lead:
                strides.append(0)
                continue
            old, st = s.sizes[i - lead], s.strides[i - lead]
            if n == -1 or n == old:
                size[i] = old
                strides.append(st)
            elif old == 1:
                strides.append(0)
            else:
                raise Unsupported("bad expand")
        return [out(s.dtype, size, strides)]
    if op in ("addmm", "mm"):
        m1 = a["mat1"] if op == "addmm" else a["self"]
        m2 = a["mat2"]
        if len(m1.sizes) != 2 or len(m2.sizes) != 2 or m1.sizes[1] != m2.sizes[0]:
            raise Unsupported("mm shapes")
        if op == "addmm":
            _broadcast([a["self"].sizes, [m1.sizes[0], m2.sizes[1]]])
        return [out(m1.dtype, [m1.sizes[0], m2.sizes[1]])]
    if op == "bmm":
        x, y = a["self"], a["mat2"]
        if len(x.sizes) != 3 or len(y.sizes) != 3 or x.sizes[0] != y.sizes[0] \
                or x.sizes[2] != y.sizes[1]:
            raise Unsupported("bmm shapes")
        return [out(x.dtype, [x.sizes[0], x.sizes[1], y.sizes[2]])]
    if op == "linear":
        x, w = a["input"], a["weight"]
        return [out(x.dtype, x.sizes[:-1] + [w.sizes[0]])]
    if op in UNARY_POINTWISE or op in ("clone", "dropout", "alias"):
        s = a.get("self", a.get("input"))
        if op == "clone":
            mf = a.get("memory_format")
            strides = contiguous_strides(s.sizes) if mf == 1 else _preserve_format(s)
            return [out(s.dtype, s.sizes, strides)]
        if op in ("dropout", "alias"):
            return [out(s.dtype, s.sizes, s.strides)]
        dt = BOOL if op in COMPARISONS else s.dtype
        return [out(dt, s.sizes, _pointwise_layout([s], s.sizes),
                    requires_grad=False if dt == BOOL else None)]
    if op in BINARY_POINTWISE or op == "where":
        names = ["condition", "self", "other"] if op == "where" else ["self", "other", "mask",
                                                                       "exponent"]
        tensors = [a[n] for n in names if isinstance(a.get(n), Meta)]
        scalars = [a[n] for n in names if n in a and not isinstance(a.get(n), Meta)
                   and a.get(n) is not None]
        if op == "where":
            dt_in = [a[n] for n in ("self", "other") if isinstance(a.get(n), Meta)]
            dtype = _result_dtype(dt_in, [a[n] for n in ("self", "other")
                                          if not isinstance(a.get(n), Meta)])
        elif op == "masked_fill":
            dtype = a["self"].dtype
        else:
            dtype = _result_dtype([a[n] for n in ("self", "other") if isinstance(a.get(n), Meta)],
                                  scalars)
        if op in COMPARISONS:
            dtype = BOOL
        shape = _broadcast([t.sizes for t in tensors])
        return [out(dtype, shape, _pointwise_layout(tensors, shape),
                    requires_grad=False if dtype not in FLOATING else None)]
    if op in ("_softmax", "_log_softmax"):
        s = a["self"]
        _norm_dim(a["dim"], len(s.sizes))
        return [out(s.dtype, s.sizes, _pointwise_layout([s], s.sizes))]
    if op == "native_layer_norm":
        x, ns = a["input"], list(a["normalized_shape"])
        axis = len(x.sizes) - len(ns)
        if x.sizes[axis:] != ns:
            raise Unsupported("normalized_shape mismatch")
        stat = x.sizes[:axis] + [1] * len(ns)
        return [out(x.dtype, x.sizes),
                Meta(x.dtype, stat, None, x.requires_grad),
                Meta(x.dtype, stat, None, x.requires_grad)]
    if op in ("_native_batch_norm_legit_no_training", "batch_norm"):
        x = a["input"]
        if len(x.sizes) < 2 or a["running_mean"].sizes != [x.sizes[1]]:
            raise Unsupported("batch norm shapes")
        main = out(x.dtype, x.sizes)
        if op == "batch_norm":
            return [main]
        return [main, Meta(x.dtype, [0], [1], False), Meta(x.dtype, [0], [1], False)]
    if op in ("convolution", "conv2d"):
        x, w = a["input"], a["weight"]
        if op == "convolution" and a["transposed"]:
            raise Unsupported("transposed convolution")
        stride, pad, dil = _pair(a["stride"]), _pair(a["padding"]), _pair(a["dilation"])
        groups = a["groups"]
        if len(x.sizes) != 4 or x.sizes[1] != w.sizes[1] * groups:
            raise Unsupported("conv shapes")
        if a.get("bias") is not None and a["bias"].sizes != [w.sizes[0]]:
            raise Unsupported("conv bias shape")
        h = _conv_out(x.sizes[2], w.sizes[2], stride[0], pad[0], dil[0])
        wd = _conv_out(x.sizes[3], w.sizes[3], stride[1], pad[1], dil[1])
        return [out(x.dtype, [x.sizes[0], w.sizes[0], h, wd])]
    if op in ("max_pool2d_with_indices", "avg_pool2d", "max_pool2d"):
        x = a["self"]
        k = _pair(a["kernel_size"])
        s = _pair(a["stride"]) if a["stride"] else k
        p = _pair(a["padding"])
        d = _pair(a.get("dilation", 1))
        cm = a["ceil_mode"]
        sizes = x.sizes[:-2] + [_pool_out(x.sizes[-2], k[0], s[0], p[0], d[0], cm),
                                _pool_out(x.sizes[-1], k[1], s[1], p[1], d[1], cm)]
        res = [out(x.dtype, sizes)]
        if op == "max_pool2d_with_indices":
            res.append(Meta(LONG, sizes, None, False))
        return res
    if op in ("adaptive_avg_pool2d", "_adaptive_avg_pool2d"):
        x = a["self"]
        return [out(x.dtype, x.sizes[:-2] + list(a["output_size"]))]
    if op in ("mean", "sum"):
        s = a["self"]
        if overload == "default":
            return [out(s.dtype, [])]
        sizes = _reduce(s, a["dim"], a["keepdim"])
        dt = a.get("dtype") or s.dtype
        return [out(dt, sizes)]
    if op == "full":
        fill = a["fill_value"]
        dt = a.get("dtype")
        if dt is None:
            dt = BOOL if isinstance(fill, bool) else (LONG if isinstance(fill, int) else FLOAT)
        return [Meta(dt, list(a["size"]), None, False)]
    if op in ("full_like", "zeros_like", "ones_like", "empty_like"):
        s = a["self"]
        dt = a.get("dtype") or s.dtype
        mf = a.get("memory_format")
        strides = contiguous_strides(s.sizes) if mf == 1 else _preserve_format(s)
        return [Meta(dt, s.sizes, strides, False)]
    if op == "threshold_backward":
        g = a["grad_output"]
        return [out(g.dtype, g.sizes)]
    raise Unsupported(target)
