"""Build torch.export programs (schema 8.20 JSON + payloads) from Python descriptions.

Used by scripts/gen_fixtures.py and scripts/gen_synthetic.py. A `Program` records placeholders,
operator calls and outputs; shapes, strides and dtypes of every value are derived with
scripts/pt2_schema.py (so a wrong call fails here instead of producing an inconsistent file);
argument names and kinds come from the operator schemas in core/ops/data/native_functions.yaml.
An `Archive` writes one or more programs as an unpacked layout-C archive folder
(torch-export-format.md §1.3): models/<m>.json, data/weights/<m>_weights_config.json +
weight_<n>, data/constants/<m>_constants_config.json + tensor_<n>, archive_format,
archive_version, byteorder, .data/version, .data/serialization_id.

Standard library + PyYAML only; output is deterministic.
"""

import json
import os
import re
import shutil
import struct
import zlib

import pt2_schema as S


class Dtype:
    """A dtype argument value (serialization ScalarType number)."""

    def __init__(self, n):
        self.n = n


class Layout:
    def __init__(self, n):
        self.n = n


class MemoryFormat:
    def __init__(self, n):
        self.n = n


class Device:
    def __init__(self, type_="cpu", index=None):
        self.type = type_
        self.index = index


STRIDED = Layout(7)
CONTIGUOUS_FORMAT = MemoryFormat(1)
PRESERVE_FORMAT = MemoryFormat(4)
CPU = Device("cpu")
F32 = Dtype(S.FLOAT)

# Python parameter names of the symbolic-scalar callables we emit (§5.5).
_SYM_OP_ARGS = {"_operator.mul": ["a", "b"], "_operator.add": ["a", "b"]}
# FX renames values whose natural name is a Python builtin (pow -> pow_1, sum -> sum_1).
_BUILTINS = {"pow", "sum", "max", "min", "abs", "all", "any", "input", "round", "id", "type",
             "filter", "map", "slice", "len", "list", "dict", "set", "str", "int", "float"}


_SCHEMA_INFO = {}


def _schema_info(target):
    """(positional args, keyword-only args by name, arg order, defaults, FX base name)."""
    if target not in _SCHEMA_INFO:
        schema = S.schema_for_target(target)
        if schema is None:
            _SCHEMA_INFO[target] = None
        else:
            defaults = {}
            for sa in schema.args:
                if sa.has_default:
                    d = sa.default
                    defaults[sa.name] = {"contiguous_format": 1, "preserve_format": 4}.get(
                        d[1], d) if isinstance(d, tuple) else d
            base = "sym_size_int" if target == "torch.ops.aten.sym_size.int" else \
                target.split(".")[-2]
            _SCHEMA_INFO[target] = (
                [a for a in schema.args if not a.kwarg_only],
                {a.name: a for a in schema.args if a.kwarg_only},
                {a.name: i for i, a in enumerate(schema.args)},
                defaults, base)
    return _SCHEMA_INFO[target]


class Ref:
    """A value defined in the graph: kind 'tensor' or 'sym'."""
    __slots__ = ("prog", "name", "kind")

    def __init__(self, prog, name, kind):
        self.prog = prog
        self.name = name
        self.kind = kind

    @property
    def meta(self):
        return self.prog.metas[self.name]

    @property
    def shape(self):
        return self.prog.metas[self.name].sizes


class Context:
    """Node metadata shared by the nodes of one user-level call."""

    def __init__(self, stack_trace, nn_module_stack, source_fn_stack, torch_fn):
        self.md = {}
        if stack_trace:
            self.md["stack_trace"] = stack_trace
        if nn_module_stack:
            self.md["nn_module_stack"] = nn_module_stack
        if source_fn_stack:
            self.md["source_fn_stack"] = source_fn_stack
        if torch_fn:
            self.md["torch_fn"] = torch_fn


def treespec_leaf():
    return {"type": None, "context": None, "children_spec": []}


def treespec_tuple(children):
    return {"type": "builtins.tuple", "context": "null", "children_spec": list(children)}


def treespec_list(children):
    return {"type": "builtins.list", "context": "null", "children_spec": list(children)}


def treespec_dict(keys, children):
    return {"type": "builtins.dict", "context": json.dumps(list(keys)),
            "children_spec": list(children)}


def treespec_text(node):
    return json.dumps([1, node])


def args_spec(n_args, kwargs=()):
    """Root in_spec node of forward(*n_args leaves, **kwargs leaves)."""
    return treespec_tuple([treespec_tuple([treespec_leaf()] * n_args),
                           treespec_dict(list(kwargs), [treespec_leaf()] * len(kwargs))])


class Program:
    """One ExportedProgram under construction.

    source: the Python text the program stands for (stack_trace frames point into it);
    source_path: the file name shown in stack traces; root_type: class of the root module.
    expr_style: 'srepr' (current) or 'plain' (older) for symbolic sizes (§9.2).
    nonfinite: 'string' writes -inf as "-Infinity" (PyTorch's rule, §2.8); 'bare' writes the
    non-standard token -Infinity.
    """

    def __init__(self, root_type, source="", source_path="", expr_style="srepr",
                 nonfinite="string", verifiers=("ATEN",), torch_version="2.11.0+cpu",
                 metadata=True):
        self.root_type = root_type
        self.source_lines = source.split("\n")
        self.source_path = source_path
        self.expr_style = expr_style
        self.nonfinite = nonfinite
        self.verifiers = list(verifiers)
        self.torch_version = torch_version
        self.with_metadata = metadata
        self.metas = {}
        self.tensor_values = {}
        self.sym_values = {}
        self.nodes = []
        self.used_names = set()
        self.name_counts = {}
        self.getitem_count = 0
        self.params, self.buffers, self.constants, self.user_inputs = [], [], [], []
        self.state_order = []          # (fqn, kind) in state_dict / lifting order
        self.state = {}                # fqn -> dict(kind, ref, dtype, sizes, data, persistent)
        self.outputs = []              # (Ref, spec kind, target)
        self.hints = {}
        self.range_constraints = {}
        self.guards = []
        self.modules = [""]            # named_modules order (root first)
        self.module_types = {"": root_type}
        self.preserved = {}            # fqn -> signature dict
        self.forward_arg_names = []
        self.in_spec = None
        self.out_spec = None
        self.grad_enabled = True
        self.ctx = Context("", "", "", "")
        self.fn_counts = {}
        self._frames = {}
        self._tm_cache = {}

    # ---- names ------------------------------------------------------------------------------
    def fresh(self, base):
        """FX-style unique name: base, base_1, base_2, ... (builtins start at base_1)."""
        k = self.name_counts.get(base, 0)
        while True:
            if k == 0 and base in _BUILTINS:
                k = 1
            name = base if k == 0 else "%s_%d" % (base, k)
            k += 1
            if name not in self.used_names:
                break
        self.name_counts[base] = k
        self.used_names.add(name)
        return name

    def _claim(self, name):
        if name in self.used_names:
            raise ValueError("name %s defined twice" % name)
        self.used_names.add(name)
        return name

    # ---- modules and metadata ---------------------------------------------------------------
    def module(self, fqn, type_):
        """Declare a submodule (in named_modules order)."""
        self.modules.append(fqn)
        self.module_types[fqn] = type_

    def symbol(self, name, hint, min_val, max_val):
        self.hints[name] = hint
        self.range_constraints[name] = {"min_val": min_val, "max_val": max_val}
        return S.Sym(1, name)

    def _frame(self, text):
        if text in self._frames:
            return self._frames[text]
        self._frames[text] = self._find_frame(text)
        return self._frames[text]

    def _find_frame(self, text):
        hits = [i for i, l in enumerate(self.source_lines) if l.strip() == text.strip()]
        if len(hits) != 1:
            raise ValueError("source line %r found %d times" % (text, len(hits)))
        i = hits[0]
        fn = "<module>"
        for j in range(i, -1, -1):
            m = re.match(r"\s*def (\w+)\(", self.source_lines[j])
            if m:
                fn = m.group(1)
                break
        return '  File "%s", line %d, in %s\n    %s\n' % (self.source_path, i + 1, fn,
                                                      self.source_lines[i].strip())

    def at(self, lines, modules=(), source_fn=None, torch_fn=None):
        """Set the metadata context for the following nodes.

        lines: source lines of the call stack, outermost first; modules: FQNs of the enclosing
        module calls, outermost first (root implied); source_fn: (name, target);
        torch_fn: (fn name, callee type name) — the counter suffix is added here.
        """
        if isinstance(lines, str):
            lines = [lines]
        st = "".join(self._frame(l) for l in lines)
        entries = ["L__self__,,%s" % self.root_type]
        for fqn in modules:
            entries.append("L__self__%s,%s,%s" % (fqn, fqn, self.module_types[fqn]))
        sfs = "%s,%s" % source_fn if source_fn else ""
        tf = ""
        if torch_fn:
            fn, callee = torch_fn
            self.fn_counts[fn] = self.fn_counts.get(fn, 0) + 1
            tf = "%s_%d;%s" % (fn, self.fn_counts[fn], callee)
        self.ctx = Context(st, ";".join(entries), sfs, tf)
        return self

    # ---- placeholders -----------------------------------------------------------------------
    def _state(self, fqn, kind, prefix, sizes, values, dtype, persistent=True, is_param=False):
        name = self._claim(prefix + re.sub(r"\W", "_", fqn))
        meta = S.Meta(dtype, sizes, None, is_param)
        ref = self._define_tensor(name, meta)
        self.state[fqn] = {"kind": kind, "ref": ref, "dtype": dtype, "sizes": list(sizes),
                           "data": values, "persistent": persistent}
        self.state_order.append(fqn)
        return ref

    def parameter(self, fqn, sizes, values, dtype=S.FLOAT):
        """A parameter; values: flat list, or raw little-endian bytes of the storage."""
        ref = self._state(fqn, "parameter", "p_", sizes, values, dtype, is_param=True)
        self.params.append(fqn)
        return ref

    def buffer(self, fqn, sizes, values, dtype=S.FLOAT, persistent=True):
        ref = self._state(fqn, "buffer", "b_", sizes, values, dtype, persistent)
        self.buffers.append(fqn)
        return ref

    def tensor_constant(self, fqn, sizes, values, dtype=S.FLOAT):
        ref = self._state(fqn, "tensor_constant", "c_", sizes, values, dtype)
        self.constants.append(fqn)
        return ref

    def user_input(self, name, sizes, dtype=S.FLOAT, arg_name=None):
        ref = self._define_tensor(self._claim(name), S.Meta(dtype, sizes, None, False))
        self.user_inputs.append(ref)
        self.forward_arg_names.append(arg_name or name)
        return ref

    def _define_tensor(self, name, meta):
        self.metas[name] = meta
        key = (meta.dtype, tuple(meta.sizes), tuple(meta.strides), meta.requires_grad)
        tm = self._tm_cache.get(key)
        if tm is None:
            tm = self._tm_cache[key] = S.meta_to_json(meta, self.expr_style, self.hints)
        self.tensor_values[name] = tm      # shared, never mutated
        return Ref(self, name, "tensor")

    # ---- argument encoding --------------------------------------------------------------------
    def _float(self, v):
        if v != v:
            return "NaN" if self.nonfinite == "string" else v
        if v in (float("inf"), float("-inf")):
            if self.nonfinite == "string":
                return "Infinity" if v > 0 else "-Infinity"
            return v
        return v

    def encode(self, v, type_=""):
        if isinstance(v, Ref):
            return {"as_tensor": {"name": v.name}} if v.kind == "tensor" else \
                {"as_sym_int": {"as_name": v.name}}
        if v is None:
            return {"as_none": True}
        if isinstance(v, bool):
            return {"as_bool": v}
        if isinstance(v, int):
            return {"as_int": v}
        if isinstance(v, float):
            return {"as_float": self._float(v)}
        if isinstance(v, str):
            return {"as_string": v}
        if isinstance(v, Dtype):
            return {"as_scalar_type": v.n}
        if isinstance(v, Layout):
            return {"as_layout": v.n}
        if isinstance(v, MemoryFormat):
            return {"as_memory_format": v.n}
        if isinstance(v, Device):
            return {"as_device": {"type": v.type, "index": v.index}}
        if isinstance(v, (list, tuple)):
            v = list(v)
            if any(isinstance(e, Ref) and e.kind == "sym" for e in v):
                return {"as_sym_ints": [{"as_name": e.name} if isinstance(e, Ref) else
                                        {"as_int": e} for e in v]}
            if v and all(isinstance(e, Ref) for e in v):
                return {"as_tensors": [{"name": e.name} for e in v]}
            if v and all(isinstance(e, bool) for e in v):
                return {"as_bools": v}
            if all(isinstance(e, int) and not isinstance(e, bool) for e in v) and \
                    (v or "int" in type_.lower()):
                return {"as_ints": v}
            if v and all(isinstance(e, float) for e in v):
                return {"as_floats": [self._float(e) for e in v]}
        raise TypeError("cannot encode %r" % (v,))

    def _value(self, v):
        """Value for shape inference."""
        if isinstance(v, Ref):
            return self.metas[v.name] if v.kind == "tensor" else self.sym_values[v.name]
        if isinstance(v, (Dtype, Layout, MemoryFormat)):
            return v.n
        if isinstance(v, Device):
            return {"type": v.type, "index": v.index}
        if isinstance(v, (list, tuple)):
            return [self._value(e) for e in v]
        return v

    # ---- nodes ------------------------------------------------------------------------------
    def call(self, target, *args, used=None, name=None, **kwargs):
        """Add an operator node; returns a Ref, or a list of Refs for multi-output ops.

        Positional args map to the schema's positional arguments in order; kwargs to
        keyword-only ones (kind 2). used: for tuple returns, the indices a getitem selected
        (the others get '<node>_unused_<i>' names).
        """
        inputs, vals = [], {}
        info = _schema_info(target)
        if info is not None:
            positional, kwonly, order, defaults, base = info
            if len(args) > len(positional):
                raise ValueError("%s: too many positional args" % target)
            for sa, v in zip(positional, args):
                inputs.append({"name": sa.name, "arg": self.encode(v, sa.type), "kind": 1})
                vals[sa.name] = self._value(v)
            if kwargs:
                for k, v in kwargs.items():
                    sa = kwonly.get(k)
                    if sa is None:
                        raise ValueError("%s: %s is not a keyword-only argument" % (target, k))
                    inputs.append({"name": k, "arg": self.encode(v, sa.type), "kind": 2})
                    vals[k] = self._value(v)
                inputs.sort(key=lambda na: order[na["name"]])
            full = dict(defaults)
            full.update(vals)
        else:
            names = _SYM_OP_ARGS[target]
            for n_, v in zip(names, args):
                inputs.append({"name": n_, "arg": self.encode(v), "kind": 1})
                vals[n_] = self._value(v)
            full = vals
            base = target.split(".")[-1]
        outs = S.infer(target, full)
        if not self.grad_enabled:
            for o in outs:
                if isinstance(o, S.Meta):
                    o.requires_grad = False
        md = self.ctx.md if self.with_metadata else {}
        if len(outs) == 1:
            if name:
                nm = self._claim(name)
            elif base == "sym_size_int":
                nm = self.fresh_from(base, start=1)
            else:
                nm = self.fresh(base)
            o = outs[0]
            if isinstance(o, S.Meta):
                ref = self._define_tensor(nm, o)
                out_json = [{"as_tensor": {"name": nm}}]
            else:
                ref = Ref(self, nm, "sym")
                self.sym_values[nm] = o
                out_json = [{"as_sym_int": {"as_name": nm}}]
            self.nodes.append({"target": target, "inputs": inputs, "outputs": out_json,
                               "metadata": md, "is_hop_single_tensor_return": None,
                               "name": nm})
            return ref
        node_name = self._claim(name) if name else self.fresh(base)
        used = list(range(len(outs))) if used is None else list(used)
        refs, out_json = [], []
        for i, o in enumerate(outs):
            if i in used:
                nm = "getitem" if self.getitem_count == 0 else "getitem_%d" % self.getitem_count
                self.getitem_count += 1
                self._claim(nm)
            else:
                nm = self._claim("%s_unused_%d" % (node_name, i))
            refs.append(self._define_tensor(nm, o))
            out_json.append({"as_tensor": {"name": nm}})
        self.nodes.append({"target": target, "inputs": inputs, "outputs": out_json,
                           "metadata": md, "is_hop_single_tensor_return": None,
                           "name": node_name})
        return refs

    def fresh_from(self, base, start):
        """Like fresh() but the first name already carries the suffix `start`."""
        self.name_counts[base] = max(self.name_counts.get(base, 0), start)
        return self.fresh(base)

    def sym_json(self, v):
        return S.symint_to_json(v, self.expr_style, self.hints)

    # ---- outputs and signatures ---------------------------------------------------------------
    def output(self, ref, kind="user_output", target=None):
        self.outputs.append((ref, kind, target))

    def preserve(self, fqn, inputs, outputs, n_args=None, out_leaf=True):
        """Full ModuleCallSignature for a preserved submodule (forward(x) -> tensor form)."""
        n_args = len(inputs) if n_args is None else n_args
        self.preserved[fqn] = {
            "inputs": [{"as_tensor": {"name": r.name}} for r in inputs],
            "outputs": [{"as_tensor": {"name": r.name}} for r in outputs],
            "in_spec": treespec_text(args_spec(n_args)),
            "out_spec": treespec_text(treespec_leaf() if out_leaf else
                                      treespec_tuple([treespec_leaf()] * len(outputs))),
            "forward_arg_names": None,
        }

    def to_json(self):
        """The ExportedProgram dict (schema 8.20 field order)."""
        inputs, in_specs = [], []
        for fqn in self.params:
            r = self.state[fqn]["ref"]
            inputs.append({"as_tensor": {"name": r.name}})
            in_specs.append({"parameter": {"arg": {"name": r.name}, "parameter_name": fqn}})
        for fqn in self.buffers:
            st = self.state[fqn]
            inputs.append({"as_tensor": {"name": st["ref"].name}})
            in_specs.append({"buffer": {"arg": {"name": st["ref"].name}, "buffer_name": fqn,
                                        "persistent": st["persistent"]}})
        for fqn in self.constants:
            r = self.state[fqn]["ref"]
            inputs.append({"as_tensor": {"name": r.name}})
            in_specs.append({"tensor_constant": {"arg": {"name": r.name},
                                                 "tensor_constant_name": fqn}})
        for r in self.user_inputs:
            inputs.append({"as_tensor": {"name": r.name}})
            in_specs.append({"user_input": {"arg": {"as_tensor": {"name": r.name}}}})
        outputs, out_specs = [], []
        for ref, kind, target in self.outputs:
            outputs.append({"as_tensor": {"name": ref.name}})
            if kind == "user_output":
                spec = {"arg": {"as_tensor": {"name": ref.name}}}
            else:
                spec = {"arg": {"name": ref.name}}
                if kind == "buffer_mutation":
                    spec["buffer_name"] = target
                elif kind in ("gradient_to_parameter", "parameter_mutation"):
                    spec["parameter_name"] = target
                elif kind in ("gradient_to_user_input", "user_input_mutation"):
                    spec["user_input_name"] = target
            out_specs.append({kind: spec})
        n_user_out = sum(1 for _, k, _ in self.outputs if k in ("user_output", "loss_output"))
        in_spec = self.in_spec or treespec_text(args_spec(len(self.user_inputs)))
        out_spec = self.out_spec or treespec_text(
            treespec_leaf() if n_user_out == 1 else treespec_tuple([treespec_leaf()] *
                                                                   n_user_out))
        mcg = [{"fqn": "", "signature": {"inputs": [], "outputs": [], "in_spec": in_spec,
                                         "out_spec": out_spec,
                                         "forward_arg_names": self.forward_arg_names}}]
        for fqn in self.modules[1:]:
            mcg.append({"fqn": fqn, "signature": self.preserved.get(fqn)})
        sym_int_values = {n: self.sym_json(v) for n, v in self.sym_values.items()}
        graph = {
            "inputs": inputs,
            "outputs": outputs,
            "nodes": self.nodes,
            "tensor_values": self._ordered_tensor_values(inputs),
            "sym_int_values": sym_int_values,
            "sym_bool_values": {},
            "is_single_tensor_return": False,
            "custom_obj_values": {},
            "sym_float_values": {},
        }
        return {
            "graph_module": {
                "graph": graph,
                "signature": {"input_specs": in_specs, "output_specs": out_specs},
                "module_call_graph": mcg,
                "metadata": {},
                "treespec_namedtuple_fields": {},
            },
            "opset_version": {"aten": 10},
            "range_constraints": dict(self.range_constraints),
            "schema_version": {"major": 8, "minor": 20},
            "verifiers": self.verifiers,
            "torch_version": self.torch_version,
            "guards_code": list(self.guards),
        }

    def _ordered_tensor_values(self, inputs):
        """tensor_values in graph order: placeholders first, then node outputs."""
        out = {}
        for a in inputs:
            n = a["as_tensor"]["name"]
            out[n] = self.tensor_values[n]
        for node in self.nodes:
            for o in node["outputs"]:
                if "as_tensor" in o:
                    n = o["as_tensor"]["name"]
                    out[n] = self.tensor_values[n]
        return out


# ---------------------------------------------------------------------------------------------
# Writing an archive folder
# ---------------------------------------------------------------------------------------------

_PACK = {S.FLOAT: "f", S.LONG: "q", S.BOOL: "?", 8: "d", 4: "i"}


def pack(values, dtype):
    return struct.pack("<%d%s" % (len(values), _PACK[dtype]), *values)


def f32(v):
    """Round a Python float to the nearest float32 value."""
    return struct.unpack("<f", struct.pack("<f", v))[0]


def _hash_combine(seed, v):
    return (seed ^ (v + 0x9E3779B9 + ((seed << 6) & 0xFFFFFFFFFFFFFFFF) + (seed >> 2))) \
        & 0xFFFFFFFFFFFFFFFF


def _fnv1a(data):
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def serialization_id(records):
    """40 digits: combined record-name hash + combined CRC-32s (§1.3; hash function ours)."""
    nh, ch = 0, 0
    for name, data in records:
        nh = _hash_combine(nh, _fnv1a(name.encode()))
        ch = _hash_combine(ch, zlib.crc32(data))
    return ("%020d%020d" % (nh, ch)).encode()


def dumps(obj, nonfinite="string"):
    """Python json.dumps defaults (one line, ', ' / ': ', ASCII); allow_nan only for 'bare'."""
    return json.dumps(obj, allow_nan=(nonfinite == "bare"))


class Archive:
    """An unpacked PT2 archive with one or more programs (model name -> Program)."""

    def __init__(self):
        self.programs = []

    def add(self, model, program):
        self.programs.append((model, program))
        return program

    def records(self):
        """[(record path, bytes)] in the order torch's packager writes them (§1.3, corpus)."""
        recs = []
        n_weight, n_tensor = 0, 0
        for model, p in self.programs:
            weights, constants = {}, {}
            for fqn in p.state_order:
                st = p.state[fqn]
                meta = S.Meta(st["dtype"], st["sizes"], None, st["kind"] == "parameter")
                tm = S.meta_to_json(meta, "srepr", {})
                data = st["data"] if isinstance(st["data"], bytes) else \
                    pack(st["data"], st["dtype"])
                if st["kind"] == "tensor_constant" or not st["persistent"]:
                    path = "tensor_%d" % n_tensor
                    n_tensor += 1
                    constants[fqn] = {"path_name": path, "is_param": False, "use_pickle": False,
                                      "tensor_meta": tm}
                    recs.append(("data/constants/" + path, data))
                else:
                    path = "weight_%d" % n_weight
                    n_weight += 1
                    weights[fqn] = {"path_name": path, "is_param": st["kind"] == "parameter",
                                    "use_pickle": False, "tensor_meta": tm}
                    recs.append(("data/weights/" + path, data))
            recs.append(("data/weights/%s_weights_config.json" % model,
                         dumps({"config": weights}).encode()))
            recs.append(("data/constants/%s_constants_config.json" % model,
                         dumps({"config": constants}).encode()))
            recs.append(("models/%s.json" % model, dumps(p.to_json(), p.nonfinite).encode()))
        recs.append(("archive_format", b"pt2"))
        recs.append(("archive_version", b"0"))
        recs.append((".data/version", b"6\n"))
        recs.append(("byteorder", b"little"))
        recs.append((".data/serialization_id", serialization_id(recs)))
        return recs

    def write(self, out_dir):
        """Write the folder (replacing an existing one); returns the record list."""
        recs = self.records()
        tmp = out_dir.rstrip("/") + ".tmp"
        if os.path.exists(tmp):
            shutil.rmtree(tmp)
        made = set()
        for name, data in recs:
            path = os.path.join(tmp, name)
            d = os.path.dirname(path)
            if d not in made:
                os.makedirs(d, exist_ok=True)
                made.add(d)
            with open(path, "wb") as f:
                f.write(data)
        if os.path.exists(out_dir):
            shutil.rmtree(out_dir)
        os.rename(tmp, out_dir)
        return recs
