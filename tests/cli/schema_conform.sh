#!/usr/bin/env bash
# Wire compatibility of pteforge's schema (core/schema/*.fbs) with the copy of
# ExecuTorch's schema in tests/data/reference/:
#  1. `flatc --conform` both ways (each schema is a valid evolution of the
#     other: same types, ids, enum values);
#  2. identical JSON Schema output, which also catches a field missing at the
#     end of a table (--conform accepts that as an evolution) and a different
#     field order or namespace.
# Usage: schema_conform.sh <pteforge binary (unused)> <source dir>
set -euo pipefail
src="$2"
flatc="${FLATC:-flatc}"
ours="$src/core/schema"
ref="$src/tests/data/reference"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Each schema includes "scalar_type.fbs"; resolve it from its own folder.
"$flatc" --conform "$ref/program.fbs" -I "$ref" "$ours/program.fbs"
"$flatc" --conform "$ours/program.fbs" -I "$ours" "$ref/program.fbs"
"$flatc" --conform "$ref/scalar_type.fbs" "$ours/scalar_type.fbs"
"$flatc" --conform "$ours/scalar_type.fbs" "$ref/scalar_type.fbs"

mkdir -p "$work/ours" "$work/ref"
"$flatc" --jsonschema -o "$work/ours" -I "$ours" "$ours/program.fbs"
"$flatc" --jsonschema -o "$work/ref" -I "$ref" "$ref/program.fbs"
diff -u "$work/ref/program.schema.json" "$work/ours/program.schema.json"

# The identifier and extension are part of the format.
grep -q '^file_identifier "ET12";' "$ours/program.fbs"
grep -q '^file_extension "pte";' "$ours/program.fbs"
grep -q '^root_type Program;' "$ours/program.fbs"

# The check can fail: a schema with one field removed must be refused.
mkdir -p "$work/broken"
cp "$ours/scalar_type.fbs" "$work/broken/"
sed 's/^  memory_offset_high: uint;$//' "$ours/program.fbs" > "$work/broken/program.fbs"
"$flatc" --jsonschema -o "$work/broken" -I "$work/broken" "$work/broken/program.fbs"
if diff -q "$work/ref/program.schema.json" "$work/broken/program.schema.json" > /dev/null; then
  echo "schema_conform: a schema missing memory_offset_high was not detected" >&2
  exit 1
fi
sed 's/^  sizes: \[int\];$/  sizes: [long];/' "$ours/program.fbs" > "$work/broken/program.fbs"
if "$flatc" --conform "$ref/program.fbs" -I "$ref" "$work/broken/program.fbs" 2> /dev/null; then
  echo "schema_conform: a changed field type was not detected" >&2
  exit 1
fi
echo "schema_conform: ok"
