#!/usr/bin/env python3
"""Validate unpacked torch.export archive folders (our hand-written fixtures and the corpus).

Usage:
  python3 scripts/check_fixtures.py                 # tests/fixtures/programs/* and the corpus
  python3 scripts/check_fixtures.py DIR [DIR ...]   # specific unpacked archive folders
  options: --no-eval (skip the float64 evaluation of io.json runs), --quiet

A folder is an unpacked layout-C archive without its root folder (models/<m>.json, data/...,
archive_format, ...). What is checked, per folder (torch-export-format.md section numbers):
  * records: archive_format 'pt2', archive_version '0', byteorder 'little', .data/version '6\\n',
    .data/serialization_id 40 digits (§1.3); every payload file referenced by a config;
  * JSON text: one line, exactly what Python's json.dumps writes for the parsed value (§1.3);
    bare NaN/Infinity tokens only where the fixture's expected.json says so (§2 rule 8);
  * every struct of schema 8.20 has all its fields in declaration order; unions are
    single-keyed (§2, §3);
  * names: defined exactly once (graph inputs, node outputs), used only after definition,
    tensor_values / sym_int_values hold exactly the defined tensor / SymInt names (§4);
  * signature: graph.inputs <-> input_specs and graph.outputs <-> output_specs by position; input
    order parameters, buffers, constants, user inputs; mutations first, gradients last; mutation /
    gradient targets name real buffers / parameters (§7);
  * payload configs: keys = FQNs of parameters + persistent buffers (weights) and non-persistent
    buffers + tensor constants (constants); tensor_meta = the placeholder's meta; raw payload size
    = the storage the view needs (§1.4-1.6);
  * operator nodes: schema argument names and order, kinds (positional 1 / keyword-only 2), no
    missing required argument, no stripped-default violations, value tags fit the schema types,
    core-ATen tag when verifiers == ['ATEN'], output count (§5.2, §5.3; corpus README);
  * shapes: every node's output dtype/sizes/strides re-derived by scripts/pt2_schema.py and
    compared with tensor_values (incl. symbolic sizes and the view stride rule);
  * symbolic sizes: hints consistent, every free symbol has a range constraint (§9);
  * module_call_graph: root first with a signature whose in_spec/out_spec leaves match the user
    inputs/outputs; preserved signatures reference defined values; nn_module_stack paths are
    known module FQNs (§8);
  * node metadata: stack_trace / nn_module_stack / source_fn_stack / torch_fn present and well
    formed (§6);
  * expected.json (fixtures) equals the facts recomputed from the files;
  * io.json runs: the graph evaluated in float64 (scripts/ref_eval.py) reproduces the outputs.
Exit status 0 when no errors were found.
"""

import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pt2_schema as S  # noqa: E402

REPO = S.REPO
PROGRAMS_DIR = os.path.join(REPO, "tests", "fixtures", "programs")
CORPUS_DIR = os.path.join(REPO, "tests", "fixtures", "corpus")


class Report:
    def __init__(self, where):
        self.where = where
        self.errors = []
        self.notes = []

    def err(self, msg):
        self.errors.append(msg)

    def note(self, msg):
        self.notes.append(msg)


# ---------------------------------------------------------------------------------------------
# JSON text and struct field order
# ---------------------------------------------------------------------------------------------

def load_json_text(path, rep):
    with open(path, "rb") as f:
        raw = f.read()
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError:
        rep.err("%s: not ASCII (json.dumps escapes non-ASCII as \\uXXXX)" % path)
        text = raw.decode("utf-8")
    obj = json.loads(text)
    if json.dumps(obj) != text:
        rep.err("%s: not byte-identical to json.dumps of its value (one line, ', '/': ')" % path)
    bare = bool(re.search(r'(?<!")(-?Infinity|NaN)(?!")', _strip_strings(text)))
    return obj, bare


def _strip_strings(text):
    return re.sub(r'"(?:[^"\\]|\\.)*"', '""', text)


def check_struct(obj, kind, pointer, rep):
    if not isinstance(obj, dict):
        rep.err("%s: %s must be an object" % (pointer, kind))
        return False
    want = S.STRUCT_FIELDS[kind]
    if list(obj.keys()) != want:
        rep.err("%s: %s fields %s, expected %s" % (pointer, kind, list(obj.keys()), want))
        return False
    return True


def check_union(obj, pointer, rep, allowed=None):
    if not isinstance(obj, dict) or len(obj) != 1:
        rep.err("%s: union must be a single-key object, got %r" % (pointer, obj))
        return None
    tag = next(iter(obj))
    if allowed is not None and tag not in allowed:
        rep.err("%s: unexpected union tag %s" % (pointer, tag))
    return tag


def check_tensor_meta(tm, pointer, rep):
    if not check_struct(tm, "TensorMeta", pointer, rep):
        return
    check_struct(tm["device"], "Device", pointer + "/device", rep)
    if tm["dtype"] not in S.DTYPES:
        rep.err("%s/dtype: unknown ScalarType %r" % (pointer, tm["dtype"]))
    if tm["layout"] != 7:
        rep.err("%s/layout: %r (dense tensors are 7)" % (pointer, tm["layout"]))
    if len(tm["sizes"]) != len(tm["strides"]):
        rep.err("%s: %d sizes but %d strides" % (pointer, len(tm["sizes"]), len(tm["strides"])))
    for key in ("sizes", "strides"):
        for i, s in enumerate(tm[key]):
            tag = check_union(s, "%s/%s/%d" % (pointer, key, i), rep, {"as_int", "as_expr"})
            if tag == "as_expr":
                check_struct(s["as_expr"], "SymExpr", "%s/%s/%d/as_expr" % (pointer, key, i), rep)
    check_union(tm["storage_offset"], pointer + "/storage_offset", rep, {"as_int", "as_expr"})


# ---------------------------------------------------------------------------------------------
# Argument helpers
# ---------------------------------------------------------------------------------------------

def arg_names(arg):
    """Names referenced by an Argument: list of (kind, name) with kind 'tensor' or 'sym'."""
    tag, v = next(iter(arg.items()))
    if tag == "as_tensor":
        return [("tensor", v["name"])]
    if tag == "as_tensors":
        return [("tensor", t["name"]) for t in v]
    if tag == "as_optional_tensors":
        return [("tensor", t["as_tensor"]["name"]) for t in v if "as_tensor" in t]
    if tag == "as_sym_int":
        return [("sym", v["as_name"])] if "as_name" in v else []
    if tag == "as_sym_ints":
        return [("sym", e["as_name"]) for e in v if "as_name" in e]
    if tag == "as_nested_tensors":
        return [("tensor", t["name"]) for lst in v for t in lst]
    return []


def to_float(v):
    if isinstance(v, str):
        return {"Infinity": float("inf"), "-Infinity": float("-inf"), "NaN": float("nan")}[v]
    return float(v)


def decode_value(arg, metas, syms):
    """Argument -> value for shape inference / evaluation lookups (tensors via `metas`)."""
    tag, v = next(iter(arg.items()))
    if tag == "as_tensor":
        return metas[v["name"]]
    if tag == "as_tensors":
        return [metas[t["name"]] for t in v]
    if tag == "as_none":
        return None
    if tag in ("as_int", "as_bool", "as_string", "as_scalar_type", "as_memory_format",
               "as_layout"):
        return v
    if tag == "as_float":
        return to_float(v)
    if tag in ("as_ints", "as_bools", "as_strings"):
        return list(v)
    if tag == "as_floats":
        return [to_float(x) for x in v]
    if tag == "as_sym_int":
        return syms[v["as_name"]] if "as_name" in v else v["as_int"]
    if tag == "as_sym_ints":
        return [syms[e["as_name"]] if "as_name" in e else e["as_int"] for e in v]
    if tag == "as_device":
        return v
    raise S.Unsupported("argument tag " + tag)


_TYPE_TAGS = [
    (r"^Tensor\?\[\]$", {"as_tensors", "as_optional_tensors"}),
    (r"^Tensor\[\]$", {"as_tensors"}),
    (r"^Tensor\?$", {"as_tensor", "as_none"}),
    (r"^Tensor$", {"as_tensor", "as_int", "as_float", "as_bool"}),
    (r"^(Sym)?[Ii]nt\[\d*\]\??$", {"as_ints", "as_sym_ints", "as_int", "as_none"}),
    (r"^(Sym)?Int\??$", {"as_int", "as_sym_int", "as_none"}),
    (r"^int\??$", {"as_int", "as_sym_int", "as_none"}),
    (r"^float\??$", {"as_float", "as_none"}),
    (r"^float\[\d*\]\??$", {"as_floats", "as_none"}),
    (r"^bool\??$", {"as_bool", "as_none"}),
    (r"^bool\[\d*\]\??$", {"as_bools", "as_none"}),
    (r"^Scalar\??$", {"as_int", "as_float", "as_bool", "as_complex", "as_none", "as_sym_int",
                      "as_sym_float"}),
    (r"^ScalarType\??$", {"as_scalar_type", "as_none"}),
    (r"^Layout\??$", {"as_layout", "as_none"}),
    (r"^Device\??$", {"as_device", "as_none"}),
    (r"^MemoryFormat\??$", {"as_memory_format", "as_none"}),
    (r"^str\??$", {"as_string", "as_none"}),
]


def tags_for_type(t):
    for rx, tags in _TYPE_TAGS:
        if re.match(rx, t):
            return tags
    return None


def default_as_value(d):
    if isinstance(d, tuple) and d and d[0] == "enum":
        return {"contiguous_format": 1, "preserve_format": 4, "long": S.LONG,
                "Mean": 1, "Sum": 2}.get(d[1], d)
    return d


def value_equals_default(arg, default):
    """Whether an encoded Argument equals a schema default (for the stripped-defaults rule)."""
    d = default_as_value(default)
    tag, v = next(iter(arg.items()))
    if tag == "as_none":
        return d is None
    if tag in ("as_int", "as_float", "as_bool", "as_string", "as_scalar_type",
               "as_memory_format", "as_layout"):
        if isinstance(d, list) and isinstance(v, int) and not isinstance(v, bool):
            return d == [v] * len(d)
        if isinstance(v, bool) or isinstance(d, bool):
            return isinstance(v, bool) and isinstance(d, bool) and v == d
        return d == v
    if tag in ("as_ints", "as_bools", "as_floats"):
        return isinstance(d, list) and list(v) == d
    return False


# ---------------------------------------------------------------------------------------------
# Treespecs
# ---------------------------------------------------------------------------------------------

def treespec_leaves(node):
    if node["type"] is None:
        return 1
    return sum(treespec_leaves(c) for c in node["children_spec"])


def parse_treespec(text, pointer, rep):
    try:
        spec = json.loads(text)
    except ValueError:
        rep.err("%s: treespec is not JSON text" % pointer)
        return None
    if json.dumps(spec) != text:
        rep.err("%s: treespec text is not json.dumps style" % pointer)
    if not (isinstance(spec, list) and len(spec) == 2 and spec[0] == 1):
        rep.err("%s: treespec must be [1, node]" % pointer)
        return None
    return spec[1]


# ---------------------------------------------------------------------------------------------
# One program (models/<m>.json with its configs)
# ---------------------------------------------------------------------------------------------

INPUT_ORDER = {"token": 0, "parameter": 1, "buffer": 2, "tensor_constant": 3, "custom_obj": 3,
               "user_input": 4, "constant_input": 4}
OUTPUT_ORDER = {"token": 0, "buffer_mutation": 0, "parameter_mutation": 0,
                "user_input_mutation": 0, "user_output": 1, "loss_output": 1,
                "gradient_to_parameter": 2, "gradient_to_user_input": 2}
METADATA_KEYS = ("stack_trace", "nn_module_stack", "source_fn_stack", "torch_fn")
_FRAME = re.compile(r'  File "[^"]+", line \d+, in [\w<>]+\n    [^\n]*\n')


def split_depth0(text, sep):
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return parts


def check_program(root, model, rep, strict_meta=True):
    """Check models/<model>.json and its configs; return a dict of facts (or None)."""
    mpath = os.path.join(root, "models", model + ".json")
    ep, bare = load_json_text(mpath, rep)
    P = "models/%s.json" % model
    facts = {"bare_nonfinite": bare}
    if not check_struct(ep, "ExportedProgram", P, rep):
        return None
    check_struct(ep["schema_version"], "SchemaVersion", P + "/schema_version", rep)
    if ep["schema_version"]["major"] != 8:
        rep.err("%s: schema major %r" % (P, ep["schema_version"]["major"]))
    gm = ep["graph_module"]
    check_struct(gm, "GraphModule", P + "/graph_module", rep)
    g = gm["graph"]
    check_struct(g, "Graph", P + "/graph_module/graph", rep)
    sig = gm["signature"]
    check_struct(sig, "GraphSignature", P + "/graph_module/signature", rep)
    aten = ep["verifiers"] == ["ATEN"]

    # ---- tensor_values / sym tables -------------------------------------------------------
    metas, syms, sym_hints = {}, {}, {}
    for name, tm in g["tensor_values"].items():
        check_tensor_meta(tm, "%s/graph_module/graph/tensor_values/%s" % (P, name), rep)
        try:
            metas[name] = S.meta_from_json(tm)
        except S.Unsupported as e:
            metas[name] = None
            rep.note("%s: tensor %s: %s" % (P, name, e))
        for key in ("sizes", "strides"):
            for s in tm[key]:
                if "as_expr" in s:
                    _record_hint(s["as_expr"], sym_hints, rep, P, name)
    for name, v in g["sym_int_values"].items():
        tag = check_union(v, "%s/sym_int_values/%s" % (P, name), rep, {"as_int", "as_expr"})
        if tag == "as_expr":
            _record_hint(v["as_expr"], sym_hints, rep, P, name)
        try:
            syms[name] = S.symint_from_json(v)
        except S.Unsupported as e:
            syms[name] = None
            rep.note("%s: symint %s: %s" % (P, name, e))
    free_syms = {n for n in sym_hints}
    for sym in sorted(free_syms):
        if sym not in ep["range_constraints"]:
            rep.err("%s: symbol %s has no range constraint" % (P, sym))
    for key, rc in ep["range_constraints"].items():
        check_struct(rc, "RangeConstraint", "%s/range_constraints/%s" % (P, key), rep)
        h = sym_hints.get(key)
        if h is not None and rc["min_val"] is not None and rc["max_val"] is not None and \
                not rc["min_val"] <= h <= rc["max_val"]:
            rep.err("%s: hint %d of %s outside [%s, %s]" % (P, h, key, rc["min_val"],
                                                             rc["max_val"]))
    facts["range_constraints"] = ep["range_constraints"]

    # ---- definitions and uses ---------------------------------------------------------------
    defined = {}   # name -> 'tensor'|'sym'|'node'

    def define(name, kind, where):
        if name in defined:
            rep.err("%s: name %s defined twice (%s)" % (P, name, where))
        defined[name] = kind

    def use(ref, where):
        kind, name = ref
        if name not in defined:
            rep.err("%s: %s uses %s before it is defined" % (P, where, name))
        elif defined[name] != kind:
            rep.err("%s: %s uses %s as %s but it is a %s" % (P, where, name, kind, defined[name]))

    if len(g["inputs"]) != len(sig["input_specs"]):
        rep.err("%s: %d graph inputs but %d input_specs" % (P, len(g["inputs"]),
                                                            len(sig["input_specs"])))
    specs_in = []
    for i, (arg, spec) in enumerate(zip(g["inputs"], sig["input_specs"])):
        tag = check_union(arg, "%s/graph/inputs/%d" % (P, i), rep)
        stag = check_union(spec, "%s/signature/input_specs/%d" % (P, i), rep,
                           set(S.INPUT_SPEC_FIELDS))
        if stag is None:
            continue
        body = spec[stag]
        if list(body.keys()) != S.INPUT_SPEC_FIELDS[stag]:
            rep.err("%s: input spec %d (%s) fields %s" % (P, i, stag, list(body.keys())))
        if stag == "constant_input":
            define(body["name"], "const", "input %d" % i)
            specs_in.append((stag, body["name"], None))
            continue
        if tag == "as_tensor":
            name = arg["as_tensor"]["name"]
            define(name, "tensor", "input %d" % i)
        elif tag == "as_sym_int":
            name = arg["as_sym_int"]["as_name"]
            define(name, "sym", "input %d" % i)
        else:
            name = None
            rep.err("%s: graph input %d has tag %s" % (P, i, tag))
        sarg = body["arg"]
        sname = sarg.get("name") if stag != "user_input" else \
            (sarg.get("as_tensor") or {}).get("name") or (sarg.get("as_sym_int") or {}).get(
                "as_name")
        if sname != name:
            rep.err("%s: input %d is %s but its spec names %s" % (P, i, name, sname))
        target = body.get("parameter_name") or body.get("buffer_name") or \
            body.get("tensor_constant_name")
        specs_in.append((stag, name, target if stag != "buffer" else (target,
                                                                     body["persistent"])))
    order = [INPUT_ORDER.get(s[0], 9) for s in specs_in]
    if order != sorted(order):
        rep.err("%s: input_specs not ordered tokens, parameters, buffers, constants, user "
                "inputs: %s" % (P, [s[0] for s in specs_in]))

    # ---- nodes --------------------------------------------------------------------------------
    counts = {}
    module_paths = {e["fqn"] for e in gm["module_call_graph"]}
    unchecked_ops = set()
    for idx, node in enumerate(g["nodes"]):
        NP = "%s/graph_module/graph/nodes/%d" % (P, idx)
        if not check_struct(node, "Node", NP, rep):
            continue
        tgt = node["target"]
        counts[tgt] = counts.get(tgt, 0) + 1
        where = "node %s" % node["name"]
        for j, na in enumerate(node["inputs"]):
            check_struct(na, "NamedArgument", "%s/inputs/%d" % (NP, j), rep)
            check_union(na["arg"], "%s/inputs/%d/arg" % (NP, j), rep, S.ARGUMENT_TAGS)
            for ref in arg_names(na["arg"]):
                use(ref, where)
        out_names = []
        for j, o in enumerate(node["outputs"]):
            tag = check_union(o, "%s/outputs/%d" % (NP, j), rep, S.ARGUMENT_TAGS)
            if tag == "as_tensor":
                out_names.append(("tensor", o["as_tensor"]["name"]))
            elif tag == "as_tensors":
                out_names += [("tensor", t["name"]) for t in o["as_tensors"]]
            elif tag == "as_sym_int":
                out_names.append(("sym", o["as_sym_int"]["as_name"]))
            elif tag != "as_none":
                rep.err("%s: output tag %s" % (NP, tag))
        for kind, name in out_names:
            define(name, kind, where)
        if len(node["outputs"]) == 1 and out_names and out_names[0][1] != node["name"]:
            rep.err("%s: single-output node %s defines %s" % (NP, node["name"], out_names[0][1]))
        if len(node["outputs"]) > 1:
            define(node["name"], "node", where)
        if tgt == "_operator.getitem":
            rep.err("%s: getitem nodes are never serialized (§5.1)" % NP)
        _check_node_metadata(node, NP, module_paths, rep, strict_meta)
        _check_node_schema(node, NP, aten, rep)
        _check_node_shapes(node, NP, metas, syms, rep, unchecked_ops)
    facts["nodes_by_target"] = dict(sorted(counts.items()))
    facts["node_count"] = len(g["nodes"])
    if unchecked_ops:
        rep.note("%s: shapes not re-derived for %s" % (P, sorted(unchecked_ops)))

    # tables hold exactly the defined names
    tnames = {n for n, k in defined.items() if k == "tensor"}
    snames = {n for n, k in defined.items() if k == "sym"}
    if set(g["tensor_values"]) != tnames:
        rep.err("%s: tensor_values extra %s missing %s" % (
            P, sorted(set(g["tensor_values"]) - tnames), sorted(tnames - set(g["tensor_values"]))))
    if set(g["sym_int_values"]) != snames:
        rep.err("%s: sym_int_values extra %s missing %s" % (
            P, sorted(set(g["sym_int_values"]) - snames),
            sorted(snames - set(g["sym_int_values"]))))
    if g["is_single_tensor_return"]:
        rep.err("%s: is_single_tensor_return must be false for the top-level graph" % P)

    # ---- outputs ------------------------------------------------------------------------------
    if len(g["outputs"]) != len(sig["output_specs"]):
        rep.err("%s: %d graph outputs but %d output_specs" % (P, len(g["outputs"]),
                                                              len(sig["output_specs"])))
    params = {s[2] for s in specs_in if s[0] == "parameter"}
    buffers = {s[2][0] for s in specs_in if s[0] == "buffer"}
    user_in_names = {s[1] for s in specs_in if s[0] == "user_input"}
    specs_out = []
    for j, (arg, spec) in enumerate(zip(g["outputs"], sig["output_specs"])):
        for ref in arg_names(arg):
            use(ref, "graph output %d" % j)
        stag = check_union(spec, "%s/signature/output_specs/%d" % (P, j), rep,
                           set(S.OUTPUT_SPEC_FIELDS))
        if stag is None:
            continue
        body = spec[stag]
        if list(body.keys()) != S.OUTPUT_SPEC_FIELDS[stag]:
            rep.err("%s: output spec %d (%s) fields %s" % (P, j, stag, list(body.keys())))
        sarg = body["arg"]
        sname = sarg.get("name") if stag not in ("user_output",) else \
            (sarg.get("as_tensor") or {}).get("name")
        gname = (arg.get("as_tensor") or {}).get("name")
        if sname != gname:
            rep.err("%s: output %d is %s but its spec names %s" % (P, j, gname, sname))
        tgt = body.get("buffer_name") or body.get("parameter_name") or body.get("user_input_name")
        if stag == "buffer_mutation" and tgt not in buffers:
            rep.err("%s: buffer_mutation of unknown buffer %s" % (P, tgt))
        if stag in ("gradient_to_parameter", "parameter_mutation") and tgt not in params:
            rep.err("%s: %s of unknown parameter %s" % (P, stag, tgt))
        if stag in ("gradient_to_user_input", "user_input_mutation") and tgt not in user_in_names:
            rep.err("%s: %s of unknown user input %s" % (P, stag, tgt))
        if stag == "buffer_mutation" and tgt in buffers and metas.get(gname) is not None:
            bmeta = next(metas[s[1]] for s in specs_in if s[0] == "buffer" and s[2][0] == tgt)
            if bmeta is not None and (bmeta.dtype, bmeta.sizes) != (metas[gname].dtype,
                                                                    metas[gname].sizes):
                rep.err("%s: buffer_mutation %s has a different dtype/shape than %s" %
                        (P, gname, tgt))
        specs_out.append((stag, gname, tgt))
    order = [OUTPUT_ORDER.get(s[0], 9) for s in specs_out]
    if order != sorted(order):
        rep.err("%s: output_specs not ordered mutations, user outputs, gradients" % P)

    # ---- module call graph ----------------------------------------------------------------------
    mcg = gm["module_call_graph"]
    n_user_in = sum(1 for s in specs_in if s[0] in ("user_input", "constant_input"))
    n_user_out = sum(1 for s in specs_out if s[0] in ("user_output", "loss_output"))
    if not mcg or mcg[0]["fqn"] != "" or mcg[0]["signature"] is None:
        rep.err("%s: module_call_graph must start with the root entry and its signature" % P)
    fqns = []
    for k, entry in enumerate(mcg):
        EP = "%s/graph_module/module_call_graph/%d" % (P, k)
        check_struct(entry, "ModuleCallEntry", EP, rep)
        fqns.append(entry["fqn"])
        sg = entry["signature"]
        if sg is None:
            continue
        check_struct(sg, "ModuleCallSignature", EP + "/signature", rep)
        ins = parse_treespec(sg["in_spec"], EP + "/signature/in_spec", rep)
        outs = parse_treespec(sg["out_spec"], EP + "/signature/out_spec", rep)
        if ins is not None:
            if ins["type"] != "builtins.tuple" or len(ins["children_spec"]) != 2 or \
                    ins["children_spec"][1]["type"] != "builtins.dict":
                rep.err("%s: in_spec must describe (args_tuple, kwargs_dict)" % EP)
        if k == 0:
            if sg["inputs"] or sg["outputs"]:
                rep.err("%s: root signature inputs/outputs must be empty" % EP)
            if ins is not None and treespec_leaves(ins) != n_user_in:
                rep.err("%s: root in_spec has %d leaves, %d user inputs" % (
                    EP, treespec_leaves(ins), n_user_in))
            if outs is not None and treespec_leaves(outs) != n_user_out:
                rep.err("%s: root out_spec has %d leaves, %d user outputs" % (
                    EP, treespec_leaves(outs), n_user_out))
            fan = sg["forward_arg_names"]
            if ins is not None and fan is not None and \
                    len(fan) != len(ins["children_spec"][0]["children_spec"]):
                rep.err("%s: forward_arg_names %s vs %d positional args" % (
                    EP, fan, len(ins["children_spec"][0]["children_spec"])))
            facts["in_spec"] = sg["in_spec"]
            facts["out_spec"] = sg["out_spec"]
        else:
            for a in sg["inputs"] + sg["outputs"]:
                for ref in arg_names(a):
                    if ref[1] not in defined:
                        rep.err("%s: preserved signature uses undefined %s" % (EP, ref[1]))
            if ins is not None and treespec_leaves(ins) != len(sg["inputs"]):
                rep.err("%s: in_spec leaves %d vs %d inputs" % (EP, treespec_leaves(ins),
                                                                len(sg["inputs"])))
            if outs is not None and treespec_leaves(outs) != len(sg["outputs"]):
                rep.err("%s: out_spec leaves %d vs %d outputs" % (EP, treespec_leaves(outs),
                                                                  len(sg["outputs"])))
    if len(set(fqns)) != len(fqns):
        rep.note("%s: duplicate module_call_graph fqns %s" % (P, fqns))
    facts["preserved_modules"] = [e["fqn"] for e in mcg[1:] if e["signature"] is not None]

    # ---- payload configs -----------------------------------------------------------------------
    facts["state"] = _check_configs(root, model, specs_in, metas, rep)
    facts["verifiers"] = ep["verifiers"]
    facts["schema_version"] = ep["schema_version"]
    facts["specs_in"] = specs_in
    facts["specs_out"] = specs_out
    facts["metas"] = metas
    facts["graph"] = g
    return facts


def _record_hint(expr, sym_hints, rep, P, name):
    try:
        s = S.parse_expr(expr["expr_str"])
    except S.Unsupported as e:
        rep.note("%s: %s: %s" % (P, name, e))
        return
    hint = expr["hint"]
    if hint is None:
        return
    h = hint["as_int"]
    if h % s.coef:
        rep.err("%s: %s hint %d is not a multiple of %d" % (P, name, h, s.coef))
        return
    prev = sym_hints.setdefault(s.name, h // s.coef)
    if prev != h // s.coef:
        rep.err("%s: %s: inconsistent hint for %s (%d vs %d)" % (P, name, s.name, prev,
                                                                h // s.coef))


def _check_node_metadata(node, NP, module_paths, rep, strict):
    md = node["metadata"]
    for k, v in md.items():
        if not isinstance(v, str):
            rep.err("%s/metadata/%s: values are strings" % (NP, k))
    if strict:
        missing = [k for k in METADATA_KEYS if k not in md]
        if missing:
            rep.err("%s: metadata lacks %s" % (NP, missing))
    st = md.get("stack_trace")
    if st is not None and not re.fullmatch("(?:%s)+" % _FRAME.pattern, st):
        rep.err("%s: stack_trace is not Python traceback frames" % NP)
    nms = md.get("nn_module_stack")
    if nms is not None:
        entries = [split_depth0(e, ",") for e in nms.split(";")]
        if any(len(e) != 3 for e in entries):
            rep.err("%s: nn_module_stack entries need 3 fields: %r" % (NP, nms))
        elif entries[0][0] != "L__self__" or entries[0][1] != "":
            rep.err("%s: nn_module_stack must start with the root entry" % NP)
        else:
            for _key, path, _ in entries[1:]:
                if path not in module_paths:
                    rep.err("%s: nn_module_stack path %s is not a module_call_graph fqn" %
                            (NP, path))
    sfs = md.get("source_fn_stack")
    if sfs is not None and any(len(e.split(",")) != 2 for e in sfs.split(";")):
        rep.err("%s: source_fn_stack entries need 2 fields" % NP)
    tf = md.get("torch_fn")
    if tf is not None and len(tf.split(";")) != 2:
        rep.err("%s: torch_fn needs exactly two fields" % NP)


def _check_node_schema(node, NP, aten, rep):
    tgt = node["target"]
    if tgt.startswith("_operator.") or tgt.startswith("torch.sym_") or tgt.startswith("math."):
        if any(na["kind"] != 1 for na in node["inputs"]):
            rep.err("%s: symbolic-scalar ops take positional arguments only" % NP)
        sym_tags = {"as_sym_int", "as_sym_bool", "as_sym_float"}
        if len(node["outputs"]) != 1 or not sym_tags & set(node["outputs"][0]):
            rep.err("%s: symbolic-scalar op must define one sym value" % NP)
        return
    if node["is_hop_single_tensor_return"] is not None:
        rep.err("%s: is_hop_single_tensor_return is only for higher-order ops" % NP)
    schema = S.schema_for_target(tgt)
    if schema is None:
        rep.err("%s: unknown operator %s" % (NP, tgt))
        return
    if aten and "core" not in schema.tags:
        rep.err("%s: %s is not core ATen but verifiers is ['ATEN']" % (NP, tgt))
    names = [a.name for a in schema.args]
    given = {}
    last_pos = -1
    for na in node["inputs"]:
        sa = schema.arg(na["name"])
        if sa is None:
            rep.err("%s: %s has no argument %s" % (NP, tgt, na["name"]))
            continue
        pos = names.index(na["name"])
        if pos <= last_pos:
            rep.err("%s: argument %s out of schema order" % (NP, na["name"]))
        last_pos = pos
        given[na["name"]] = na
        want_kind = 2 if sa.kwarg_only else 1
        if na["kind"] != want_kind:
            rep.err("%s: argument %s kind %r, expected %d" % (NP, na["name"], na["kind"],
                                                              want_kind))
        tags = tags_for_type(sa.base_type())
        tag = next(iter(na["arg"]))
        if tags is None:
            rep.note("%s: type %s not checked" % (NP, sa.type))
        elif tag not in tags:
            rep.err("%s: argument %s (%s) has tag %s" % (NP, na["name"], sa.type, tag))
        if sa.kwarg_only and sa.has_default and value_equals_default(na["arg"], sa.default):
            rep.err("%s: keyword-only %s given its default (would be omitted)" % (NP, sa.name))
    positional = [a for a in schema.args if not a.kwarg_only]
    present = [a.name in given for a in positional]
    if True in present:
        last = max(i for i, p in enumerate(present) if p)
        for i in range(last):
            if not present[i]:
                rep.err("%s: positional argument %s missing before %s" % (
                    NP, positional[i].name, positional[last].name))
        la = positional[last]
        if la.has_default and value_equals_default(given[la.name]["arg"], la.default):
            rep.err("%s: trailing positional %s equals its default (would be stripped)" % (
                NP, la.name))
    for a in schema.args:
        if not a.has_default and a.name not in given:
            rep.err("%s: required argument %s missing" % (NP, a.name))
    n_ret = len(schema.returns)
    if schema.returns and schema.returns[0].endswith("[]"):
        n_ret = 1
    if len(node["outputs"]) != n_ret:
        rep.err("%s: %d outputs, schema returns %d" % (NP, len(node["outputs"]), n_ret))


def _check_node_shapes(node, NP, metas, syms, rep, unchecked):
    tgt = node["target"]
    schema = S.schema_for_target(tgt)
    try:
        args = {}
        if schema is not None:
            for sa in schema.args:
                if sa.has_default:
                    args[sa.name] = default_as_value(sa.default)
            for na in node["inputs"]:
                args[na["name"]] = decode_value(na["arg"], metas, syms)
        else:
            for na in node["inputs"]:
                args[na["name"]] = decode_value(na["arg"], metas, syms)
        if any(v is None for v in args.values() if isinstance(v, S.Meta)):
            raise S.Unsupported("input meta unknown")
        outs = S.infer(tgt, args)
    except S.Unsupported as e:
        unchecked.add(tgt.split(".")[-2] if "." in tgt else tgt)
        if "view of a non-viewable" in str(e) or "changes the element count" in str(e) or \
                "shapes" in str(e) or "broadcast" in str(e):
            rep.err("%s: %s" % (NP, e))
        return
    except KeyError as e:
        rep.err("%s: missing value %s" % (NP, e))
        return
    outputs = node["outputs"]
    if len(outputs) != len(outs):
        return
    for o, want in zip(outputs, outs):
        if "as_tensor" in o:
            got = metas.get(o["as_tensor"]["name"])
            if got is None:
                continue
            if not got.same_layout(want):
                rep.err("%s: %s is %s, derived %s" % (NP, o["as_tensor"]["name"], got, want))
        elif "as_sym_int" in o:
            got = syms.get(o["as_sym_int"]["as_name"])
            if got is not None and got != want:
                rep.err("%s: sym %s is %s, derived %s" % (NP, o["as_sym_int"]["as_name"], got,
                                                          want))


def _check_configs(root, model, specs_in, metas, rep):
    state = []
    wanted = {"weights": {}, "constants": {}}
    for stag, name, target in specs_in:
        if stag == "parameter":
            wanted["weights"][target] = (name, "parameter", True)
        elif stag == "buffer":
            fqn, persistent = target
            wanted["weights" if persistent else "constants"][fqn] = (name, "buffer", False)
        elif stag == "tensor_constant":
            wanted["constants"][target] = (name, "tensor_constant", False)
    referenced = set()
    for kind in ("weights", "constants"):
        cpath = os.path.join(root, "data", kind, "%s_%s_config.json" % (model, kind))
        if not os.path.exists(cpath):
            rep.err("missing data/%s/%s_%s_config.json" % (kind, model, kind))
            continue
        cfg, _ = load_json_text(cpath, rep)
        CP = "data/%s/%s_%s_config.json" % (kind, model, kind)
        if not check_struct(cfg, "PayloadConfig", CP, rep):
            continue
        if set(cfg["config"]) != set(wanted[kind]):
            rep.err("%s: keys %s, expected %s" % (CP, sorted(cfg["config"]),
                                                  sorted(wanted[kind])))
        for fqn, pm in cfg["config"].items():
            PP = "%s/config/%s" % (CP, fqn)
            if not check_struct(pm, "PayloadMeta", PP, rep):
                continue
            check_tensor_meta(pm["tensor_meta"], PP + "/tensor_meta", rep)
            if pm["use_pickle"]:
                rep.err("%s: use_pickle true in a fixture" % PP)
            w = wanted[kind].get(fqn)
            if w is None:
                continue
            placeholder, skind, is_param = w
            if pm["is_param"] != is_param:
                rep.err("%s: is_param %r" % (PP, pm["is_param"]))
            m = S.meta_from_json(pm["tensor_meta"])
            gmeta = metas.get(placeholder)
            if gmeta is not None and not m.same_layout(gmeta):
                rep.err("%s: tensor_meta %s differs from placeholder %s %s" % (PP, m, placeholder,
                                                                             gmeta))
            if pm["tensor_meta"]["storage_offset"] != {"as_int": 0}:
                rep.note("%s: non-zero storage offset" % PP)
            fpath = os.path.join(root, "data", kind, pm["path_name"])
            referenced.add(os.path.join(kind, pm["path_name"]))
            if "/" in pm["path_name"] or not os.path.exists(fpath):
                rep.err("%s: payload %s missing" % (PP, pm["path_name"]))
                continue
            size = os.path.getsize(fpath)
            esize = S.DTYPES[m.dtype][1]
            off = pm["tensor_meta"]["storage_offset"]["as_int"]
            need = (off + 1 + sum((n - 1) * st for n, st in zip(m.sizes, m.strides))) * esize \
                if all(n > 0 for n in m.sizes) else 0
            if size % esize:
                rep.err("%s: payload size %d not a multiple of %d" % (PP, size, esize))
            if size and size < need:
                rep.err("%s: payload %d bytes, view needs %d" % (PP, size, need))
            state.append({"fqn": fqn, "kind": skind, "placeholder": placeholder,
                          "dtype": S.DTYPES[m.dtype][0], "shape": m.sizes,
                          "file": "data/%s/%s" % (kind, pm["path_name"]), "bytes": size})
    return state, referenced


def _check_records(root, rep):
    def read(rel):
        p = os.path.join(root, rel)
        if not os.path.exists(p):
            rep.err("missing record %s" % rel)
            return None
        with open(p, "rb") as f:
            return f.read()
    if read("archive_format") not in (None, b"pt2"):
        rep.err("archive_format must be 'pt2'")
    if read("archive_version") not in (None, b"0"):
        rep.err("archive_version must be '0'")
    if read("byteorder") not in (None, b"little"):
        rep.err("byteorder must be 'little'")
    if read(".data/version") not in (None, b"6\n"):
        rep.err(".data/version must be '6\\n'")
    sid = read(".data/serialization_id")
    if sid is not None and not re.fullmatch(rb"\d{40}", sid):
        rep.err(".data/serialization_id must be 40 digits")


def models_in(root):
    d = os.path.join(root, "models")
    return sorted(f[:-5] for f in os.listdir(d) if f.endswith(".json"))


def check_archive_dir(root, strict_meta=True):
    """Check one unpacked archive folder; returns (Report, {model: facts})."""
    rep = Report(os.path.relpath(root, REPO))
    _check_records(root, rep)
    all_facts, referenced = {}, set()
    for model in models_in(root):
        facts = check_program(root, model, rep, strict_meta)
        if facts is None:
            continue
        facts["state"], refs = facts["state"]
        referenced |= refs
        all_facts[model] = facts
    for kind in ("weights", "constants"):
        d = os.path.join(root, "data", kind)
        if not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d)):
            if f.endswith("_config.json"):
                continue
            if os.path.join(kind, f) not in referenced:
                rep.err("data/%s/%s is not referenced by any config" % (kind, f))
    for sub in os.listdir(root):
        if sub not in ("models", "data", "archive_format", "archive_version", "byteorder",
                       ".data", "extra"):
            rep.err("unexpected record %s in the archive folder" % sub)
    return rep, all_facts


# ---------------------------------------------------------------------------------------------
# expected.json facts
# ---------------------------------------------------------------------------------------------

def _shape_json(sizes):
    return [s if isinstance(s, int) else s.plain() for s in sizes]


def expected_facts(root, all_facts):
    """The facts a test can assert, recomputed from the files (what expected.json stores)."""
    methods = {}
    for model, f in all_facts.items():
        metas = f["metas"]

        def tinfo(name, extra=None):
            m = metas.get(name)
            d = {"name": name}
            if extra:
                d.update(extra)
            if m is not None:
                d["dtype"] = S.DTYPES[m.dtype][0]
                d["shape"] = _shape_json(m.sizes)
            return d

        user_inputs = [tinfo(n) for k, n, _ in f["specs_in"] if k == "user_input"]
        outputs = []
        for k, n, t in f["specs_out"]:
            extra = {"kind": k}
            if t is not None:
                extra["target"] = t
            outputs.append(tinfo(n, extra))
        groups = {}
        for st in f["state"]:
            g = groups.setdefault(st["kind"], {"count": 0, "bytes": 0})
            g["count"] += 1
            g["bytes"] += st["bytes"]
        graph_inputs = []
        for k, n, t in f["specs_in"]:
            d = {"name": n, "kind": k}
            if isinstance(t, tuple):
                d["target"], d["persistent"] = t
            elif t is not None:
                d["target"] = t
            graph_inputs.append(d)
        # torch.export.save stores the forward method as models/model.json
        method = "forward" if model == "model" else model
        methods[method] = {
            "model_json": "models/%s.json" % model,
            "graph_inputs": graph_inputs,
            "verifiers": f["verifiers"],
            "user_inputs": user_inputs,
            "outputs": outputs,
            "node_count": f["node_count"],
            "nodes_by_target": f["nodes_by_target"],
            "parameters": groups.get("parameter", {"count": 0, "bytes": 0}),
            "buffers": groups.get("buffer", {"count": 0, "bytes": 0}),
            "tensor_constants": groups.get("tensor_constant", {"count": 0, "bytes": 0}),
            "state": f["state"],
            "range_constraints": f["range_constraints"],
            "preserved_modules": f["preserved_modules"],
            "in_spec": f["in_spec"],
            "out_spec": f["out_spec"],
            "bare_nonfinite_json": f["bare_nonfinite"],
        }
    return {"methods": sorted(methods), "per_method": methods}


# ---------------------------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------------------------

def fixture_dirs():
    out = []
    if os.path.isdir(PROGRAMS_DIR):
        for name in sorted(os.listdir(PROGRAMS_DIR)):
            d = os.path.join(PROGRAMS_DIR, name)
            if os.path.isdir(os.path.join(d, "models")):
                out.append(("fixture", d))
    if os.path.isdir(CORPUS_DIR):
        for name in sorted(os.listdir(CORPUS_DIR)):
            d = os.path.join(CORPUS_DIR, name, "json")
            if os.path.isdir(os.path.join(d, "models")):
                out.append(("corpus", d))
    return out


def io_path(kind, root):
    if kind == "corpus":
        return os.path.join(os.path.dirname(root), "io.json")
    return root + ".io.json"


def run_checks(targets, do_eval=True, quiet=False):
    import ref_eval
    total_err = 0
    for kind, root in targets:
        try:
            rep, facts = check_archive_dir(root)
        except Exception as e:   # report a malformed folder instead of stopping
            rep, facts = Report(os.path.relpath(root, REPO)), {}
            rep.err("checker failed: %s: %s" % (type(e).__name__, e))
        if kind == "fixture":
            exp_path = root + ".expected.json"
            if os.path.exists(exp_path):
                with open(exp_path) as f:
                    stored = json.load(f)
                got = expected_facts(root, facts)
                for key, val in got.items():
                    if json.loads(json.dumps(val)) != stored.get(key):
                        rep.err("%s: %s differs from the files" % (
                            os.path.basename(exp_path), key))
                for model, pm in got["per_method"].items():
                    want_bare = stored.get("per_method", {}).get(model, {}).get(
                        "bare_nonfinite_json")
                    if pm["bare_nonfinite_json"] and not want_bare:
                        rep.err("%s has bare NaN/Infinity tokens" % pm["model_json"])
            else:
                rep.err("missing %s" % os.path.relpath(exp_path, REPO))
        elif any(f["bare_nonfinite"] for f in facts.values()):
            rep.err("bare NaN/Infinity tokens in a corpus program")
        iop = io_path(kind, root)
        if do_eval and os.path.exists(iop):
            n, errs = ref_eval.check_io(root, iop)
            for e in errs:
                rep.err(e)
            rep.note("evaluated %d run(s)/step(s) of %s" % (n, os.path.basename(iop)))
        total_err += len(rep.errors)
        status = "FAIL" if rep.errors else "ok"
        print("%-4s %s" % (status, rep.where))
        for e in rep.errors:
            print("     error: " + e)
        if not quiet:
            for n in rep.notes:
                print("     note: " + n)
    print("%d folder(s) checked, %d error(s)" % (len(targets), total_err))
    return total_err


def main(argv):
    do_eval = "--no-eval" not in argv
    quiet = "--quiet" in argv
    paths = [a for a in argv if not a.startswith("--")]
    if paths:
        targets = []
        for p in paths:
            p = os.path.abspath(p)
            kind = "corpus" if os.path.basename(p) == "json" and os.path.exists(
                os.path.join(os.path.dirname(p), "io.json")) else "fixture"
            targets.append((kind, p))
    else:
        targets = fixture_dirs()
    return 1 if run_checks(targets, do_eval, quiet) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
