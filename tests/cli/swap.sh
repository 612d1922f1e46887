#!/usr/bin/env bash
# Module swap from the CLI: `inspect --modules` (text and JSON, exact),
# `convert --swap FQN=PATH` (the replacement's ops and weights in the .pte,
# the same file for the .pt2 and its unpacked folder), and its errors: exit 1
# with one message naming the module, nothing written.
# Usage: swap.sh <pteforge binary> <source dir>
set -euo pipefail
bin="$1"
src="$2"
base="$src/tests/fixtures/corpus/modules_preserved/modules_preserved.pt2"
rep="$src/tests/fixtures/corpus/modules_preserved_swap/replacement_1.pt2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

"$bin" inspect --modules "$base" > "$work/modules.txt"
cat > "$work/expected.txt" <<'TXT'
method forward
(root)   torch.nn.modules.container.Sequential  7 nodes
  0      torch.nn.modules.container.Sequential  4 nodes  preserved  swappable  in=(float32[3, 6]) out=(float32[3, 5])
    0.0  torch.nn.modules.linear.Linear         2 nodes
    0.1  torch.nn.modules.activation.SiLU       2 nodes
  1      torch.nn.modules.container.Sequential  3 nodes  preserved  swappable  in=(float32[3, 5]) out=(float32[3, 4])
    1.0  torch.nn.modules.linear.Linear         2 nodes
    1.1  torch.nn.modules.activation.Tanh       1 node
TXT
diff -u "$work/expected.txt" "$work/modules.txt"

"$bin" inspect --modules --json --method forward "$base" > "$work/modules.json"
# Indented like the other --json outputs.
[[ "$(head -n 5 "$work/modules.json")" == $'{\n  "forward": [\n    {\n      "fqn": "",\n      "type": "torch.nn.modules.container.Sequential",' ]]
python3 - "$work/modules.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert list(d) == ["forward"], d.keys()
m = {x["fqn"]: x for x in d["forward"]}
assert [x["fqn"] for x in d["forward"]] == ["", "0", "0.0", "0.1", "1", "1.0", "1.1"], list(m)
assert m["1"]["swappable"] and m["1"]["preserved"] and m["1"]["in_spec"] == "((*,), {})", m["1"]
assert m["1"]["inputs"] == ["float32[3, 5]"] and m["1"]["outputs"] == ["float32[3, 4]"], m["1"]
assert not m["1.0"]["swappable"] and m["1.0"]["reason"], m["1.0"]
PY

# The swap: ReluMLP (relu, no tanh), from the .pt2 and from its unpacked folder alike.
"$bin" convert "$base" --swap "1=$rep" -o "$work/swapped.pte" > "$work/out.txt"
grep -qx "$work/swapped.pte: [0-9]* bytes, 1 method" "$work/out.txt"
"$bin" decode "$work/swapped.pte" > "$work/decoded.txt"
grep -q "aten::relu.out" "$work/decoded.txt"
! grep -q "aten::tanh.out" "$work/decoded.txt"
"$bin" convert "$base" --swap "1=$src/tests/fixtures/corpus/modules_preserved_swap/json" -o "$work/folder.pte" > /dev/null
cmp "$work/swapped.pte" "$work/folder.pte"
"$bin" convert "$base" -o "$work/plain.pte" > /dev/null
! cmp -s "$work/swapped.pte" "$work/plain.pte"

# A module name torch allows but that is not an identifier (a ModuleDict key
# such as "blk-1"): the same program with module 1 renamed swaps alike.
cp -r "$src/tests/fixtures/corpus/modules_preserved/json" "$work/dash"
python3 - "$work/dash/models/model.json" <<'PY'
import json, sys
path = sys.argv[1]
d = json.load(open(path))
g = d["graph_module"]
for m in g["module_call_graph"]:
    if m["fqn"] == "1" or m["fqn"].startswith("1."):
        m["fqn"] = "blk-" + m["fqn"]
for n in g["graph"]["nodes"]:
    stack = n["metadata"].get("nn_module_stack")
    if stack:
        for old in ("1", "1.0", "1.1"):
            stack = stack.replace("," + old + ",", ",blk-" + old + ",")
        n["metadata"]["nn_module_stack"] = stack
json.dump(d, open(path, "w"))
PY
"$bin" inspect --modules "$work/dash" | grep -q "^  blk-1 .* preserved  swappable "
"$bin" convert "$work/dash" --swap "blk-1=$rep" -o "$work/dash.pte" > /dev/null
cmp "$work/swapped.pte" "$work/dash.pte"

# A program of two methods (package_pt2) where only forward has module 1:
# the swap applies to forward, and reset converts as it is.
mp="$src/tests/fixtures/corpus/modules_preserved/json"
cp -r "$src/tests/fixtures/corpus/two_methods/json" "$work/twom"
cp "$mp/models/model.json" "$work/twom/models/forward.json"
cp "$mp/data/weights/model_weights_config.json" "$work/twom/data/weights/forward_weights_config.json"
cp "$mp/data/constants/model_constants_config.json" "$work/twom/data/constants/forward_constants_config.json"
cp "$mp"/data/weights/weight_* "$work/twom/data/weights/"
"$bin" convert "$work/twom" --swap "1=$rep" -o "$work/twom.pte" > "$work/out.txt"
grep -qx "$work/twom.pte: [0-9]* bytes, 2 methods" "$work/out.txt"
"$bin" decode --json "$work/twom.pte" > "$work/twom.json"
python3 - "$work/twom.json" <<'PY'
import json, sys
plans = {p["name"]: p for p in json.load(open(sys.argv[1]))["execution_plan"]}
assert sorted(plans) == ["forward", "reset"], sorted(plans)
ops = {o["name"] for o in plans["forward"]["operators"]}
assert "aten::relu" in ops and "aten::tanh" not in ops, ops
PY
# A module no method has is still named, by the first method that lacks it.
set +e
"$bin" convert "$work/twom" --swap "9=$rep" -o "$work/bad.pte" > /dev/null 2> "$work/err.txt"
rc=$?
set -e
[[ $rc == 1 ]]
grep -q "^MODULE_SWAP: there is no module '9' in the program (method=forward" "$work/err.txt"
test ! -e "$work/bad.pte"

# Errors: exit 1, one message naming the module, no output file.
expect_error() {  # expect_error EXPECTED_FIRST_LINE ARGS...
  local expected="$1"
  shift
  set +e
  "$bin" "$@" -o "$work/bad.pte" > /dev/null 2> "$work/err.txt"
  local rc=$?
  set -e
  [[ $rc == 1 ]] || { echo "FAIL: exit $rc for $*" >&2; exit 1; }
  [[ "$(head -n 1 "$work/err.txt")" == "$expected" ]] || { echo "FAIL: got '$(head -n 1 "$work/err.txt")'" >&2; exit 1; }
  [[ ! -e "$work/bad.pte" ]] || { echo "FAIL: $work/bad.pte was written" >&2; exit 1; }
}
expect_error "OPTION_INVALID: --swap expects MODULE=REPLACEMENT (e.g. encoder.layer.1=block.pt2), got '1'" \
  convert "$base" --swap 1
expect_error "IO_ERROR: cannot open \"$work/nope.pt2\": no such file or folder (entry=$work/nope.pt2)" \
  convert "$base" --swap "1=$work/nope.pt2"
# An error inside a replacement says which replacement (its module and path).
cp -r "$src/tests/fixtures/corpus/modules_preserved_swap/json" "$work/broken"
python3 - "$work/broken/models/model.json" <<'PY'
import json, sys
path = sys.argv[1]
d = json.load(open(path))
d["graph_module"]["graph"]["nodes"][0]["inputs"] = []
json.dump(d, open(path, "w"))
PY
expect_error "INVALID_GRAPH: node 'permute': argument 'self' of aten::permute is missing, and it has no default (its schema: aten::permute(Tensor(a) self, int[] dims) -> Tensor(a)) (method=forward entry=models/model.json pointer=/graph_module/graph/nodes/0/inputs node=permute source=/home/dev/pteforge_corpus/replacement_1.py:14 in forward)" \
  convert "$base" --swap "1=$work/broken"
grep -qx "  note: while loading the replacement for module '1' ($work/broken)" "$work/err.txt"
expect_error "MODULE_SWAP: module '0.0' has no preserved call signature in module_call_graph, so its calling convention is unknown (method=forward pass=outline_modules)" \
  convert "$base" --swap "0.0=$rep"
# A replacement that does not fit: the note names its --swap path.
expect_error "MODULE_SWAP: the replacement for module '0' does not match its call signature: input 0 ('input_1'): the module receives float32[3, 6] but the replacement expects float32[3, 5] (dimension 1: size 6 in the program but 5 in the replacement) (method=forward pass=replace_modules)" \
  convert "$base" --swap "0=$rep"
grep -qx "  note: while swapping in the replacement for module '0' ($rep)" "$work/err.txt"

# A replacement's weight file of 0 bytes is all zeros in the .pte, with the
# same warning as in the main program, saying which replacement it is in.
cp -r "$src/tests/fixtures/corpus/modules_preserved_swap/json" "$work/zero"
: > "$work/zero/data/weights/weight_0"
"$bin" convert "$base" --swap "1=$work/zero" -o "$work/zero.pte" > /dev/null 2> "$work/zero.txt"
grep -qx "warning: the payload of 'fc1.weight' has 0 bytes, so its 40 elements are all zero in the .pte (torch writes no bytes for a fake tensor; a real weight file of 0 bytes means the archive is damaged) (in the replacement for module '1' ($work/zero)) (method=forward entry=data/weights/weight_0)" "$work/zero.txt" ||
  { echo "FAIL: no zero-filled warning for the replacement:" >&2; cat "$work/zero.txt" >&2; exit 1; }
test "$(wc -l < "$work/zero.txt")" -eq 1
test -s "$work/zero.pte"

# A higher-order op in a replacement is refused while preparing it (the
# emitter would meet it in the swapped program, with no trace of its file).
cp -r "$src/tests/fixtures/corpus/modules_preserved_swap/json" "$work/hop"
python3 - "$work/hop/models/model.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["graph_module"]["graph"]["nodes"][2]["target"] = "torch._higher_order_ops.with_effects.with_effects"
json.dump(d, open(sys.argv[1], "w"))
PY
expect_error "UNSUPPORTED_FEATURE: higher-order op torch._higher_order_ops.with_effects.with_effects (delegate calls and control flow) cannot be emitted yet (method=forward entry=models/model.json pointer=/graph_module/graph/nodes/2 node=relu source=/home/dev/pteforge_corpus/replacement_1.py:14 in forward)" \
  convert "$base" --swap "1=$work/hop"
grep -qx "  note: while preparing the replacement for module '1' ($work/hop)" "$work/err.txt"
# A corrupt weight in a replacement: the CRC error names its entry (and byte
# offset) inside the replacement, and the note says which file that is.
python3 - "$rep" "$work/corrupt.pt2" <<'PY'
import struct, sys, zipfile
info = zipfile.ZipFile(sys.argv[1]).getinfo("replacement_1/data/weights/weight_0")
data = bytearray(open(sys.argv[1], "rb").read())
name_len, extra_len = struct.unpack_from("<HH", data, info.header_offset + 26)
data[info.header_offset + 30 + name_len + extra_len + 3] ^= 0x20
open(sys.argv[2], "wb").write(data)
PY
expect_error "ARCHIVE_INVALID: entry \"replacement_1/data/weights/weight_0\" is corrupt: its CRC-32 does not match (method=forward entry=replacement_1/data/weights/weight_0 byte_offset=128 node=p_1_fc1_weight)" \
  convert "$base" --swap "1=$work/corrupt.pt2"
grep -qx "  note: while reading the replacement for module '1' ($work/corrupt.pt2)" "$work/err.txt"
# A lowered (edge-dialect) replacement is refused at its /verifiers, before its weights are looked for.
"$bin" convert "$rep" -o "$work/rep.pte" --export-program "$work/rep.programs.json" > /dev/null
python3 -c 'import json, sys; json.dump(json.load(open(sys.argv[1]))["forward"], open(sys.argv[2], "w"))' \
  "$work/rep.programs.json" "$work/rep_edge.json"
expect_error "INPUT_SCHEMA: the program is in ExecuTorch's edge dialect (verifiers [\"EDGE\"]): it was lowered already, as \`convert --export-program\` and ExecuTorch's to_edge write programs, and convert lowers what torch.export saves (method=forward entry=rep_edge.json pointer=/verifiers)" \
  convert "$base" --swap "1=$work/rep_edge.json"
grep -qx "  note: while loading the replacement for module '1' ($work/rep_edge.json)" "$work/err.txt"
# The swap steps keep swap_modules' place: replace_modules before outline_modules is refused.
expect_error "OPTION_INVALID: --passes lists outline_modules after replace_modules, but outline_modules runs before it in the default pipeline: a pass list may leave passes out or repeat one right after itself, not reorder them (each pass relies on what the earlier ones made, e.g. memory_planning is always last)" \
  convert "$base" --swap "1=$rep" --passes replace_modules,outline_modules,inline_modules
# Swap steps listed on their own must all be there: outline_modules alone
# would leave call_module nodes for memory planning to refuse.
expect_error "OPTION_INVALID: module swaps done step by step (the list has outline_modules) need the pass replace_modules, which the pass list leaves out (add it, or leave the pass list out for the default pipeline)" \
  convert "$base" --swap "1=$rep" --passes outline_modules,spec_prop,to_out_variant,memory_planning
expect_error "OPTION_INVALID: module swaps done step by step (the list has outline_modules) need the pass inline_modules, which the pass list leaves out (add it, or leave the pass list out for the default pipeline)" \
  convert "$base" --swap "1=$rep" --passes outline_modules,replace_modules,spec_prop,memory_planning
expect_error "OPTION_INVALID: module swaps done step by step (the list has inline_modules) need the pass outline_modules, which the pass list leaves out (add it, or leave the pass list out for the default pipeline)" \
  convert "$base" --swap "1=$rep" --passes inline_modules,spec_prop,memory_planning
# Node names that differ from their outputs' (a node named 'tanh' defining
# 'addmm' and the other way round): the inlined node that defines 'tanh'
# cannot take the name 'tanh', another node has it, so it gets a fresh one
# (was INTERNAL: the verifier found two nodes named 'tanh'); same .pte.
rm -rf "$work/names" && cp -r "$src/tests/fixtures/corpus/modules_preserved/json" "$work/names"
python3 - "$work/names/models/model.json" <<'PY'
import json, sys
path = sys.argv[1]
d = json.load(open(path))
nodes = d["graph_module"]["graph"]["nodes"]
assert nodes[1]["name"] == "addmm" and nodes[6]["name"] == "tanh"
nodes[1]["name"], nodes[6]["name"] = "tanh", "addmm"
json.dump(d, open(path, "w"))
PY
"$bin" convert "$work/names" --swap "1=$rep" -o "$work/names.pte" > /dev/null
"$bin" convert "$base" --swap "1=$rep" -o "$work/names_ref.pte" > /dev/null
cmp "$work/names.pte" "$work/names_ref.pte"
echo "ok"
