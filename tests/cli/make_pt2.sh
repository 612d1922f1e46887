#!/usr/bin/env bash
# scripts/make_pt2.py: rebuilding every corpus case from its unpacked json/
# folder gives a file byte-identical to the corpus .pt2; the default root is the
# output's base name; a folder without .data/serialization_id still gives a
# valid archive with a 40-digit id.
# $1 = pteforge binary (unused), $2 = source dir.
set -euo pipefail
SRC="$2"
CORPUS="$SRC/tests/fixtures/corpus"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

count=0
for io in "$CORPUS"/*/io.json; do
  case_dir="$(dirname "$io")"
  read -r archive root < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["archive"], d["archive_root"])' "$io")
  python3 "$SRC/scripts/make_pt2.py" "$case_dir/json" "$TMP/out.pt2" --root "$root"
  if ! cmp "$TMP/out.pt2" "$case_dir/$archive"; then
    echo "FAIL: rebuilt $(basename "$case_dir")/$archive differs from the corpus" >&2
    exit 1
  fi
  count=$((count + 1))
done
if [ "$count" -ne 11 ]; then
  echo "FAIL: expected 11 corpus cases, found $count" >&2
  exit 1
fi

# Default root = output base name; no serialization_id in the folder.
mkdir "$TMP/folder"
cp -r "$CORPUS/linear_tanh/json/." "$TMP/folder/"
rm "$TMP/folder/.data/serialization_id"
python3 "$SRC/scripts/make_pt2.py" "$TMP/folder" "$TMP/my.model.pt2"
python3 - "$TMP/my.model.pt2" <<'PY'
import re, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
assert z.testzip() is None
names = z.namelist()
assert names[0] == "my.model/data/weights/weight_0", names[0]
assert names[-5:] == ["my.model/archive_format", "my.model/archive_version", "my.model/.data/version",
                      "my.model/byteorder", "my.model/.data/serialization_id"], names[-5:]
assert re.fullmatch(rb"[0-9]{40}", z.read("my.model/.data/serialization_id"))
for info in z.infolist():
    assert info.compress_type == zipfile.ZIP_STORED
PY

# A folder that is not an unpacked archive is refused, and nothing is left behind.
mkdir "$TMP/empty"
if python3 "$SRC/scripts/make_pt2.py" "$TMP/empty" "$TMP/bad.pt2" 2>/dev/null; then
  echo "FAIL: an empty folder was accepted" >&2
  exit 1
fi
[ ! -e "$TMP/bad.pt2" ]
echo "make_pt2: $count corpus archives rebuilt byte-identically"
