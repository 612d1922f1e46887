#!/usr/bin/env python3
"""Self-tests of the fixture scripts (standard library unittest).

  python3 scripts/test_fixtures.py [-v]

* the committed tests/fixtures/programs/ are exactly what scripts/gen_fixtures.py produces,
  and tests/fixtures/shape_errors/ what scripts/make_shape_error_fixtures.py produces;
* every fixture and every corpus case passes scripts/check_fixtures.py (incl. float64 runs);
* the checker catches each of a list of deliberate faults (so its passing means something);
* scripts/gen_synthetic.py writes a valid program with the announced node count.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import check_fixtures as C  # noqa: E402
import ref_eval  # noqa: E402

PROGRAMS = C.PROGRAMS_DIR


def tree_bytes(root):
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, root)] = fh.read()
    return out


def load(path):
    with open(path) as f:
        return json.load(f)


def save(path, obj, **kw):
    with open(path, "w") as f:
        f.write(json.dumps(obj, **kw))


class Mutated:
    """A temporary copy of one fixture (folder + expected/io side files)."""

    def __init__(self, tmp, name, as_name=None):
        self.root = os.path.join(tmp, as_name or name)
        shutil.copytree(os.path.join(PROGRAMS, name), self.root)
        for ext in (".expected.json", ".io.json"):
            shutil.copy(os.path.join(PROGRAMS, name + ext), self.root + ext)
        self.model = os.path.join(self.root, "models", "model.json")

    def edit_model(self, fn):
        ep = load(self.model)
        fn(ep)
        save(self.model, ep)

    def errors(self):
        rep, facts = C.check_archive_dir(self.root)
        errs = list(rep.errors)
        stored = load(self.root + ".expected.json")
        got = C.expected_facts(self.root, facts)
        for key, val in got.items():
            if json.loads(json.dumps(val)) != stored.get(key):
                errs.append("expected.json: %s differs" % key)
        for pm in got["per_method"].values():
            if pm["bare_nonfinite_json"] and not stored["per_method"][
                    "forward"].get("bare_nonfinite_json"):
                errs.append("bare NaN/Infinity tokens")
        _, ev = ref_eval.check_io(self.root, self.root + ".io.json")
        return errs + ev


def nodes(ep):
    return ep["graph_module"]["graph"]["nodes"]


def node(ep, name):
    return next(n for n in nodes(ep) if n["name"] == name)


def tv(ep):
    return ep["graph_module"]["graph"]["tensor_values"]


def mcg(ep):
    return ep["graph_module"]["module_call_graph"]


class FixtureTests(unittest.TestCase):

    def test_committed_programs_are_reproducible(self):
        with tempfile.TemporaryDirectory() as tmp:
            r = subprocess.run([sys.executable, os.path.join(HERE, "gen_fixtures.py"),
                                "--out", tmp], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            got, want = tree_bytes(tmp), tree_bytes(PROGRAMS)
            self.assertEqual(sorted(got), sorted(want))
            for k in sorted(want):
                self.assertEqual(got[k], want[k], k)

    def test_committed_shape_error_fixtures_are_reproducible(self):
        committed = os.path.join(os.path.dirname(HERE), "tests", "fixtures", "shape_errors")
        with tempfile.TemporaryDirectory() as tmp:
            r = subprocess.run([sys.executable, os.path.join(HERE, "make_shape_error_fixtures.py"),
                                "--out", tmp], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            got = tree_bytes(tmp)
            want = {k: v for k, v in tree_bytes(committed).items() if k != "cases.json"}
            self.assertEqual(sorted(got), sorted(want))
            for k in sorted(want):
                self.assertEqual(got[k], want[k], k)

    def test_fixtures_and_corpus_pass(self):
        targets = C.fixture_dirs()
        self.assertEqual(sum(1 for k, _ in targets if k == "fixture"), 15)
        self.assertEqual(sum(1 for k, _ in targets if k == "corpus"), 11)
        with open(os.devnull, "w") as null:
            old, sys.stdout = sys.stdout, null
            try:
                errors = C.run_checks(targets, do_eval=True, quiet=True)
            finally:
                sys.stdout = old
        self.assertEqual(errors, 0)

    def test_twins_differ_only_in_encoding(self):
        a = load(os.path.join(PROGRAMS, "neg_inf_mask", "models", "model.json"))
        b = load(os.path.join(PROGRAMS, "neg_inf_mask_bare", "models", "model.json"))
        fill_a = node(a, "full_default")["inputs"][1]["arg"]["as_float"]
        fill_b = node(b, "full_default")["inputs"][1]["arg"]["as_float"]
        self.assertEqual(fill_a, "-Infinity")
        self.assertEqual(fill_b, float("-inf"))
        with open(os.path.join(PROGRAMS, "neg_inf_mask_bare", "models", "model.json")) as f:
            self.assertIn('{"as_float": -Infinity}', f.read())
        c = load(os.path.join(PROGRAMS, "dynamic_batch", "models", "model.json"))
        d = load(os.path.join(PROGRAMS, "dynamic_batch_plain", "models", "model.json"))
        sc = c["graph_module"]["graph"]["sym_int_values"]
        sd = d["graph_module"]["graph"]["sym_int_values"]
        self.assertEqual(sc["mul"]["as_expr"]["expr_str"],
                         "Mul(Integer(4), Symbol('s0', integer=True, positive=True))")
        self.assertEqual(sd["mul"]["as_expr"]["expr_str"], "4*s0")
        self.assertEqual([n["target"] for n in nodes(c)], [n["target"] for n in nodes(d)])

    def _assert_caught(self, name, edit, needle, as_name=None, raw=None):
        with tempfile.TemporaryDirectory() as tmp:
            m = Mutated(tmp, name, as_name)
            if edit is not None:
                m.edit_model(edit)
            if raw is not None:
                raw(m)
            errs = m.errors()
            self.assertTrue(any(needle in e for e in errs),
                            "%s: no error containing %r in %s" % (name, needle, errs))

    def test_unmodified_copy_is_clean(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.assertEqual(Mutated(tmp, "small_cnn").errors(), [])

    def test_faults_are_caught(self):
        def set_stride(ep):
            tv(ep)["permute"]["strides"][0] = {"as_int": 8}

        def permute_dims(ep):
            node(ep, "permute_1")["inputs"][1]["arg"]["as_ints"] = [0, 1, 2, 3]

        def kind(ep):
            node(ep, "convolution")["inputs"][8]["kind"] = 2

        def rename_arg(ep):
            node(ep, "view")["inputs"][1]["name"] = "shape"

        def eps(ep):
            node(ep, "native_layer_norm")["inputs"][4]["arg"]["as_float"] = 1e-3

        def undefined(ep):
            node(ep, "relu")["inputs"][0]["arg"]["as_tensor"]["name"] = "nope"

        def default_alpha(ep):
            node(ep, "add")["inputs"].append({"name": "alpha", "arg": {"as_int": 1}, "kind": 2})

        def swap_args(ep):
            node(ep, "add")["inputs"].reverse()

        def drop_clone(ep):
            ns = nodes(ep)
            i = [n["name"] for n in ns].index("clone")
            ns[i + 1]["inputs"][0]["arg"]["as_tensor"]["name"] = "permute_1"
            del ns[i]
            del tv(ep)["clone"]

        def not_core(ep):
            node(ep, "relu")["target"] = "torch.ops.aten.relu_.default"

        def trailing_default(ep):
            node(ep, "max_pool2d_with_indices")["inputs"].append(
                {"name": "padding", "arg": {"as_ints": [0, 0]}, "kind": 1})

        def reorder_inputs(ep):
            g, s = ep["graph_module"]["graph"], ep["graph_module"]["signature"]
            g["inputs"].insert(0, g["inputs"].pop())
            s["input_specs"].insert(0, s["input_specs"].pop())

        def out_name(ep):
            ep["graph_module"]["signature"]["output_specs"][0]["user_output"]["arg"][
                "as_tensor"]["name"] = "relu"

        def out_spec(ep):
            mcg(ep)[0]["signature"]["out_spec"] = json.dumps(
                [1, {"type": "builtins.tuple", "context": "null", "children_spec": [
                    {"type": None, "context": None, "children_spec": []}] * 2}])

        def module_path(ep):
            n = node(ep, "convolution")
            n["metadata"]["nn_module_stack"] += ";L__self__zz,zz,torch.nn.Module"

        def field_order(ep):
            g = ep["graph_module"]["graph"]
            g["outputs"] = g.pop("outputs")

        def no_range(ep):
            ep["range_constraints"] = {}

        def wrong_hint(ep):
            tv(ep)["view"]["sizes"][0]["as_expr"]["hint"] = {"as_int": 13}

        def mutation_target(ep):
            ep["graph_module"]["signature"]["output_specs"][0]["buffer_mutation"][
                "buffer_name"] = "missing"

        def grad_target(ep):
            ep["graph_module"]["signature"]["output_specs"][1]["gradient_to_parameter"][
                "parameter_name"] = "fc9.weight"

        def preserved(ep):
            next(e for e in mcg(ep) if e["fqn"] == "encoder")["signature"]["outputs"] = [
                {"as_tensor": {"name": "nowhere"}}]

        def transformer_scale(ep):
            node(ep, "mul")["inputs"][1]["arg"]["as_float"] = 0.25

        def truncate_payload(m):
            p = os.path.join(m.root, "data", "weights", "weight_7")
            with open(p, "rb") as f:
                data = f.read()
            with open(p, "wb") as f:
                f.write(data[:100])

        def config_meta(m):
            p = os.path.join(m.root, "data", "weights", "model_weights_config.json")
            cfg = load(p)
            cfg["config"]["conv.bias"]["tensor_meta"]["sizes"] = [{"as_int": 4}]
            save(p, cfg)

        def stray_payload(m):
            with open(os.path.join(m.root, "data", "weights", "weight_99"), "wb") as f:
                f.write(b"\0" * 4)

        def pretty_json(m):
            save(m.model, load(m.model), indent=1)

        def stale_expected(m):
            p = m.root + ".expected.json"
            e = load(p)
            e["per_method"]["forward"]["node_count"] += 1
            save(p, e)

        def bare_in_plain(m):
            ep = load(m.model)
            node(ep, "full_default")["inputs"][1]["arg"]["as_float"] = float("-inf")
            with open(m.model, "w") as f:
                f.write(json.dumps(ep))

        def archive_version(m):
            with open(os.path.join(m.root, "archive_version"), "w") as f:
                f.write("1")

        cases = [
            ("transformer_block", set_stride, "derived"),
            ("transformer_block", permute_dims, "derived"),
            ("transformer_block", drop_clone, "non-viewable"),
            ("transformer_block", transformer_scale, "got"),
            ("transformer_block", swap_args, "out of schema order"),
            ("transformer_block", default_alpha, "alpha given its default"),
            ("small_cnn", kind, "kind 2, expected 1"),
            ("small_cnn", rename_arg, "has no argument shape"),
            ("small_cnn", not_core, "not core ATen"),
            ("small_cnn", trailing_default, "equals its default"),
            ("small_cnn", reorder_inputs, "not ordered"),
            ("small_cnn", out_spec, "out_spec has 2 leaves"),
            ("small_cnn", module_path, "not a module_call_graph fqn"),
            ("small_cnn", field_order, "Graph fields"),
            ("small_cnn", undefined, "before it is defined"),
            ("mlp", out_name, "but its spec names"),
            ("multi_output", eps, "got"),
            ("dynamic_batch", no_range, "no range constraint"),
            ("dynamic_batch", wrong_hint, "hint"),
            ("buffer_mutation", mutation_target, "unknown buffer"),
            ("joint_training", grad_target, "unknown parameter"),
            ("nested_modules", preserved, "undefined nowhere"),
        ]
        for name, edit, needle in cases:
            with self.subTest(fixture=name, fault=edit.__name__):
                self._assert_caught(name, edit, needle)
        raw_cases = [
            ("small_cnn", truncate_payload, "view needs"),
            ("small_cnn", config_meta, "differs from placeholder"),
            ("small_cnn", stray_payload, "not referenced"),
            ("small_cnn", pretty_json, "not byte-identical"),
            ("small_cnn", stale_expected, "differs"),
            ("neg_inf_mask", bare_in_plain, "bare NaN/Infinity"),
            ("mlp", archive_version, "archive_version"),
        ]
        for name, raw, needle in raw_cases:
            with self.subTest(fixture=name, fault=raw.__name__):
                self._assert_caught(name, None, needle, raw=raw)

    def test_synthetic_generator(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "syn")
            r = subprocess.run([sys.executable, os.path.join(HERE, "gen_synthetic.py"),
                                "--nodes", "100", out], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertTrue(r.stdout.startswith("147 nodes, 3 layers, 48 parameters"), r.stdout)
            rep, facts = C.check_archive_dir(out)
            self.assertEqual(rep.errors, [])
            self.assertEqual(facts["model"]["node_count"], 147)
            self.assertEqual(len(os.listdir(os.path.join(out, "data", "weights"))), 49)


if __name__ == "__main__":
    unittest.main()
