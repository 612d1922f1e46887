#!/usr/bin/env bash
# `pteforge inspect`: exit codes, text and JSON output on a corpus program,
# one clear error line on bad input. $1 = pteforge binary, $2 = source dir.
set -u
bin="$1"
src="$2"
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

prog="$src/tests/fixtures/corpus/linear_tanh/json/models/model.json"
"$bin" inspect "$prog" >"$tmp/out.txt" 2>"$tmp/err.txt" || fail "inspect exited non-zero on a valid program"
[ -s "$tmp/err.txt" ] && fail "inspect wrote to stderr on a valid program"
head -1 "$tmp/out.txt" | grep -qx "method forward" || fail "text output does not start with the method"
grep -q "hidden.weight  float32\[8, 8\]" "$tmp/out.txt" || fail "text output lacks the parameter line"

"$bin" inspect "$prog" --json >"$tmp/out.json" || fail "inspect --json exited non-zero"
python3 - "$tmp/out.json" <<'PY' || fail "inspect --json output is not the expected JSON"
import json, sys
d = json.load(open(sys.argv[1]))
m = d["methods"][0]
assert m["name"] == "forward"
assert [i["name"] for i in m["inputs"]][-1] == "x"
assert m["state"]["parameters"] == {"count": 4, "bytes": 360}
assert m["warnings"] == []
PY

# The module tree needs no weights: a program JSON alone (outside its folder) lists its modules.
cp "$prog" "$tmp/lone.json"
"$bin" inspect "$tmp/lone.json" --modules >"$tmp/out.txt" 2>"$tmp/err.txt" || fail "inspect --modules of a lone program JSON failed: $(cat "$tmp/err.txt")"
head -1 "$tmp/out.txt" | grep -qx "method forward" || fail "inspect --modules of a lone program JSON: $(head -3 "$tmp/out.txt")"
cmp "$tmp/out.txt" <("$bin" inspect "$prog" --modules) || fail "inspect --modules differs without the weights"

"$bin" inspect "$src/tests/fixtures/errors/use_before_definition.json" >"$tmp/out.txt" 2>"$tmp/err.txt"
[ $? -eq 1 ] || fail "inspect did not exit 1 on an invalid program"
[ -s "$tmp/out.txt" ] && fail "inspect wrote to stdout on failure"
[ "$(wc -l <"$tmp/err.txt")" -eq 1 ] || fail "the error is not one line"
grep -q "^INVALID_GRAPH: node 'mul' uses 'add' before its definition" "$tmp/err.txt" || fail "unexpected error: $(cat "$tmp/err.txt")"

# Control characters in a name reach the terminal escaped, as \xNN.
esc="$tmp/a$(printf '\033')[31mb.json"
printf 'x' > "$esc"
"$bin" inspect "$esc" 2>"$tmp/err.txt" >/dev/null
[ $? -eq 1 ] || fail "inspect did not exit 1 on a file that is no program"
grep -Fq "\"$tmp/a\x1b[31mb.json\" is neither a zip archive" "$tmp/err.txt" || fail "the escape character was not escaped: $(od -c "$tmp/err.txt" | head -3)"
grep -q "$(printf '\033')" "$tmp/err.txt" && fail "a raw escape character reached stderr"

# JSON whose top level is an array is read as JSON: broken, its syntax error
# names the byte offset; valid, the schema error names the root.
printf ' [1,' > "$tmp/arr.json"
"$bin" inspect "$tmp/arr.json" 2>"$tmp/err.txt" >/dev/null
[ $? -eq 1 ] || fail "inspect did not exit 1 on a broken JSON array"
[ "$(cat "$tmp/err.txt")" = "INPUT_NOT_JSON: JSON syntax error: Invalid value: the JSON text ends too early (method=forward entry=arr.json byte_offset=4)" ] ||
  fail "unexpected error for a broken JSON array: $(cat "$tmp/err.txt")"
# Only whitespace is an empty input; a byte order mark is named.
printf ' \n\t ' > "$tmp/ws.json"
"$bin" inspect "$tmp/ws.json" 2>"$tmp/err.txt" >/dev/null && fail "inspect accepted a whitespace-only file"
[ "$(cat "$tmp/err.txt")" = "INPUT_EMPTY: \"$tmp/ws.json\" holds only whitespace (4 bytes); expected a .pt2 archive or a program JSON (entry=$tmp/ws.json)" ] ||
  fail "unexpected error for a whitespace-only file: $(cat "$tmp/err.txt")"
printf '\xef\xbb\xbf \n' > "$tmp/bomws.json"
"$bin" inspect "$tmp/bomws.json" 2>"$tmp/err.txt" >/dev/null && fail "inspect accepted a byte order mark and whitespace"
[ "$(cat "$tmp/err.txt")" = "INPUT_EMPTY: \"$tmp/bomws.json\" holds only a UTF-8 byte order mark and whitespace (5 bytes); expected a .pt2 archive or a program JSON (entry=$tmp/bomws.json)" ] ||
  fail "unexpected error for a byte order mark and whitespace: $(cat "$tmp/err.txt")"
# Whitespace past the first 512 bytes: still a blank input, or still a program JSON.
head -c 70000 /dev/zero | tr '\0' ' ' > "$tmp/ws_long.json"
"$bin" inspect "$tmp/ws_long.json" 2>"$tmp/err.txt" >/dev/null && fail "inspect accepted 70000 spaces"
grep -q '^INPUT_EMPTY: .* holds only whitespace (70000 bytes); expected a .pt2 archive or a program JSON' "$tmp/err.txt" ||
  fail "unexpected error for 70000 spaces: $(cat "$tmp/err.txt")"
cat "$tmp/ws_long.json" "$src/tests/fixtures/programs/ref_arduino_add/models/model.json" > "$tmp/padded.json"
"$bin" inspect "$tmp/padded.json" > /dev/null || fail "a program JSON after 70000 spaces was refused"
printf '\xef\xbb\xbf{}' > "$tmp/bom.json"
"$bin" inspect "$tmp/bom.json" 2>"$tmp/err.txt" >/dev/null && fail "inspect accepted a byte order mark"
grep -q '^INPUT_NOT_JSON: JSON syntax error: the text starts with a UTF-8 byte order mark (bytes EF BB BF), which pteforge does not read (RFC 8259 forbids writing one) (method=forward entry=bom.json byte_offset=0)$' "$tmp/err.txt" ||
  fail "unexpected error for a byte order mark: $(cat "$tmp/err.txt")"
printf '[]' > "$tmp/arr.json"
"$bin" inspect "$tmp/arr.json" 2>"$tmp/err.txt" >/dev/null
[ "$(cat "$tmp/err.txt")" = 'INPUT_SCHEMA: expected an ExportedProgram object, found an array (method=forward entry=arr.json pointer="")' ] ||
  fail "unexpected error for a JSON array: $(cat "$tmp/err.txt")"

"$bin" inspect "$tmp/missing.json" 2>"$tmp/err.txt" >/dev/null
[ $? -eq 1 ] || fail "inspect did not exit 1 on a missing file"
grep -q "^IO_ERROR: cannot open" "$tmp/err.txt" || fail "unexpected error for a missing file"
# --method: the summary (or, with --modules, the module tree) of one method.
two="$src/tests/fixtures/corpus/two_methods/two_methods.pt2"
[ "$("$bin" inspect "$two" | grep '^method ')" = "$(printf 'method forward\nmethod reset')" ] || fail "two_methods has not both methods"
"$bin" inspect "$two" --method reset >"$tmp/out.txt" || fail "inspect --method reset failed"
[ "$(grep '^method ' "$tmp/out.txt")" = "method reset" ] || fail "inspect --method reset printed: $(grep '^method ' "$tmp/out.txt")"
"$bin" inspect "$two" --method reset --json | python3 -c 'import json,sys; assert [m["name"] for m in json.load(sys.stdin)["methods"]] == ["reset"]' \
  || fail "inspect --method reset --json is not just reset"
"$bin" inspect "$two" --modules --method reset >"$tmp/out.txt" || fail "inspect --modules --method reset failed"
[ "$(grep '^method ' "$tmp/out.txt")" = "method reset" ] || fail "inspect --modules --method reset printed other methods"
for extra in "" "--modules"; do
  "$bin" inspect "$two" $extra --method nope >"$tmp/out.txt" 2>"$tmp/err.txt"
  [ $? -eq 1 ] || fail "inspect $extra --method nope did not exit 1"
  [ "$(cat "$tmp/err.txt")" = "OPTION_INVALID: the input has no method 'nope'; its methods: forward, reset (method=nope)" ] \
    || fail "unexpected error for inspect $extra --method nope: $(cat "$tmp/err.txt")"
done
echo "inspect.sh: ok"
