#!/usr/bin/env bash
# `pteforge convert`: each input form (.pt2, unpacked folder, program JSON),
# --metadata / --report, --constant-method, --memory-planning, exit codes
# (1 for conversion errors with one message naming the place, 2 for usage),
# and that a failed conversion leaves no output behind.
# Usage: convert.sh <pteforge binary> <source dir>
set -euo pipefail
bin="$1"
src="$2"
fx="$src/tests/fixtures/programs"
ref="$src/tests/data/reference/pte"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The folder of x + 1.0 gives ExecuTorch's file byte for byte; so does its program JSON alone.
"$bin" convert "$fx/ref_arduino_add" --report "$work/r.json" --metadata "$work/a.json" -o "$work/a.pte" > "$work/out.txt"
# stdout: the .pte (size, methods), then each side file written, always in the
# order metadata, report, exported programs (here given in the reverse order).
printf '%s\n' "$work/a.pte: 1156 bytes, 1 method" "metadata: $work/a.json" "report: $work/r.json" | diff - "$work/out.txt"
cmp "$work/a.pte" "$ref/arduino_add_model.pte"
"$bin" convert "$fx/ref_arduino_add/models/model.json" -o "$work/b.pte" > /dev/null
cmp "$work/b.pte" "$ref/arduino_add_model.pte"
python3 - "$work/a.json" "$work/r.json" <<'PY'
import json, sys
md = json.load(open(sys.argv[1]))
m = md["methods"][0]
assert md["format"] == "pteforge-metadata", md
assert m["operators"] == ["aten::add.out"], m
assert m["memory_plan"]["non_const_buffer_sizes"] == [0, 32], m
assert m["memory_plan"]["algorithm"] == "greedy", m
assert [t["offset"] for t in m["memory_plan"]["tensors"]] == [16, 0], m
assert list(m["debug_handle_map"].keys()) == ["0"], m
assert md["constants"] == {"count": 1, "bytes": 4}, md
names = [p["name"] for p in md["pass_report"]["passes"]]
assert "memory_planning" in names and names[-1] == "memory_planning", names
report = json.load(open(sys.argv[2]))
assert report["passes"] == md["pass_report"]["passes"] or all(
    a["name"] == b["name"] for a, b in zip(report["passes"], md["pass_report"]["passes"]))
PY
# --no-times: every pass time is 0, so two runs write identical side files.
for k in 1 2; do
  "$bin" convert "$fx/ref_arduino_add" --no-times --report "$work/rt$k.json" --metadata "$work/mt$k.json" \
    -o "$work/t$k.pte" > /dev/null
done
cmp "$work/rt1.json" "$work/rt2.json"
cmp "$work/mt1.json" "$work/mt2.json"
cmp "$work/t1.pte" "$work/a.pte"
python3 - "$work/rt1.json" <<'PY'
import json, sys
passes = json.load(open(sys.argv[1]))["passes"]
assert passes and all(p["ms"] == 0 for p in passes), passes
PY

# A .pt2 archive with weights: constants are deduplicated and referenced.
"$bin" convert "$src/tests/fixtures/corpus/linear_tanh/linear_tanh.pt2" -o "$work/l.pte" > /dev/null 2> "$work/l.err"
test ! -s "$work/l.err"
"$bin" decode "$work/l.pte" > "$work/l.txt"
grep -qx 'constant_segment: segment 0, 5 offsets \[0, 0, 256, 288, 352\]' "$work/l.txt"

# Warnings go to stderr, one line each, and the conversion goes on: the same
# program with a field this schema version does not know gives the same file.
cp -r "$src/tests/fixtures/corpus/linear_tanh/json" "$work/warn"
python3 - "$work/warn/models/model.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["future_field"] = 1
json.dump(doc, open(sys.argv[1], "w"))
PY
"$bin" convert "$work/warn" -o "$work/w.pte" > /dev/null 2> "$work/w.err"
printf '%s\n' 'warning: unknown field "future_field" in ExportedProgram ignored (method=forward entry=models/model.json pointer=/future_field)' |
  diff - "$work/w.err"
cmp "$work/w.pte" "$work/l.pte"

# Constant methods and naive planning.
"$bin" convert "$fx/ref_add" -o "$work/c.pte" --memory-planning naive \
  --constant-method get_max_seq_len=128 --constant-method 'get_eos_ids=[2,3]' --constant-method 'get_name="tiny"' \
  --export-program "$work/c.programs.json" > "$work/out.txt"
printf '%s\n' "$work/c.pte: $(stat -c %s "$work/c.pte") bytes, 4 methods" "exported programs: $work/c.programs.json" |
  diff - "$work/out.txt"
"$bin" decode "$work/c.pte" > "$work/c.txt"
grep -qx 'method get_eos_ids' "$work/c.txt"
grep -qx '    %0 = String "tiny"' "$work/c.txt"
grep -qx '    %1 = Tensor FLOAT\[1\] mem 1@16' "$work/c.txt"

# Conversion errors: exit 1, one line with the code, nothing written.
expect_fail() {  # expect_fail CODE ARGS...
  local code="$1"
  shift
  set +e
  "$bin" convert "$@" -o "$work/bad.pte" > "$work/out.txt" 2> "$work/err.txt"
  local rc=$?
  set -e
  test "$rc" -eq 1 || { echo "expected exit 1, got $rc for: $*" >&2; cat "$work/err.txt" >&2; exit 1; }
  grep -q "^$code: " "$work/err.txt" || { echo "expected $code for: $*" >&2; cat "$work/err.txt" >&2; exit 1; }
  test ! -e "$work/bad.pte"
  test -z "$(ls "$work" | grep '^bad\.pte\.')"
}
expect_fail OPTION_INVALID "$fx/ref_add" --constant-method get_x=nul
# A .pte given to convert is named as one.
expect_fail ARCHIVE_INVALID "$ref/add.pte"
grep -qx "ARCHIVE_INVALID: \"$ref/add.pte\" is a .pte (an ExecuTorch program), not a .pt2 archive or a program JSON; decode reads it (entry=$ref/add.pte)" "$work/err.txt"
expect_fail OPTION_INVALID "$fx/ref_add" --constant-method forward=1
expect_fail OPTION_INVALID "$fx/ref_add" --constant-method noequals
grep -qx "OPTION_INVALID: --constant-method expects NAME=JSON (e.g. get_max_seq_len=128), got 'noequals'" "$work/err.txt"
expect_fail OPTION_INVALID "$fx/ref_add" --constant-method $'get_x=\xef\xbb\xbf1'
grep -q "^OPTION_INVALID: constant method 'get_x': value starts with a UTF-8 byte order mark (bytes EF BB BF)" "$work/err.txt"
# An unknown pass name is the one error: no warning about what the list leaves out.
expect_fail UNKNOWN_PASS "$fx/ref_add" --passes no_such_pass --memory-planning naive
test "$(grep -c 'note: ' "$work/err.txt")" -eq 1
grep -q "^  note: valid passes: " "$work/err.txt"
expect_fail UNKNOWN_PASS "$fx/ref_add" --passes spec_prop,no_such_pass
cp "$fx/mlp/models/model.json" "$work/mlp.json"  # outside its archive folder: no weights
expect_fail WEIGHTS_MISSING "$work/mlp.json"
expect_fail IO_ERROR "$work/missing.pt2"
grep -q 'entry=' "$work/err.txt"

# Output paths: a symbolic link is written through (and stays a link); a
# folder is refused and left alone; two outputs naming one file are refused;
# when a side file cannot be written, no .pte is left behind.
ln -s "$work/real.pte" "$work/link.pte"
touch "$work/real.pte"
"$bin" convert "$fx/ref_arduino_add" -o "$work/link.pte" > /dev/null
test -L "$work/link.pte"
cmp "$work/real.pte" "$ref/arduino_add_model.pte"
mkdir "$work/adir"
set +e
"$bin" convert "$fx/ref_arduino_add" -o "$work/adir" > /dev/null 2> "$work/err.txt"
rc=$?
set -e
test "$rc" -eq 1
test -d "$work/adir"
grep -qx "IO_ERROR: '$work/adir' exists and is not a regular file (a folder, a device or a pipe); refusing to replace it (entry=$work/adir)" "$work/err.txt"
set +e
"$bin" convert "$fx/ref_arduino_add" -o "$work/same.pte" --metadata "$work/same.pte" > /dev/null 2> "$work/err.txt"
rc=$?
set -e
test "$rc" -eq 1
grep -qx "OPTION_INVALID: -o and --metadata name the same file '$work/same.pte'" "$work/err.txt"
test ! -e "$work/same.pte"
# The same file through another spelling or a link: refused too (one output would be lost).
mkdir "$work/sub"
printf 'earlier' > "$work/same.json"
ln -s same.json "$work/same-link.json"
for other in "$work/./same.json" "$work/sub/../same.json" "$work/same-link.json"; do
  set +e
  "$bin" convert "$fx/ref_arduino_add" -o "$work/same.pte" --report "$work/same.json" --metadata "$other" > /dev/null 2> "$work/err.txt"
  rc=$?
  set -e
  test "$rc" -eq 1
  grep -qx "OPTION_INVALID: --metadata '$other' and --report '$work/same.json' name the same file" "$work/err.txt"
  test ! -e "$work/same.pte"
  test "$(cat "$work/same.json")" = earlier
done
set +e
"$bin" convert "$fx/ref_arduino_add" -o "$work/kept.pte" --metadata "$work/kept.json" --export-program "$work/no/such/dir/p.json" > /dev/null 2> "$work/err.txt"
rc=$?
set -e
test "$rc" -eq 1
grep -qx "IO_ERROR: cannot write \"$work/no/such/dir/p.json\": its folder does not exist (entry=$work/no/such/dir/p.json)" "$work/err.txt"
test ! -e "$work/kept.pte"
test ! -e "$work/kept.json"

# A pass list without to_out_variant leaves functional ops the runtime has no kernel for.
set +e
"$bin" convert "$src/tests/fixtures/corpus/linear_tanh/linear_tanh.pt2" -o "$work/f.pte" --passes spec_prop,memory_planning > /dev/null 2> "$work/err.txt"
rc=$?
set -e
test "$rc" -eq 1
grep -q "^UNSUPPORTED_OPERATOR: operator aten::permute is not an out variant and no ExecuTorch kernel library runs it; .* (method=forward entry=archive/models/model.json pointer=/graph_module/graph/nodes/0 node=permute " "$work/err.txt"
test ! -e "$work/f.pte"
# A symbolic op without a runtime kernel (ExecuTorch's prim ops have sym_size.int, not sym_stride.int).
rm -rf "$work/sst" && cp -r "$src/tests/fixtures/corpus/dynamic_seq/json" "$work/sst"
python3 - "$work/sst/models/model.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
n = d["graph_module"]["graph"]["nodes"][0]
assert n["target"] == "torch.ops.aten.sym_size.int"
n["target"] = "torch.ops.aten.sym_stride.int"
json.dump(d, open(sys.argv[1], "w"))
PY
if "$bin" convert "$work/sst" -o "$work/sst.pte" 2> "$work/err.txt"; then exit 1; fi
grep -q "^UNSUPPORTED_OPERATOR: operator aten::sym_stride.int computes a symbolic int, and no ExecuTorch kernel library runs it (its prim ops include sym_size.int and sym_numel) (method=forward entry=models/model.json pointer=/graph_module/graph/nodes/0 node=sym_size_int_1 " "$work/err.txt"
test ! -e "$work/sst.pte"

# A pass list keeps the default order: sym_shape_eval after memory_planning is refused before anything runs.
expect_fail OPTION_INVALID "$src/tests/fixtures/corpus/dynamic_seq/dynamic_seq.pt2" --passes spec_prop,memory_planning,sym_shape_eval
grep -qx "OPTION_INVALID: --passes lists sym_shape_eval after memory_planning, but sym_shape_eval runs before it in the default pipeline: a pass list may leave passes out or repeat one right after itself, not reorder them (each pass relies on what the earlier ones made, e.g. memory_planning is always last)" "$work/err.txt"
# A list without decompose that meets an op decompose rewrites says so.
expect_fail UNSUPPORTED_OPERATOR "$src/tests/fixtures/corpus/training_ir_conv_bn/training_ir_conv_bn.pt2" --passes replace_view_ops_with_copy,spec_prop,to_out_variant,memory_planning
grep -qx "  note: decompose is not in --passes, and 5 nodes call ops it rewrites into Core ATen (aten.conv2d.default, aten.batch_norm.default, aten.adaptive_avg_pool2d.default, ...), which the later passes expect" "$work/err.txt"

# No output replaces an input (the .pt2 itself, or a file inside an input folder).
cp "$src/tests/fixtures/corpus/linear_tanh/linear_tanh.pt2" "$work/self.pt2"
cp -r "$src/tests/fixtures/corpus/linear_tanh/json" "$work/unpacked"
set +e
"$bin" convert "$work/self.pt2" -o "$work/self.pt2" 2> "$work/err.txt"
rc=$?
"$bin" convert "$work/unpacked" -o "$work/unpacked/data/weights/weight_0" 2> "$work/err2.txt"
rc2=$?
set -e
test "$rc" -eq 1
test "$rc2" -eq 1
grep -q "^OPTION_INVALID: -o '.*self.pt2' would overwrite the input" "$work/err.txt"
grep -q "^OPTION_INVALID: -o '.*weight_0' would overwrite the input" "$work/err2.txt"
cmp "$work/self.pt2" "$src/tests/fixtures/corpus/linear_tanh/linear_tanh.pt2"
cmp "$work/unpacked/data/weights/weight_0" "$src/tests/fixtures/corpus/linear_tanh/json/data/weights/weight_0"
# A program JSON inside an unpacked archive reads that folder's weights and
# configs: they are inputs too.
set +e
"$bin" convert "$work/unpacked/models/model.json" -o "$work/unpacked/data/weights/weight_0" 2> "$work/err.txt"
rc=$?
"$bin" convert "$work/unpacked/models/model.json" -o "$work/j.pte" \
  --metadata "$work/unpacked/data/weights/model_weights_config.json" 2> "$work/err2.txt"
rc2=$?
set -e
test "$rc" -eq 1
test "$rc2" -eq 1
grep -qx "OPTION_INVALID: -o '$work/unpacked/data/weights/weight_0' would overwrite the input '$work/unpacked/models/model.json' (it reads the unpacked archive '$work/unpacked') (entry=$work/unpacked/data/weights/weight_0)" "$work/err.txt"
grep -q "^OPTION_INVALID: --metadata '.*model_weights_config.json' would overwrite the input '.*model.json' (it reads the unpacked archive " "$work/err2.txt"
test ! -e "$work/j.pte"
diff -r "$work/unpacked" "$src/tests/fixtures/corpus/linear_tanh/json"
# A new file inside the input folder is refused too, and said so.
set +e
"$bin" convert "$work/unpacked/models/model.json" -o "$work/unpacked/data/new.pte" 2> "$work/err.txt"
rc=$?
set -e
test "$rc" -eq 1
grep -qx "OPTION_INVALID: -o '$work/unpacked/data/new.pte' would write a file inside the input '$work/unpacked/models/model.json' (it reads the unpacked archive '$work/unpacked') (entry=$work/unpacked/data/new.pte)" "$work/err.txt"
diff -r "$work/unpacked" "$src/tests/fixtures/corpus/linear_tanh/json"

# Outputs go to files: "-" is refused (not a file named "-"), and so is a
# pipe reached through /dev/stdout; an empty --passes list is refused (it
# would mean the default pipeline).
set +e
(cd "$work" && "$bin" convert "$fx/ref_arduino_add" -o - 2> "$work/err.txt")
rc=$?
"$bin" convert "$fx/ref_arduino_add" -o /dev/stdout 2> "$work/err2.txt" | cat > /dev/null
rc2=${PIPESTATUS[0]}
"$bin" convert "$fx/ref_arduino_add" -o "$work/p.pte" --passes '' 2> "$work/err3.txt"
rc3=$?
set -e
test "$rc" -eq 1
test "$rc2" -eq 1
test "$rc3" -eq 1
test ! -e "$work/-"
test ! -e "$work/p.pte"
grep -qx "OPTION_INVALID: -o '-': outputs are written to files, not to standard output; name a file (./- for a file called '-')" "$work/err.txt"
grep -qx "IO_ERROR: '/dev/stdout' leads to a pipe, socket or device, not a regular file; refusing to write it (entry=/dev/stdout)" "$work/err2.txt"
grep -qx "OPTION_INVALID: --passes needs pass names separated by commas, got an empty string (leave it out for the default pipeline)" "$work/err3.txt"
# The success line escapes control characters in the paths it echoes.
"$bin" convert "$fx/ref_arduino_add" -o "$work/tab$(printf '\t')name.pte" > "$work/out.txt"
grep -Fqx "$work/tab\\x09name.pte: $(wc -c < "$ref/arduino_add_model.pte") bytes, 1 method" "$work/out.txt"

# A weights config the archive lacks is named.
cp -r "$src/tests/fixtures/corpus/linear_tanh/json" "$work/nocfg"
rm "$work/nocfg/data/weights/model_weights_config.json"
set +e
"$bin" convert "$work/nocfg" -o "$work/nocfg.pte" 2> "$work/err.txt"
rc=$?
set -e
test "$rc" -eq 1
grep -qx "WEIGHTS_MISSING: parameter '[a-z0-9_.]*' needs the weights config \"data/weights/model_weights_config.json\", which the archive lacks (method=forward entry=data/weights/model_weights_config.json)" "$work/err.txt"
# With neither config, the note names both.
rm "$work/nocfg/data/constants/model_constants_config.json"
set +e
"$bin" convert "$work/nocfg" -o "$work/nocfg.pte" 2> "$work/err.txt"
set -e
grep -qx '  note: the archive has neither "data/weights/model_weights_config.json" nor "data/constants/model_constants_config.json"' "$work/err.txt"

# Big-endian tensor data is refused (a .pte is little-endian; nothing is byte-swapped).
cp -r "$src/tests/fixtures/corpus/linear_tanh/json" "$work/big"
printf big > "$work/big/byteorder"
set +e
"$bin" convert "$work/big" -o "$work/big.pte" 2> "$work/err.txt"
rc=$?
set -e
test "$rc" -eq 1
grep -qx 'UNSUPPORTED_FEATURE: the archive.s tensor data is big-endian (byteorder is "big"); a .pte stores little-endian data and pteforge does not byte-swap tensors: export on a little-endian machine (entry=byteorder)' "$work/err.txt"
test ! -e "$work/big.pte"
# inspect reads it, and warns that convert will not.
"$bin" inspect "$work/big" > "$work/out.txt"
grep -qx '    the archive.s tensor data is big-endian (byteorder is "big"): convert refuses it, since a .pte stores little-endian data (entry=byteorder)' "$work/out.txt"

# Usage errors: exit 2.
set +e
"$bin" convert "$fx/ref_add" -o "$work/u.pte" --memory-planning fastest > /dev/null 2>&1
rc=$?
"$bin" convert "$fx/ref_add" > /dev/null 2>&1
rc2=$?
"$bin" convert "$fx/ref_add" -o "$work/u.pte" --bench 2> "$work/usage.txt"
rc3=$?
set -e
test "$rc" -eq 2
test "$rc2" -eq 2
test "$rc3" -eq 2
# A missing value names its option (--bench included).
grep -qx -- "--bench: needs a value" "$work/usage.txt"
test ! -e "$work/u.pte"
# A repeated key in a constant method's dict keeps its first place and takes
# its last value (Python's json.loads); decode escapes control characters in
# method names; a full standard output is an error, not a silent success.
"$bin" convert "$fx/ref_arduino_add" -o "$work/d.pte" --constant-method 'd={"a":1,"b":2,"a":3}' \
  --constant-method $'get\e[2J\nx="v"' > /dev/null
"$bin" decode "$work/d.pte" > "$work/d.txt"
grep -A8 -x "method d" "$work/d.txt" | grep -qx '    %0 = Int 3'
grep -A8 -x "method d" "$work/d.txt" | grep -qx '    %1 = Int 2'
grep -qF 'context\": \"[\\\"a\\\", \\\"b\\\"]\"' "$work/d.txt"
grep -qxF 'method get\x1b[2J\x0ax' "$work/d.txt"
set +e
"$bin" decode "$work/d.pte" > /dev/full 2> "$work/full.txt"
rc=$?
# Output larger than stdio's buffer fails during printf, not at the last flush.
"$bin" decode "$src/tests/data/reference/pte/stories260k_hybrid_llama_qnn.pte" --json > /dev/full 2> "$work/full2.txt"
rc3=$?
"$bin" convert "$fx/ref_arduino_add" -o "$work/x.pte" --constant-method $'b="x\x01y"' 2> "$work/ctl.txt"
rc2=$?
set -e
test "$rc" -eq 1
grep -qx "IO_ERROR: cannot write standard output: no space left on the device" "$work/full.txt"
test "$rc3" -eq 1
grep -qx "IO_ERROR: cannot write standard output: no space left on the device" "$work/full2.txt"
test "$rc2" -eq 1
grep -qxF 'OPTION_INVALID: constant method '"'b'"': value is not JSON (unescaped control character 0x01 in a string (write it as \u0001). at byte 2) (method=b)' "$work/ctl.txt"

# An option that configures a pass the --passes list leaves out is refused;
# a list without memory_planning is warned about.
set +e
"$bin" convert "$fx/ref_arduino_add" -o "$work/x.pte" --passes decompose,to_out_variant --memory-planning naive 2> "$work/mp.txt"
rc=$?
"$bin" convert "$fx/ref_arduino_add" -o "$work/x.pte" --passes decompose --swap a="$fx/ref_arduino_add" 2> "$work/sw.txt"
rc2=$?
"$bin" convert "$fx/ref_arduino_add" -o "$work/x.pte" --passes remove_noops --preserve-ops aten.linear.default 2> "$work/po.txt"
rc3=$?
set -e
test "$rc" -eq 1 && test "$rc2" -eq 1 && test "$rc3" -eq 1
test ! -e "$work/x.pte"
tail_msg="which the pass list leaves out (add it, or leave the pass list out for the default pipeline)"
grep -qx "OPTION_INVALID: the memory planning algorithm 'naive' needs the pass memory_planning, $tail_msg" "$work/mp.txt"
grep -qx "OPTION_INVALID: module swaps need the pass swap_modules, $tail_msg" "$work/sw.txt"
grep -qx "OPTION_INVALID: preserved ops need the pass decompose, $tail_msg" "$work/po.txt"
# A write stopped by the file-size limit names the size the file reached
# (stdio had taken more than that), and leaves nothing behind.
mkdir "$work/fsz"
set +e
(ulimit -f 4; "$bin" convert "$src/tests/fixtures/corpus/linear_tanh/linear_tanh.pt2" -o "$work/fsz/x.pte" \
  --metadata "$work/fsz/m.json") > /dev/null 2> "$work/fsz.txt"
rc=$?
set -e
test "$rc" -eq 1
grep -q "^IO_ERROR: cannot write \"$work/fsz/m.json\": file too large .* byte_offset=4096)$" "$work/fsz.txt"
test -z "$(ls -A "$work/fsz")"

# The {method: program} file of --export-program given back as a program is named as such.
"$bin" convert "$fx/ref_arduino_add" -o "$work/epa.pte" --export-program "$work/ep.json" > /dev/null
expect_fail INPUT_SCHEMA "$work/ep.json"
sed -n 2p "$work/err.txt" | grep -qx "  note: this document maps method names to programs (what convert --export-program writes); give one program, the value of one of its keys, as its own JSON file"

# --export-program writes the lowered program in the edge dialect: inspect reads
# it (a joint program's weights appended as tokens after its gradients), and
# convert refuses it as already lowered, at its /verifiers.
"$bin" convert "$src/tests/fixtures/corpus/joint_linear_mse/joint_linear_mse.pt2" -o "$work/jl.pte" \
  --export-program "$work/jl.programs.json" > /dev/null
python3 -c 'import json, sys; json.dump(json.load(open(sys.argv[1]))["forward"], open(sys.argv[2], "w"))' \
  "$work/jl.programs.json" "$work/jl.json"
"$bin" inspect "$work/jl.json" > "$work/jl.txt"
grep -qx '  schema 8.20, torch 2.11.0+cpu, verifiers \[EDGE\]' "$work/jl.txt"
grep -qx '    p_head_bias    token                               float32\[2\]' "$work/jl.txt"
expect_fail INPUT_SCHEMA "$work/jl.json"
head -1 "$work/err.txt" | grep -qxF "INPUT_SCHEMA: the program is in ExecuTorch's edge dialect (verifiers [\"EDGE\"]): it was lowered already, as \`convert --export-program\` and ExecuTorch's to_edge write programs, and convert lowers what torch.export saves (method=forward entry=jl.json pointer=/verifiers)"
# With its verifiers edited back to ATEN, the first out variant is named as such.
"$bin" convert "$src/tests/fixtures/corpus/linear_tanh/linear_tanh.pt2" -o "$work/lt.pte" \
  --export-program "$work/lt.programs.json" > /dev/null
cp -r "$src/tests/fixtures/corpus/linear_tanh/json" "$work/lt_aten"
chmod -R u+w "$work/lt_aten"
python3 -c 'import json, sys; p = json.load(open(sys.argv[1]))["forward"]; p["verifiers"] = ["ATEN"]; json.dump(p, open(sys.argv[2], "w"))' \
  "$work/lt.programs.json" "$work/lt_aten/models/model.json"
expect_fail UNSUPPORTED_OPERATOR "$work/lt_aten"
head -1 "$work/err.txt" | grep -q '^UNSUPPORTED_OPERATOR: node "permute" calls aten\.permute_copy\.out, an out variant: the passes make out variants from functional calls (ExecuTorch.s to_out_variant) and do not take them as input '

# A weight file of 0 bytes is an all-zero tensor (torch's fake tensors) and
# converts, with a warning naming the tensor (a truncated file looks the same).
cp -r "$src/tests/fixtures/corpus/linear_tanh/json" "$work/w0"
: > "$work/w0/data/weights/weight_0"
"$bin" convert "$work/w0" -o "$work/w0.pte" 2> "$work/w0.txt" > /dev/null
grep -qx "warning: the payload of 'hidden.weight' has 0 bytes, so its 64 elements are all zero in the .pte (torch writes no bytes for a fake tensor; a real weight file of 0 bytes means the archive is damaged) (method=forward entry=data/weights/weight_0)" "$work/w0.txt"
# An error the emitter raises at a node names the node's place in the program JSON, entry included.
cp -r "$fx/ref_add" "$work/hop"
python3 - "$work/hop/models/model.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["graph_module"]["graph"]["nodes"][0]["target"] = "torch._higher_order_ops.with_effects.with_effects"
json.dump(d, open(sys.argv[1], "w"))
PY
rc=0
"$bin" convert "$work/hop" -o "$work/hop.pte" 2> "$work/hop.txt" > /dev/null || rc=$?
[[ $rc == 1 ]]
diff - "$work/hop.txt" <<'TXT'
UNSUPPORTED_FEATURE: higher-order op torch._higher_order_ops.with_effects.with_effects (delegate calls and control flow) cannot be emitted yet (method=forward entry=models/model.json pointer=/graph_module/graph/nodes/0 node=add source=/home/dev/pteforge_fixtures/ref_add.py:7 in forward)
TXT
# --bench prints the warnings of its first run, once.
"$bin" convert "$work/w0" -o "$work/w0.pte" --bench 3 2> "$work/w0b.txt" > /dev/null
diff "$work/w0.txt" "$work/w0b.txt"
# In a .pt2, the entry is named as the zip lists it (with its root folder).
(cd "$work/w0" && mkdir -p ../w0zip/linear_tanh && cp -r . ../w0zip/linear_tanh && cd ../w0zip && zip -q -r -0 ../w0.pt2 linear_tanh)
"$bin" convert "$work/w0.pt2" -o "$work/w0.pte" 2> "$work/w0.txt" > /dev/null
grep -qx "warning: the payload of 'hidden.weight' has 0 bytes, so its 64 elements are all zero in the .pte (torch writes no bytes for a fake tensor; a real weight file of 0 bytes means the archive is damaged) (method=forward entry=linear_tanh/data/weights/weight_0)" "$work/w0.txt"
# Past three such tensors, one warning counts the rest.
for w in "$work"/w0/data/weights/weight_*; do : > "$w"; done
"$bin" convert "$work/w0" -o "$work/w0.pte" 2> "$work/w0.txt" > /dev/null
test "$(grep -c "^warning: the payload of '.*' has 0 bytes" "$work/w0.txt")" -eq 3
grep -qx "warning: 1 more tensor has a payload of 0 bytes and is all zero (method=forward)" "$work/w0.txt"
# Unknown keys in a payload config are ignored with a warning each, as in the program JSON.
cp -r "$src/tests/fixtures/corpus/linear_tanh/json" "$work/cfgw"
python3 - "$work/cfgw/data/weights/model_weights_config.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["extra"] = 1
d["config"]["hidden.weight"]["zzz"] = 2
json.dump(d, open(sys.argv[1], "w"))
PY
"$bin" convert "$work/cfgw" -o "$work/cfgw.pte" 2> "$work/cfgw.txt" > /dev/null
diff - "$work/cfgw.txt" <<'TXT'
warning: unknown field "extra" in PayloadConfig ignored (method=forward entry=data/weights/model_weights_config.json pointer=/extra)
warning: unknown field "zzz" in PayloadMeta ignored (method=forward entry=data/weights/model_weights_config.json pointer=/config/hidden.weight/zzz)
TXT
# A corrupt byte in a weight entry larger than 64 KiB (read by range, not
# kept): its whole-entry read checks the CRC, nothing is written.
python3 "$src/tests/node/gen_big_weights.py" "$work/crc.pt2" --layers 2 --width 256 > /dev/null
"$bin" convert "$work/crc.pt2" -o "$work/crc.pte" > /dev/null
python3 - "$work/crc.pt2" "$work/crc_bad.pt2" <<'PY'
import sys, zipfile
info = zipfile.ZipFile(sys.argv[1]).getinfo("big/data/weights/weight_1")
data = bytearray(open(sys.argv[1], "rb").read())
data[info.header_offset + 64 + 1000] ^= 0x20  # gen_big_weights.py: 64-byte local header
open(sys.argv[2], "wb").write(data)
PY
expect_corrupt() {  # expect_corrupt PT2 ENTRY: exit 1, the CRC error naming ENTRY, no output
  local rc=0
  "$bin" convert "$1" -o "$work/crc_bad.pte" 2> "$work/crc.txt" > /dev/null || rc=$?
  [[ $rc == 1 ]]
  grep -q "^ARCHIVE_INVALID: entry \"$2\" is corrupt: its CRC-32 does not match (method=forward entry=$2 byte_offset=" "$work/crc.txt"
  test ! -e "$work/crc_bad.pte"
}
expect_corrupt "$work/crc_bad.pt2" big/data/weights/weight_1
# The same when the entry is longer than its tensor (the tensor reads a part of it).
python3 - "$work/crc.pt2" "$work/crc_long.pt2" <<'PY'
import struct, sys, zipfile
src = zipfile.ZipFile(sys.argv[1])
with zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_STORED) as out:
    for info in src.infolist():
        data = src.read(info)
        out.writestr(info.filename, data + bytes(4) if info.filename == "big/data/weights/weight_0" else data)
info = zipfile.ZipFile(sys.argv[2]).getinfo("big/data/weights/weight_0")
data = bytearray(open(sys.argv[2], "rb").read())
name_len, extra_len = struct.unpack_from("<HH", data, info.header_offset + 26)
data[info.header_offset + 30 + name_len + extra_len + 100] ^= 0x20
open(sys.argv[2], "wb").write(data)
PY
expect_corrupt "$work/crc_long.pt2" big/data/weights/weight_0
"$bin" convert "$fx/ref_arduino_add" -o "$work/r.pte" --report "$work/r.json" > /dev/null
no_mp="$(python3 -c "import json,sys;print(','.join(p['name'] for p in json.load(open(sys.argv[1]))['passes'] if p['name'] != 'memory_planning'))" "$work/r.json")"
"$bin" convert "$fx/ref_arduino_add" -o "$work/nomp.pte" --passes "$no_mp" 2> "$work/nomp.txt" > /dev/null
grep -qx "warning: the pass list leaves out memory_planning: the .pte has no memory plan, so ExecuTorch's runtime cannot run a method that makes intermediate tensors" "$work/nomp.txt"
# Leaving out a pass the program needs is a warning naming what goes wrong:
# insert_write_back_for_buffers with a mutated buffer, sym_shape_eval with symbolic sizes.
"$bin" convert "$src/tests/fixtures/corpus/buffer_running_sum/json" -o "$work/wb.pte" --report "$work/wb.json" > /dev/null 2> "$work/wb.txt"
test ! -s "$work/wb.txt"
no_wb="$(python3 -c "import json,sys;print(','.join(p['name'] for p in json.load(open(sys.argv[1]))['passes'] if p['name'] != 'insert_write_back_for_buffers'))" "$work/wb.json")"
"$bin" convert "$src/tests/fixtures/corpus/buffer_running_sum/json" -o "$work/nowb.pte" --passes "$no_wb" 2> "$work/nowb.txt" > /dev/null
test "$(cat "$work/nowb.txt")" = "warning: the pass list leaves out insert_write_back_for_buffers: the method's updates of 'total' are not written back (the .pte keeps no mutation outputs), so they are lost after each call (method=forward)"
"$bin" convert "$src/tests/fixtures/corpus/buffer_running_sum/json" -o "$work/wb2.pte" --passes "$(python3 -c "import json,sys;print(','.join(p['name'] for p in json.load(open(sys.argv[1]))['passes']))" "$work/wb.json")" 2> "$work/wb2.txt" > /dev/null
test ! -s "$work/wb2.txt"
"$bin" convert "$src/tests/fixtures/corpus/dynamic_seq/json" -o "$work/ds.pte" --report "$work/ds.json" > /dev/null 2> "$work/ds.txt"
test ! -s "$work/ds.txt"
no_sse="$(python3 -c "import json,sys;print(','.join(p['name'] for p in json.load(open(sys.argv[1]))['passes'] if p['name'] != 'sym_shape_eval'))" "$work/ds.json")"
"$bin" convert "$src/tests/fixtures/corpus/dynamic_seq/json" -o "$work/nosse.pte" --passes "$no_sse" 2> "$work/nosse.txt" > /dev/null
test "$(cat "$work/nosse.txt")" = "warning: the pass list leaves out sym_shape_eval: tensors with symbolic sizes are planned at their trace-time sizes, so inputs larger than the example inputs overflow their memory (method=forward)"
"$bin" convert "$src/tests/fixtures/corpus/buffer_running_sum/json" -o "$work/nosse2.pte" --passes "$(python3 -c "import json,sys;print(','.join(p['name'] for p in json.load(open(sys.argv[1]))['passes'] if p['name'] != 'sym_shape_eval'))" "$work/wb.json")" 2> "$work/nosse2.txt" > /dev/null
test ! -s "$work/nosse2.txt"
# A symbol in range_constraints that sizes no tensor (here an unbacked u0) needs no sym_shape_eval.
cp -r "$src/tests/fixtures/corpus/linear_tanh/json" "$work/static_rc"
chmod -R u+w "$work/static_rc"
python3 - "$work/static_rc/models/model.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["range_constraints"] = {"u0": {"min_val": 0, "max_val": 9}}
json.dump(d, open(sys.argv[1], "w"))
PY
"$bin" convert "$work/static_rc" -o "$work/static_rc.pte" --passes "$no_sse" 2> "$work/static_rc.txt" > /dev/null
test ! -s "$work/static_rc.txt"
# A trace-time value above the symbol's max in range_constraints: one warning for the symbol.
cp -r "$src/tests/fixtures/corpus/dynamic_seq/json" "$work/ds_low"
chmod -R u+w "$work/ds_low"
python3 - "$work/ds_low/models/model.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["range_constraints"]["s53"] = {"min_val": 2, "max_val": 4}
json.dump(d, open(sys.argv[1], "w"))
PY
"$bin" convert "$work/ds_low" -o "$work/ds_low.pte" 2> "$work/ds_low.txt" > /dev/null
test "$(cat "$work/ds_low.txt")" = "warning: symbol 's53' has the trace-time value 5 (in a size of 'x'), above its upper bound 4 from range_constraints: tensors are planned for sizes up to that bound, so the example inputs do not fit (check the program's range_constraints) (method=forward node=x pass=sym_shape_eval)"

# --init-buffers stores the initial state of mutated buffers; a program that
# mutates none gets a warning, one that does converts without any.
"$bin" convert "$src/tests/fixtures/corpus/linear_tanh/json" -o "$work/ib0.pte" --init-buffers 2> "$work/ib0.txt" > /dev/null
test "$(cat "$work/ib0.txt")" = "warning: init_buffers: no method mutates a buffer (no buffer_mutation output), so there is no initial buffer state to store; the option changes nothing"
"$bin" convert "$src/tests/fixtures/corpus/buffer_running_sum/json" -o "$work/ib1.pte" --init-buffers 2> "$work/ib1.txt" > /dev/null
test ! -s "$work/ib1.txt"
# A mutated buffer of no elements has nothing to initialize: no mutable data
# entry (ExecuTorch gives it one but writes no segment for zero bytes, which
# the runtime could not load), so the file passes the load check.
rm -rf "$work/ib_empty" && cp -r "$fx/buffer_mutation" "$work/ib_empty"
python3 - "$work/ib_empty" <<'PY'
import json, os, sys
root = sys.argv[1]
cfg_path = os.path.join(root, "data/weights/model_weights_config.json")
prog_path = os.path.join(root, "models/model.json")
cfg, prog = json.load(open(cfg_path)), json.load(open(prog_path))
gm = prog["graph_module"]
specs, outs = gm["signature"]["output_specs"], gm["graph"]["outputs"]
# running_mean becomes read-only (its new value a user output); steps stays mutated, with no elements.
specs[0], specs[1] = specs[1], {"user_output": {"arg": {"as_tensor": {"name": "add"}}}}
outs[0], outs[1] = outs[1], outs[0]
for t in (cfg["config"]["steps"]["tensor_meta"], gm["graph"]["tensor_values"]["b_steps"],
          gm["graph"]["tensor_values"]["add_1"]):
    t["sizes"], t["strides"] = [{"as_int": 0}], [{"as_int": 1}]
open(os.path.join(root, "data/weights/weight_1"), "wb").close()
json.dump(cfg, open(cfg_path, "w"))
json.dump(prog, open(prog_path, "w"))
PY
"$bin" convert "$work/ib_empty" -o "$work/ib_empty.pte" --init-buffers > /dev/null
"$bin" decode "$work/ib_empty.pte" --check > /dev/null
"$bin" decode "$work/ib_empty.pte" --json | python3 -c '
import json, sys
plan = json.load(sys.stdin)["execution_plan"][0]
planned = [v for v in plan["values"] if v["type"] == "Tensor" and v.get("allocation_info")]
assert planned and all(not v.get("data_buffer_idx") for v in planned), planned
'

# A failed conversion prints the warnings raised before its error as notes
# (it writes no report): here a program without schema_version calling an unknown op.
python3 - "$fx/ref_arduino_add/models/model.json" "$work/warned.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
del d["schema_version"]
d["graph_module"]["graph"]["nodes"][0]["target"] = "torch.ops.aten.no_such_op.default"
json.dump(d, open(sys.argv[2], "w"))
PY
if "$bin" convert "$work/warned.json" -o "$work/warned.pte" 2> "$work/warned.txt"; then exit 1; fi
test ! -e "$work/warned.pte"
head -n 1 "$work/warned.txt" | grep -q '^UNSUPPORTED_OPERATOR: node "add" calls aten.no_such_op.default, '
tail -n 1 "$work/warned.txt" | grep -qx '  note: earlier warning: the program has no schema_version; reading it as schema 8.x (method=forward entry=warned.json pointer="")'

# A folder that holds a .pt2 (a corpus case) is no unpacked archive: the .pt2 is named.
if "$bin" convert "$src/tests/fixtures/corpus/linear_tanh" -o "$work/case.pte" 2> "$work/case.txt"; then exit 1; fi
printf '%s\n' "ARCHIVE_INVALID: not a torch.export archive: no archive_format record (first entry \"io.json\") (entry=$src/tests/fixtures/corpus/linear_tanh)" \
  '  note: it holds the .pt2 archive "linear_tanh.pt2": give that file as the input' | diff - "$work/case.txt"
if "$bin" inspect "$src/tests/fixtures/corpus" 2> "$work/cases.txt"; then exit 1; fi
tail -n 1 "$work/cases.txt" | grep -q '^  note: it holds the .pt2 archives "[a-z_]*/[a-z_]*.pt2", "[a-z_]*/[a-z_]*.pt2", "[a-z_]*/[a-z_]*.pt2" and [0-9]* more: give one of them as the input$'
# In a zip, the .pt2 must be extracted first.
python3 -c "import sys, zipfile; zipfile.ZipFile(sys.argv[1], 'w').write(sys.argv[2], 'inner/linear_tanh.pt2')" \
  "$work/outer.zip" "$src/tests/fixtures/corpus/linear_tanh/linear_tanh.pt2"
if "$bin" convert "$work/outer.zip" -o "$work/outer.pte" 2> "$work/outer.txt"; then exit 1; fi
tail -n 1 "$work/outer.txt" | grep -qx '  note: it holds the .pt2 archive "inner/linear_tanh.pt2": extract that file and give it as the input'
# A layout-C archive whose weights are a pickled state dict (data/weights/model.pt,
# no payload configs): LEGACY_ARCHIVE naming that entry, not "no weights".
python3 - "$src/tests/fixtures/corpus/linear_tanh/linear_tanh.pt2" "$work/pickled.pt2" <<'PY'
import sys, zipfile
src = zipfile.ZipFile(sys.argv[1])
with zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_STORED) as out:
    for info in src.infolist():
        if "/data/weights/" in info.filename or "/data/constants/" in info.filename:
            continue
        out.writestr(info.filename, src.read(info))
    out.writestr("archive/data/weights/model.pt", b"PK-not-read")
PY
if "$bin" convert "$work/pickled.pt2" -o "$work/pickled.pte" 2> "$work/pickled.txt"; then exit 1; fi
printf '%s\n' 'LEGACY_ARCHIVE: the archive'"'"'s weights are pickled in "archive/data/weights/model.pt" (as torch.export.save wrote them before it stored raw payloads), and pteforge does not read pickles (method=forward entry=archive/data/weights/model.pt)' \
  '  note: re-save it with a torch release whose torch.export.save stores raw weights (it writes data/weights/<model>_weights_config.json; torch 2.11 does): `ep = torch.export.load("old.pt2"); torch.export.save(ep, "new.pt2")`' | diff - "$work/pickled.txt"
test ! -e "$work/pickled.pte"

# A float literal past the double range is an infinity, as Python reads it
# (RapidJSON alone refuses 1e400 as "Number too big"): the same .pte as Infinity.
for lit in 1e400 Infinity; do
  rm -rf "$work/big_$lit" && cp -r "$src/tests/fixtures/corpus/layernorm_residual/json" "$work/big_$lit"
  python3 - "$work/big_$lit/models/model.json" "$lit" <<'PY'
import re, sys
path, lit = sys.argv[1], sys.argv[2]
text = open(path).read()
text, n = re.subn(r'"as_float": [0-9.e-]+', '"as_float": ' + lit, text, count=1)
assert n == 1
open(path, "w").write(text)
PY
  "$bin" convert "$work/big_$lit" -o "$work/big_$lit.pte" > /dev/null
done
cmp "$work/big_1e400.pte" "$work/big_Infinity.pte"

# A view declared with a size symbol other than the one its base computes
# (s99 for s53, equal hints): verify_shapes refuses the metadata, as two
# different polynomials over size symbols are different sizes. With
# verify_shapes left out, the memory guard still stops it: the view would
# overrun the base's planned memory at the upper bounds, as ExecuTorch's
# _ViewSpec nbytes guard raises.
rm -rf "$work/view_sym" && cp -r "$src/tests/fixtures/corpus/dynamic_seq/json" "$work/view_sym"
python3 - "$work/view_sym/models/model.json" <<'PY'
import json, sys
path = sys.argv[1]
d = json.load(open(path))
d["graph_module"]["graph"]["tensor_values"]["view_1"]["sizes"][1]["as_expr"]["expr_str"] = "s99"
d["range_constraints"]["s99"] = {"min_val": 2, "max_val": 100}
json.dump(d, open(path, "w"))
PY
if "$bin" convert "$work/view_sym" -o "$work/view_sym.pte" 2> "$work/view_sym.txt"; then exit 1; fi
test ! -e "$work/view_sym.pte"
head -n 1 "$work/view_sym.txt" | grep -q '^INVALID_GRAPH: node "view_1": declared as float32\[1, s99, 6\], but aten::view of its inputs gives float32\[1, s53, 6\] (method=forward .*pass=verify_shapes'
no_verify=$(python3 -c "import json,sys; print(','.join(p['name'] for p in json.load(open(sys.argv[1]))['pass_report']['passes'] if p['name'] != 'verify_shapes'))" "$work/a.json")
if "$bin" convert "$work/view_sym" -o "$work/view_sym.pte" --passes "$no_verify" 2> "$work/view_sym.txt"; then exit 1; fi
test ! -e "$work/view_sym.pte"
head -n 1 "$work/view_sym.txt" | grep -q "^PASS_FAILED: the view 'view_1' holds 2400 bytes at its upper bounds \[1, 100, 6\] but shares the memory of a 1536-byte base \[64, 6\]: their sizes use symbols with different bounds, so the view would reach past its base's memory (ExecuTorch's _ViewSpec compares the byte sizes only at trace-time sizes and writes such a view); give the symbols the same bounds (method=forward .*node=view_1 pass=sym_shape_eval"

# Symbols without bounds (a long expression): PASS_FAILED naming five of
# them and the expression cut at 80 characters, as ExecuTorch's
# ConstraintBasedSymShapeEvalPass refuses an unbounded shape; no output.
rm -rf "$work/sum_sym" && cp -r "$src/tests/fixtures/corpus/dynamic_seq/json" "$work/sum_sym"
python3 - "$work/sum_sym/models/model.json" <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
text = text.replace("Symbol('s53', integer=True, positive=True)", " + ".join(f"s{i}" for i in range(40)))
open(path, "w").write(text.replace('"s53"', '"s0"'))
PY
if "$bin" convert "$work/sum_sym" -o "$work/sum_sym.pte" 2> "$work/sum_sym.txt" > /dev/null; then exit 1; fi
test ! -e "$work/sum_sym.pte"
grep -qF "PASS_FAILED: cannot compute an upper bound of the symbolic size 's0 + s1 + s2 + s3 + s4 + s5 + s6 + s7 + s8 + s9 + s10 + s11 + s12 + s13 + s14...' of 'x': range_constraints give no max to its symbols 's1', 's2', 's3', 's4', 's5' and 34 more (ExecuTorch's ConstraintBasedSymShapeEvalPass refuses it too, and memory planning needs a bound); give each a max in the dynamic shapes, e.g. Dim(\"s1\", max=N) (method=forward" "$work/sum_sym.txt"

echo "convert.sh: ok"
