#!/usr/bin/env bash
# Runs every test of pteforge: native build + CTest, the same under
# AddressSanitizer + UBSan, the WASM build smoke test under Node, and the
# node:test suites. Exits non-zero when anything fails.
# Usage: scripts/test.sh [native|asan|wasm|node|all]   (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

stage="${1:-all}"
jobs="$(nproc)"

run_native() {
  cmake --preset native-debug >/dev/null
  cmake --build --preset native-debug -j "$jobs"
  ctest --preset native-debug -j "$jobs"
}

run_asan() {
  cmake --preset native-asan >/dev/null
  cmake --build --preset native-asan -j "$jobs"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --preset native-asan -j "$jobs"
}

run_wasm() {
  if [[ -x scripts/test-wasm.sh ]]; then
    scripts/test-wasm.sh
  fi
}

run_node() {
  if compgen -G "tests/node/*.test.mjs" >/dev/null; then
    node --test tests/node/
  fi
}

case "$stage" in
  native) run_native ;;
  asan) run_asan ;;
  wasm) run_wasm ;;
  node) run_node ;;
  all) run_native; run_asan; run_wasm; run_node ;;
  *) echo "usage: scripts/test.sh [native|asan|wasm|node|all]" >&2; exit 2 ;;
esac
