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

"$bin" inspect "$src/tests/fixtures/errors/use_before_definition.json" >"$tmp/out.txt" 2>"$tmp/err.txt"
[ $? -eq 1 ] || fail "inspect did not exit 1 on an invalid program"
[ -s "$tmp/out.txt" ] && fail "inspect wrote to stdout on failure"
[ "$(wc -l <"$tmp/err.txt")" -eq 1 ] || fail "the error is not one line"
grep -q "^INVALID_GRAPH: node 'mul' uses 'add' before its definition" "$tmp/err.txt" || fail "unexpected error: $(cat "$tmp/err.txt")"

"$bin" inspect "$tmp/missing.json" 2>"$tmp/err.txt" >/dev/null
[ $? -eq 1 ] || fail "inspect did not exit 1 on a missing file"
grep -q "^IO_ERROR: cannot open" "$tmp/err.txt" || fail "unexpected error for a missing file"
echo "inspect.sh: ok"
