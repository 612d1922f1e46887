#!/usr/bin/env bash
# Regenerates the golden decodings in tests/fixtures/expected/:
#   <name>.json         for every fixture folder tests/fixtures/programs/<name>/
#   corpus/<case>.json  for every corpus case tests/fixtures/corpus/<case>/<case>.pt2
# Each golden is `pteforge decode --json` of `pteforge convert <input>` with
# the default options. Inputs that do not convert yet (e.g. they need a pass
# that is not implemented) get no golden and are listed at the end; the
# golden test (tests/native/e2e/goldens_native.cpp) checks every golden there is.
#
# Usage: scripts/update-goldens.sh [PTEFORGE_BINARY]
#        (default: build/native-debug/core/pteforge; build it first)
# Review the diff before committing: a golden change is a change of the .pte.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${1:-$root/build/native-debug/core/pteforge}"
if [[ ! -x $bin ]]; then
  echo "update-goldens: $bin not found; build it (cmake --build --preset native-debug --target pteforge) or pass its path" >&2
  exit 1
fi
out="$root/tests/fixtures/expected"
mkdir -p "$out/corpus"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

skipped=()
golden() {  # golden NAME INPUT TARGET
  local name="$1" input="$2" target="$3"
  if "$bin" convert "$input" -o "$work/$name.pte" > /dev/null 2> "$work/$name.err"; then
    "$bin" decode --json "$work/$name.pte" > "$work/$name.json"
    mv "$work/$name.json" "$target"
    echo "updated ${target#"$root"/}"
  else
    rm -f "$target"
    skipped+=("$name: $(head -n 1 "$work/$name.err")")
  fi
}

for dir in "$root"/tests/fixtures/programs/*/; do
  name="$(basename "$dir")"
  golden "$name" "$dir" "$out/$name.json"
done
for dir in "$root"/tests/fixtures/corpus/*/; do
  name="$(basename "$dir")"
  [[ -f "$dir/$name.pt2" ]] || continue
  golden "corpus_$name" "$dir/$name.pt2" "$out/corpus/$name.json"
done

if ((${#skipped[@]})); then
  echo "no golden (conversion fails):" >&2
  printf '  %s\n' "${skipped[@]}" >&2
fi
