#!/usr/bin/env python3
"""Writes the malformed program-JSON fixtures of tests/fixtures/errors/.

Each fixture is derived from the corpus program buffer_running_sum (two nodes,
a mutated buffer) by one small change, and written in the producer's own
style (json.dumps defaults) unless the case is about the JSON text itself.
The expected error of each fixture is listed by hand in
tests/fixtures/errors/json_cases.json.

Usage: python3 scripts/make_json_error_fixtures.py   (from the repository root)
"""
import copy
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASE = os.path.join(ROOT, "tests/fixtures/corpus/buffer_running_sum/json/models/model.json")
OUT = os.path.join(ROOT, "tests/fixtures/errors")


def base():
    with open(BASE) as f:
        return json.load(f)


def graph(p):
    return p["graph_module"]["graph"]


def nodes(p):
    return graph(p)["nodes"]


def dump(p):
    return json.dumps(p)


def case(name, text):
    path = os.path.join(OUT, name + ".json")
    mode = "wb" if isinstance(text, bytes) else "w"
    with open(path, mode) as f:
        f.write(text)


def mutate(name, fn):
    p = base()
    fn(p)
    case(name, dump(p))


def with_float_list(p, floats):
    """The second node becomes upsample_nearest2d.vec(add, None, floats): a
    call whose schema takes a float list (`float[]? scale_factors`)."""
    mul = nodes(p)[1]
    mul["target"] = "torch.ops.aten.upsample_nearest2d.vec"
    mul["inputs"] = [
        {"name": "input", "arg": mul["inputs"][0]["arg"], "kind": 1},
        {"name": "output_size", "arg": {"as_none": True}, "kind": 1},
        {"name": "scale_factors", "arg": {"as_floats": floats}, "kind": 1},
    ]
    return p


def main():
    text = dump(base())

    # --- the JSON text itself
    case("empty", "")
    case("whitespace_only", " \n\t\n")
    case("byte_order_mark", b"\xef\xbb\xbf" + text.encode())
    case("truncated", text[:500])
    case("zip_not_json", b"PK\x03\x04\x14\x00\x00\x00\x00\x00")
    case("trailing_comma", text[:-1] + ", }")
    deep = "[" * 100000 + "]" * 100000
    case("deeply_nested_arrays", text.replace('{"as_int": 2}', '{"as_ints": [' + deep + "]}"))
    case("duplicate_table_key", text.replace('"tensor_values": {', '"tensor_values": {"x": ' +
                                             json.dumps(graph(base())["tensor_values"]["x"]) + ", ", 1))
    # a repeated struct field: the last value is used, with a warning; when
    # that breaks the program, the error carries the warning as a note
    case("repeated_field", text.replace('"is_single_tensor_return": false',
                                        '"is_single_tensor_return": true, "is_single_tensor_return": false', 1))
    case("repeated_field_breaks_graph", text.replace('"sym_int_values": {}',
                                                     '"tensor_values": {}, "sym_int_values": {}', 1))
    # (the non-finite floats as the tokens some writers emit: text, not json.dumps)
    case("nonfinite_float_tokens", dump(with_float_list(base(), ["Infinity", "-Infinity", "NaN", 0.5])).replace(
        '["Infinity", "-Infinity", "NaN", 0.5]', "[Infinity, -Infinity, NaN, 0.5]"))
    # (and words RapidJSON takes but Python's json.loads refuses)
    for name, word in (("minus_nan_token", "-NaN"), ("bare_inf_token", "Inf"), ("bare_minus_inf_token", "-Inf")):
        case(name, dump(with_float_list(base(), [0.5, "NaN"])).replace('[0.5, "NaN"]', "[0.5, " + word + "]"))

    # --- wrong JSON types and missing fields
    case("root_is_array", "[]")
    mutate("nodes_not_array", lambda p: graph(p).__setitem__("nodes", {}))
    mutate("target_not_string", lambda p: nodes(p)[0].__setitem__("target", 5))
    mutate("missing_graph_module", lambda p: p.pop("graph_module"))
    mutate("missing_node_target", lambda p: nodes(p)[1].pop("target"))
    mutate("missing_tensor_argument_name", lambda p: nodes(p)[1]["inputs"][0]["arg"].__setitem__("as_tensor", {}))
    mutate("requires_grad_not_bool",
           lambda p: graph(p)["tensor_values"]["x"].__setitem__("requires_grad", "yes"))
    mutate("metadata_not_string", lambda p: nodes(p)[0]["metadata"].__setitem__("stack_trace", 5))
    mutate("buffer_spec_missing_persistent",
           lambda p: p["graph_module"]["signature"]["input_specs"][0]["buffer"].pop("persistent"))
    mutate("strides_rank_mismatch",
           lambda p: graph(p)["tensor_values"]["x"].__setitem__("strides", []))
    mutate("int_out_of_range", lambda p: nodes(p)[1]["inputs"][1]["arg"].__setitem__("as_int", 9223372036854775808))
    mutate("bad_treespec",
           lambda p: p["graph_module"]["module_call_graph"][0]["signature"].__setitem__("in_spec", "[1, {"))

    # --- unions
    mutate("unknown_argument_tag", lambda p: nodes(p)[1]["inputs"][1].__setitem__("arg", {"as_int128": 2}))
    mutate("unknown_input_spec_tag",
           lambda p: p["graph_module"]["signature"]["input_specs"].__setitem__(0, {"weird": {"arg": {"name": "b_total"}}}))
    mutate("union_with_two_keys", lambda p: nodes(p)[1]["inputs"][1].__setitem__("arg", {"as_int": 2, "as_float": 2.0}))

    # --- enums and values
    mutate("unknown_dtype_number", lambda p: graph(p)["tensor_values"]["x"].__setitem__("dtype", 14))
    mutate("unknown_layout_number", lambda p: graph(p)["tensor_values"]["x"].__setitem__("layout", 9))
    mutate("negative_size", lambda p: graph(p)["tensor_values"]["mul"]["sizes"].__setitem__(0, {"as_int": -3}))
    mutate("empty_range_constraint", lambda p: p.__setitem__("range_constraints", {"s0": {"min_val": 64, "max_val": 2}}))
    mutate("negative_infinite_max",
           lambda p: p.__setitem__("range_constraints", {"s0": {"min_val": 2, "max_val": "-Infinity"}}))
    mutate("dtype_minus_one", lambda p: graph(p)["tensor_values"]["x"].__setitem__("dtype", -1))
    mutate("tensor_bytes_overflow", lambda p: graph(p)["tensor_values"]["mul"].update(
        sizes=[{"as_int": 2147483647}, {"as_int": 2147483647}, {"as_int": 4}],
        strides=[{"as_int": 8589934588}, {"as_int": 4}, {"as_int": 1}]))

    # --- graph structure (verifier)
    mutate("duplicate_node_name", lambda p: nodes(p)[1].__setitem__("name", "add"))

    def duplicate_value(p):
        nodes(p)[1]["outputs"] = [{"as_tensor": {"name": "add"}}]
    mutate("duplicate_value_name", duplicate_value)
    mutate("use_before_definition", lambda p: nodes(p).reverse())
    mutate("dangling_tensor_name",
           lambda p: nodes(p)[1]["inputs"][0]["arg"].__setitem__("as_tensor", {"name": "ghost"}))

    def output_naming_nothing(p):
        graph(p)["outputs"][1] = {"as_tensor": {"name": "nothing"}}
        p["graph_module"]["signature"]["output_specs"][1]["user_output"]["arg"] = {"as_tensor": {"name": "nothing"}}
    mutate("output_naming_nothing", output_naming_nothing)
    mutate("signature_input_count", lambda p: p["graph_module"]["signature"]["input_specs"].pop(0))
    mutate("value_in_two_tables",
           lambda p: graph(p)["sym_int_values"].__setitem__("x", {"as_int": 3}))

    # --- versions
    mutate("schema_major_7", lambda p: p["schema_version"].__setitem__("major", 7))
    mutate("schema_major_10", lambda p: p["schema_version"].__setitem__("major", 10))
    mutate("schema_major_9", lambda p: p.__setitem__("schema_version", {"major": 9, "minor": 0}))
    mutate("missing_schema_version", lambda p: p.pop("schema_version"))

    # --- warnings raised before an error: the error carries them as notes
    def warnings_then_error(p):
        p["schema_version"] = {"major": 9, "minor": 0}
        p["future_field"] = 1
        nodes(p)[0]["inputs"] = 5
    mutate("warnings_then_error", warnings_then_error)

    # --- valid inputs that exercise lenient rules
    mutate("nonfinite_float_strings", lambda p: with_float_list(p, ["Infinity", "-Infinity", "NaN", 0.5]))

    def unknown_keys(p):
        p["future_field"] = 1
        nodes(p)[0]["new_node_key"] = "x"
        graph(p)["tensor_values"]["x"]["memory_format"] = 1
    mutate("unknown_keys", unknown_keys)

    def old_format(p):
        for n in nodes(p):
            n.pop("name")
            n.pop("is_hop_single_tensor_return")
            for a in n["inputs"]:
                a.pop("kind")
        # an optional argument given as None with the old [] payload: the
        # second node becomes clamp(add, min=2, max=None)
        mul = nodes(p)[1]
        mul["target"] = "torch.ops.aten.clamp.default"
        mul["inputs"][1]["name"] = "min"
        mul["inputs"].append({"name": "max", "arg": {"as_none": []}})
        g = graph(p)
        for k in ("is_single_tensor_return", "custom_obj_values", "sym_float_values"):
            g.pop(k)
        p["graph_module"].pop("treespec_namedtuple_fields")
        p["graph_module"].pop("metadata")
        for k in ("torch_version", "guards_code", "verifiers"):
            p.pop(k)
        p["schema_version"] = {"major": 8, "minor": 1}
    mutate("old_format_defaults", old_format)


if __name__ == "__main__":
    main()
