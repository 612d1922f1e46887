#!/usr/bin/env python3
"""Generates pteforge's operator table from the data files in core/ops/data/.

Usage: gen_ops.py --data-dir core/ops/data --out-dir BUILD/generated/ops

Reads
  native_functions.yaml, tags.yaml          PyTorch's operator registry and tag list
  autogen_out_variants.tsv                  cross-check of the derived autogen out variants
  functional_to_out.tsv                     cross-check of the functional -> out pairing
  portable_ops_resolved.md                  cross-check of the kernels' schemas and pairing
  custom_op_schemas.md, quantized_decomposed.md, prim_ops.md
                                            ExecuTorch / torch AOT schemas (bullets and table cells)
  executorch_extra_ops.yaml                 the few ExecuTorch ops with no schema elsewhere
  portable_functions.yaml, portable_custom_ops.yaml, portable_et_copy_ops.yaml,
  aten_edge_dialect_aten_op.yaml, optimized.yaml, quantized.yaml
                                            ExecuTorch kernel libraries (membership, extra schemas)
Writes
  op_table_data.inc   schema strings (one per line) + one packed record per schema
  op_tags.def         X-macro list of tags (tags.yaml order)

The rules implemented here are those of reference OPS.md sections 2-4 and
executorch-pipeline.md section 4.2 (out variants by signature, autogen out
variants, TensorOptions group). Every derived fact is checked against the
derived .tsv files; any disagreement or unresolvable name fails the build.
"""

import argparse
import os
import re
import sys

import yaml

try:
    _Loader = yaml.CSafeLoader
except AttributeError:  # pure-Python PyYAML
    _Loader = yaml.SafeLoader

# Kernel library bits; op_table.h declares the same values (the generated file
# static_asserts them).
KERNEL_BITS = {"Portable": 1, "Optimized": 2, "Quantized": 4, "Prim": 8}
NONE_INDEX = 0xFFFF
# SchemaKind enumerators of op_schema.h, in order.
SCHEMA_KINDS = ["functional", "inplace", "out", "mutable", "scratch"]

TENSOR_OPTIONS = [("dtype", "ScalarType?"), ("layout", "Layout?"), ("device", "Device?"),
                  ("pin_memory", "bool?")]


class SchemaError(Exception):
    pass


# --------------------------------------------------------------------------
# Schema grammar (OPS.md section 2)
# --------------------------------------------------------------------------

class Type:
    __slots__ = ("base", "alias", "elem_opt", "list_size", "opt")

    def __init__(self, base, alias=None, elem_opt=False, list_size=None, opt=False):
        self.base = base            # "Tensor", "int", ...
        self.alias = alias          # "a!", "a", "a -> *" or None
        self.elem_opt = elem_opt    # list element optional (Tensor?[]); for non-lists see opt
        self.list_size = list_size  # None (not a list), "" (T[]), "N" (T[N])
        self.opt = opt              # the whole value is optional

    def fmt(self, with_alias=True):
        s = self.base
        if with_alias and self.alias is not None:
            s += "(" + self.alias + ")"
        if self.list_size is not None:
            if self.elem_opt:
                s += "?"
            s += "[" + self.list_size + "]"
        if self.opt:
            s += "?"
        return s

    def copy(self, alias="keep"):
        t = Type(self.base, self.alias, self.elem_opt, self.list_size, self.opt)
        if alias != "keep":
            t.alias = alias
        return t

    def is_write(self):
        return self.alias is not None and self.alias.endswith("!")

    def tensor_like(self):
        return self.base == "Tensor"


class Arg:
    __slots__ = ("type", "name", "default", "kwarg_only")

    def __init__(self, type_, name, default, kwarg_only):
        self.type = type_
        self.name = name
        self.default = default      # default text as written, or None
        self.kwarg_only = kwarg_only

    def fmt(self, with_alias=True):
        s = self.type.fmt(with_alias) + " " + self.name
        if self.default is not None:
            s += "=" + self.default
        return s


class Ret:
    __slots__ = ("type", "name")

    def __init__(self, type_, name):
        self.type = type_
        self.name = name

    def fmt(self, with_alias=True):
        s = self.type.fmt(with_alias)
        if self.name:
            s += " " + self.name
        return s


class Schema:
    def __init__(self, ns, name, overload, args, rets):
        self.ns = ns
        self.name = name
        self.overload = overload
        self.args = args
        self.rets = rets

    @property
    def key(self):
        return (self.ns, self.name, self.overload)

    def full_name(self):
        s = self.ns + "::" + self.name
        if self.overload:
            s += "." + self.overload
        return s

    def fmt(self, with_ns=True):
        head = (self.ns + "::" if with_ns else "") + self.name
        if self.overload:
            head += "." + self.overload
        parts = []
        star = False
        for a in self.args:
            if a.kwarg_only and not star:
                parts.append("*")
                star = True
            parts.append(a.fmt())
        if len(self.rets) == 1:
            ret = self.rets[0].fmt()
        else:
            ret = "(" + ", ".join(r.fmt() for r in self.rets) + ")"
        return head + "(" + ", ".join(parts) + ") -> " + ret

    # --- kinds (executorch-pipeline.md 4.2) ---
    def is_inplace(self):
        return inplace_base(self.name) is not None

    def out_args(self):
        return [a for a in self.args if a.kwarg_only and a.type.is_write()]

    def kind(self):
        if self.is_inplace():
            return "inplace"
        outs = self.out_args()
        if outs and all(a.name.startswith("_scratch_") for a in outs):
            return "scratch"
        if outs:
            return "out"
        if any(a.type.is_write() for a in self.args):
            return "mutable"
        return "functional"

    def base_name(self):
        b = inplace_base(self.name)
        return b if b is not None else self.name

    def signature(self):
        """The pairing key of executorch-pipeline.md 4.2 (returns ignored)."""
        args = [a for a in self.args if not (a.kwarg_only and a.type.is_write())]
        args = drop_tensor_options(args)
        return (self.ns, self.base_name(),
                tuple((a.type.fmt(with_alias=False), a.name, a.default, a.kwarg_only) for a in args))

    def is_view(self):
        """Aliasing view op: a non-mutating op whose return aliases an input."""
        if self.kind() != "functional":
            return False
        return any(r.type.alias is not None and not r.type.is_write() for r in self.rets)


AUGMENTED = {"add", "sub", "mul", "div", "pow", "truediv", "floordiv", "mod", "matmul", "and",
             "or", "xor", "lshift", "rshift"}


def inplace_base(name):
    """Base (functional) name of an in-place op name, or None if not in-place."""
    if name.startswith("__") and name.endswith("__"):
        inner = name[2:-2]
        if inner.startswith("i") and inner[1:] in AUGMENTED:
            return "__" + inner[1:] + "__"
        return None
    if name.endswith("_") and not name.endswith("__"):
        return name[:-1]
    return None


def drop_tensor_options(args):
    """Drops the kwarg-only dtype/layout/device/pin_memory group (OPS.md 2)."""
    for i in range(len(args) - 3):
        group = args[i:i + 4]
        if all(a.kwarg_only and a.name == n and a.type.fmt(False) == t
               for a, (n, t) in zip(group, TENSOR_OPTIONS)):
            return args[:i] + args[i + 4:]
    return args


class _Cursor:
    def __init__(self, text):
        self.s = text
        self.i = 0

    def peek(self):
        return self.s[self.i] if self.i < len(self.s) else ""

    def eat(self, tok):
        if self.s.startswith(tok, self.i):
            self.i += len(tok)
            return True
        return False

    def expect(self, tok):
        if not self.eat(tok):
            raise SchemaError("expected %r at %d in %r" % (tok, self.i, self.s))

    def skip_ws(self):
        while self.peek() == " ":
            self.i += 1

    def ident(self):
        m = re.compile(r"[A-Za-z_][A-Za-z0-9_]*").match(self.s, self.i)
        if not m:
            raise SchemaError("expected a name at %d in %r" % (self.i, self.s))
        self.i = m.end()
        return m.group(0)


def _parse_type(c):
    base = c.ident()
    alias = None
    if c.eat("("):
        j = c.s.index(")", c.i)
        alias = c.s[c.i:j]
        c.i = j + 1
    q1 = c.eat("?")
    list_size = None
    if c.eat("["):
        j = c.s.index("]", c.i)
        list_size = c.s[c.i:j]
        if list_size and not list_size.isdigit():
            raise SchemaError("bad list size in %r" % c.s)
        c.i = j + 1
    q2 = c.eat("?")
    if list_size is None:
        return Type(base, alias, False, None, q1)
    return Type(base, alias, q1, list_size, q2)


def _read_default(c):
    start = c.i
    depth = 0
    while c.i < len(c.s):
        ch = c.s[c.i]
        if ch in "'\"":
            q = ch
            c.i += 1
            while c.i < len(c.s) and c.s[c.i] != q:
                c.i += 2 if c.s[c.i] == "\\" else 1
        elif ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch in ",)" and depth == 0:
            break
        c.i += 1
    return c.s[start:c.i]


def parse_schema(text, default_ns="aten"):
    c = _Cursor(text)
    ns = default_ns
    name = c.ident()
    if c.eat("::"):
        ns, name = name, c.ident()
    overload = ""
    if c.eat("."):
        overload = c.ident()
    c.expect("(")
    args = []
    kwarg_only = False
    c.skip_ws()
    if not c.eat(")"):
        while True:
            c.skip_ws()
            if c.eat("*"):
                kwarg_only = True
            else:
                t = _parse_type(c)
                c.expect(" ")
                n = c.ident()
                d = None
                if c.eat("="):
                    d = _read_default(c)
                args.append(Arg(t, n, d, kwarg_only))
            c.skip_ws()
            if c.eat(")"):
                break
            c.expect(",")
    c.expect(" -> ")
    rets = []
    if c.eat("("):
        if not c.eat(")"):
            while True:
                c.skip_ws()
                rets.append(_parse_ret(c))
                if c.eat(")"):
                    break
                c.expect(",")
    else:
        rets.append(_parse_ret(c))
    if c.i != len(text):
        raise SchemaError("trailing text at %d in %r" % (c.i, text))
    s = Schema(ns, name, overload, args, rets)
    if s.fmt(with_ns=("::" in text.split("(", 1)[0])) != text:
        raise SchemaError("schema does not round-trip: %r -> %r" % (text, s.fmt()))
    return s


def _parse_ret(c):
    t = _parse_type(c)
    name = ""
    if c.peek() == " ":
        c.i += 1
        name = c.ident()
    return Ret(t, name)


# --------------------------------------------------------------------------
# Autogen out variants (OPS.md section 4)
# --------------------------------------------------------------------------

def _letters_used(args):
    used = set()
    for a in args:
        if a.type.alias:
            used.add(a.type.alias[0])
    return used


def _fresh_letters(used):
    for ch in "abcdefghijklmnopqrstuvwxyz":
        if ch not in used:
            yield ch


def derive_autogen_out(entry, out_name):
    """The out-variant schema torchgen generates for `out_name` from `entry`."""
    kind = entry.kind()
    base_ov = entry.overload
    want_ov = "out" if base_ov == "" else base_ov + "_out"
    if out_name != entry.base_name() + ("." + want_ov):
        raise SchemaError("autogen name %s does not follow the rule for %s"
                          % (out_name, entry.full_name()))
    if kind == "inplace":
        self_arg = entry.args[0]
        args = [Arg(a.type.copy(alias=None if k == 0 else "keep"), a.name, a.default, a.kwarg_only)
                for k, a in enumerate(entry.args)]
        args.append(Arg(self_arg.type.copy(), "out", None, True))
        rets = [Ret(r.type.copy(), r.name) for r in entry.rets]
        return Schema(entry.ns, entry.base_name(), want_ov, args, rets)
    keep = kind == "mutable"
    args = []
    for a in drop_tensor_options(entry.args):
        alias = a.type.alias if (keep and a.type.is_write() and not a.kwarg_only) else None
        args.append(Arg(a.type.copy(alias=alias), a.name, a.default, a.kwarg_only))
    letters = _fresh_letters(_letters_used(args))
    outs = []
    for i, r in enumerate(entry.rets):
        if not r.type.tensor_like():
            continue
        nm = "out" if len(entry.rets) == 1 else "out%d" % i
        t = r.type.copy(alias=next(letters) + "!")
        outs.append(Arg(t, nm, None, True))
    if not outs:
        raise SchemaError("autogen out %s: %s has no tensor return" % (out_name, entry.full_name()))
    all_plain = all(r.type.fmt() == "Tensor" for r in entry.rets)
    if all_plain:
        rets = [Ret(o.type.copy(), "") for o in outs]
    else:
        rets = [Ret(r.type.copy(), r.name) for r in entry.rets if not r.type.tensor_like()]
    return Schema(entry.ns, entry.base_name(), want_ov, args + outs, rets)


def derive_autogen_functional(entry, fn_name):
    """Functional twin of an in-place op whose only mutated argument is self:
    annotations stripped, returns made plain (torchgen's signature()).
    Returns None for shapes this rule does not cover (mutable / list ops)."""
    if entry.kind() != "inplace":
        return None
    writes = [a for a in entry.args if a.type.is_write()]
    if len(writes) != 1 or writes[0] is not entry.args[0] or entry.args[0].type.fmt(False) != "Tensor":
        return None
    if len(entry.rets) != 1 or entry.rets[0].type.fmt(False) != "Tensor":
        return None
    name, _, ov = fn_name.partition(".")
    if name != entry.base_name() or ov != entry.overload:
        return None
    args = [Arg(a.type.copy(alias=None), a.name, a.default, a.kwarg_only) for a in entry.args]
    return Schema(entry.ns, name, ov, args, [Ret(Type("Tensor"), entry.rets[0].name)])


# --------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------

class Table:
    def __init__(self):
        self.schemas = []        # list of Schema
        self.by_key = {}         # key -> index
        self.source = []         # per schema: source label
        self.tags = []           # per schema: set of tag names
        self.kernels = []        # per schema: bitmask
        self.conflicts = []      # human-readable notes

    def add(self, s, source, tags=()):
        if s.key in self.by_key:
            i = self.by_key[s.key]
            old = self.schemas[i]
            if old.fmt() != s.fmt():
                self.conflicts.append("%s: kept %s (%s); %s has %s"
                                      % (s.full_name(), old.fmt(), self.source[i], source, s.fmt()))
            return i
        self.by_key[s.key] = len(self.schemas)
        self.schemas.append(s)
        self.source.append(source)
        self.tags.append(set(tags))
        self.kernels.append(0)
        return len(self.schemas) - 1


def op_key(name, default_ns="aten"):
    """'ns::name.overload' or 'name.overload' -> key; 'default' overload == ''."""
    ns = default_ns
    if "::" in name:
        ns, name = name.split("::", 1)
    base, _, ov = name.partition(".")
    if ov == "default":
        ov = ""
    return (ns, base, ov)


def load_yaml(path):
    with open(path, encoding="utf-8") as f:
        return yaml.load(f, Loader=_Loader) or []


def read_tsv(path):
    rows = []
    header = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            cols = line.split("\t")
            if header is None:
                header = cols
                continue
            cols += [""] * (len(header) - len(cols))
            rows.append(dict(zip(header, cols)))
    return rows


BULLET_RE = re.compile(r"^- `([A-Za-z_][A-Za-z0-9_]*::[^`]+)`")


def md_bullet_schemas(path):
    """Schema strings of the markdown bullets '- `ns::schema`' of a fact sheet."""
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = BULLET_RE.match(line)
            if m and " -> " in m.group(1):
                out.append(m.group(1))
    return out


def prim_table(path):
    """(runtime kernel name, AOT schema or None) for each row of prim_ops.md's table."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.startswith("| `"):
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            kernel = cells[0].strip("`")
            aot = cells[3]
            schema = aot.strip("`") if aot.startswith("`") and aot.endswith("`") else None
            rows.append((kernel, schema))
    return rows


def resolved_kernel_rows(path):
    """(op, out schema, set of maps-from overloads) per table row of portable_ops_resolved.md."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.startswith("| `"):
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            op = cells[0].strip("`")
            schema = cells[2].strip("`")
            maps = set(x.strip().strip("`") for x in cells[3].split(",")) - {"\u2014", ""}
            rows.append((op, schema, maps))
    return rows


def tag_ident(tag):
    return "".join(p[:1].upper() + p[1:] for p in tag.split("_"))


def build(data):
    t = Table()
    p = lambda n: os.path.join(data, n)  # noqa: E731

    tag_names = [e["tag"] for e in load_yaml(p("tags.yaml"))]
    if len(tag_names) > 32:
        raise SchemaError("more than 32 tags")

    # 1. native_functions.yaml, explicit schemas.
    native = load_yaml(p("native_functions.yaml"))
    entries = []
    for e in native:
        s = parse_schema(e["func"])
        tags = e.get("tags", [])
        if isinstance(tags, str):
            tags = [x.strip() for x in tags.split(",")]
        for tg in tags:
            if tg not in tag_names:
                raise SchemaError("unknown tag %s on %s" % (tg, s.full_name()))
        if s.key in t.by_key:
            raise SchemaError("duplicate schema %s" % s.full_name())
        t.add(s, "native_functions.yaml", tags)
        entries.append((s, e.get("autogen", "")))

    # 2. autogen out variants (derived) and functional twins of in-place ops.
    autogen_out = {}
    for s, auto in entries:
        for nm in [x.strip() for x in auto.split(",") if x.strip()]:
            ov = nm.partition(".")[2]
            if ov == "out" or ov.endswith("_out"):
                d = derive_autogen_out(s, nm)
                autogen_out[nm] = (d, s)
            else:
                d = derive_autogen_functional(s, nm)
                if d is not None:
                    t.add(d, "native_functions.yaml autogen (functional twin of an in-place op)")
    expected = {r["out_variant"]: r["derived_schema"] for r in read_tsv(p("autogen_out_variants.tsv"))}
    if set(expected) != set(autogen_out):
        raise SchemaError("autogen out set differs from autogen_out_variants.tsv: %s"
                          % sorted(set(expected) ^ set(autogen_out)))
    for nm, (d, src) in sorted(autogen_out.items()):
        if d.fmt(with_ns=False) != expected[nm]:
            raise SchemaError("derived %s = %s, autogen_out_variants.tsv says %s"
                              % (nm, d.fmt(with_ns=False), expected[nm]))
        t.add(d, "native_functions.yaml autogen (out variant)")

    # 3. AOT schemas from the fact sheets and the extra data file.
    for fn in ("custom_op_schemas.md", "quantized_decomposed.md"):
        got = md_bullet_schemas(p(fn))
        if len(got) < 10:
            raise SchemaError("%s: only %d schema bullets found" % (fn, len(got)))
        for text in got:
            t.add(parse_schema(text), fn)
    prim_rows = prim_table(p("prim_ops.md"))
    if len(prim_rows) < 20:
        raise SchemaError("prim_ops.md: only %d table rows found" % len(prim_rows))
    for _, schema in prim_rows:
        if schema:
            t.add(parse_schema(schema), "prim_ops.md")
    for e in load_yaml(p("executorch_extra_ops.yaml")):
        t.add(parse_schema(e["func"]), "executorch_extra_ops.yaml")

    # 4. Kernel libraries: membership, plus inline schemas not known yet.
    def register(path, bit, label):
        for e in load_yaml(p(path)):
            if "func" in e:
                s = parse_schema(e["func"])
                i = t.add(s, label)
            else:
                key = op_key(e["op"])
                if key not in t.by_key:
                    raise SchemaError("%s: op %s has no schema" % (path, e["op"]))
                i = t.by_key[key]
            t.kernels[i] |= bit

    register("portable_functions.yaml", KERNEL_BITS["Portable"], "portable_functions.yaml")
    register("portable_custom_ops.yaml", KERNEL_BITS["Portable"], "portable_custom_ops.yaml")
    register("portable_et_copy_ops.yaml", KERNEL_BITS["Portable"], "portable_et_copy_ops.yaml")
    register("optimized.yaml", KERNEL_BITS["Optimized"], "optimized.yaml")
    register("quantized.yaml", KERNEL_BITS["Quantized"], "quantized.yaml")
    for e in load_yaml(p("aten_edge_dialect_aten_op.yaml")):
        s = parse_schema(e["func"])
        t.add(s, "aten_edge_dialect_aten_op.yaml")
    for kernel, _ in prim_rows:
        key = op_key(kernel)
        if key not in t.by_key:
            raise SchemaError("prim_ops.md: kernel %s has no schema" % kernel)
        t.kernels[t.by_key[key]] |= KERNEL_BITS["Prim"]

    # 5. Out variants by signature (executorch-pipeline.md 4.2).
    outs_by_sig = {}
    for i, s in enumerate(t.schemas):
        if s.kind() == "out":
            outs_by_sig.setdefault(s.signature(), []).append(i)
    out_of = [NONE_INDEX] * len(t.schemas)
    for i, s in enumerate(t.schemas):
        if s.kind() in ("functional", "inplace", "mutable"):
            cands = outs_by_sig.get(s.signature(), [])
            if len(cands) > 1:
                raise SchemaError("%s pairs with several out variants: %s"
                                  % (s.full_name(), [t.schemas[c].full_name() for c in cands]))
            if cands:
                out_of[i] = cands[0]
    # Cross-check with functional_to_out.tsv (functional overloads of native_functions.yaml).
    for r in read_tsv(p("functional_to_out.tsv")):
        key = op_key(r["functional_overload"])
        i = t.by_key.get(key)
        if i is None:
            raise SchemaError("functional_to_out.tsv: unknown %s" % r["functional_overload"])
        got = "" if out_of[i] == NONE_INDEX else t.schemas[out_of[i]].full_name().split("::", 1)[1]
        if got != r["out_variant"]:
            raise SchemaError("%s: paired with %r, functional_to_out.tsv says %r"
                              % (r["functional_overload"], got, r["out_variant"]))

    # Cross-check with portable_ops_resolved.md: each kernel's full out schema and
    # the native functional / in-place overloads that map to it.
    rows = resolved_kernel_rows(p("portable_ops_resolved.md"))
    if len(rows) < 200:
        raise SchemaError("portable_ops_resolved.md: only %d rows found" % len(rows))
    maps_to = {}
    for i, s in enumerate(t.schemas):
        if out_of[i] != NONE_INDEX and t.source[i] == "native_functions.yaml":
            maps_to.setdefault(out_of[i], set()).add(s.fmt(with_ns=False).split("(", 1)[0])
    for op, schema, maps_from in rows:
        i = t.by_key.get(op_key(op))
        if i is None:
            raise SchemaError("portable_ops_resolved.md: unknown %s" % op)
        s = t.schemas[i]
        if s.fmt(with_ns=(s.ns != "aten")) != schema:
            raise SchemaError("%s: schema %s, portable_ops_resolved.md says %s" % (op, s.fmt(), schema))
        if maps_to.get(i, set()) != maps_from:
            raise SchemaError("%s: maps from %s, portable_ops_resolved.md says %s"
                              % (op, sorted(maps_to.get(i, set())), sorted(maps_from)))

    # 6. `_copy` twins of view ops (same overload, name + "_copy").
    copy_of = [NONE_INDEX] * len(t.schemas)
    for i, s in enumerate(t.schemas):
        if s.is_view():
            j = t.by_key.get((s.ns, s.name + "_copy", s.overload))
            if j is not None:
                copy_of[i] = j

    if len(t.schemas) >= NONE_INDEX:
        raise SchemaError("too many schemas for 16-bit indices")
    return t, tag_names, out_of, copy_of


# --------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------

def c_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def write_if_changed(path, text):
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def emit(t, tag_names, out_of, copy_of, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    banner = "// Generated by scripts/gen_ops.py from core/ops/data/. Do not edit.\n"

    tags = [banner, "// PTEFORGE_OP_TAG(Identifier, \"yaml name\"), in tags.yaml order.\n"]
    for tg in tag_names:
        tags.append("PTEFORGE_OP_TAG(%s, %s)\n" % (tag_ident(tg), c_string(tg)))
    write_if_changed(os.path.join(out_dir, "op_tags.def"), "".join(tags))

    sources = sorted(set(t.source))
    src_index = {s: i for i, s in enumerate(sources)}
    if len(sources) > 255:
        raise SchemaError("too many distinct sources")
    o = [banner]
    o.append("// Included once, by core/ops/op_table.cpp, which defines SchemaRecord.\n")
    for k, v in KERNEL_BITS.items():
        o.append("static_assert(static_cast<unsigned>(KernelLibrary::%s) == %du);\n" % (k, v))
    o.append("static_assert(kTagCount == %d);\n" % len(tag_names))
    for k, name in enumerate(SCHEMA_KINDS):
        o.append("static_assert(static_cast<unsigned>(SchemaKind::%s) == %du);\n" % (name.capitalize(), k))
    for c in t.conflicts:
        o.append("// schema conflict: %s\n" % c.replace("\n", " "))
    o.append("\nconstexpr unsigned kSchemaCount = %d;\n" % len(t.schemas))
    o.append("\n// One schema per line, in table order; the aten:: namespace is implied.\n")
    o.append("constexpr char kSchemaText[] =\n")
    for s in t.schemas:
        o.append("    %s\n" % c_string(s.fmt(with_ns=s.ns != "aten") + "\n"))
    o.append(";\n\nconstexpr const char* kSourceNames[] = {\n")
    for s in sources:
        o.append("    %s,\n" % c_string(s))
    o.append("};\n\n// {tag bits, out variant, _copy twin, kernel bits, source, SchemaKind}\n")
    o.append("constexpr SchemaRecord kSchemaRecords[] = {\n")
    for i in range(len(t.schemas)):
        bits = 0
        for tg in t.tags[i]:
            bits |= 1 << tag_names.index(tg)
        o.append("    {0x%xu, %d, %d, %d, %d, %d},\n"
                 % (bits, out_of[i], copy_of[i], t.kernels[i], src_index[t.source[i]],
                    SCHEMA_KINDS.index(t.schemas[i].kind())))
    o.append("};\n")
    write_if_changed(os.path.join(out_dir, "op_table_data.inc"), "".join(o))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--out-dir", required=True)
    a = ap.parse_args(argv)
    try:
        t, tag_names, out_of, copy_of = build(a.data_dir)
    except (SchemaError, KeyError, ValueError, OSError) as e:
        print("gen_ops.py: error: %s" % e, file=sys.stderr)
        return 1
    emit(t, tag_names, out_of, copy_of, a.out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
