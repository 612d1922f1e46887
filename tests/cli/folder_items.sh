#!/usr/bin/env bash
# An unpacked archive folder whose weight is not a regular file: a symbolic
# link to a file is read through it; a FIFO, a link in a loop or to a missing
# file is IO_ERROR naming the entry and why (not "the payload is missing").
# Usage: folder_items.sh <pteforge binary> <source dir>
set -euo pipefail
bin="$1"
src="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -r "$src/tests/fixtures/corpus/linear_tanh/json" "$work/m"
w="$work/m/data/weights/weight_0"
mv "$w" "$work/real_weight"
"$bin" convert "$src/tests/fixtures/corpus/linear_tanh/json" -o "$work/ref.pte" >/dev/null
check() {  # check WHY
  local rc=0 err
  err="$("$bin" convert "$work/m" -o "$work/out.pte" 2>&1 >/dev/null)" || rc=$?
  [[ "$rc" == 1 ]] || { echo "exit $rc, expected 1 ($1)" >&2; exit 1; }
  local want="IO_ERROR: cannot open \"data/weights/weight_0\": $1 (method=forward entry=data/weights/weight_0)"
  [[ "$err" == "$want" ]] || { echo "said: $err"$'\n'"expected: $want" >&2; exit 1; }
  [[ ! -e "$work/out.pte" ]] || { echo "convert left out.pte behind" >&2; exit 1; }
}
ln -s "$work/real_weight" "$w"
"$bin" convert "$work/m" -o "$work/out.pte" >/dev/null
cmp "$work/ref.pte" "$work/out.pte"
rm "$w" "$work/out.pte"
mkfifo "$w"
check "it is a FIFO, not a regular file"
rm "$w"
ln -s weight_0b "$w"
ln -s weight_0 "$work/m/data/weights/weight_0b"
check "it is a symbolic link in a loop"
rm "$w" "$work/m/data/weights/weight_0b"
ln -s "$work/nowhere" "$w"
check "it is a symbolic link to a missing file"
rm "$w"
mkdir "$w"
check "it is a folder"
rmdir "$w"
mkdir "$work/adir"
ln -s "$work/adir" "$w"
check "it is a symbolic link to a folder (not followed)"
rm "$w"
cp "$work/real_weight" "$w"
# Beyond the weights: the program and the weights config, unreadable, are
# named as what they are (not "the archive holds no program", not "no entry
# in the weights config").
convert_error() {  # convert_error EXPECTED: convert fails with exactly EXPECTED
  local rc=0 err
  err="$("$bin" convert "$work/m" -o "$work/out.pte" 2>&1 >/dev/null)" || rc=$?
  [[ "$rc" == 1 && "$err" == "$1" ]] || { echo "exit $rc, said: $err"$'\n'"expected: $1" >&2; exit 1; }
}
mv "$work/m/models/model.json" "$work/model.json"
mkfifo "$work/m/models/model.json"
convert_error 'IO_ERROR: cannot open "models/model.json": it is a FIFO, not a regular file (entry=models/model.json)'
rm "$work/m/models/model.json"
mv "$work/model.json" "$work/m/models/model.json"
cfg="$work/m/data/weights/model_weights_config.json"
mv "$cfg" "$work/config.json"
mkdir "$cfg"
convert_error 'IO_ERROR: cannot open "data/weights/model_weights_config.json": it is a folder (entry=data/weights/model_weights_config.json)'
rmdir "$cfg"
mv "$work/m/data/weights" "$work/weights"
mv "$work/config.json" "$work/weights/model_weights_config.json"
ln -s "$work/weights" "$work/m/data/weights"
convert_error 'IO_ERROR: cannot open "data/weights": it is a symbolic link to a folder (not followed) (entry=data/weights)'
rm "$work/m/data/weights"
mv "$work/weights" "$work/m/data/weights"
# A missing (optional) constants config beside an ordinary data/constants
# folder is no error: the plain folder above a name is not a fault.
rm -f "$work/m/data/constants/"*config*
mkdir -p "$work/m/data/constants"
"$bin" convert "$work/m" -o "$work/out.pte" >/dev/null
echo "ok: folder items"
