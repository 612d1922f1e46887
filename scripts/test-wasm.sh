#!/usr/bin/env bash
# WASM smoke test: builds the core + CLI with Emscripten 3.1.6 (preset
# wasm-release) and the native CLI (preset native-debug), runs every command
# line of tests/wasm/smoke_commands.txt with both, and requires byte-identical
# stdout, stderr, exit code and output files. Commands whose subcommand the CLI
# does not have yet are skipped, so the test grows as subcommands land.
#
# Usage: scripts/test-wasm.sh [--unit] [--no-build]
#   --unit      also build the wasm-debug preset (-sASSERTIONS=2 -sSAFE_HEAP=1)
#               and run the doctest suites under Node with ctest
#   --no-build  use the binaries already in build/ (no setup, no cmake)
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

unit=0 build=1
for arg in "$@"; do
  case "$arg" in
    --unit) unit=1 ;;
    --no-build) build=0 ;;
    *) echo "usage: scripts/test-wasm.sh [--unit] [--no-build]" >&2; exit 2 ;;
  esac
done

# E1: emcc's JS optimizer needs acorn from /usr/share/nodejs (the presets and
# the CMake linker launcher set it too; this covers anything else run here).
export NODE_PATH=/usr/share/nodejs
jobs="${PTEFORGE_JOBS:-$(nproc)}"
native="build/native-debug/core/pteforge"
wasm="build/wasm-release/core/pteforge.js"

# configure PRESET: runs `cmake --preset PRESET`, shows only pteforge's own
# status lines (which flatc, python, Emscripten, node) and warnings, or
# everything on failure.
configure() {
  mkdir -p build
  local log="build/configure-$1.log"
  if ! cmake --preset "$1" >"$log" 2>&1; then
    cat "$log"
    return 1
  fi
  grep -- '-- pteforge' "$log" || true
  grep -A6 '^CMake Warning' "$log" || true
}

if ((build)); then
  [[ -n "${PTEFORGE_SETUP_DONE:-}" ]] || bash scripts/setup.sh
  configure native-debug
  cmake --build --preset native-debug -j "$jobs" --target pteforge
  configure wasm-release
  cmake --build --preset wasm-release -j "$jobs"
fi
for bin in "$native" "$wasm"; do
  [[ -x "$bin" ]] || { echo "test-wasm: $bin missing (run without --no-build)" >&2; exit 1; }
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# Both CLIs run from the same path, so argv[0] (which CLI11 prints in usage
# lines) is the same string; the WASM .js is executable through its shebang.
prog="$work/bin/pteforge"
mkdir -p "$work/bin"

# Subcommands the CLI has now: the names CLI11 lists under "Subcommands:".
cp "$native" "$prog"
mapfile -t subcommands < <("$prog" --help | sed -n '/^Subcommands:/,$p' | awk 'NR > 1 && NF { print $1 }')

# Reads the command lines (comments and blank lines dropped) into `lines`.
lines=()
while IFS= read -r line || [[ -n "$line" ]]; do
  line="${line%%#*}"
  read -r -a words <<<"$line" || true
  if ((${#words[@]})); then lines+=("${words[*]}"); fi
done <tests/wasm/smoke_commands.txt

# run_all SIDE: runs every line with the binary now at $prog; results go to
# $work/SIDE/N/{stdout,stderr,rc,out/}. $OUT is the same path on both sides
# (moved away after each command) so any path the CLI prints is identical.
run_all() {
  local side="$1" i=0
  for line in "${lines[@]}"; do
    i=$((i + 1))
    local res="$work/$side/$i"
    mkdir -p "$res" "$work/out"
    read -r -a words <<<"${line//\$OUT/$work/out}"
    local rc=0
    (cd "$root" && timeout 120 "$prog" "${words[@]}" </dev/null >"$res/stdout" 2>"$res/stderr") || rc=$?
    echo "$rc" >"$res/rc"
    mv "$work/out" "$res/out"
  done
}

run_all native
cp "$wasm" "$prog"
run_all wasm

passed=0 failed=0 skipped=0 i=0
for line in "${lines[@]}"; do
  i=$((i + 1))
  read -r -a words <<<"$line"
  sub="${words[0]}"
  if [[ "$sub" != -* ]] && ! printf '%s\n' "${subcommands[@]}" | grep -qxF -- "$sub"; then
    echo "SKIP  pteforge $line   (no '$sub' subcommand yet)"
    skipped=$((skipped + 1))
    continue
  fi
  n="$work/native/$i" w="$work/wasm/$i"
  problems=()
  if [[ "$(cat "$n/rc")" == 2 ]]; then
    problems+=("the native CLI rejects this command line as a usage error; fix tests/wasm/smoke_commands.txt")
  fi
  cmp -s "$n/rc" "$w/rc" || problems+=("exit code: native $(cat "$n/rc"), wasm $(cat "$w/rc")")
  cmp -s "$n/stdout" "$w/stdout" || problems+=("stdout differs: $(diff <(cat -A "$n/stdout") <(cat -A "$w/stdout") | head -8 || true)")
  cmp -s "$n/stderr" "$w/stderr" || problems+=("stderr differs: $(diff <(cat -A "$n/stderr") <(cat -A "$w/stderr") | head -8 || true)")
  diff -r "$n/out" "$w/out" >/dev/null 2>&1 || problems+=("output files differ: $(diff -rq "$n/out" "$w/out" | head -5 || true)")
  if ((${#problems[@]})); then
    echo "FAIL  pteforge $line"
    printf '      %s\n' "${problems[@]}"
    failed=$((failed + 1))
  else
    echo "PASS  pteforge $line   (exit $(cat "$n/rc"), $(wc -c <"$n/stdout") bytes stdout, $(find "$n/out" -type f | wc -l) files)"
    passed=$((passed + 1))
  fi
done
echo "wasm smoke: $passed passed, $failed failed, $skipped skipped (native $native vs wasm $wasm)"
((passed > 0)) || { echo "wasm smoke: nothing was compared" >&2; exit 1; }

if ((unit)); then
  if ((build)); then
    configure wasm-debug
    cmake --build --preset wasm-debug -j "$jobs"
  fi
  ctest --preset wasm-debug -j "$jobs"
fi
((failed == 0))
