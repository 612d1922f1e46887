#!/usr/bin/env bash
# scripts/gen_swap_fixtures.py: the committed tests/fixtures/swap/ equals the
# generator's output (deterministic), and every replacement folder passes the
# fixture checker.
# $1 = pteforge binary (unused), $2 = source dir.
set -euo pipefail
SRC="$2"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
python3 "$SRC/scripts/gen_swap_fixtures.py" --out "$TMP/swap" > "$TMP/log"
if ! diff -r "$TMP/swap" "$SRC/tests/fixtures/swap" > "$TMP/diff"; then
  echo "FAIL: tests/fixtures/swap differs from scripts/gen_swap_fixtures.py output:" >&2
  head -20 "$TMP/diff" >&2
  exit 1
fi
if grep -q "error" "$TMP/log"; then
  echo "FAIL: the fixture checker found errors:" >&2
  cat "$TMP/log" >&2
  exit 1
fi
echo "ok: $(grep -c '^wrote' "$TMP/log") files regenerated identically"
