#!/usr/bin/env bash
# Runs the tests of pteforge, stage by stage, and prints each stage's time:
#   setup      scripts/setup.sh (missing Debian packages, npm ci)
#   native     native-debug build (-Werror) + CTest
#   asan       native-asan build (AddressSanitizer + UBSan) + CTest
#   wasm       wasm-release build (Emscripten 3.1.6) + smoke test: WASM CLI
#              under Node vs native CLI, byte for byte (scripts/test-wasm.sh)
#   node       builds the native CLI and the npm package (wasm-release), then
#              runs the node:test suites in tests/node/
#   browser    the same builds, then the web page's tests in tests/browser/
#              (Debian's chromium, driven by playwright-core; setup installs
#              chromium when this stage is asked for)
# and, only when named:
#   wasm-unit  wasm-debug build (-sASSERTIONS=2) + the doctest suites under Node
# A failing stage does not stop the later ones; the exit code is non-zero when
# any stage failed, and the summary says which.
#
# Usage: scripts/test.sh [STAGE...]   (default: setup native asan wasm node browser)
#   PTEFORGE_JOBS=N  parallel build/test jobs (default: nproc)
set -euo pipefail
cd "$(dirname "$0")/.."

all=(setup native asan wasm node browser)
stages=("$@")
((${#stages[@]})) || stages=("${all[@]}")
jobs="${PTEFORGE_JOBS:-$(nproc)}"
export PTEFORGE_JOBS="$jobs"

# configure PRESET: runs `cmake --preset PRESET`, shows only pteforge's own
# status lines (which flatc, python, Emscripten, node) and warnings, or
# everything on failure.
# PTEFORGE_CI_DEBUG_INFO=N (.ci/run sets 1): native builds get -gN instead of
# -g (-g1: line tables only, enough for sanitizer reports; compiles about 15%
# faster). Kept in the build folder's cache once set.
configure() {
  mkdir -p build
  local log="build/configure-$1.log"
  local extra=()
  if [[ -n "${PTEFORGE_CI_DEBUG_INFO:-}" && "$1" == native-* ]]; then
    extra=("-DCMAKE_CXX_FLAGS_DEBUG=-g${PTEFORGE_CI_DEBUG_INFO}" "-DCMAKE_C_FLAGS_DEBUG=-g${PTEFORGE_CI_DEBUG_INFO}")
  fi
  if ! cmake --preset "$1" "${extra[@]}" >"$log" 2>&1; then
    cat "$log"
    return 1
  fi
  grep -- '-- pteforge' "$log" || true
  grep -A6 '^CMake Warning' "$log" || true
}

stage_setup() {
  if [[ " ${stages[*]} " == *" browser "* ]]; then
    bash scripts/setup.sh --browser
  else
    bash scripts/setup.sh
  fi
}

stage_native() {
  configure native-debug
  cmake --build --preset native-debug -j "$jobs"
  ctest --preset native-debug -j "$jobs"
}

stage_asan() {
  # ASAN_OPTIONS/UBSAN_OPTIONS come with the native-asan test preset.
  configure native-asan
  cmake --build --preset native-asan -j "$jobs"
  ctest --preset native-asan -j "$jobs"
}

stage_wasm() {
  scripts/test-wasm.sh
}

stage_wasm-unit() {
  scripts/test-wasm.sh --unit
}

stage_node() {
  if ! compgen -G "tests/node/*.test.mjs" >/dev/null; then
    echo "no tests/node/*.test.mjs yet"
    return 0
  fi
  # The suites load the npm package that the wasm-release build assembles
  # (build/wasm-release/wasm/package; PTEFORGE_WASM_PRESET=wasm-debug for the
  # -sASSERTIONS=2 -sSAFE_HEAP=1 flavour) and compare its output with the
  # native CLI's, so both are (re)built first; each build is a no-op when current.
  local preset="${PTEFORGE_WASM_PRESET:-wasm-release}"
  configure native-debug
  cmake --build --preset native-debug -j "$jobs" --target pteforge
  configure "$preset"
  cmake --build --preset "$preset" -j "$jobs" --target pteforge_package
  PTEFORGE_WASM_PRESET="$preset" node --test tests/node/
}

stage_browser() {
  # The page (web/) is served with the package the wasm-release build
  # assembles; the tests compare what it shows and downloads with the native
  # CLI. Screenshots land in tests/browser/artifacts/.
  configure native-debug
  cmake --build --preset native-debug -j "$jobs" --target pteforge
  configure wasm-release
  cmake --build --preset wasm-release -j "$jobs" --target pteforge_package
  node --test tests/browser/
}

for s in "${stages[@]}"; do
  if ! declare -F "stage_$s" >/dev/null; then
    echo "usage: scripts/test.sh [setup|native|asan|wasm|node|browser|wasm-unit ...]" >&2
    exit 2
  fi
done
# Setup runs first whatever was asked (it is a no-op when all is there); the
# later stages' scripts then skip it.
if [[ " ${stages[*]} " != *" setup "* ]]; then
  stages=(setup "${stages[@]}")
fi

summary=() failed=0 t_all=$SECONDS
for s in "${stages[@]}"; do
  echo "=== stage $s: start $(date -u +%H:%M:%S)"
  t0=$SECONDS
  # A subshell with its own errexit, outside any `if`, so that `set -e` holds
  # inside the stage and its failure is only recorded here.
  set +e
  (set -e; "stage_$s")
  rc=$?
  set -e
  dt=$((SECONDS - t0))
  if ((rc == 0)); then
    status=ok
  else
    status="FAILED (exit $rc)"
    failed=$((failed + 1))
  fi
  summary+=("$(printf '%-10s %-16s %4d s' "$s" "$status" "$dt")")
  echo "=== stage $s: $status in ${dt} s"
  if [[ "$s" == setup ]]; then
    ((rc == 0)) || break # nothing can build without the tools
    export PTEFORGE_SETUP_DONE=1
  fi
done

echo "=== summary ($(nproc) cores, -j$jobs)"
printf '  %s\n' "${summary[@]}"
echo "  total      $((SECONDS - t_all)) s"
if ((failed)); then
  echo "=== $failed stage(s) FAILED"
  exit 1
fi
echo "=== all stages passed"
