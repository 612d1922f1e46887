#!/usr/bin/env bash
# `pteforge decode`: summary, --json and --flatc-json on reference files, and
# exit code 1 with a PTE_INVALID message for a truncated file.
# Usage: pte_decode.sh <pteforge binary> <source dir>
set -euo pipefail
bin="$1"
ref="$2/tests/data/reference/pte"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

"$bin" decode "$ref/arduino_add_model.pte" > "$work/summary.txt"
grep -qx '    0: aten::add.out(%1, %0, %3, %2, %2)' "$work/summary.txt"
grep -qx '  non_const_buffer_sizes: \[0, 32\]' "$work/summary.txt"
grep -qx '  0: offset 0, size 4 (file bytes 1152..1156)' "$work/summary.txt"

"$bin" decode "$ref/arduino_add_model.pte" --json > "$work/readable.json"
grep -q '"text": "aten::add.out(%1, %0, %3, %2, %2)"' "$work/readable.json"
grep -q '"segment_base_offset": 1152' "$work/readable.json"

# --flatc-json prints the document flatc prints (compared as JSON).
"$bin" decode "$ref/add.pte" --flatc-json > "$work/flatc.json"
python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); sys.exit(0 if a==b else 1)' \
  "$work/flatc.json" "$ref/add.json"

# Every reference file decodes.
for f in "$ref"/*.pte; do "$bin" decode "$f" > /dev/null; done

# A truncated file: exit 1, one PTE_INVALID line naming the file.
head -c 1100 "$ref/arduino_add_model.pte" > "$work/cut.pte"
set +e
"$bin" decode "$work/cut.pte" > "$work/out.txt" 2> "$work/err.txt"
rc=$?
set -e
test "$rc" -eq 1
grep -q '^PTE_INVALID: ' "$work/err.txt"
grep -q "byte_offset=1100" "$work/err.txt"
test ! -s "$work/out.txt"

# A missing file is an I/O error.
set +e
"$bin" decode "$work/missing.pte" 2> "$work/err2.txt"
rc=$?
set -e
test "$rc" -eq 1
grep -qx "IO_ERROR: cannot open \"$work/missing.pte\": no such file or folder (entry=$work/missing.pte)" "$work/err2.txt"

# A folder (or a FIFO) is refused before it is opened, as every CLI input is.
mkdir "$work/adir.pte"
set +e
"$bin" decode "$work/adir.pte" 2> "$work/err3.txt"
rc=$?
set -e
test "$rc" -eq 1
grep -qx "IO_ERROR: cannot open \"$work/adir.pte\": it is a folder (entry=$work/adir.pte)" "$work/err3.txt"
echo "pte_decode: ok"
