#!/usr/bin/env bash
# `pteforge convert --preserve-ops`: a preserved op is kept by the decompose
# pass and runs as its out variant; without the flag it is decomposed; an op
# no node calls gets a warning on stderr; an op
# that cannot be preserved (no out variant, a view, unknown) is exit 1 with
# one OPTION_INVALID line and no output.
# Usage: preserve_ops.sh <pteforge binary> <source dir>
set -euo pipefail
bin="$1"
src="$2"
tir="$src/tests/fixtures/tir"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# x[s0,4,8] -> Linear(8,6) -> relu -> matmul: by default linear becomes permute + addmm/bmm.
"$bin" convert "$tir/tir_dynamic_batch" -o "$work/d.pte" > /dev/null
"$bin" decode "$work/d.pte" > "$work/d.txt"
if grep -q 'aten::linear' "$work/d.txt"; then
  echo "linear was not decomposed without --preserve-ops" >&2
  exit 1
fi

# Preserved (both spellings): linear stays, as aten::linear.out.
for name in aten.linear.default aten::linear; do
  "$bin" convert "$tir/tir_dynamic_batch" -o "$work/p.pte" --preserve-ops "$name" > "$work/out.txt" 2> "$work/err.txt"
  test ! -s "$work/err.txt" || { cat "$work/err.txt" >&2; exit 1; }
  grep -q "^$work/p.pte: [0-9]* bytes, 1 method\$" "$work/out.txt"
  "$bin" decode "$work/p.pte" > "$work/p.txt"
  grep -Eq '^    [0-9]+: aten::linear\.out$' "$work/p.txt" || { cat "$work/p.txt" >&2; exit 1; }
  test "$(grep -c 'aten::linear.out(' "$work/p.txt")" -eq 1
done
# A list: both ops kept.
"$bin" convert "$tir/tir_dynamic_batch" -o "$work/q.pte" --preserve-ops aten.linear.default,aten.matmul.default > /dev/null
"$bin" decode "$work/q.pte" > "$work/q.txt"
grep -Eq '^    [0-9]+: aten::linear\.out$' "$work/q.txt"
grep -Eq '^    [0-9]+: aten::matmul\.out$' "$work/q.txt"

# A program saved after run_decompositions() no longer calls linear: the
# option changes nothing, and a warning on stderr says so (exit 0, file written).
"$bin" convert "$src/tests/fixtures/corpus/linear_tanh/linear_tanh.pt2" -o "$work/w.pte" \
  --preserve-ops aten.linear.default,aten.tanh.default > "$work/out.txt" 2> "$work/err.txt"
printf '%s\n' "warning: preserve_ops: aten::linear is not called in this method, so there was nothing to preserve; if the program was saved after run_decompositions(), save it before that step instead (pteforge decomposes it itself) (method=forward pass=decompose)" \
  | diff - "$work/err.txt"
grep -q "^$work/w.pte: [0-9]* bytes, 1 method\$" "$work/out.txt"

# Ops that cannot be preserved: exit 1, the exact first line, nothing written.
expect_fail() {  # expect_fail "FIRST LINE" OPS
  local line="$1"
  set +e
  "$bin" convert "$tir/tir_dynamic_batch" -o "$work/bad.pte" --preserve-ops "$2" > "$work/out.txt" 2> "$work/err.txt"
  local rc=$?
  set -e
  test "$rc" -eq 1 || { echo "expected exit 1, got $rc for $2" >&2; cat "$work/err.txt" >&2; exit 1; }
  test "$(head -n 1 "$work/err.txt")" = "$line" || { echo "for $2 got:" >&2; cat "$work/err.txt" >&2; exit 1; }
  test ! -e "$work/bad.pte"
  test -z "$(ls "$work" | grep '^bad\.pte\.')"
}
expect_fail "OPTION_INVALID: preserve_ops: aten::lstm.input has no out variant, so ExecuTorch could not run it undecomposed (method=forward pass=decompose)" \
  aten.lstm.input
expect_fail "OPTION_INVALID: preserve_ops: aten::transpose.int is a view or mutating op and cannot be preserved (method=forward pass=decompose)" \
  aten.linear.default,aten.transpose.int
expect_fail "OPTION_INVALID: preserve_ops: aten::linear.out is an out variant; preserve the functional op (aten::linear), which to_out_variant turns into it (method=forward pass=decompose)" \
  aten.linear.out
expect_fail "OPTION_INVALID: preserve_ops: aten::add.out is an out variant; preserve the functional op (aten::add.Tensor), which to_out_variant turns into it (method=forward pass=decompose)" \
  aten.add.out
expect_fail 'OPTION_INVALID: preserve_ops: "aten.no_such_op.default" is not a known operator (method=forward pass=decompose)' \
  aten.no_such_op.default
echo ok
