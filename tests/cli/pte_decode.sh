#!/usr/bin/env bash
# `pteforge decode`: summary, --json, --flatc-json and --check on reference
# files, --check on a file with a bad argument index, and exit code 1 with a
# PTE_INVALID message for a truncated file.
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

# --check: every reference file would load; one whose add.out call names a
# value 9 (of 4) would not: its problem, then the count, and exit code 1.
for f in "$ref"/*.pte; do "$bin" decode --check "$f" > "$work/check.txt"; done
test "$(cat "$work/check.txt")" = "load check passed: 29 methods would load"  # the last, stories260k
python3 - "$ref/arduino_add_model.pte" "$work/badarg.pte" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
args = struct.pack("<6i", 5, 1, 0, 3, 2, 2)  # the add.out argument vector: length, then indices
assert data.count(args) == 1
open(sys.argv[2], "wb").write(data.replace(args, struct.pack("<6i", 5, 1, 9, 3, 2, 2)))
PY
set +e
"$bin" decode --check "$work/badarg.pte" > "$work/check.txt"
rc=$?
set -e
test "$rc" -eq 1
printf '%s\n' \
  '/execution_plan/0/chains/0/instructions/0/instr_args/args/1: argument 9 names no value (the method has 4 values)' \
  'load check failed: 1 problem' | diff - "$work/check.txt"

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

# Cut to its first 10 bytes (identifier kept, extended header cut): the
# message says the root table offset points past the end.
head -c 10 "$ref/arduino_add_model.pte" > "$work/cut10.pte"
set +e
"$bin" decode "$work/cut10.pte" > "$work/out10.txt" 2> "$work/err10.txt"
rc=$?
set -e
test "$rc" -eq 1
grep -qx "PTE_INVALID: the root table offset 60 (bytes 0..3) points past the end of the 10-byte program: the file is truncated or corrupt (entry=$work/cut10.pte byte_offset=0)" "$work/err10.txt"
test ! -s "$work/out10.txt"

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
# A large file that is not a .pte (sparse: 5 GiB, no disk used) is refused
# from its first bytes, not read whole: the decoder's peak memory stays far
# below the file's size (measured by python3, as no `ulimit -v` suits an ASan
# build).
peak_kib() {  # peak_kib ERRFILE CMD...: runs CMD, stderr to ERRFILE; prints "<rc> <peak RSS KiB>"
  python3 - "$@" <<'PY'
import resource, subprocess, sys
with open(sys.argv[1], "w") as err:
    rc = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=err).returncode
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
}
truncate -s 5G "$work/big.pte"
read -r rc kib < <(peak_kib "$work/err4.txt" "$bin" decode "$work/big.pte")
test "$rc" -eq 1
test "$kib" -lt 1048576
grep -qx "PTE_INVALID: file identifier is \"\\\\x00\\\\x00\\\\x00\\\\x00\"; \"ET12\" expected (entry=$work/big.pte byte_offset=4)" "$work/err4.txt"
# One with the identifier but no extended header would have to be read
# whole, and is larger than a flatbuffer can be: refused from its first bytes.
printf '\x00\x00\x00\x00ET12' | dd of="$work/big.pte" conv=notrunc status=none
read -r rc kib < <(peak_kib "$work/err5.txt" "$bin" decode "$work/big.pte")
test "$rc" -eq 1
test "$kib" -lt 1048576
grep -qx "PTE_INVALID: the file has no extended header, so the whole file is the program, but it is 5368709120 bytes; at most 2147483646 are possible (entry=$work/big.pte)" "$work/err5.txt"
echo "pte_decode: ok"
